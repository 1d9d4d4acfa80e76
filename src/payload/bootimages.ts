/**
 * `coreos-bootimages`: the bootimage carried in the payload as a ConfigMap whose `data.stream` is the
 * build's stream metadata (coreos/stream-metadata-go shape) as JSON, for one architecture.
 */
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Artifact, BuildMeta } from '../rhcos/meta.js';
import type { ResolvedBuild } from '../rhcos/resolve.js';
import { editFileAtomic } from '../files/edit.js';
import { PayloadError } from './errors.js';
import { toYaml } from './machineconfig.js';
import { MCO_NAMESPACE } from './osimageurl.js';
import { readTextIfExists, requireDir } from '../files/read.js';
import { parseYamlDocuments, yamlValue } from '../files/yaml.js';
import { checkConfigMapFileName } from './write.js';

export const BOOTIMAGES_CONFIGMAP = 'coreos-bootimages';
/** The installer's manifest name; oc prefixes it to `0000_50_installer_coreos-bootimages.yaml`. */
export const DEFAULT_BOOTIMAGES_FILE = 'coreos-bootimages.yaml';
export const RELEASE_VERSION_PLACEHOLDER = '0.0.1-snapshot';
export const BOOTIMAGES_ANNOTATIONS = {
  'include.release.openshift.io/ibm-cloud-managed': 'true',
  'include.release.openshift.io/self-managed-high-availability': 'true',
  'include.release.openshift.io/single-node-developer': 'true',
};

export interface StreamArtifact {
  location: string;
  sha256?: string;
  'uncompressed-sha256'?: string;
}

export interface StreamMetadata {
  stream: string;
  metadata: { 'last-modified': string; generator: string };
  architectures: Record<
    string,
    {
      artifacts: Record<string, { release: string; formats: Record<string, Record<string, StreamArtifact>> }>;
      images?: { aws?: { regions: Record<string, { release: string; image: string }> } };
    }
  >;
}

/** meta.json image name → stream platform, format and file key, where the name alone decides. */
const KNOWN: Record<string, { platform: string; format?: string; key: string }> = {
  'live-iso': { platform: 'metal', format: 'iso', key: 'disk' },
  'live-kernel': { platform: 'metal', format: 'pxe', key: 'kernel' },
  'live-initramfs': { platform: 'metal', format: 'pxe', key: 'initramfs' },
  'live-rootfs': { platform: 'metal', format: 'pxe', key: 'rootfs' },
  metal4k: { platform: 'metal', format: '4k.raw.gz', key: 'disk' },
  metal: { platform: 'metal', key: 'disk' },
};
/** Artifacts that are not bootimages. */
const NOT_BOOTIMAGES = new Set(['ostree', 'oscontainer', 'extensions', 'legacy-oscontainer']);
const COMPRESSION = ['gz', 'xz', 'zst', 'bz2'];

/** The format key from a file name: its last extension, with the one before when that is a compression. */
export function formatOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const parts = base.split('.');
  if (parts.length < 2) return 'raw';
  const last = parts[parts.length - 1]!;
  if (COMPRESSION.includes(last) && parts.length >= 3) return `${parts[parts.length - 2]}.${last}`;
  return last;
}

