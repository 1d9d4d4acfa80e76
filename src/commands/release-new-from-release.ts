/**
 * `release new --from-release`: options into types, one core call (assembleFromRelease), then the output
 * (-o json, --to-dir, --to-file, --to-image, or oc's dry run when none is given).
 */
import { env, setExitCode } from '../context.js';
import { envFlag } from '../env-flag.js';
import { UsageError } from '../errors.js';
import { checkConflicts, type FlagRule } from './conflicts.js';
import { checkOsImageFlags, osImageConflicts } from './os-image-flags.js';
import { readImages } from './open-image.js';
import { settingsFrom } from './options.js';
import { OS_FLAGS, type NewOptions } from './release-new-options.js';
import { readText } from '../files/read.js';
import * as term from '../output/terminal.js';
import { CREATE_PREFIX, MissingImagesError } from '../release/new/assemble.js';
import { createdTime } from '../release/new/created.js';
import { assembleFromRelease } from '../release/new/from-release.js';
import { publishFromRelease, releaseByTag } from '../release/new/from-release-output.js';
import { parseMappings } from '../release/new/mappings.js';
import { releaseMetadata } from '../release/new/metadata.js';
import { describeOsChange, planOsSwap } from '../release/new/os-swap.js';
import * as target from '../release/new/target.js';
import { osImageLocation } from '../release/os-image-config.js';
import { openImage } from '../registry/open.js';
import { resolveBuild } from '../rhcos/resolve.js';
import { settingsFromPinsFile } from '../verify/pins.js';

const FROM_RELEASE_CONFLICTS: FlagRule[] = [
  { rule: 'excludes', flags: ['output', 'toImage', 'toFile', 'toDir'], message: '-o json prints the image-references and writes nothing' },
  {
    rule: 'excludes',
    flags: ['pins', 'build', 'channel'],
    message: '--pins reads the build and channel from FILE; --build and --channel cannot be used with it',
  },
  ...osImageConflicts('swaps'),
];

const split = (values: string[]) => values.flatMap((v) => v.split(',')).filter(Boolean);

export async function runFromRelease(mappingArgs: string[], o: NewOptions): Promise<void> {
  checkConflicts(o, FROM_RELEASE_CONFLICTS);
  const release = o.fromRelease!;
  if (release === '') throw new UsageError('--from-release: the image is empty');
  if (o.output !== undefined && o.output !== 'json')
    throw new UsageError(`--output: only json is supported with --from-release, not ${JSON.stringify(o.output)}`);

  let mappingFile: { path: string; text: string } | undefined;
  if (o.mappingFile !== undefined) {
    mappingFile = { path: o.mappingFile, text: await readText(o.mappingFile) };
  }
  const mappings = parseMappings(mappingArgs, mappingFile);
  // Checked before any network, in oc's words.
  if (o.name !== undefined) releaseMetadata({ name: o.name });
  if (o.metadata !== undefined) releaseMetadata({ name: '0.0.1', metadataJson: o.metadata });
  for (const v of [...o.previous, ...o.next]) releaseMetadata({ name: '0.0.1', previous: [v] });
  if (o.toImage !== undefined) target.checkPushTarget(o.toImage);
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
        exclude: split(o.exclude),
        include: split(o.include),
        name: o.name,
        previous: o.previous,
        next: o.next,
        metadataJson: o.metadata,
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
        onDebug: (line) => {
          if (envFlag(env().OSIMAGE_DEBUG)) term.info(`debug: ${line}`);
        },
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
    await publishFromRelease(result, {
      toDir: o.toDir,
      toFile: o.toFile,
      toImage: o.toImage,
      dryRun: o.dryRun,
      filterByOs: o.keepManifestList ? 'linux/amd64' : o.filterByOs,
      toImageBaseTag: o.toImageBaseTag,
      open: openComponent,
      sourceOptions: opts,
      out: term.out,
      info: (line) => term.info(`info: ${line}`),
    });
    return result;
  });
  if (!done) setExitCode(1);
}
