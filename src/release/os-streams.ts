/**
 * The OS image streams a release ships, found the way the machine-config-operator finds them (2026,
 * `pkg/osimagestream`): candidate tags of image-references by name or source location, then each candidate's
 * config labels, grouped per stream. Pure over an ImageStream and a label fetcher; it never prints.
 */
import { OsimageError } from '../errors.js';
import { dockerImage, type ImageStream, type TagReference } from '../oci/image-stream.js';
import { streamTags } from '../oci/os-tags.js';

/**
 * A candidate's name: `rhel-coreos`, `rhel-coreos-10-extensions`, `stream-coreos`, … — the MCO's pattern
 * `^(rhel|stream)[a-zA-Z0-9.-]*-coreos[a-zA-Z0-9.-]*(-extensions[a-zA-Z0-9.-]*)?$`, whose groups overlap (every
 * part may hold `-`), so a regex engine that backtracks takes cubic time on a hostile tag name. The same
 * language, checked in one pass: the prefix, only those characters, and `-coreos` after the prefix.
 */
function isCandidateName(name: string): boolean {
  const prefix = name.startsWith('rhel') ? 4 : name.startsWith('stream') ? 6 : -1;
  return prefix >= 0 && /^[a-zA-Z0-9.-]*$/.test(name) && name.indexOf('-coreos', prefix) >= 0;
}
const SOURCE_LOCATION = 'io.openshift.build.source-location';
const OS_REPOSITORY = 'github.com/openshift/os';

export const LABEL_STREAM_CLASS = 'io.openshift.os.streamclass';
export const LABEL_BOOTC = 'containers.bootc';
export const LABEL_EXTENSIONS = 'io.openshift.os.extensions';

/** How many image configs are read at once. */
export const CONFIG_CONCURRENCY = 4;

export interface OsStream {
  name: string;
  osImage: string;
  osTag: string;
  extensionsImage: string;
  extensionsTag: string;
}

export interface DroppedStream {
  name: string;
  /** The half the release lacks. */
  missing: 'os' | 'extensions';
  /** The tag of the half it has. */
  tag: string;
}

export interface OsStreams {
  defaultStream: string | null;
  streams: OsStream[];
  /** Streams with only one of their two images: the operator ignores them. */
  dropped: DroppedStream[];
  /** Why the default is null, or a second image claiming a stream's half (the first tag, by name, wins). */
  notes: string[];
}

/** A candidate image's config labels (empty when it has none). */
export type LabelFetcher = (pullspec: string, tag: string) => Promise<Record<string, string>>;

/** The tags the operator looks at: a DockerImage whose name matches, or that was built from openshift/os. */
export function candidateTags(is: ImageStream): Array<{ tag: TagReference; pullspec: string }> {
  const out: Array<{ tag: TagReference; pullspec: string }> = [];
  for (const tag of is.spec.tags ?? []) {
    const pullspec = dockerImage(tag);
    if (!pullspec) continue;
    const source = tag.annotations?.[SOURCE_LOCATION] ?? '';
    if (isCandidateName(tag.name) || source.includes(OS_REPOSITORY)) out.push({ tag, pullspec });
  }
  return out;
}

/** What an image's labels make it: part of a stream as its OS or extensions image, or nothing. */
export function classify(labels: Record<string, string>): { stream: string; kind: 'os' | 'extensions' } | undefined {
  const stream = labels[LABEL_STREAM_CLASS];
  if (!stream) return undefined;
  const bootc = labels[LABEL_BOOTC];
  if (bootc === 'true' || bootc === '1') return { stream, kind: 'os' };
  if (labels[LABEL_EXTENSIONS] === 'true') return { stream, kind: 'extensions' };
  return undefined;
}

