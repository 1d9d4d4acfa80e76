/**
 * Writing built images as an OCI image layout folder, or as an oci-archive (a tar of one). For tests,
 * benchmarks, sample images and `release new --to-dir`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REF_NAME_ANNOTATION } from '../registry/oci-layout.js';
import type { Descriptor } from '../registry/types.js';
import { tarBytes, type Blob, type LayerEntry } from './build-layer.js';

export interface LayoutEntry {
  /** The manifest or index, with its bytes. */
  top: Blob;
  /** Every other blob it needs (configs, layers, child manifests). */
  blobs: Blob[];
  /** Tag: the `org.opencontainers.image.ref.name` annotation in index.json. */
  tag?: string;
}

export interface LayoutFilesMap {
  /** Layout-relative path → bytes: `oci-layout`, `index.json`, `blobs/sha256/<hex>`. */
  files: Map<string, Buffer>;
  /** index.json's parsed form. */
  index: { schemaVersion: 2; mediaType: string; manifests: Descriptor[] };
}

/** The files of a layout holding these images (blobs de-duplicated). */
export function layoutFiles(entries: LayoutEntry[]): LayoutFilesMap {
  const files = new Map<string, Buffer>();
  files.set('oci-layout', Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' })));
  const index = {
    schemaVersion: 2 as const,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: entries.map((e) => ({
      ...e.top.descriptor,
      ...(e.tag !== undefined ? { annotations: { [REF_NAME_ANNOTATION]: e.tag } } : {}),
    })),
  };
  files.set('index.json', Buffer.from(JSON.stringify(index)));
  for (const b of entries.flatMap((e) => [e.top, ...e.blobs]))
    files.set(`blobs/sha256/${b.descriptor.digest.slice('sha256:'.length)}`, b.bytes);
  return { files, index };
}

/** Write an OCI image layout folder (created if missing). */
export async function writeOciLayout(dir: string, entries: LayoutEntry[]): Promise<void> {
  const { files } = layoutFiles(entries);
  await mkdir(join(dir, 'blobs', 'sha256'), { recursive: true });
  for (const [path, bytes] of files) await writeFile(join(dir, path), bytes);
}

/** The bytes of an oci-archive: a tar of the layout (oci-layout and index.json first). */
export async function ociArchiveBytes(entries: LayoutEntry[], opts: { prefix?: string } = {}): Promise<Buffer> {
  const { files } = layoutFiles(entries);
  const prefix = opts.prefix ?? '';
  const tarEntries: LayerEntry[] = [
    { name: `${prefix}blobs`, type: 'directory' },
    { name: `${prefix}blobs/sha256`, type: 'directory' },
    ...[...files].map(([name, data]) => ({ name: `${prefix}${name}`, data })),
  ];
  return tarBytes(tarEntries);
}

export async function writeOciArchive(file: string, entries: LayoutEntry[], opts: { prefix?: string } = {}): Promise<void> {
  await writeFile(file, await ociArchiveBytes(entries, opts));
}
