/**
 * Which build of each arch a stream holds, and its meta.json, read through the release browser (builds.json,
 * meta.json, settings). Each arch: the pinned build where builds.json lists it for that arch, else the newest
 * build that lists the arch (with a warning when a pin was given). Arches may sit on their own channel
 * (`s390x=rhcos-4.8-s390x`, the 2021 layout). The default arches are the union of builds.json's.
 */
import { OsimageError, UsageError, describe, type Warning } from '../errors.js';
import { fetchJson } from '../http/client.js';
import { redactUrl } from '../http/redact.js';
import type { BuildList } from '../rhcos/builds.js';
import { newestBuild } from '../rhcos/builds.js';
import { parseMeta } from '../rhcos/meta.js';
import { checkPinnedBuild, fetchBuildList } from '../rhcos/resolve.js';
import { type Settings, validateArch, validateChannel } from '../rhcos/settings.js';
import { buildDirUrl, metaJsonUrl } from '../rhcos/urls.js';
import type { StreamInput } from './generate.js';

/** `--arch A` or `--arch A=CHANNEL`. */
export interface ArchRequest {
  arch: string;
  /** The arch's own channel; the settings' channel when undefined. */
  channel?: string;
}

/** Parse repeated `--arch` values; an arch given twice is a usage error. */
export function parseArchFlags(values: readonly string[]): ArchRequest[] {
  const seen = new Set<string>();
  return values.map((v) => {
    const eq = v.indexOf('=');
    const arch = validateArch(eq === -1 ? v : v.slice(0, eq));
    if (seen.has(arch)) throw new UsageError(`--arch: ${arch} given twice`);
    seen.add(arch);
    if (eq === -1) return { arch };
    return { arch, channel: validateChannel(v.slice(eq + 1), `--arch ${arch}=`) };
  });
}

export interface Collected {
  inputs: StreamInput[];
  /** The newest builds.json `timestamp` of the channels read. */
  buildsTimestamp?: string;
  /** Each channel's builds.json as read (for --check and messages). */
  lists: Map<string, BuildList>;
  warnings: Warning[];
}

/** The arches builds.json lists, in the order it first lists them (a legacy list is x86_64 only). */
export function archesOf(list: BuildList): string[] {
  if (list.layout === 'legacy') return list.builds.length > 0 ? ['x86_64'] : [];
  return [...new Set(list.builds.flatMap((b) => b.arches ?? []))];
}

function listsArch(list: BuildList, id: string, arch: string): boolean {
  const entry = list.builds.find((b) => b.id === id);
  if (!entry) return false;
  return list.layout === 'legacy' ? arch === 'x86_64' : (entry.arches ?? []).includes(arch);
}

/** Resolve each requested arch (or every arch of the channel) to a build and read its meta.json. */
export async function collectStream(
  settings: Pick<Settings, 'baseUrl' | 'channel' | 'build'>,
  requests?: readonly ArchRequest[],
): Promise<Collected> {
  const lists = new Map<string, Promise<BuildList>>();
  const listOf = (channel: string) => {
    let p = lists.get(channel);
    if (!p) {
      p = fetchBuildList({ baseUrl: settings.baseUrl, channel });
      lists.set(channel, p);
    }
    return p;
  };
  let asked = requests && requests.length > 0 ? [...requests] : undefined;
  if (!asked) {
    const list = await listOf(settings.channel);
    asked = archesOf(list).map((arch) => ({ arch }));
    if (asked.length === 0) throw new OsimageError(`no builds found in ${list.url}`, { code: 'build-not-found' });
  }
  const warnings: Warning[] = [];
  const inputs = await Promise.all(
    asked.map(async ({ arch, channel = settings.channel }): Promise<StreamInput> => {
      const list = await listOf(channel);
      let build: string;
      if (settings.build !== '' && listsArch(list, settings.build, arch)) build = settings.build;
      else {
        if (settings.build !== '' && channel === settings.channel && !list.builds.some((b) => b.id === settings.build)) {
          checkPinnedBuild(list, settings.build, arch); // throws: the pin is not in builds.json
        }
        build = newestBuild(list, arch).id;
        if (settings.build !== '') {
          warnings.push({
            code: 'stream-arch-newest',
            message: `${arch}: build ${settings.build} does not list ${arch} in ${list.url}; using the newest ${arch} build ${build}`,
          });
        }
      }
      const dir = buildDirUrl(settings.baseUrl, channel, build, list.layout, arch);
      const shownDir = redactUrl(dir);
      const metaUrl = metaJsonUrl(shownDir);
      let doc: unknown;
      try {
        doc = await fetchJson(metaJsonUrl(dir));
      } catch (err) {
        throw new OsimageError(`failed to fetch metadata for build ${build} (${arch}): ${describe(err)}`, { cause: err });
      }
      const meta = parseMeta(doc, metaUrl);
      if (meta.buildid !== build) warnings.push({ code: 'meta-buildid', message: `${metaUrl} says buildid ${meta.buildid}, not ${build}` });
      return { arch, build, meta, buildDir: shownDir, metaUrl, baseUrl: redactUrl(settings.baseUrl) };
    }),
  );
  const read = new Map<string, BuildList>();
  for (const [channel, p] of lists) read.set(channel, await p);
  const stamps = [...read.values()]
    .map((l) => l.timestamp)
    .filter((t): t is string => t !== undefined)
    .sort();
  return { inputs, lists: read, warnings, ...(stamps.length > 0 ? { buildsTimestamp: stamps.at(-1)! } : {}) };
}
