/**
 * `release new --from-release`: options into types, one core call (assembleFromRelease), then the output
 * (-o json, --to-dir, --to-file, --to-image, or oc's dry run when none is given).
 */
import { setExitCode } from '../context.js';
import { UsageError } from '../errors.js';
import { checkConflicts, type FlagRule } from './conflicts.js';
import { checkOsImageFlags, osImageConflicts } from './os-image-flags.js';
import { readImages } from './open-image.js';
import { settingsFrom } from './options.js';
import { OS_FLAGS, publishOptions, splitList, type NewOptions } from './release-new-options.js';
import * as term from '../output/terminal.js';
import { CREATE_PREFIX, MissingImagesError } from '../release/new/assemble.js';
import { createdTime } from '../release/new/created.js';
import { assembleFromRelease } from '../release/new/from-release.js';
import { publishableFromRelease, releaseByTag } from '../release/new/from-release-output.js';
import type { Mapping } from '../release/new/mappings.js';
import { publishRelease } from '../release/new/output.js';
import { describeOsChange, planOsSwap } from '../release/new/os-swap.js';
import { osImageLocation } from '../release/os-image-config.js';
import { openImage } from '../registry/open.js';
import { resolveBuild } from '../rhcos/resolve.js';
import { settingsFromPinsFile } from '../verify/pins.js';
import { DEBUG_LEVEL, debugLog } from '../verbosity.js';

const FROM_RELEASE_CONFLICTS: FlagRule[] = [
  {
    rule: 'excludes',
    flags: ['pins', 'build', 'channel'],
    message: '--pins reads the build and channel from FILE; --build and --channel cannot be used with it',
  },
  ...osImageConflicts('swaps'),
];

export async function runFromRelease(mappings: Mapping[], o: NewOptions): Promise<void> {
  checkConflicts(o, FROM_RELEASE_CONFLICTS);
  const release = o.fromRelease!;
  if (release === '') throw new UsageError('--from-release: the image is empty');
  const created = createdTime(o.created);

  const wantsOs = OS_FLAGS.some((k) => o[k] !== undefined && o[k] !== false);
  const images = checkOsImageFlags(o);
  if (o.osStream === '') throw new UsageError('--os-stream: the stream name is empty');

  const build = async () => {
    let settings;
    if (o.pins !== undefined) {
      settings = (await settingsFromPinsFile(o.pins, { baseUrl: o.baseUrl, arch: o.arch, osStream: o.osStream })).settings;
    } else {
      settings = settingsFrom({ ...o, ...(o.osStream !== undefined ? { osStream: o.osStream } : {}) } as Parameters<
        typeof settingsFrom
      >[0]);
    }
    const resolved = await resolveBuild(settings);
    resolved.warnings.forEach(term.warn);
    return { build: resolved.build, meta: resolved.meta, metaUrl: resolved.metaUrl, manifestList: o.manifestList ?? false };
  };

  const done = await readImages(o, async (open, opts) => {
    const source = await open(release);
    // One transport per registry for the hundreds of component images: one ping, tokens kept.
    const shared = { transports: new Map(), credentials: new Map() };
    // The components are kept in the cache as one entry for the release, not one per image (component-cache.ts).
    const { cache, ...uncached } = opts;
    const openComponent = (pullspec: string) => openImage(osImageLocation(release, pullspec), { ...uncached, ...shared });
    let result;
    try {
      result = await assembleFromRelease({
        release,
        source,
        open: openComponent,
        cache,
        filterByOs: o.keepManifestList ? 'linux/amd64' : o.filterByOs,
        mappings,
        exclude: splitList(o.exclude),
        include: splitList(o.include),
        name: o.name || undefined,
        previous: o.previous,
        next: o.next,
        metadataJson: o.metadata,
        componentVersions: o.componentVersions !== undefined || o.componentVersionsDisplayNames !== undefined,
        toImageBase: o.toImageBase,
        toImageBaseTag: o.toImageBaseTag,
        keepManifestList: o.keepManifestList,
        allowMissingImages: o.allowMissingImages,
        skipManifestCheck: o.skipManifestCheck,
        created,
        fullRebuild: o.fullRebuild,
        jsonOnly: o.output === 'json',
        releaseByTag: releaseByTag(release),
        onInfo: (line) => term.info(`info: ${line}`),
        onWarning: (line) => term.warn(line),
        onDebug: (line) => debugLog(DEBUG_LEVEL, line),
        ...(wantsOs
          ? {
              osOverrides: async (input) => {
                const swap = await planOsSwap(input, release, {
                  ...images,
                  stream: o.osStream,
                  nodeImage: o.nodeImage,
                  buildId: o.buildId,
                  allowTag: o.allowTag,
                  build,
                });
                swap.warnings.forEach(term.warn);
                for (const x of swap.overrides) term.info(`info: ${describeOsChange(input, x)}`);
                return swap.overrides;
              },
            }
          : {}),
      });
    } catch (err) {
      if (err instanceof MissingImagesError) {
        for (const p of err.problems) term.error(`${CREATE_PREFIX}${p.message}`);
        return undefined;
      }
      throw err;
    }
    if (result.json !== undefined) {
      term.outRaw(result.json);
      return result;
    }
    await publishRelease(publishableFromRelease(result), {
      ...publishOptions(o, opts),
      // The release's components (and its base) are found where the release is: its registry, or its layout.
      open: openComponent,
    });
    return result;
  });
  if (!done) setExitCode(1);
}
