/**
 * Building image pieces in memory: tar layers (gzip or plain), configs, manifests and indexes, each with its
 * exact bytes and digest. Deterministic (fixed mtimes, sorted keys where the format allows) so the same
 * input gives the same digests. Used by tests, benchmarks and `release new`.
 */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { pack as tarPack, type Pack } from 'tar-stream';
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

/** An entry's data as a Buffer: a view of the caller's bytes, never a copy of them. */
function asBuffer(data: string | Uint8Array | undefined): Buffer {
  if (data === undefined || typeof data === 'string') return Buffer.from(data ?? '');
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Write one entry into a tar packer, once the packer has room for it. */
async function packEntry(p: Pack, e: LayerEntry): Promise<void> {
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
    const data = type === 'file' ? asBuffer(e.data) : undefined;
    const cb = (err?: Error | null) => (err ? reject(err) : resolve());
    if (data) p.entry({ ...header, size: data.length }, data, cb);
    else p.entry(header, cb);
  });
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
  for (const e of entries) await packEntry(p, e);
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** How much tar is handed to the compressor at a time. */
const BATCH_BYTES = 256 * 1024;

export interface LayerOptions {
  compression?: 'gzip' | 'none';
  mediaType?: string;
}

/**
 * A layer made an entry at a time: the tar streams through the hash of its diff_id and the compressor as each
 * entry is added, so neither the entries' data nor the tar is ever held whole, only the compressed blob (a
 * release's manifests are ~19 MB of tar, ~2 MB of gzip). The bytes are those of compressing the whole tar at once.
 */
export class LayerWriter {
  readonly #pack: Pack = tarPack();
  readonly #tarHash = createHash('sha256');
  readonly #out: Buffer[] = [];
  #size = 0;
  readonly #done: Promise<void>;
  readonly #gzip: boolean;
  readonly #mediaType: string | undefined;

  constructor(opts: LayerOptions = {}) {
    this.#gzip = (opts.compression ?? 'gzip') === 'gzip';
    this.#mediaType = opts.mediaType;
    const collect = new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        this.#out.push(chunk);
        this.#size += chunk.length;
        cb();
      },
    });
    const tarHash = this.#tarHash;
    // The packer gives a header, the data and the padding of each entry as chunks of their own: handed to the
    // compressor (a thread-pool job each) one by one, thousands of small files cost more in hand-offs than in
    // deflate. Batched, the compressed bytes are the same (deflate's output does not depend on how input is split).
    const hashing = async function* (source: AsyncIterable<unknown>) {
      let batch: Buffer[] = [];
      let held = 0;
      for await (const c of source) {
        const chunk = c as Buffer;
        tarHash.update(chunk);
        batch.push(chunk);
        held += chunk.length;
        if (held >= BATCH_BYTES) {
          yield batch.length === 1 ? batch[0]! : Buffer.concat(batch, held);
          batch = [];
          held = 0;
        }
      }
      if (held > 0) yield Buffer.concat(batch, held);
    };
    // mtime 0 in the gzip header (zlib writes none), so the bytes are reproducible.
    this.#done = this.#gzip ? pipeline(this.#pack, hashing, createGzip(), collect) : pipeline(this.#pack, hashing, collect);
    // Awaited by finish(); a writer given up on (abort) must not leave an unhandled rejection behind.
    this.#done.catch(() => undefined);
  }

  /** Add one entry; resolves once the tar has taken it (the caller may then let go of its data). */
  add(entry: LayerEntry): Promise<void> {
    return packEntry(this.#pack, entry);
  }

  /** Give up: the streams are torn down, nothing is kept. */
  abort(err: Error = new Error('layer abandoned')): void {
    this.#pack.destroy(err);
  }

  /** End the tar and return the layer. */
  async finish(): Promise<BuiltLayer> {
    this.#pack.finalize();
    await this.#done;
    const bytes = this.#out.length === 1 ? this.#out[0]! : Buffer.concat(this.#out, this.#size);
    this.#out.length = 0;
    const mediaType = this.#mediaType ?? (this.#gzip ? MEDIA_TYPES.ociLayerGzip : MEDIA_TYPES.ociLayerTar);
    return {
      bytes,
      diffId: `sha256:${this.#tarHash.digest('hex')}`,
      descriptor: { mediaType, digest: sha256Digest(bytes), size: bytes.length },
    };
  }
}

/** A layer blob: the tar of the entries (in order), gzip-compressed unless `compression: 'none'`. */
export async function buildLayer(entries: LayerEntry[], opts: LayerOptions = {}): Promise<BuiltLayer> {
  const w = new LayerWriter(opts);
  try {
    for (const e of entries) await w.add(e);
  } catch (err) {
    w.abort(err as Error);
    throw err;
  }
  return w.finish();
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
