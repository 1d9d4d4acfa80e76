import { FetchError, OsimageError, describe, type Warning } from '../errors.js';
import { fetchJson } from '../http/client.js';
import { redactUrl } from '../http/redact.js';
import { assertLegacyArch, MAX_BUILDS_JSON_BYTES, newestBuild, parseBuildList, type BuildList } from './builds.js';
import { closestBuildId } from './build-id.js';
import { LEGACY_CHANNELS } from './defaults.js';
import { osContainerPullspec, parseMeta, type BuildMeta } from './meta.js';
import type { Settings } from './settings.js';
import { buildDirUrl, buildsJsonUrl, metaJsonUrl } from './urls.js';

/** A build resolved against a release browser. */
export interface ResolvedBuild {
  build: string;
  channel: string;
  /** As given (with any userinfo: pins keep it); print it through redactUrl. */
  baseUrl: string;
  arch: string;
  /** true when the build came from a pin (flag or env), false when it is the newest. */
  pinned: boolean;
  /** false only with --no-validate (builds.json was not read). */
  validated: boolean;
  /** buildsUrl, buildDir and metaUrl are for messages and output: any userinfo password is masked. */
  buildsUrl: string;
  layout: 'legacy' | 'v1';
  /** Directory of the build (trailing slash); relative image paths resolve against it. */
  buildDir: string;
  metaUrl: string;
  meta: BuildMeta;
  /** Things the user should know that do not stop the answer. */
  warnings: Warning[];
}

/** How many builds an error lists. */
const LIST_IN_ERRORS = 10;

export async function fetchBuildList(settings: Pick<Settings, 'baseUrl' | 'channel'>): Promise<BuildList> {
  const url = buildsJsonUrl(settings.baseUrl, settings.channel);
  return parseBuildList(await fetchJson(url, { maxBytes: MAX_BUILDS_JSON_BYTES }), redactUrl(url));
}

/** Check a pinned build against builds.json: it must be listed, and (schema 1.x) for this arch. */
export function checkPinnedBuild(list: BuildList, build: string, arch: string): void {
  const entry = list.builds.find((b) => b.id === build);
  if (!entry) {
    const ids = list.builds.map((b) => b.id);
    const shown = ids.slice(0, LIST_IN_ERRORS);
    const which = ids.length > shown.length ? ` (newest ${shown.length} of ${ids.length})` : '';
    const near = closestBuildId(build, ids);
    throw new OsimageError(
      `no build with name '${build}' found at '${list.url}'. Available builds are${which}: [${shown.join(', ')}]${near ? `; closest match: ${near}` : ''}`,
      { code: 'build-not-found' },
    );
  }
  assertLegacyArch(list, arch);
  if (list.layout === 'v1' && !entry.arches?.includes(arch)) {
    throw new OsimageError(`build ${build} has no ${arch} in ${list.url} (its arches: [${(entry.arches ?? []).join(', ')}])`, {
      code: 'build-not-found',
    });
  }
}

/** Pick the build the settings mean: the pin (checked) or the newest for the arch. */
export function chooseBuild(list: BuildList, settings: Pick<Settings, 'build' | 'arch'>): string {
  if (settings.build === '') return newestBuild(list, settings.arch).id;
  checkPinnedBuild(list, settings.build, settings.arch);
  return settings.build;
}

/**
 * Resolve the settings to one build and read its meta.json. A pinned build is validated against
 * builds.json first (so meta.json of an unknown build is never requested) unless validate is false.
 */
export async function resolveBuild(settings: Settings, opts: { validate?: boolean } = {}): Promise<ResolvedBuild> {
  const validate = opts.validate ?? true;
  const buildsUrl = redactUrl(buildsJsonUrl(settings.baseUrl, settings.channel));
  const base = { channel: settings.channel, baseUrl: settings.baseUrl, arch: settings.arch, buildsUrl, pinned: settings.build !== '' };

  if (!validate && settings.build !== '') {
    // Without builds.json the layout is unknown: try the likelier one first, the other on a 404.
    const order: Array<'legacy' | 'v1'> = LEGACY_CHANNELS.has(settings.channel) ? ['legacy', 'v1'] : ['v1', 'legacy'];
    let lastErr: unknown;
    for (const layout of order) {
      if (layout === 'legacy' && settings.arch !== 'x86_64') continue;
      const buildDir = buildDirUrl(settings.baseUrl, settings.channel, settings.build, layout, settings.arch);
      try {
        const meta = await fetchMeta(buildDir);
        return finish({ ...base, build: settings.build, validated: false, layout, ...shownUrls(buildDir), meta });
      } catch (err) {
        if (!(err instanceof FetchError && err.status === 404)) throw err;
        lastErr = err;
      }
    }
    throw new OsimageError(`failed to fetch metadata for build ${settings.build}: ${describe(lastErr)}`);
  }

  const list = await fetchBuildList(settings);
  const build = chooseBuild(list, settings);
  const buildDir = buildDirUrl(settings.baseUrl, settings.channel, build, list.layout, settings.arch);
  let meta: BuildMeta;
  try {
    meta = await fetchMeta(buildDir);
  } catch (err) {
    if (err instanceof FetchError) throw new OsimageError(`failed to fetch metadata for build ${build}: ${err.message}`, { cause: err });
    throw err;
  }
  return finish({ ...base, build, validated: true, layout: list.layout, ...shownUrls(buildDir), meta });
}

/** meta.json of a build directory; errors name it without the userinfo password. */
async function fetchMeta(buildDir: string): Promise<BuildMeta> {
  const url = metaJsonUrl(buildDir);
  return parseMeta(await fetchJson(url), redactUrl(url));
}

/** The build directory and meta.json as printed. */
function shownUrls(buildDir: string): { buildDir: string; metaUrl: string } {
  const shown = redactUrl(buildDir);
  return { buildDir: shown, metaUrl: metaJsonUrl(shown) };
}

function finish(r: Omit<ResolvedBuild, 'warnings'>): ResolvedBuild {
  const warnings: Warning[] = [];
  if (r.meta.buildid !== r.build)
    warnings.push({ code: 'meta-buildid', message: `${r.metaUrl} says buildid ${r.meta.buildid}, not ${r.build}` });
  return { ...r, warnings };
}

/** The AMI of a region: `no RHCOS AMIs found in <region>` when the build has none there. */
export function amiForRegion(meta: BuildMeta, region: string): string {
  const ami = meta.amis[region];
  if (!ami) throw new OsimageError(`no RHCOS AMIs found in ${region}`);
  return ami;
}

/**
 * The build's OS container (`oscontainer.image@oscontainer.digest`). A build without one (builds before
 * early 2019 did not publish it) is an error naming the build and its meta.json, plus what to do about it.
 */
export function requireOsContainer(r: Pick<ResolvedBuild, 'build' | 'metaUrl' | 'meta'>, hint: string): string {
  if (!r.meta.oscontainer) throw new OsimageError(`RHCOS build ${r.build} has no "oscontainer" in ${r.metaUrl}: ${hint}`);
  return osContainerPullspec(r.meta.oscontainer);
}
