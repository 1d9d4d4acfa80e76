/**
 * `packages --history`: how one package's version changed across a channel's builds. The builds come from
 * builds.json (newest first; only those with the arch), from `--build` (default the newest) back to `--since`
 * (default: `limit` builds). Their pkglists are fetched at most `concurrency` at a time and cached by build.
 */
import { UsageError, hasCode, type Warning } from '../errors.js';
import { forEachLimit } from '../files/parallel.js';
import { assertLegacyArch } from '../rhcos/builds.js';
import { checkPinnedBuild, fetchBuildList } from '../rhcos/resolve.js';
import type { Settings } from '../rhcos/settings.js';
import { openPkglistCache } from './cache.js';
import { fetchPkglist } from './load.js';
import { evr, type Package } from './package.js';

export interface HistoryRequest {
  settings: Settings;
  name: string;
  since?: string | undefined;
  /** Builds looked at when --since is not given. */
  limit: number;
  concurrency?: number;
  cache?: boolean;
}

export interface HistoryChange {
  build: string;
  /** `[epoch:]version-release` (`.arch` when the arch changed or the name has several); null when absent. */
  from: string | null;
  to: string | null;
}

export interface PackageHistory {
  name: string;
  channel: string;
  arch: string;
  /** Builds whose list was read, newest first. */
  builds: string[];
  /** The version in the oldest build read (null when absent there). */
  first: { build: string; version: string | null } | null;
  /** Newest first. */
  changes: HistoryChange[];
  /** Builds in range with no commitmeta.json (skipped). */
  missing: string[];
  /** Builds in the channel not looked at (beyond --limit). */
  truncated: number;
  cachedReads: number;
  warnings: Warning[];
}

export const HISTORY_CONCURRENCY = 8;

function versionOf(list: Package[], name: string): string | null {
  const mine = list.filter((p) => p.name === name);
  if (mine.length === 0) return null;
  const withArch = mine.length > 1 || new Set(mine.map((p) => p.arch)).size > 1;
  return mine
    .map((p) => (withArch ? `${evr(p)}.${p.arch}` : evr(p)))
    .sort()
    .join(', ');
}

export async function packageHistory(req: HistoryRequest): Promise<PackageHistory> {
  const { settings } = req;
  const list = await fetchBuildList(settings);
  assertLegacyArch(list, settings.arch);
  const ids = list.builds.filter((b) => list.layout === 'legacy' || b.arches?.includes(settings.arch)).map((b) => b.id);
  let start = 0;
  if (settings.build !== '') {
    checkPinnedBuild(list, settings.build, settings.arch);
    start = ids.indexOf(settings.build);
  }
  let end = Math.min(ids.length, start + req.limit);
  if (req.since !== undefined) {
    checkPinnedBuild(list, req.since, settings.arch);
    const at = ids.indexOf(req.since);
    if (at < start) throw new UsageError(`--since ${req.since} is newer than ${ids[start]}: nothing to show`);
    end = at + 1;
  }
  const range = ids.slice(start, end);
  // Only the package's version is kept of each build's list: a list is thousands of packages, and a history
  // may read hundreds of builds (holding them all took gigabytes).
  const versions = new Map<string, string | null>();
  const missing: string[] = [];
  let cachedReads = 0;
  // One store for the run: its size is counted once, not per build.
  const cache = req.cache === false ? undefined : openPkglistCache();
  await forEachLimit(range, req.concurrency ?? HISTORY_CONCURRENCY, async (build) => {
    try {
      const got = await fetchPkglist({ ...settings, build, layout: list.layout }, { cache });
      if (got.cached) cachedReads++;
      versions.set(build, versionOf(got.packages, req.name));
    } catch (err) {
      if (!hasCode(err, 'not-found')) throw err;
      missing.push(build);
    }
  });
  const read = range.filter((b) => versions.has(b));
  const version = (b: string) => versions.get(b) ?? null;
  const changes: HistoryChange[] = [];
  for (let i = 0; i + 1 < read.length; i++) {
    const to = version(read[i]!);
    const from = version(read[i + 1]!);
    if (from !== to) changes.push({ build: read[i]!, from, to });
  }
  const oldest = read.at(-1);
  const warnings: Warning[] = [];
  if (read.length > 0 && read.every((b) => version(b) === null)) {
    warnings.push({ code: 'not-found', message: `no package ${req.name} in the pkglist of any of the ${read.length} builds read` });
  }
  return {
    name: req.name,
    channel: settings.channel,
    arch: settings.arch,
    builds: read,
    first: oldest === undefined ? null : { build: oldest, version: version(oldest) },
    changes,
    missing: range.filter((b) => missing.includes(b)),
    truncated: req.since === undefined ? Math.max(0, ids.length - end) : 0,
    cachedReads,
    warnings,
  };
}