/** `4.21.0` → 4, `5.0.0-ec.1` → 5; undefined when the version does not start with a number. */
function majorVersion(version: string | undefined): number | undefined {
  const m = /^(\d+)\./.exec(version ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * The default stream: a single stream; else OKD (centos-10 and no rhel-*) → centos-10; OCP 4.x → rhel-9,
 * 5 and later → rhel-10 (by the release's own version). A default not among the streams is null, with the reason.
 */
export function defaultStreamOf(names: string[], version: string | undefined): { name: string | null; note?: string } {
  if (names.length === 0) return { name: null, note: 'the release ships no complete OS image stream' };
  if (names.length === 1) return { name: names[0]! };
  let wanted: string | undefined;
  if (names.includes('centos-10') && !names.some((n) => n.startsWith('rhel-'))) wanted = 'centos-10';
  else {
    const major = majorVersion(version);
    if (major === undefined) {
      return { name: null, note: `the release's version ${JSON.stringify(version ?? '')} does not say which stream is the default` };
    }
    wanted = major <= 4 ? 'rhel-9' : 'rhel-10';
  }
  if (names.includes(wanted)) return { name: wanted };
  return { name: null, note: `the default stream for version ${version ?? 'unknown'} would be ${wanted}, which the release does not ship` };
}

/** Run `f` over `items`, at most `limit` at a time, results in the items' order. */
async function mapBounded<T, R>(items: T[], limit: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * The streams of a release. `version` is the release's own version (image-references' `metadata.name` by
 * default). Labels are read for every candidate, `concurrency` at a time; a read that fails fails the whole.
 */
export async function discoverOsStreams(
  is: ImageStream,
  fetchLabels: LabelFetcher,
  opts: { version?: string | undefined; concurrency?: number } = {},
): Promise<OsStreams> {
  const candidates = candidateTags(is);
  const labels = await mapBounded(candidates, opts.concurrency ?? CONFIG_CONCURRENCY, (c) => fetchLabels(c.pullspec, c.tag.name));
  const notes: string[] = [];
  const halves = new Map<string, { os?: { tag: string; image: string }; extensions?: { tag: string; image: string } }>();
  candidates.forEach((c, i) => {
    const kind = classify(labels[i]!);
    if (!kind) return;
    const entry = halves.get(kind.stream) ?? {};
    const had = entry[kind.kind];
    if (had) {
      notes.push(`tags ${had.tag} and ${c.tag.name} are both the ${kind.kind} image of stream ${kind.stream}; ${had.tag} is used`);
      return;
    }
    entry[kind.kind] = { tag: c.tag.name, image: c.pullspec };
    halves.set(kind.stream, entry);
  });
  const streams: OsStream[] = [];
  const dropped: DroppedStream[] = [];
  for (const [name, h] of [...halves].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (h.os && h.extensions) {
      streams.push({ name, osImage: h.os.image, osTag: h.os.tag, extensionsImage: h.extensions.image, extensionsTag: h.extensions.tag });
    } else if (h.os) dropped.push({ name, missing: 'extensions', tag: h.os.tag });
    else if (h.extensions) dropped.push({ name, missing: 'os', tag: h.extensions.tag });
  }
  const version = opts.version ?? is.metadata.name;
  const def = defaultStreamOf(
    streams.map((s) => s.name),
    version,
  );
  if (def.note) notes.push(def.note);
  return { defaultStream: def.name, streams, dropped, notes };
}

/**
 * OS stream `name` found by its tag names alone, for when the images' labels cannot be read (an archive that
 * holds only the release image): `rhel-N` is `rhel-coreos-N` and its extensions, and the version's default stream
 * (rhel-9 for 4.x, rhel-10 from 5) may also be the unnumbered `rhel-coreos`. Undefined when the tags are not there.
 */
export function osStreamByTagNames(is: ImageStream, name: string): { stream: OsStream; isDefault: boolean } | undefined {
  const major = majorVersion(is.metadata.name);
  const isDefault = major !== undefined && name === (major <= 4 ? 'rhel-9' : 'rhel-10');
  const byName = new Map((is.spec.tags ?? []).flatMap((t) => (dockerImage(t) ? [[t.name, dockerImage(t)!] as const] : [])));
  for (const tags of [streamTags(name), isDefault ? streamTags() : undefined]) {
    if (!tags) continue;
    const os = byName.get(tags.os);
    const ext = byName.get(tags.extensions);
    if (os && ext) {
      return { stream: { name, osImage: os, osTag: tags.os, extensionsImage: ext, extensionsTag: tags.extensions }, isDefault };
    }
  }
  return undefined;
}

/** The stream named `name`, or an error listing those there are. */
export function findStream(found: OsStreams, name: string, release: string): OsStream {
  const s = found.streams.find((x) => x.name === name);
  if (s) return s;
  const have = found.streams.map((x) => x.name);
  throw new OsimageError(
    `the release image ${release} ships no OS image stream "${name}" (${have.length ? `it has ${have.join(', ')}` : 'it has none'})`,
  );
}
