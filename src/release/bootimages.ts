/**
 * The bootimage streams a release image carries: `release-manifests/0000_50_installer_coreos-bootimages.yaml`,
 * the installer's `coreos-bootimages` ConfigMap. `data.stream` is the default stream's JSON; since 2025
 * `data.streams` is a JSON object, OS stream name (`rhel-9`, `rhel-10`) → stream. Core only: it reads and parses.
 */
import { isDeepStrictEqual } from 'node:util';
import { OsimageError, describe } from '../errors.js';
import { parseYamlDocuments, yamlValue } from '../files/yaml.js';
import type { ImageSource } from '../registry/types.js';
import { extractFile, type ExtractOptions } from './extract.js';
import { tooDeep, tooDeepMessage } from '../json.js';

/** The ConfigMap's file name in release-manifests/ (oc prefixes the installer's `coreos-bootimages.yaml`). */
export const BOOTIMAGES_MANIFEST = '0000_50_installer_coreos-bootimages.yaml';

/** The part of a stream this module reads; the rest is kept as it is. */
export interface StreamDoc {
  stream?: string;
  metadata?: { 'last-modified'?: string; generator?: string };
  architectures?: Record<string, StreamArch>;
}

interface StreamArch {
  artifacts?: Record<string, { release?: string; formats?: Record<string, unknown> }>;
  images?: Record<string, { release?: string; regions?: Record<string, { release?: string }> }>;
  'rhel-coreos-extensions'?: Record<string, { release?: string; regions?: Record<string, unknown> }>;
}

export interface ReleaseBootimages {
  /** `data.stream` exactly as stored. */
  stream: string;
  /** `data.streams` parsed: name → stream (absent before 2025). */
  streams?: Record<string, unknown>;
}

/** One stream picked from the ConfigMap: its name (undefined for `data.stream`), its JSON text and its value. */
export interface PickedStream {
  name: string | undefined;
  text: string;
  doc: StreamDoc;
}

function parseJson(text: string, where: string): unknown {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new OsimageError(`${where} is not valid JSON: ${describe(err)}`, { code: 'invalid-input' });
  }
  // The views and the comparisons walk the streams by recursion: a stream no installer writes is refused here.
  const deep = tooDeep(doc);
  if (deep !== undefined) throw new OsimageError(`${where} ${tooDeepMessage(deep)}`, { code: 'invalid-input' });
  return doc;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ConfigMap's `data.stream` and `data.streams`; `where` names the file in errors. */
export function parseBootimages(bytes: Buffer | string, where: string): ReleaseBootimages {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  const doc = parseYamlDocuments(text, where)[0];
  const value = doc ? yamlValue(doc, text, where) : undefined;
  const data = isObject(value) && isObject(value.data) ? value.data : undefined;
  if (!data || typeof data.stream !== 'string') {
    throw new OsimageError(`${where}: not a coreos-bootimages ConfigMap (it has no data.stream)`, { code: 'invalid-input' });
  }
  if (!isObject(parseJson(data.stream, `${where}: data.stream`))) {
    throw new OsimageError(`${where}: data.stream is not a JSON object`, { code: 'invalid-input' });
  }
  if (data.streams === undefined) return { stream: data.stream };
  const streams = typeof data.streams === 'string' ? parseJson(data.streams, `${where}: data.streams`) : undefined;
  if (!isObject(streams) || !Object.values(streams).every(isObject)) {
    throw new OsimageError(`${where}: data.streams is not a JSON object of streams`, { code: 'invalid-input' });
  }
  return { stream: data.stream, streams };
}

/** The stream names `data.streams` holds, sorted. */
export function streamNames(b: ReleaseBootimages): string[] {
  return Object.keys(b.streams ?? {}).sort();
}

/**
 * `data.stream` (no name), or `data.streams[name]` (2-space JSON, as the installer writes it). A name the
 * ConfigMap lacks is an error listing the names it has.
 */
