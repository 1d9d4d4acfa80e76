/** What `release new` runs (release-new.ts builds the command): check the flags, then build from the input given. */
import { setExitCode } from '../context.js';
import { UsageError, describe } from '../errors.js';
import { checkConflicts, flagName, type FlagRule } from './conflicts.js';
import { readImages } from './open-image.js';
import { metadataFor, OS_FLAGS, publishOptions, splitList, type NewOptions } from './release-new-options.js';
import { runFromRelease } from './release-new-from-release.js';
import { runFromStream } from './release-new-from-stream.js';
import { createdTime } from '../release/new/created.js';
import { parseMappings, type Mapping } from '../release/new/mappings.js';
import { checkMetadataJson, releaseMetadata } from '../release/new/metadata.js';
import { CREATE_PREFIX, MissingImagesError, assemblePayload } from '../release/new/assemble.js';
import { assemblePayloadLayer } from '../release/new/assemble-layer.js';
import { publishRelease } from '../release/new/output.js';
import { writeReleaseDir } from '../release/new/publish.js';
import * as targetModule from '../release/new/target.js';
import { parseComponentVersions } from '../release/references.js';
import { error, info, outRaw, warn } from '../output/terminal.js';
import { readText } from '../files/read.js';

const NEW_CONFLICTS: FlagRule[] = [
  {
    rule: 'at-most-one',
    flags: ['fromImageStream', 'fromImageStreamFile', 'fromRelease', 'fromDir'],
    message: 'only one of --from-image-stream, --from-image-stream-file, --from-release, or --from-dir may be specified',
  },
  { rule: 'at-most-one', flags: ['toImage', 'toFile', 'toDir'], message: 'give at most one of --to-image, --to-file and --to-dir' },
  { rule: 'excludes', flags: ['output', 'toImage', 'toFile', 'toDir'], message: '-o json prints the image-references and writes nothing' },
];

/** Flags of --from-release only (the others apply to every input). */
export const FROM_RELEASE_ONLY = ['fullRebuild', 'allowTag', ...OS_FLAGS] as const;

/** The inputs oc reads that osimage does not: each refused with what to do instead. */
const FROM_IMAGE_STREAM_LEFT_OUT =
  '--from-image-stream reads an image stream from a cluster, and osimage has no cluster client: save it with ' +
  '`oc get imagestream NAME -n NAMESPACE -o json > is.json` and pass -f is.json';
const MIRROR_LEFT_OUT =
  '--mirror copies every image of the release to another repository, which osimage does not do: build the release, ' +
  'then mirror it with `oc adm release mirror`';

/** `release new`: the checks every input shares, then --from-release, --from-dir, or -f and mappings alone. */
export async function runNew(mappingArgs: string[], o: NewOptions): Promise<void> {
  const mappings = await checkNewOptions(mappingArgs, o);
  if (o.fromRelease !== undefined) {
    await runFromRelease(mappings, o);
    return;
  }
  const stray = FROM_RELEASE_ONLY.filter((k) => o[k] !== undefined && o[k] !== false);
  if (stray.length > 0) throw new UsageError(`${stray.map(flagName).join(', ')} only apply with --from-release`);
  if (o.fromDir !== undefined) await runFromDir(o.fromDir, mappings, o);
  else await runFromStream(mappings, o);
}

/**
 * What every input checks before anything is read, in oc's order and words: the mappings, one input (or mappings
 * alone), --to-signature with --to-image, --component-versions, --name, --metadata; then osimage's own checks.
 */
