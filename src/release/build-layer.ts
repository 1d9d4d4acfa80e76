/**
 * Building image pieces in memory: tar layers (gzip or plain), configs, manifests and indexes, each with its
 * exact bytes and digest. Deterministic (fixed mtimes, sorted keys where the format allows) so the same
 * input gives the same digests. Used by tests, benchmarks and `release new`.
 */
import { gzipSync } from 'node:zlib';
import { pack as tarPack } from 'tar-stream';
import { sha256Digest } from '../oci/digest.js';
import { MEDIA_TYPES, type Descriptor, type ImageConfig, type Platform } from '../registry/types.js';

export interface LayerEntry {
  /** Path inside the layer, e.g. `release-manifests/image-references` or `etc/.wh.passwd`. */
  name: string;
  /** `file` (default when data is given), `directory`, `symlink` or `link` (hard link). */
  type?: 'file' | 'directory' | 'symlink' | 'link';
  data?: string | Uint8Array;
  /** Link target for `symlink` and `link`. */
  linkname?: string;
  mode?: number;
  mtime?: Date;
}

export interface Blob {
  descriptor: Descriptor;
  bytes: Buffer;
}

export interface BuiltLayer extends Blob {
  /** sha256 of the uncompressed tar: the config's rootfs.diff_ids entry. */
  diffId: string;
}

const EPOCH = new Date(0);

/** A whiteout entry that deletes `path` from lower layers. */
export function whiteout(path: string): LayerEntry {
  const slash = path.lastIndexOf('/');
  const dir = slash >= 0 ? path.slice(0, slash + 1) : '';
  return { name: `${dir}.wh.${path.slice(slash + 1)}`, data: '' };
}

/** An opaque marker: lower layers' contents of `dir` are hidden. */
export function opaque(dir: string): LayerEntry {
  return { name: `${dir.replace(/\/+$/, '')}/.wh..wh..opq`, data: '' };
}

/** The uncompressed tar of the entries, in the given order. */
export async function tarBytes(entries: LayerEntry[]): Promise<Buffer> {
  const p = tarPack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    p.on('data', (c) => chunks.push(c as Buffer));
    p.on('end', resolve);
    p.on('error', reject);
  });
  for (const e of entries) {
    const type = e.type ?? 'file';
    const header = {
      name: e.name,
      type,
      mode: e.mode ?? (type === 'directory' ? 0o755 : 0o644),
      mtime: e.mtime ?? EPOCH,
      uid: 0,
      gid: 0,
      ...(e.linkname !== undefined ? { linkname: e.linkname } : {}),
    };
    await new Promise<void>((resolve, reject) => {
      const data = type === 'file' ? Buffer.from(e.data ?? '') : undefined;
      const cb = (err?: Error | null) => (err ? reject(err) : resolve());
      if (data) p.entry({ ...header, size: data.length }, data, cb);
      else p.entry(header, cb);
    });
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** A layer blob: the tar, gzip-compressed unless `compression: 'none'`. */
export async function buildLayer(
  entries: LayerEntry[],
  opts: { compression?: 'gzip' | 'none'; mediaType?: string } = {},
): Promise<BuiltLayer> {
  const tar = await tarBytes(entries);
  const gzip = (opts.compression ?? 'gzip') === 'gzip';
  // mtime 0 in the gzip header (zlib writes none), so the bytes are reproducible.
  const bytes = gzip ? gzipSync(tar) : tar;
  const mediaType = opts.mediaType ?? (gzip ? MEDIA_TYPES.ociLayerGzip : MEDIA_TYPES.ociLayerTar);
  return { bytes, diffId: sha256Digest(tar), descriptor: { mediaType, digest: sha256Digest(bytes), size: bytes.length } };
}

/** A raw blob of JSON (2-space indent, as the tools write) or bytes with a media type. */
export function jsonBlob(value: unknown, mediaType: string): Blob {
  const bytes = Buffer.from(JSON.stringify(value, null, 2));
  return { bytes, descriptor: { mediaType, digest: sha256Digest(bytes), size: bytes.length } };
}

export interface ConfigInput {
  created?: string;
  os?: string;
  architecture?: string;
  variant?: string;
  labels?: Record<string, string>;
  diffIds: string[];
  history?: Array<{ created?: string; created_by?: string; comment?: string; empty_layer?: boolean }>;
}

export function buildConfig(c: ConfigInput): Blob & { config: ImageConfig } {
  const config: ImageConfig = {
    ...(c.created !== undefined ? { created: c.created } : {}),
    architecture: c.architecture ?? 'amd64',
    os: c.os ?? 'linux',
    ...(c.variant ? { variant: c.variant } : {}),
    config: { Labels: c.labels ?? {} },
    rootfs: { type: 'layers', diff_ids: c.diffIds },
    history: c.history ?? c.diffIds.map(() => ({ created: c.created, created_by: 'osimage' })),
  };
  return { ...jsonBlob(config, MEDIA_TYPES.ociConfig), config };
}

export interface BuiltImage extends Blob {
  config: Blob;
  layers: Blob[];
  /** Every blob the image needs (config and layers), for writing a layout or pushing. */
  blobs: Blob[];
}

/** A manifest for a config and layers (bottom layer first). */
export function buildManifest(config: Blob, layers: Blob[], annotations?: Record<string, string>): BuiltImage {
  const manifest = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.ociManifest,
    config: config.descriptor,
    layers: layers.map((l) => l.descriptor),
    ...(annotations ? { annotations } : {}),
  };
  const blob = jsonBlob(manifest, MEDIA_TYPES.ociManifest);
  return { ...blob, config, layers, blobs: [config, ...layers] };
}

export interface ImageInput extends Omit<ConfigInput, 'diffIds'> {
  /** Layers bottom first, as they appear in the manifest. */
  layers: BuiltLayer[];
}

/** Config plus manifest for the layers. */
export function buildImage(input: ImageInput): BuiltImage {
  const { layers, ...rest } = input;
  const config = buildConfig({ ...rest, diffIds: layers.map((l) => l.diffId) });
  return buildManifest(config, layers);
}

export interface BuiltIndex extends Blob {
  images: BuiltImage[];
  blobs: Blob[];
}

/** A multi-arch index over images, each with its platform. */
export function buildIndex(images: Array<{ image: BuiltImage; platform: Platform }>): BuiltIndex {
  const index = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.ociIndex,
    manifests: images.map(({ image, platform }) => ({ ...image.descriptor, platform })),
  };
  const blob = jsonBlob(index, MEDIA_TYPES.ociIndex);
  const all = images.flatMap(({ image }) => [image as Blob, ...image.blobs]);
  return { ...blob, images: images.map((i) => i.image), blobs: all };
}