export function pickStream(b: ReleaseBootimages, name: string | undefined, release: string): PickedStream {
  if (name === undefined) return { name, text: b.stream, doc: JSON.parse(b.stream) as StreamDoc };
  const s = b.streams?.[name];
  if (s === undefined || !Object.hasOwn(b.streams ?? {}, name)) {
    const have = streamNames(b);
    throw new OsimageError(
      `the release image ${release} has no bootimage stream "${name}" in ${BOOTIMAGES_MANIFEST} (${
        have.length ? `it has ${have.join(', ')}` : 'it has data.stream only, no data.streams'
      })`,
    );
  }
  return { name, text: `${JSON.stringify(s, null, 2)}\n`, doc: s as StreamDoc };
}

/** The name in `data.streams` whose stream is `data.stream` (the installer's default), if any. */
export function defaultStreamName(b: ReleaseBootimages): string | undefined {
  const def = JSON.parse(b.stream) as unknown;
  return streamNames(b).find((n) => isDeepStrictEqual(b.streams?.[n], def));
}

/** Every stream to show: each of `data.streams` when there are several, else `data.stream`. */
export function allStreams(b: ReleaseBootimages, release: string): PickedStream[] {
  const names = streamNames(b);
  return names.length ? names.map((n) => pickStream(b, n, release)) : [pickStream(b, undefined, release)];
}

export interface ArchSummary {
  arch: string;
  /** The builds the arch's artifacts and images name (one in every stream the installer wrote). */
  builds: string[];
  platforms: string[];
  /** Region counts by image kind: `aws` → 27, `aliyun` → 12 (images and extensions with regions). */
  regions: Record<string, number>;
}

/** Per arch (sorted): builds, artifact platforms and region counts. */
export function summarizeStream(doc: StreamDoc): ArchSummary[] {
  return Object.entries(doc.architectures ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([arch, a]) => ({
      arch,
      builds: archBuilds(a),
      platforms: Object.keys(a.artifacts ?? {}).sort(),
      regions: Object.fromEntries(
        [...Object.entries(a.images ?? {}), ...Object.entries(a['rhel-coreos-extensions'] ?? {})]
          .filter(([, v]) => isObject(v?.regions))
          .map(([k, v]) => [k, Object.keys(v.regions ?? {}).length])
          .sort(([x], [y]) => ((x as string) < (y as string) ? -1 : 1)),
      ),
    }));
}

/** The builds an arch's artifacts name, else its images' (an arch known only by AMIs), sorted and unique. */
function archBuilds(a: StreamArch): string[] {
  const of = (xs: Array<{ release?: string } | undefined>) => xs.flatMap((x) => (typeof x?.release === 'string' ? [x.release] : []));
  let builds = of(Object.values(a.artifacts ?? {}));
  if (builds.length === 0) {
    builds = Object.values(a.images ?? {}).flatMap((i) => [...of([i]), ...of(Object.values(i?.regions ?? {}))]);
  }
  return [...new Set(builds)].sort();
}

/** The builds the stream names for `arch`, or undefined when it has no such arch. */
export function buildsForArch(doc: StreamDoc, arch: string): string[] | undefined {
  const a = doc.architectures?.[arch];
  return a === undefined ? undefined : archBuilds(a);
}

/**
 * The release's coreos-bootimages: the first layer, top down, that has the file (whiteouts honoured). A release
 * without it (before 4.8) is an error with the message users see.
 */
export async function readReleaseBootimages(source: ImageSource, opts: ExtractOptions = {}): Promise<ReleaseBootimages> {
  const { file } = await extractFile(source, BOOTIMAGES_MANIFEST, opts);
  if (!file) throw new OsimageError(`release image did not contain ${BOOTIMAGES_MANIFEST}`);
  return parseBootimages(file.data, `${source.name} (release-manifests/${BOOTIMAGES_MANIFEST})`);
}
