/**
 * `osimage stream --check --target FILE`: is a pinned stream file still true? Every arch's build must still be
 * in its builds.json, and every artifact's sha256 must still match its build's meta.json (found from the
 * artifact's location: its folder's `meta.json`, builds.json above the build folder). With a mirror, the
 * location's prefix up to `/<channel>/<build>/` is replaced by the mirror's base URL.
 */
import { FetchError, OsimageError } from '../errors.js';
import { fetchJson } from '../http/client.js';
import { redactUrl } from '../http/redact.js';
import { type BuildList, MAX_BUILDS_JSON_BYTES, parseBuildList } from '../rhcos/builds.js';
import { type BuildMeta, parseMeta } from '../rhcos/meta.js';
import type { StreamJson } from './types.js';

export interface CheckOptions {
  /** Read from this base URL instead of the locations' own prefix (a mirror). */
  baseUrl?: string;
  /** With baseUrl: the channel whose `/<channel>/<build>/` ends the prefix that is replaced (per arch). */
  channelOf?: (arch: string) => string;
}

export interface CheckResult {
  differences: string[];
  arches: number;
  artifacts: number;
}

const short = (hex: string | undefined) => (hex === undefined ? '(none)' : `${hex.slice(0, 4)}…`);

interface Located {
  arch: string;
  platform: string;
  format: string;
  key: string;
  release: string;
  location: string;
  sha256?: string;
  'uncompressed-sha256'?: string;
}

function artifactsOf(stream: StreamJson): Located[] {
  const out: Located[] = [];
  for (const [arch, a] of Object.entries(stream.architectures)) {
    for (const [platform, p] of Object.entries(a.artifacts)) {
      for (const [format, f] of Object.entries(p.formats ?? {})) {
        for (const [key, art] of Object.entries(f)) {
          if (!art || typeof art.location !== 'string') continue;
          out.push({ arch, platform, format, key, release: p.release, ...art });
        }
      }
    }
  }
  return out;
}

/** The URL to read `location` from: as is, or with its prefix before `/<channel>/<release>/` replaced. */
export function readUrl(location: string, release: string, arch: string, opts: CheckOptions): string {
  if (opts.baseUrl === undefined) return location;
  // Already under the base (a file written from this release browser): nothing to rewrite.
  if (location.startsWith(`${opts.baseUrl.replace(/\/+$/, '')}/`)) return location;
  const channel = opts.channelOf?.(arch);
  const marker = `/${channel}/${encodeURIComponent(release)}/`;
  const at = channel === undefined ? -1 : location.indexOf(marker);
  if (at === -1) {
    throw new OsimageError(
      `--base-url: cannot tell the release browser's base in ${location}: it has no ${marker} (give the channel the file was generated from with --channel, or --arch ${arch}=CHANNEL)`,
      { code: 'usage' },
    );
  }
  return `${opts.baseUrl.replace(/\/+$/, '')}${location.slice(at)}`;
}

/** The build folder of an artifact URL (trailing slash), and builds.json for it (v1: two up; legacy: one up). */
function folders(url: string, release: string, arch: string): { dir: string; buildsUrl: string; layout: 'v1' | 'legacy' } {
  const dir = url.slice(0, url.lastIndexOf('/') + 1);
  const segs = dir.replace(/\/$/, '').split('/');
  const v1 = segs.at(-1) === arch && decodeURIComponent(segs.at(-2) ?? '') === release;
  const up = v1 ? 2 : 1;
  return { dir, buildsUrl: `${segs.slice(0, segs.length - up).join('/')}/builds.json`, layout: v1 ? 'v1' : 'legacy' };
}

const basename = (u: string) => decodeURIComponent(u.slice(u.lastIndexOf('/') + 1));

/** Every difference between the stream file and the release browser, as one line each. */
export async function checkStream(stream: StreamJson, opts: CheckOptions = {}): Promise<CheckResult> {
  const lists = new Map<string, Promise<BuildList | undefined>>();
  const metas = new Map<string, Promise<BuildMeta | undefined>>();
  const getList = (url: string) => {
    if (!lists.has(url))
      lists.set(
        url,
        fetchJson(url, { maxBytes: MAX_BUILDS_JSON_BYTES }).then((d) => parseBuildList(d, redactUrl(url)), missing),
      );
    return lists.get(url)!;
  };
  const getMeta = (dir: string) => {
    if (!metas.has(dir))
      metas.set(
        dir,
        fetchJson(`${dir}meta.json`).then((d) => parseMeta(d, redactUrl(`${dir}meta.json`)), missing),
      );
    return metas.get(dir)!;
  };
  const arts = artifactsOf(stream);
  const differences: string[] = [];
  const gone = new Set<string>();
  // Builds first: one line per arch and build.
  const builds = new Map<string, { arch: string; release: string; buildsUrl: string; layout: 'v1' | 'legacy' }>();
  for (const a of arts) {
    const f = folders(readUrl(a.location, a.release, a.arch, opts), a.release, a.arch);
    builds.set(`${a.arch} ${a.release}`, { arch: a.arch, release: a.release, buildsUrl: f.buildsUrl, layout: f.layout });
  }
  for (const [k, b] of builds) {
    const list = await getList(b.buildsUrl);
    const entry = list?.builds.find((e) => e.id === b.release);
    const listed = entry !== undefined && (list!.layout === 'legacy' || (entry.arches ?? []).includes(b.arch));
    if (!listed) {
      gone.add(k);
      differences.push(
        list === undefined
          ? `${b.arch}: build ${b.release}: ${redactUrl(b.buildsUrl)} is gone`
          : `${b.arch}: build ${b.release} is gone from builds.json (${list.url})`,
      );
    }
  }
  for (const a of arts) {
    if (gone.has(`${a.arch} ${a.release}`)) continue;
    const where = `${a.arch} ${a.platform} ${a.format}${a.key === 'disk' ? '' : ` ${a.key}`}`;
    const url = readUrl(a.location, a.release, a.arch, opts);
    const { dir } = folders(url, a.release, a.arch);
    const meta = await getMeta(dir);
    if (meta === undefined) {
      differences.push(`${where}: ${redactUrl(dir)}meta.json is gone`);
      continue;
    }
    const file = basename(url);
    const image = Object.values(meta.images).find((i) => basename(i.path) === file);
    if (!image) {
      differences.push(`${where}: ${file} is no longer in ${redactUrl(dir)}meta.json`);
      continue;
    }
    for (const field of ['sha256', 'uncompressed-sha256'] as const) {
      if (a[field] !== undefined && a[field] !== image[field])
        differences.push(`${where}: ${field} ${short(a[field])} → ${short(image[field])}`);
    }
  }
  return { differences, arches: Object.keys(stream.architectures).length, artifacts: arts.length };
}

/** A 404 (or a missing file) is an answer here, not an error. */
function missing(err: unknown): undefined {
  if (err instanceof FetchError && (err.status === 404 || err.status === undefined) && /not found|no such|404|ENOENT/i.test(err.message))
    return undefined;
  throw err;
}
