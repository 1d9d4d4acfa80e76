/**
 * The metadata of a release payload beside its `image-references` (the ImageStream model is in
 * src/oci/image-stream.ts): `release-metadata` (Cincinnati metadata: version, previous, next, metadata) and
 * the component versions in the images' annotations.
 */
import { type Warning, describe } from '../errors.js';
import type { ImageStream, TagReference } from '../oci/image-stream.js';
import { streamOfTag } from '../oci/os-tags.js';
import { tooDeep, tooDeepMessage } from '../json.js';
import { compare as compareSemver, format as formatSemver, parse as parseSemver, type Semver } from '../golang/semver.js';

export interface CincinnatiMetadata {
  kind?: string;
  version: string;
  previous?: string[] | null;
  next?: string[] | null;
  metadata?: Record<string, unknown> | null;
}

export const ANNOTATION_VERSIONS = 'io.openshift.build.versions';
export const ANNOTATION_DISPLAY_NAMES = 'io.openshift.build.version-display-names';
export const ANNOTATION_SOURCE_LOCATION = 'io.openshift.build.source-location';
export const ANNOTATION_COMMIT = 'io.openshift.build.commit.id';

/**
 * Parse `release-metadata`. Messages start `invalid release metadata:` (oc's words), then `source` when given
 * (`quay.io/x:4.16 (release-manifests/release-metadata)`), then what is wrong.
 */
export function parseReleaseMetadata(bytes: Buffer, source?: string): CincinnatiMetadata {
  const invalid = (reason: string) => new Error(`invalid release metadata: ${source === undefined ? '' : `${source}: `}${reason}`);
  let m: unknown;
  try {
    m = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw invalid(describe(err));
  }
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw invalid('not a JSON object');
  // Before anything walks it: the text view and JSON.stringify (`-o json`) recurse.
  const deep = tooDeep(m);
  if (deep !== undefined) throw invalid(`release-metadata ${tooDeepMessage(deep)}`);
  const md = m as Record<string, unknown>;
  if (md.version !== undefined && typeof md.version !== 'string') throw invalid('version is not a string');
  for (const k of ['previous', 'next'] as const) {
    if (md[k] != null && !(Array.isArray(md[k]) && (md[k] as unknown[]).every((v) => typeof v === 'string'))) {
      throw invalid(`${k} is not a list of strings`);
    }
  }
  if (md.metadata != null && (typeof md.metadata !== 'object' || Array.isArray(md.metadata))) throw invalid('metadata is not an object');
  return { ...(md as unknown as CincinnatiMetadata), version: (md.version as string | undefined) ?? '' };
}

export interface ComponentVersion {
  version: string;
  displayName: string;
}

const VERSION_KEY = /^[a-z0-9]+[-a-z0-9]*[a-z0-9]+$/;
const DISPLAY_NAME = /^[a-zA-Z0-9\-:\s()]+$/;

/** `kubernetes=1.26.1,machine-os=413.92…` (+ display names) → map; build metadata is dropped from versions. */
export function parseComponentVersions(label: string, displayNames = ''): Map<string, ComponentVersion> {
  const out = new Map<string, ComponentVersion>();
  if (label.trim() === '') return out;
  const names = new Map<string, string>();
  if (displayNames.trim() !== '') {
    for (const raw of displayNames.split(',')) {
      const pair = raw.trim();
      const eq = pair.indexOf('=');
      if (eq < 0) throw new Error(`the display name pair "${pair}" must be NAME=DISPLAYNAME`);
      const [k, v] = [pair.slice(0, eq), pair.slice(eq + 1)];
      if (k.length < 2) throw new Error(`the version name ${JSON.stringify(k)} must be at least 2 characters`);
      if (!VERSION_KEY.test(k)) throw new Error(`the version name "${k}" must only be ASCII alphanumerics and internal hyphens`);
      if (!DISPLAY_NAME.test(v)) throw new Error(`the display name "${v}" must only be alphanumerics, spaces, and symbols in [():-]`);
      names.set(k, v);
    }
  }
  for (const raw of label.trim().split(',')) {
    const pair = raw.trim();
    const eq = pair.indexOf('=');
    if (eq < 0) throw new Error(`the version pair "${pair}" must be NAME=VERSION`);
    const [k, v] = [pair.slice(0, eq), pair.slice(eq + 1)];
    if (k.length < 2) throw new Error(`the version name ${JSON.stringify(k)} must be at least 2 characters`);
    if (!VERSION_KEY.test(k)) throw new Error(`the version name "${k}" must only be ASCII alphanumerics and internal hyphens`);
    // oc's parser and its words (src/golang/semver.ts): `v4.13.1` is no version.
    const parsed = parseSemver(v);
    if (parsed.error !== undefined)
      throw new Error(`the version pair ${JSON.stringify(pair)} must have a valid semantic version: ${parsed.error}`);
    out.set(k, { version: formatSemver(parsed.version, { build: false }), displayName: names.get(k) ?? '' });
  }
  return out;
}

/** An image's claim: the version (and display name) its annotation gives a component. */
export interface VersionClaim {
  version: string;
  displayName: string;
  /** The tag whose annotation made the claim. */
  tag: string;
}

/** The component that carries the OS image's build id. */
export const MACHINE_OS = 'machine-os';

/** The key of the default OS stream (the unsuffixed and legacy OS tags, and every image that is no OS image). */
export const DEFAULT_STREAM = '';

