/**
 * THE stream generator: meta.json files of one or more arches → stream metadata, as `plume cosa2stream`
 * builds it (coreos-assembler `generate-release-meta` + stream-metadata-go `ToStreamArchitectures`), for
 * builds of every era. Pure: no I/O; the caller reads the metas (collect.ts) and writes the result (format.ts).
 */
import { OsimageError, type Warning } from '../errors.js';
import type { Artifact, BuildMeta } from '../rhcos/meta.js';
import { placeImage } from './artifacts.js';
import { type MetaExtras, readExtras } from './extras.js';
import type { PlatformArtifacts, RegionImage, RegionObject, StreamArch, StreamArtifact, StreamJson } from './types.js';
import { redactUrl } from '../http/redact.js';

/** One arch's build as read from the release browser. */
export interface StreamInput {
  arch: string;
  /** The build id builds.json lists (the stream's `release` is the meta's `buildid`). */
  build: string;
  meta: BuildMeta;
  /** The build's folder, with a trailing slash: image paths resolve against it. */
  buildDir: string;
  /** For messages; defaults to `<buildDir>meta.json`. */
  metaUrl?: string;
  /** The release browser's base URL the build folder sits under (needed for `locationBase`). */
  baseUrl?: string;
}

export interface GenerateOptions {
  /** The `stream` field. */
  name: string;
  /** `metadata.generator`, e.g. `osimage 0.2.0`; left out when undefined. */
  generator?: string;
  /** Add `signature` (location + `.sig`) to every artifact. Default false, as the installer's files today. */
  signatures?: boolean;
  /** Write locations against this URL instead of each input's `baseUrl` (a public URL for a mirror). */
  locationBase?: string;
  /** builds.json `timestamp`: `last-modified` when no meta has `coreos-assembler.build-timestamp`. */
  buildsTimestamp?: string;
}

export interface GenerateResult {
  stream: StreamJson;
  warnings: Warning[];
}

export function generateStream(inputs: readonly StreamInput[], opts: GenerateOptions): GenerateResult {
  if (inputs.length === 0) throw new OsimageError('no architectures to write a stream for');
  const warnings: Warning[] = [];
  const unknown: string[] = [];
  const architectures: Record<string, StreamArch> = {};
  const extras: MetaExtras[] = [];
  for (const input of inputs) {
    if (architectures[input.arch]) throw new OsimageError(`architecture ${input.arch} given twice`, { code: 'usage' });
    const metaUrl = input.metaUrl ?? `${input.buildDir}meta.json`;
    const x = readExtras(input.meta.raw, metaUrl);
    extras.push(x);
    const arch = archOf(input, x, opts, warnings, unknown);
    architectures[input.arch] = arch;
  }
  if (unknown.length > 0) {
    warnings.push({
      code: 'stream-unknown-image',
      message: `left out of the stream: image keys osimage does not know as bootimages: ${unknown.join(', ')}`,
    });
  }
  const metadata: StreamJson['metadata'] = { 'last-modified': lastModified(extras, opts.buildsTimestamp, inputs) };
  if (opts.generator !== undefined) metadata.generator = opts.generator;
  return { stream: { stream: opts.name, metadata, architectures }, warnings };
}

