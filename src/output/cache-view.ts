/** The documented `-o json` objects of cache info and cache prune (docs/cache-and-performance.md). */
import type { CacheInfo, PruneResult } from '../cache/store.js';

export interface CacheInfoJson {
  dir: string;
  entries: number;
  /** The entries' total size. */
  bytes: number;
  /** The bound the cache is pruned to (--max-size, $OSIMAGE_CACHE_MAX_SIZE, else 512 MiB). */
  maxBytes: number;
}

export function cacheInfoJson(i: CacheInfo, maxBytes: number): CacheInfoJson {
  return { dir: i.dir, entries: i.entries, bytes: i.bytes, maxBytes };
}

/** What is left after the prune, and how many entries it removed. */
export function cachePruneJson(r: PruneResult, maxBytes: number): CacheInfoJson & { removed: number } {
  return { dir: r.dir, removed: r.removed, entries: r.entries, bytes: r.bytes, maxBytes };
}
