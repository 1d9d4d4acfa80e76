/**
 * A build's packages from its release browser: commitmeta.json's pkglist (beside meta.json, by the same URL
 * logic as meta.json: src/rhcos/urls.ts) plus meta.json's extensions, and the build's advisories.
 */
import { FetchError, OsimageError } from '../errors.js';
import { fetchJson } from '../http/client.js';
import { redactUrl } from '../http/redact.js';
import type { ResolvedBuild } from '../rhcos/resolve.js';
import { buildDirUrl, commitMetaJsonUrl } from '../rhcos/urls.js';
import { parseAdvisories, type Advisory } from './advisories.js';
import type { CacheStore } from '../cache/store.js';
import { readCached, writeCached } from './cache.js';
import { MAX_COMMITMETA_BYTES, PKGLIST_KEY, parseExtensions, parsePkglist } from './commitmeta.js';
import { comparePackages, type Package } from './package.js';

export interface BuildRef {
  /** As given (userinfo kept for requests; never printed). */
  baseUrl: string;
  channel: string;
  build: string;
  arch: string;
  layout: 'legacy' | 'v1';
}

export interface BuildPackages {
  build: string;
  channel: string;
  arch: string;
  /** commitmeta.json's URL as printed (password masked). */
  commitMetaUrl: string;
  /** pkglist and extensions, sorted by name. */
  packages: Package[];
  advisories: Advisory[];
}

export function commitMetaUrlOf(ref: BuildRef): string {
  return commitMetaJsonUrl(buildDirUrl(ref.baseUrl, ref.channel, ref.build, ref.layout, ref.arch));
}

const cacheable = (url: string) => /^https?:/.test(url);

/**
 * The pkglist of one build. With `cache` (the run's store: packages/cache.ts), an http(s) build's list is read
 * from the cache when there, and kept there when fetched (only the pkglist is kept: the rest of commitmeta.json is not needed).
 * A build without commitmeta.json is an error with code `not-found`.
 */
export async function fetchPkglist(
  ref: BuildRef,
  opts: { cache?: CacheStore | undefined } = {},
): Promise<{ packages: Package[]; cached: boolean }> {
  const url = commitMetaUrlOf(ref);
  const shown = redactUrl(url);
  const cache = cacheable(url) ? opts.cache : undefined;
  if (cache) {
    const doc = await readCached(cache, ref);
    if (doc !== undefined) {
      try {
        return { packages: parsePkglist(doc, shown), cached: true };
      } catch {
        // A damaged cache file: fetch again and overwrite it.
      }
    }
  }
  let doc: unknown;
  try {
    doc = await fetchJson(url, { maxBytes: MAX_COMMITMETA_BYTES });
  } catch (err) {
    if (err instanceof FetchError && err.status === 404) {
      throw new OsimageError(`build ${ref.build} has no commitmeta.json (no package list) at ${shown}`, { code: 'not-found', cause: err });
    }
    if (err instanceof FetchError)
      throw new OsimageError(`failed to fetch the package list of build ${ref.build}: ${err.message}`, { cause: err });
    throw err;
  }
  const packages = parsePkglist(doc, shown);
  if (cache) await writeCached(cache, ref, { [PKGLIST_KEY]: (doc as Record<string, unknown>)[PKGLIST_KEY] });
  return { packages, cached: false };
}

/** Every package of a resolved build: the pkglist plus the extensions of its meta.json, sorted; and its advisories. */
export async function buildPackages(resolved: ResolvedBuild): Promise<BuildPackages> {
  const ref: BuildRef = { ...resolved };
  const { packages } = await fetchPkglist(ref);
  const extensions = parseExtensions(resolved.meta.raw, resolved.metaUrl);
  return {
    build: resolved.build,
    channel: resolved.channel,
    arch: resolved.arch,
    commitMetaUrl: redactUrl(commitMetaUrlOf(ref)),
    packages: [...packages, ...extensions].sort(comparePackages),
    advisories: parseAdvisories(resolved.meta.raw, resolved.metaUrl),
  };
}

/** `*` and `?` globs, or exact names. */
export function nameMatcher(patterns: string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => true;
  const res = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(/\?/g, '.')}$`,
      ),
  );
  return (name) => res.some((r) => r.test(name));
}
