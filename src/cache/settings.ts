/**
 * Where the cache lives and how big it may grow: `--cache-dir DIR`, else `$OSIMAGE_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/osimage`, else `~/.cache/osimage`; the bound from `--max-size`, else
 * `$OSIMAGE_CACHE_MAX_SIZE`, else 512 MiB. `--no-cache` or `OSIMAGE_NO_CACHE` (src/env-flag.ts) turn it off. The key
 * that seals entries is the user's (user-key.ts: `$XDG_STATE_HOME/osimage`, else `~/.local/state/osimage`).
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { env, io } from '../context.js';
import { envFlag } from '../env-flag.js';
import { UsageError } from '../errors.js';
import { CacheStore, DEFAULT_MAX_BYTES } from './store.js';
import { userCacheDir } from './user-dir.js';
import { userStateDir } from './user-key.js';

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** `536870912`, `512M`, `512MiB`, `1G`, `1.5GiB` (binary units) → bytes. */
export function parseSize(text: string, what = 'size'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(text);
  const bytes = m ? Math.floor(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!) : Number.NaN;
  if (!Number.isSafeInteger(bytes)) {
    throw new UsageError(`${what}: ${JSON.stringify(text)} is not a size (bytes, or a number with K, M, G or T, e.g. 512M)`);
  }
  return bytes;
}

/** The cache folder for a `--cache-dir` value (relative to the working folder) or the environment. */
export function cacheDir(flag?: string, vars: NodeJS.ProcessEnv = env()): string {
  const chosen = flag || vars.OSIMAGE_CACHE_DIR;
  if (chosen) return resolve(io().cwd, chosen);
  return userCacheDir(vars, homedir);
}

/** The size bound: `--max-size`, else `$OSIMAGE_CACHE_MAX_SIZE`, else 512 MiB. */
export function cacheMaxBytes(flag?: string, vars: NodeJS.ProcessEnv = env()): number {
  if (flag !== undefined) return parseSize(flag, '--max-size');
  const v = vars.OSIMAGE_CACHE_MAX_SIZE;
  return v ? parseSize(v, 'OSIMAGE_CACHE_MAX_SIZE') : DEFAULT_MAX_BYTES;
}

export interface CacheFlags {
  cacheDir?: string;
  /** commander's `--no-cache`: false when given. */
  cache?: boolean;
  /** Nothing fetched under --skip-verification is cached, and nothing cached stands in for it. */
  skipVerification?: boolean;
}

/** The cache a command reading images uses, or undefined when it is off. */
export function openCache(flags: CacheFlags, onNote?: (message: string) => void): CacheStore | undefined {
  if (flags.cache === false || flags.skipVerification || envFlag(env().OSIMAGE_NO_CACHE)) return undefined;
  return new CacheStore(cacheDir(flags.cacheDir), {
    maxBytes: cacheMaxBytes(),
    keyDir: userStateDir(env(), homedir),
    ...(onNote ? { onNote } : {}),
  });
}
