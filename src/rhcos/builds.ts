import { OsimageError } from '../errors.js';
import { validateBuildName } from './settings.js';

/** One build of a channel. `arches` is known only for schema 1.x. */
export interface BuildEntry {
  id: string;
  arches?: string[];
}

/** A parsed builds.json. */
export interface BuildList {
  /** `legacy` (a string array, schema 0.0.1: meta at <build>/meta.json) or `v1` (objects: meta at <build>/<arch>/meta.json). */
  layout: 'legacy' | 'v1';
  schemaVersion: string;
  /** Newest first, as coreos-assembler writes them. */
  builds: BuildEntry[];
  timestamp?: string;
  url: string;
}

/**
 * A build id from builds.json obeys the rules of `--build` (one path segment: no slash, not `.` or `..`,
 * no whitespace): it becomes part of the meta.json URL. One bad id fails the whole list, naming its index,
 * so that a hostile list is never half-trusted.
 */
function checkBuildId(id: string, i: number, url: string): string {
  if (id === '') throw new OsimageError(`invalid builds.json at ${url}: builds[${i}] has no "id"`, { code: 'invalid-input' });
  try {
    return validateBuildName(id, `builds[${i}]`);
  } catch (err) {
    if (err instanceof OsimageError && err.code === 'usage') {
      throw new OsimageError(`invalid builds.json at ${url}: ${err.message}`, { code: 'invalid-input' });
    }
    throw err;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Read builds.json in either shape: legacy `{"builds": ["47.246", ...]}` (no schema-version) or
 * coreos-assembler schema 1.x `{"schema-version": "1.0.0", "builds": [{"id", "arches"}]}`.
 */
/**
 * builds.json bounds: a stream's list holds a few thousand builds (hundreds of kilobytes). The byte bound keeps
 * the parse small; the count bounds what every later step walks.
 */
export const MAX_BUILDS_JSON_BYTES = 16 * 1024 * 1024;
export const MAX_BUILDS = 100_000;

export function parseBuildList(doc: unknown, url: string): BuildList {
  if (!isObject(doc)) throw new OsimageError(`invalid builds.json at ${url}: expected a JSON object`);
  const sv = doc['schema-version'];
  if (sv !== undefined && typeof sv !== 'string') throw new OsimageError(`invalid builds.json at ${url}: schema-version must be a string`);
  const schemaVersion = sv ?? '0.0.1';
  const major = Number(/^(\d+)\./.exec(schemaVersion)?.[1] ?? NaN);
  if (major !== 0 && major !== 1) throw new OsimageError(`Unsupported build metadata version ${schemaVersion} in ${url}`);
  const raw = doc.builds;
  if (!Array.isArray(raw)) throw new OsimageError(`invalid builds.json at ${url}: "builds" must be a list`);
  if (raw.length > MAX_BUILDS) {
    throw new OsimageError(`invalid builds.json at ${url}: ${raw.length} builds, more than the ${MAX_BUILDS} osimage reads`);
  }
  const strings = raw.filter((b) => typeof b === 'string').length;
  if (strings !== 0 && strings !== raw.length) {
    throw new OsimageError(`invalid builds.json at ${url}: "builds" mixes strings and objects`);
  }
  const timestamp = typeof doc.timestamp === 'string' ? doc.timestamp : undefined;
  if (strings === raw.length) {
    // An empty list lands here too: legacy unless the schema says otherwise.
    if (raw.length === 0)
      return { layout: major === 1 ? 'v1' : 'legacy', schemaVersion, builds: [], url, ...(timestamp ? { timestamp } : {}) };
    if (major === 1) throw new OsimageError(`invalid builds.json at ${url}: schema ${schemaVersion} needs build objects, found strings`);
    return {
      layout: 'legacy',
      schemaVersion,
      builds: (raw as string[]).map((id, i) => ({ id: checkBuildId(id, i, url) })),
      url,
      ...(timestamp ? { timestamp } : {}),
    };
  }
  const builds = raw.map((b, i): BuildEntry => {
    if (!isObject(b) || typeof b.id !== 'string') throw new OsimageError(`invalid builds.json at ${url}: builds[${i}] has no "id"`);
    const id = checkBuildId(b.id, i, url);
    const arches = b.arches;
    if (!Array.isArray(arches) || !arches.every((a) => typeof a === 'string')) {
      throw new OsimageError(`invalid builds.json at ${url}: builds[${i}] (${id}) has no "arches" list`);
    }
    return { id, arches: arches as string[] };
  });
  return { layout: 'v1', schemaVersion: sv ?? '1.0.0', builds, url, ...(timestamp ? { timestamp } : {}) };
}

/** The newest build that has `arch` (legacy lists are x86_64 only). */
export function newestBuild(list: BuildList, arch: string): BuildEntry {
  if (list.builds.length === 0) throw new OsimageError(`no builds found in ${list.url}`);
  if (list.layout === 'legacy') {
    assertLegacyArch(list, arch);
    return list.builds[0]!;
  }
  const found = list.builds.find((b) => b.arches?.includes(arch));
  if (!found) {
    const arches = [...new Set(list.builds.flatMap((b) => b.arches ?? []))];
    throw new OsimageError(`no build for arch ${arch} in ${list.url} (arches there: ${arches.join(', ') || 'none'})`, {
      code: 'build-not-found',
    });
  }
  return found;
}

export function assertLegacyArch(list: BuildList, arch: string): void {
  if (list.layout === 'legacy' && arch !== 'x86_64') {
    throw new OsimageError(`${list.url} is a legacy builds.json without architectures (x86_64 only); no build for arch ${arch}`, {
      code: 'build-not-found',
    });
  }
}