/** The newest build-timestamp, else builds.json's timestamp, else the newest ostree-timestamp; never now. */
function lastModified(extras: MetaExtras[], buildsTimestamp: string | undefined, inputs: readonly StreamInput[]): string {
  const newest = (vs: (string | undefined)[]) =>
    vs
      .filter((v): v is string => v !== undefined)
      .sort()
      .at(-1);
  const built = newest(extras.map((x) => x.buildTimestamp));
  if (built) return built;
  if (buildsTimestamp !== undefined) {
    const d = new Date(buildsTimestamp);
    if (!Number.isNaN(d.getTime())) return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  const ostree = newest(extras.map((x) => x.ostreeTimestamp));
  if (ostree) return ostree;
  throw new OsimageError(
    `cannot date the stream: no coreos-assembler.build-timestamp or ostree-timestamp in the meta.json of ${inputs.map((i) => `${i.arch} ${i.build}`).join(', ')} and no timestamp in builds.json`,
  );
}

function archOf(input: StreamInput, x: MetaExtras, opts: GenerateOptions, warnings: Warning[], unknown: string[]): StreamArch {
  const { meta, arch } = input;
  const release = meta.buildid;
  const artifacts: Record<string, PlatformArtifacts> = {};
  const platform = (name: string) => (artifacts[name] ??= { release, formats: {} });
  for (const [name, a] of Object.entries(meta.images)) {
    const place = placeImage(name, a, release, arch);
    if (place.kind === 'skip') continue;
    if (place.kind === 'unknown') {
      unknown.push(`${name} (${arch})`);
      continue;
    }
    if (place.kind === 'unnamed') {
      warnings.push({
        code: 'stream-unknown-image',
        message: `left out of the stream: ${arch} image ${name}: file name ${place.path} does not follow <name>-${release}-${name}.[${arch}.]<format>`,
      });
      continue;
    }
    const formats = platform(place.platform).formats;
    (formats[place.format] ??= {})[place.key] = artifactOf(a, input, opts);
  }
  const images: StreamArch['images'] = {};
  const regions = <T>(entries: [string, T][]) => Object.fromEntries(entries);
  const amis = Object.entries(meta.amis);
  const hasAws = amis.length > 0 || artifacts.aws !== undefined;
  if (amis.length > 0) {
    platform('aws');
    images.aws = { regions: regions(amis.map(([r, image]): [string, RegionImage] => [r, { release, image }])) };
  }
  if (x.aliyun) {
    platform('aliyun');
    images.aliyun = { regions: regions(x.aliyun.map((e): [string, RegionImage] => [e.region, { release, image: e.image }])) };
  }
  if (x.gcp) {
    platform('gcp');
    images.gcp = { release, project: x.gcp.project, ...(x.gcp.family ? { family: x.gcp.family } : {}), name: x.gcp.image };
  }
  for (const cloud of ['ibmcloud', 'powervs'] as const) {
    const objs = x[cloud];
    if (!objs) continue;
    platform(cloud);
    images[cloud] = {
      regions: regions(objs.map((e): [string, RegionObject] => [e.region, { release, object: e.object, bucket: e.bucket, url: e.url }])),
    };
  }
  if (x.kubevirt) {
    platform('kubevirt');
    images.kubevirt = { release, image: x.kubevirt.image, 'digest-ref': x.kubevirt.digestRef };
  }
  platform('metal');
  const out: StreamArch = { artifacts, images };
  if (x.azure || x.awsWinli) {
    // As stream-metadata-go: the extensions exist when the meta has them; each only with its cloud's media.
    const ext: NonNullable<StreamArch['rhel-coreos-extensions']> = {};
    if (x.awsWinli && hasAws) {
      ext['aws-winli'] = { regions: regions(x.awsWinli.map((e): [string, RegionImage] => [e.region, { release, image: e.image }])) };
    }
    if (x.azure && artifacts.azure) ext['azure-disk'] = { release, url: x.azure.url };
    out['rhel-coreos-extensions'] = ext;
  }
  return out;
}

function artifactOf(a: Artifact, input: StreamInput, opts: GenerateOptions): StreamArtifact {
  const location = locationOf(a.path, input, opts.locationBase);
  const out: StreamArtifact = { location };
  if (opts.signatures) out.signature = `${location}.sig`;
  if (a.sha256) out.sha256 = a.sha256;
  if (a['uncompressed-sha256']) out['uncompressed-sha256'] = a['uncompressed-sha256'];
  return out;
}

/** The artifact's URL: against its build folder, or with `locationBase` in place of the release browser's base. */
export function locationOf(path: string, input: Pick<StreamInput, 'buildDir' | 'baseUrl'>, locationBase?: string): string {
  // meta.json names each artifact by its file name in the build folder. A path that resolves elsewhere (absolute,
  // protocol-relative, another scheme, `..`) would point a stream's readers at a file the build never shipped.
  const dir = input.buildDir.endsWith('/') ? input.buildDir : `${input.buildDir}/`;
  let url: string;
  try {
    url = new URL(path, dir).toString();
  } catch {
    url = '';
  }
  if (path === '' || path.includes('\\') || /(^|\/)\.\.?(\/|$)/.test(path) || !url.startsWith(dir) || url.length === dir.length) {
    throw new OsimageError(`${redactUrl(dir)}meta.json: artifact path ${JSON.stringify(path)} is not a file in the build folder`, {
      code: 'invalid-input',
    });
  }
  if (locationBase === undefined) return url;
  const base = input.baseUrl?.replace(/\/+$/, '');
  if (base === undefined || !url.startsWith(`${base}/`)) {
    throw new OsimageError(`--location-base: ${url} is not under the release browser's base URL ${base ?? '(unknown)'}`);
  }
  return `${locationBase.replace(/\/+$/, '')}${url.slice(base.length)}`;
}