/**
 * The OS stream whose version a tag's annotations give: a stream-suffixed OS tag's stream (`rhel-coreos-10`,
 * `rhel-coreos-10-extensions` → `rhel-10`, from src/oci/os-tags.ts), else the default stream. Since a
 * release may ship two OS streams (late 2025), each stream has its own `machine-os` (and other component)
 * versions; within one stream they must agree.
 */
export function versionStream(tag: string): string {
  return streamOfTag(tag) ?? DEFAULT_STREAM;
}

/** How a stream's component is named in views and messages: `machine-os`, `machine-os (rhel-10)`. */
export function versionLabel(component: string, stream: string): string {
  return stream === DEFAULT_STREAM ? component : `${component} (${stream})`;
}

/**
 * Every component version the tags' `io.openshift.build.versions` annotations claim, grouped by OS stream
 * ({@link versionStream}) and then component, in tag order. `displayNames` also reads
 * `io.openshift.build.version-display-names`. A tag whose annotations do not parse goes to `invalid`.
 */
export function versionClaims(
  tags: readonly TagReference[],
  opts: { displayNames: boolean; invalid: (tag: TagReference, err: Error) => void },
): Map<string, Map<string, VersionClaim[]>> {
  const out = new Map<string, Map<string, VersionClaim[]>>();
  for (const tag of tags) {
    const label = tag.annotations?.[ANNOTATION_VERSIONS];
    if (label === undefined) continue;
    let all: Map<string, ComponentVersion>;
    try {
      all = parseComponentVersions(label, opts.displayNames ? (tag.annotations?.[ANNOTATION_DISPLAY_NAMES] ?? '') : '');
    } catch (err) {
      opts.invalid(tag, err as Error);
      continue;
    }
    const stream = versionStream(tag.name);
    const components = out.get(stream) ?? out.set(stream, new Map()).get(stream)!;
    for (const [k, v] of all) (components.get(k) ?? components.set(k, []).get(k)!).push({ ...v, tag: tag.name });
  }
  return out;
}

export interface ComponentVersions {
  /** The default stream's versions (every component of a release with one OS stream), by component. */
  versions: Map<string, ComponentVersion>;
  /** The other OS streams' versions (`rhel-10` → `machine-os` → …), streams and components sorted. */
  streams: Map<string, Map<string, ComponentVersion>>;
  warnings: Warning[];
}

/**
 * Component versions across the tags' annotations, per OS stream. kubectl counts only from the `cli` and
 * `cli-artifacts` images. Several versions of one component within one stream give a warning and the
 * lowest (as a string) is kept; two streams with different versions are no conflict.
 */
export function componentVersions(is: ImageStream): ComponentVersions {
  const warnings: Warning[] = [];
  const claims = versionClaims(is.spec.tags, {
    displayNames: true,
    invalid: (tag, err) =>
      warnings.push({
        code: 'invalid-version-annotation',
        message: `the referenced image ${tag.name} had an invalid version annotation: ${err.message}`,
      }),
  });
  const multiples: string[] = [];
  const byStream = new Map<string, Map<string, ComponentVersion>>();
  for (const stream of [...claims.keys()].sort()) {
    const components = claims.get(stream)!;
    const out = new Map<string, ComponentVersion>();
    for (const k of [...components.keys()].sort()) {
      const counted = components.get(k)!.filter((c) => k !== 'kubectl' || c.tag === 'cli' || c.tag === 'cli-artifacts');
      if (counted.length === 0) continue;
      const vs = [...new Set(counted.map((c) => c.version))].sort();
      const ds = [...new Set(counted.map((c) => c.displayName))].sort();
      if (vs.length > 1 || ds.length > 1) multiples.push(versionLabel(k, stream));
      out.set(k, { version: vs[0]!, displayName: ds.find((d) => d !== '') ?? '' });
    }
    if (out.size > 0) byStream.set(stream, out);
  }
  if (multiples.length > 0)
    warnings.push({
      code: 'multiple-versions',
      message: `multiple versions or display names reported for the following component(s): ${multiples.join(',  ')}`,
    });
  const versions = byStream.get(DEFAULT_STREAM) ?? new Map<string, ComponentVersion>();
  byStream.delete(DEFAULT_STREAM);
  return { versions, streams: byStream, warnings };
}

/** One line of `Component Versions`: a component of one stream ({@link DEFAULT_STREAM} for the default). */
export interface StreamVersion extends ComponentVersion {
  component: string;
  stream: string;
}

/**
 * The default stream's versions and the other streams' as one list, sorted by component and then stream (the
 * default first): `machine-os`, `machine-os (rhel-10)`.
 */
export function streamVersionList(
  versions: ReadonlyMap<string, ComponentVersion>,
  streams: ReadonlyMap<string, ReadonlyMap<string, ComponentVersion>>,
): StreamVersion[] {
  const out: StreamVersion[] = [];
  for (const [stream, vs] of [[DEFAULT_STREAM, versions] as const, ...streams]) {
    for (const [component, v] of vs) out.push({ component, stream, ...v });
  }
  return out.sort(byComponentAndStream);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Sorts by component, then stream (the default stream first). */
export function byComponentAndStream(
  a: Omit<StreamVersion, keyof ComponentVersion>,
  b: Omit<StreamVersion, keyof ComponentVersion>,
): number {
  return cmp(a.component, b.component) || cmp(a.stream, b.stream);
}

/** Versions sorted as semver when every one parses, else as given. */
export function sortSemver(versions: string[]): string[] {
  const parsed: Semver[] = [];
  for (const v of versions) {
    const p = parseSemver(v);
    if (p.error !== undefined) return [...versions];
    parsed.push(p.version);
  }
  return parsed.sort(compareSemver).map((v) => formatSemver(v));
}