async function checkNewOptions(mappingArgs: string[], o: NewOptions): Promise<Mapping[]> {
  checkConflicts(o, NEW_CONFLICTS);
  if (o.fromImageStream !== undefined) throw new UsageError(FROM_IMAGE_STREAM_LEFT_OUT);
  if (o.mirror !== undefined) throw new UsageError(MIRROR_LEFT_OUT);
  if (o.output !== undefined && o.output !== 'json')
    throw new UsageError(`--output: only json is supported, not ${JSON.stringify(o.output)}`);
  let mappingFile: { path: string; text: string } | undefined;
  if (o.mappingFile !== undefined) mappingFile = { path: o.mappingFile, text: await readText(o.mappingFile) };
  const mappings = parseMappings(mappingArgs, mappingFile);
  const hasInput = [o.fromDir, o.fromRelease, o.fromImageStreamFile].some((v) => v !== undefined);
  if (!hasInput && mappings.length === 0) throw new UsageError('must specify image mappings when no other source is defined');
  if (o.toSignature !== undefined && o.toImage === undefined) throw new UsageError('--to-signature requires --to-image');
  checkSignOptions(o);
  try {
    parseComponentVersions(o.componentVersions ?? '', o.componentVersionsDisplayNames ?? '');
  } catch (err) {
    throw new UsageError(`--component-versions is invalid: ${describe(err)}`);
  }
  // An empty --name is no name, as in oc.
  if (o.name) releaseMetadata({ name: o.name });
  if (o.metadata !== undefined && o.metadata !== '') checkMetadataJson(o.metadata);
  for (const v of [...o.previous, ...o.next]) releaseMetadata({ name: '0.0.1', previous: [v] });
  if (o.toImage !== undefined) targetModule.checkPushTarget(o.toImage);
  createdTime(o.created);
  // oc extracts the operator images' manifests into --dir; osimage keeps them in memory (a folder input has none).
  if (o.dir !== undefined && o.fromDir === undefined)
    warn(`--dir ${o.dir}: osimage reads the operator manifests into memory and writes nothing there`);
  return mappings;
}

/** The signing flags: an output to sign, both halves of --gpg-sign, an identity for an archive. */
function checkSignOptions(o: NewOptions): void {
  if (o.gpgSign !== undefined && o.signatureDir === undefined) throw new UsageError('--gpg-sign requires --signature-dir');
  if (o.signatureDir !== undefined && o.gpgSign === undefined) throw new UsageError('--signature-dir requires --gpg-sign');
  const signing = o.signKey !== undefined || o.gpgSign !== undefined;
  if (!signing) {
    if (o.signIdentity !== undefined) throw new UsageError('--sign-identity requires --sign-key or --gpg-sign');
    if (o.passphraseFile !== undefined) throw new UsageError('--passphrase-file requires --sign-key or --gpg-sign');
    return;
  }
  if (o.toImage === undefined && o.toFile === undefined) throw new UsageError('--sign-key and --gpg-sign require --to-image or --to-file');
  if (o.dryRun) throw new UsageError('--sign-key and --gpg-sign sign what is pushed: not with --dry-run');
  if (o.toFile !== undefined && o.signIdentity === undefined) {
    throw new UsageError('--sign-key and --gpg-sign with --to-file require --sign-identity REF: the name the release will be pulled as');
  }
}

async function runFromDir(fromDir: string, mappings: Mapping[], o: NewOptions): Promise<void> {
  const created = createdTime(o.created);
  const metadata = metadataFor(o, created);
  info(`info: Using ${fromDir} as the input to the release`);
  let payload: Awaited<ReturnType<typeof assemblePayloadLayer>>;
  try {
    // Onto an image or into an archive, the files go into the release layer as they are made (never held whole).
    payload = await (o.toDir === undefined ? assemblePayloadLayer : assemblePayload)({
      onInfo: (line) => info(`info: ${line}`),
      fromDir,
      metadata,
      mappings,
      created,
      include: splitList(o.include),
      exclude: splitList(o.exclude),
      toImageBaseTag: o.toImageBaseTag,
      jsonOnly: o.output === 'json',
      ...(o.allowMissingImages ? { allowMissingImages: true } : {}),
      ...(o.skipManifestCheck ? { skipManifestCheck: true } : {}),
    });
  } catch (err) {
    if (err instanceof MissingImagesError) {
      for (const p of err.problems) error(`${CREATE_PREFIX}${p.message}`);
      setExitCode(1);
      return;
    }
    throw err;
  }
  if (payload.json !== undefined) {
    outRaw(payload.json);
    return;
  }
  if (o.toDir !== undefined) {
    await writeReleaseDir(payload.files, o.toDir);
    return;
  }
  const publishable = {
    version: metadata.version,
    imageStream: payload.imageStream,
    files: payload.files,
    layer: payload.layer,
    created,
    base: o.toImageBase,
  };
  await readImages(o, (_open, opts) => publishRelease(publishable, publishOptions(o, opts, { fileBaseGivenOnly: true })));
}
