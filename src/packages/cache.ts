/**
 * A small on-disk cache of build package lists: a build's files never change, so its commitmeta.json
 * pkglist is kept under `<cache>/commitmeta/<sha256 of base URL, channel, build, arch>.json` and read back
 * instead of fetched. The cache folder is the general cache's (src/cache/settings.ts: `OSIMAGE_CACHE_DIR`,
 * else `$XDG_CACHE_HOME/osimage`, else `~/.cache/osimage`); `OSIMAGE_NO_CACHE` turns it off as it does that
 * one. Files are written atomically; a file that cannot be read or parsed is a miss.
 *
 * Self-contained on purpose (it was written beside the general cache, src/cache/): its entries are not yet
 * bounded, pruned or cleared by `osimage cache`; moving them onto src/cache/store.ts as a `commitmeta` kind
 * is the next step.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { cacheDir } from '../cache/settings.js';
import { env } from '../context.js';
import { writeFileAtomic } from '../files/atomic.js';
import { MAX_COMMITMETA_BYTES } from './commitmeta.js';

export interface CacheKey {
  baseUrl: string;
  channel: string;
  build: string;
  arch: string;
}

/** false when `OSIMAGE_NO_CACHE` is set. */
export function cacheEnabled(environment: NodeJS.ProcessEnv = env()): boolean {
  return !environment.OSIMAGE_NO_CACHE;
}

/** The file of a key: a hash, so that a URL's userinfo never lands in a file name. */
export function cacheFile(key: CacheKey, environment?: NodeJS.ProcessEnv): string {
  const h = createHash('sha256')
    .update(JSON.stringify([key.baseUrl, key.channel, key.build, key.arch]))
    .digest('hex');
  return join(cacheDir(undefined, environment), 'commitmeta', `${h}.json`);
}

/** The cached document, or undefined on a miss (absent, unreadable, too big, not JSON). */
export async function readCached(key: CacheKey): Promise<unknown> {
  try {
    const bytes = await readFile(cacheFile(key));
    if (bytes.length > MAX_COMMITMETA_BYTES) return undefined;
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Keep `doc` for `key`; a cache that cannot be written is not an error (the answer does not depend on it). */
export async function writeCached(key: CacheKey, doc: unknown): Promise<boolean> {
  try {
    const file = cacheFile(key);
    await mkdir(dirname(file), { recursive: true });
    // Not fsynced: a lost cache file is only a refetch.
    await writeFileAtomic(file, JSON.stringify(doc), { durable: false });
    return true;
  } catch {
    return false;
  }
}
