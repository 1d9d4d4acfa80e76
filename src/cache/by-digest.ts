/**
 * Content stored under its own digest (manifests, image configs): what is read back is hashed again and must
 * match the digest, else the entry is removed and the caller fetches as if it were not there.
 */
import { verifyBytes } from '../oci/digest.js';
import { digestKey } from './keys.js';
import type { CacheEntry, CacheStore } from './store.js';

export type DigestKind = 'manifests' | 'configs';

/** The entry stored under `digest`, if it is there and its bytes still hash to it. */
export async function getByDigest(cache: CacheStore | undefined, kind: DigestKind, digest: string): Promise<CacheEntry | undefined> {
  const key = cache && digestKey(kind, digest);
  if (!cache || !key) return undefined;
  const entry = await cache.get(key);
  if (!entry) return undefined;
  try {
    verifyBytes(entry.data, digest);
    return entry;
  } catch {
    await cache.discard(key);
    return undefined;
  }
}

/**
 * Store bytes that were verified against `digest` (the caller's duty). `soon`: do not wait for the write
 * (CacheStore.putSoon), for a caller with a request to make next.
 */
export async function putByDigest(
  cache: CacheStore | undefined,
  kind: DigestKind,
  digest: string,
  bytes: Uint8Array,
  meta: Record<string, string> = {},
  opts: { soon?: boolean } = {},
): Promise<void> {
  const key = cache && digestKey(kind, digest);
  if (!cache || !key) return;
  if (opts.soon) cache.putSoon(key, bytes, meta);
  else await cache.put(key, bytes, meta);
}
