/**
 * What `release info` read from release-manifests/, kept in the cache under the digests of the layers it came
 * from (src/cache/keys.ts): the file index (manifest and metadata file names), the bytes of image-references
 * and release-metadata, the unsafe entries seen, and which layers were read. Layers are verified by digest as
 * they are read, so a folder read in full is what those digests name; a read that failed is not stored.
 */
import { releaseFilesKey } from '../cache/keys.js';
import type { CacheStore } from '../cache/store.js';
import type { UnsafeEntry } from './overlay.js';

export interface FolderRead {
  imageReferences?: Buffer;
  releaseMetadata?: Buffer;
  manifests: string[];
  metadataFiles: string[];
  unsafe: UnsafeEntry[];
  layersRead: number[];
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const numbers = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => Number.isInteger(n));
const unsafeEntries = (v: unknown): v is UnsafeEntry[] =>
  Array.isArray(v) && v.every((u) => u && typeof u.name === 'string' && typeof u.reason === 'string' && Number.isInteger(u.layer));

function encode(read: FolderRead): Buffer {
  return Buffer.from(
    JSON.stringify({
      ...read,
      imageReferences: read.imageReferences?.toString('base64'),
      releaseMetadata: read.releaseMetadata?.toString('base64'),
    }),
  );
}

function decode(data: Buffer): FolderRead | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(data.toString('utf8'));
  } catch {
    return undefined;
  }
  const { imageReferences: refs, releaseMetadata: meta, manifests, metadataFiles, unsafe, layersRead } = doc ?? {};
  if (!strings(manifests) || !strings(metadataFiles) || !unsafeEntries(unsafe) || !numbers(layersRead)) return undefined;
  if ((refs !== undefined && typeof refs !== 'string') || (meta !== undefined && typeof meta !== 'string')) return undefined;
  return {
    ...(typeof refs === 'string' ? { imageReferences: Buffer.from(refs, 'base64') } : {}),
    ...(typeof meta === 'string' ? { releaseMetadata: Buffer.from(meta, 'base64') } : {}),
    manifests,
    metadataFiles,
    unsafe,
    layersRead,
  };
}

/** The folder read from the cache when it is there and intact, else by `read` (and then stored). */
export async function cachedFolderRead(
  cache: CacheStore | undefined,
  key: { folder: string; layers: readonly string[]; query: 'full' | 'references' },
  read: () => Promise<FolderRead>,
): Promise<FolderRead> {
  if (!cache) return read();
  const k = releaseFilesKey(key.folder, key.layers, key.query);
  const entry = await cache.get(k);
  const hit = entry && decode(entry.data);
  if (hit) return hit;
  const fresh = await read();
  await cache.put(k, encode(fresh));
  return fresh;
}