/** Stream name from a channel: `rhcos-4.12` stays, `4.16-9.4/builds` → `rhcos-4.16-9.4`, `maipo` → `rhcos-maipo`. */
export function streamNameFor(channel: string): string {
  const c = channel.replace(/\/builds$/, '').replace(/\//g, '-');
  return c.startsWith('rhcos') ? c : `rhcos-${c}`;
}

/** RFC 3339 seconds in UTC, or undefined when the value is not a date. */
function rfc3339(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function artifactOf(a: Artifact, buildDir: string): StreamArtifact {
  const out: StreamArtifact = { location: new URL(a.path, buildDir).toString() };
  if (a.sha256) out.sha256 = a.sha256;
  if (a['uncompressed-sha256']) out['uncompressed-sha256'] = a['uncompressed-sha256'];
  return out;
}

export interface StreamOptions {
  stream?: string;
  generator: string;
  /** Used when the build has no `ostree-timestamp`. */
  now?: Date;
}

/** The build as stream metadata for its arch. `last-modified` is the build's ostree-timestamp when known. */
export function streamMetadata(
  build: Pick<ResolvedBuild, 'build' | 'channel' | 'arch' | 'buildDir' | 'meta'>,
  opts: StreamOptions,
): StreamMetadata {
  const meta: BuildMeta = build.meta;
  const release = meta.buildid;
  const artifacts: StreamMetadata['architectures'][string]['artifacts'] = {};
  for (const [name, a] of Object.entries(meta.images)) {
    if (NOT_BOOTIMAGES.has(name)) continue;
    const known = KNOWN[name];
    const platform = known?.platform ?? name;
    const format = known?.format ?? formatOf(a.path);
    const key = known?.key ?? 'disk';
    const p = (artifacts[platform] ??= { release, formats: {} });
    (p.formats[format] ??= {})[key] = artifactOf(a, build.buildDir);
  }
  if (Object.keys(artifacts).length === 0 && Object.keys(meta.amis).length === 0) {
    throw new PayloadError(`build ${release} (${build.arch}) has no bootimages: its meta.json lists no disk images and no AMIs`);
  }
  const arch: StreamMetadata['architectures'][string] = { artifacts };
  const regions = Object.entries(meta.amis);
  if (regions.length > 0) {
    arch.images = { aws: { regions: Object.fromEntries(regions.map(([r, image]) => [r, { release, image }])) } };
  }
  const lastModified = rfc3339(meta.raw['ostree-timestamp']) ?? (opts.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    stream: opts.stream ?? streamNameFor(build.channel),
    metadata: { 'last-modified': lastModified, generator: opts.generator },
    architectures: { [build.arch]: arch },
  };
}

/** The ConfigMap as YAML; `data.stream` is the stream JSON (2-space indent) in a literal block. */
export function bootimagesConfigMap(stream: StreamMetadata): string {
  return toYaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: BOOTIMAGES_CONFIGMAP, namespace: MCO_NAMESPACE, annotations: BOOTIMAGES_ANNOTATIONS },
    data: { releaseVersion: RELEASE_VERSION_PLACEHOLDER, stream: `${JSON.stringify(stream, null, 2)}\n` },
  });
}

/**
 * The text to write, or undefined when the existing file already says the same: equal apart from
 * `metadata.last-modified` and `metadata.generator` of the stream counts as the same, so a rerun
 * (or a newer osimage) leaves the file alone.
 */
export function bootimagesUpdate(existing: string | undefined, stream: StreamMetadata): string | undefined {
  const text = bootimagesConfigMap(stream);
  if (existing === undefined || existing === text) return existing === text ? undefined : text;
  try {
    const doc = parseYamlDocuments(existing, BOOTIMAGES_CONFIGMAP)[0];
    const old = (doc ? yamlValue(doc, existing, BOOTIMAGES_CONFIGMAP) : null) as { data?: { stream?: string } } | null;
    const oldStream = JSON.parse(old?.data?.stream ?? 'null') as StreamMetadata | null;
    if (oldStream && typeof oldStream === 'object') {
      const strip = (s: StreamMetadata) => ({ ...s, metadata: {} });
      const sameStream = isDeepStrictEqual(strip(oldStream), strip(stream));
      if (sameStream && oldStream.metadata) {
        const kept = { ...stream, metadata: oldStream.metadata };
        if (bootimagesConfigMap(kept) === existing) return undefined;
      }
    }
  } catch {
    // not ours or not readable: replace it
  }
  return text;
}

/** Write `<dir>/<file>` atomically unless it already says the same; returns its path and whether it was written. */
export async function writeBootimages(dir: string, file: string, stream: StreamMetadata): Promise<{ path: string; written: boolean }> {
  checkConfigMapFileName(file, '--file');
  await requireDir(dir);
  const path = join(dir, file);
  const text = bootimagesUpdate(await readTextIfExists(path), stream);
  if (text === undefined) return { path, written: false };
  await editFileAtomic(path, text);
  return { path, written: true };
}
