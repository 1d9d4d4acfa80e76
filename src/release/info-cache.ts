/**
 * What `release info` read from release-manifests/, kept in the cache under the digests of the layers it came
 * from (src/cache/keys.ts): the file index (manifest and metadata file names), the bytes of image-references
 * and release-metadata, the unsafe entries seen, and which layers were read. Layers are verified by digest as
 * they are read, so a folder read in full is what those digests name; a read that failed is not stored. Each
 * entry names the view it holds (the release layer's, or every layer merged): its key does, and so does the
 * entry itself, so an entry is never taken for the other view's answer, whatever wrote it.
 */
import { releaseFilesKey } from '../cache/keys.js';
import type { CacheStore } from '../cache/store.js';
import type { UnsafeEntry } from './overlay.js';

/** Which layers answered a read: the first that holds the folder, or every layer merged. */
export type FolderView = 'release-layer' | 'merged';

export interface FolderRead {
  imageReferences?: Buffer;
  releaseMetadata?: Buffer;
  /** Other files asked for by name (LoadOptions.alsoRead) that the layers read held. */
  files?: Record<string, Buffer>;
  manifests: string[];
  metadataFiles: string[];
  unsafe: UnsafeEntry[];
  layersRead: number[];
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const numbers = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => Number.isInteger(n));
const unsafeEntries = (v: unknown): v is UnsafeEntry[] =>
  Array.isArray(v) && v.every((u) => u && typeof u.name === 'string' && typeof u.reason === 'string' && Number.isInteger(u.layer));

function encode(read: FolderRead, view: FolderView): Buffer {
  return Buffer.from(
    JSON.stringify({
      view,
      ...read,
      imageReferences: read.imageReferences?.toString('base64'),
      releaseMetadata: read.releaseMetadata?.toString('base64'),
      files: read.files ? Object.fromEntries(Object.entries(read.files).map(([k, v]) => [k, v.toString('base64')])) : undefined,
    }),
  );
}

function decode(data: Buffer, view: FolderView): FolderRead | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(data.toString('utf8'));
  } catch {
    return undefined;
  }
  // An entry without its view (written before views existed held the merged one) or of the other view is no hit.
  if (doc?.view !== view) return undefined;
  const { imageReferences: refs, releaseMetadata: meta, files, manifests, metadataFiles, unsafe, layersRead } = doc ?? {};
  if (!strings(manifests) || !strings(metadataFiles) || !unsafeEntries(unsafe) || !numbers(layersRead)) return undefined;
  const named = files === undefined ? undefined : typeof files === 'object' && files !== null ? Object.entries(files) : [[0, 0]];
  if (named && !named.every(([, v]) => typeof v === 'string')) return undefined;
  if ((refs !== undefined && typeof refs !== 'string') || (meta !== undefined && typeof meta !== 'string')) return undefined;
  return {
    ...(typeof refs === 'string' ? { imageReferences: Buffer.from(refs, 'base64') } : {}),
    ...(typeof meta === 'string' ? { releaseMetadata: Buffer.from(meta, 'base64') } : {}),
    ...(named ? { files: Object.fromEntries(named.map(([k, v]) => [k, Buffer.from(v as string, 'base64')])) } : {}),
    manifests,
    metadataFiles,
    unsafe,
    layersRead,
  };
}

/** The folder read from the cache when it is there and intact, else by `read` (and then stored). */
export async function cachedFolderRead(
  cache: CacheStore | undefined,
  key: {
    folder: string;
    layers: readonly string[];
    view: FolderView;
    query: 'full' | 'summary' | 'references';
    files?: readonly string[];
  },
  read: () => Promise<FolderRead>,
): Promise<FolderRead> {
  if (!cache) return read();
  const k = releaseFilesKey(key.folder, key.layers, key.query, key.files, key.view);
  const entry = await cache.get(k);
  const hit = entry && decode(entry.data, key.view);
  if (hit) return hit;
  const fresh = await read();
  // Written while the answer is rendered; the run waits for it before it ends.
  cache.putSoon(k, encode(fresh, key.view));
  return fresh;
}
