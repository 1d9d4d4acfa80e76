/**
 * Writing images as an OCI image layout folder, or as an oci-archive (a tar of one): the writer beside the
 * `oci:` and `oci-archive:` readers. Blobs come as bytes or as a stream opener, so a base image's layers are
 * copied through without being held in memory. Every file is written atomically (src/files/atomic.ts): an
 * archive appears only once it is complete.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pack as tarPack } from 'tar-stream';
import { OsimageError, describe } from '../errors.js';
import { writeFileAtomic, writeStreamAtomic } from '../files/atomic.js';
import { REF_NAME_ANNOTATION } from './oci-layout.js';
import type { Descriptor } from './types.js';

/** A blob of the layout: its bytes, or a way to stream them (the descriptor's size is trusted for the tar header). */
export type LayoutBlob = { descriptor: Descriptor; bytes: Buffer } | { descriptor: Descriptor; open: () => Promise<Readable> };

export interface LayoutEntry {
  /** The manifest or index, with its bytes. */
  top: { descriptor: Descriptor; bytes: Buffer };
  /** Every other blob it needs (configs, layers, child manifests). */
  blobs: LayoutBlob[];
  /** Tag: the `org.opencontainers.image.ref.name` annotation in index.json. */
  tag?: string;
}

export interface LayoutFilesMap {
  /** Layout-relative path → blob: `oci-layout`, `index.json`, `blobs/sha256/<hex>` (each blob once). */
  files: Map<string, LayoutBlob>;
  /** index.json's parsed form. */
  index: { schemaVersion: 2; mediaType: string; manifests: Descriptor[] };
}

const bytesBlob = (bytes: Buffer): LayoutBlob => ({ descriptor: { mediaType: '', digest: '', size: bytes.length }, bytes });

/** The files of a layout holding these images: oci-layout, index.json, then the blobs (de-duplicated), each image's top last. */
export function layoutFiles(entries: LayoutEntry[]): LayoutFilesMap {
  const files = new Map<string, LayoutBlob>();
  files.set('oci-layout', bytesBlob(Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' }))));
  const index = {
    schemaVersion: 2 as const,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: entries.map((e) => ({
      ...e.top.descriptor,
      ...(e.tag !== undefined ? { annotations: { [REF_NAME_ANNOTATION]: e.tag } } : {}),
    })),
  };
  files.set('index.json', bytesBlob(Buffer.from(JSON.stringify(index))));
  for (const b of entries.flatMap((e): LayoutBlob[] => [...e.blobs, e.top])) {
    const path = `blobs/sha256/${b.descriptor.digest.slice('sha256:'.length)}`;
    if (!files.has(path)) files.set(path, b);
  }
  return { files, index };
}

type Header = Parameters<ReturnType<typeof tarPack>['entry']>[0];

const streamOf = async (b: LayoutBlob): Promise<Readable | Buffer> => ('bytes' in b ? b.bytes : b.open());

/** Write an OCI image layout folder (created if missing). */
export async function writeOciLayout(dir: string, entries: LayoutEntry[]): Promise<void> {
  const { files } = layoutFiles(entries);
  try {
    await mkdir(join(dir, 'blobs', 'sha256'), { recursive: true });
  } catch (err) {
    throw new OsimageError(`cannot create ${dir}: ${describe(err)}`, { cause: err });
  }
  // Blobs first, index.json last: a reader never finds an index naming a blob that is not there yet.
  const ordered = [...files].sort(([a], [b]) => Number(!a.startsWith('blobs/')) - Number(!b.startsWith('blobs/')));
  for (const [path, blob] of ordered) {
    const body = await streamOf(blob);
    if (Buffer.isBuffer(body)) await writeFileAtomic(join(dir, path), body);
    else await writeStreamAtomic(join(dir, path), body);
  }
}

export interface ArchiveOptions {
  /** Prefix for every name in the tar (`./` as `tar -C layout .` writes). */
  prefix?: string;
  /** mtime of every tar entry (default the epoch, for reproducible bytes). */
  mtime?: Date;
}

/** Write an oci-archive: a tar of the layout, streamed into a temp file that is renamed into place when complete. */
export async function writeOciArchive(file: string, entries: LayoutEntry[], opts: ArchiveOptions = {}): Promise<void> {
  const { files } = layoutFiles(entries);
  const prefix = opts.prefix ?? '';
  const mtime = opts.mtime ?? new Date(0);
  const tar = tarPack();
  tar.on('error', () => undefined); // reported by the write below
  const written = writeStreamAtomic(file, tar as unknown as Readable, { mode: 0o644 });
  const racing = <T>(p: Promise<T>): Promise<T> => Promise.race([p, written.then(() => p)]);
  const header = (name: string, h: Partial<Header> = {}): Header => ({
    name: `${prefix}${name}`,
    mtime,
    mode: 0o644,
    uid: 0,
    gid: 0,
    ...h,
  });
  // A failed file write ends the archive at once (the tar would otherwise wait forever for a reader).
  const put = (h: Header, data?: Buffer) =>
    racing(
      new Promise<void>((resolve, reject) => {
        const cb = (err?: Error | null) => (err ? reject(err) : resolve());
        if (data) tar.entry(h, data, cb);
        else tar.entry(h, cb);
      }),
    );
  try {
    let dirs = false;
    for (const [path, blob] of files) {
      if (!dirs && path.startsWith('blobs/')) {
        dirs = true;
        await put(header('blobs', { type: 'directory', mode: 0o755 }));
        await put(header('blobs/sha256', { type: 'directory', mode: 0o755 }));
      }
      const body = await streamOf(blob);
      if (Buffer.isBuffer(body)) await put(header(path, { size: body.length }), body);
      else await racing(pipeline(body, tar.entry(header(path, { size: blob.descriptor.size }))));
    }
    tar.finalize();
    await written;
  } catch (err) {
    tar.destroy(err as Error);
    await written.catch(() => undefined);
    throw err instanceof OsimageError ? err : new OsimageError(`cannot write ${file}: ${describe(err)}`, { cause: err });
  }
}
