/**
 * Build package lists in the one cache (src/cache/): a build's files never change, so its commitmeta.json pkglist
 * is kept as a `commitmeta` entry (cache/keys.ts) and read back instead of fetched. Being entries of the one
 * store, they count in its bound and are shown, pruned and cleared by `osimage cache`; `--no-cache` and
 * `OSIMAGE_NO_CACHE` turn them off as they do the rest. An entry that cannot be read or parsed is a miss.
 */
import { commitmetaKey } from '../cache/keys.js';
import { openCache } from '../cache/settings.js';
import type { CacheStore } from '../cache/store.js';
import { MAX_COMMITMETA_BYTES } from './commitmeta.js';

/** Which build a package list is of. */
export interface BuildKey {
  baseUrl: string;
  channel: string;
  build: string;
  arch: string;
}

/** The store package lists go to, or undefined when the cache is off (`OSIMAGE_NO_CACHE`). Open once per run. */
export function openPkglistCache(): CacheStore | undefined {
  return openCache({});
}

/** The cached document, or undefined on a miss (absent, corrupted, too big, not JSON). */
export async function readCached(cache: CacheStore, key: BuildKey): Promise<unknown> {
  const entry = await cache.get(commitmetaKey(key));
  if (!entry || entry.data.length > MAX_COMMITMETA_BYTES) return undefined;
  try {
    return JSON.parse(entry.data.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Keep `doc` for `key`; a cache that cannot be written is not an error (CacheStore.put never throws). */
export async function writeCached(cache: CacheStore, key: BuildKey, doc: unknown): Promise<void> {
  await cache.put(commitmetaKey(key), Buffer.from(JSON.stringify(doc)));
}
