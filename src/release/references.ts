/**
 * The metadata of a release payload beside its `image-references` (the ImageStream model is in
 * src/oci/image-stream.ts): `release-metadata` (Cincinnati metadata: version, previous, next, metadata) and
 * the component versions in the images' annotations.
 */
import type Semver from 'semver';
import { type Warning, describe } from '../errors.js';
import { lazyRequire } from '../lazy.js';
import type { ImageStream } from '../oci/image-stream.js';
import { tooDeep, tooDeepMessage } from '../json.js';

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

const semverLib = lazyRequire<typeof Semver>('semver');

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
    if (!VERSION_KEY.test(k)) throw new Error(`the version name "${k}" must only be ASCII alphanumerics and internal hyphens`);
    const parsed = semverLib().parse(v);
    if (!parsed) throw new Error(`the version pair "${pair}" must have a valid semantic version`);
    out.set(k, { version: parsed.version, displayName: names.get(k) ?? '' });
  }
  return out;
}

/**
 * Component versions across the tags' annotations. kubectl counts only from the `cli` and `cli-artifacts`
 * images. Several versions of one component give a warning and the lowest (as a string) is kept.
 */
export function componentVersions(is: ImageStream): { versions: Map<string, ComponentVersion>; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const versions = new Map<string, Set<string>>();
  const displays = new Map<string, Set<string>>();
  for (const tag of is.spec.tags) {
    const label = tag.annotations?.[ANNOTATION_VERSIONS];
    if (label === undefined) continue;
    let all: Map<string, ComponentVersion>;
    try {
      all = parseComponentVersions(label, tag.annotations?.[ANNOTATION_DISPLAY_NAMES] ?? '');
    } catch (err) {
      warnings.push({
        code: 'invalid-version-annotation',
        message: `the referenced image ${tag.name} had an invalid version annotation: ${(err as Error).message}`,
      });
      continue;
    }
    for (const [k, v] of all) {
      if (k === 'kubectl' && tag.name !== 'cli' && tag.name !== 'cli-artifacts') continue;
      (versions.get(k) ?? versions.set(k, new Set()).get(k)!).add(v.version);
      (displays.get(k) ?? displays.set(k, new Set()).get(k)!).add(v.displayName);
    }
  }
  const out = new Map<string, ComponentVersion>();
  const multiples: string[] = [];
  for (const k of [...versions.keys()].sort()) {
    const vs = [...versions.get(k)!].sort();
    const ds = [...displays.get(k)!].sort();
    if (vs.length > 1 || ds.length > 1) multiples.push(k);
    out.set(k, { version: vs[0]!, displayName: ds.find((d) => d !== '') ?? '' });
  }
  if (multiples.length > 0)
    warnings.push({
      code: 'multiple-versions',
      message: `multiple versions or display names reported for the following component(s): ${multiples.join(',  ')}`,
    });
  return { versions: out, warnings };
}

/** Versions sorted as semver when every one parses, else as given. */
export function sortSemver(versions: string[]): string[] {
  if (!versions.every((v) => semverLib().valid(v))) return [...versions];
  return [...versions].sort(semverLib().compare).map((v) => semverLib().parse(v)!.version);
}
