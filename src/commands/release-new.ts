import { Command } from 'commander';
import { setExitCode } from '../context.js';
import { UsageError, describe } from '../errors.js';
import { checkConflicts, flagName, type FlagRule } from './conflicts.js';
import { readImages } from './open-image.js';
import { addSettingsOptions, examples } from './options.js';
import { addRegistryOptions } from './registry-options.js';
import { metadataFor, OS_FLAGS, publishOptions, splitList, type NewOptions } from './release-new-options.js';
import { runFromRelease } from './release-new-from-release.js';
import { runFromStream } from './release-new-from-stream.js';
import { createdTime } from '../release/new/created.js';
import { parseMappings, type Mapping } from '../release/new/mappings.js';
import { checkMetadataJson, releaseMetadata } from '../release/new/metadata.js';
import { CREATE_PREFIX, MissingImagesError, assemblePayload } from '../release/new/assemble.js';
import { publishRelease } from '../release/new/output.js';
import { writeReleaseDir } from '../release/new/publish.js';
import * as targetModule from '../release/new/target.js';
import { parseComponentVersions } from '../release/references.js';
import { error, info, outRaw, warn } from '../output/terminal.js';
import { readText } from '../files/read.js';

const collect = (v: string, acc: string[]) => [...acc, v];

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

export function newCommand(): Command {
  const cmd = addRegistryOptions(new Command('new'))
    .description(
      'Assemble a release payload, as `oc adm release new` does: from a folder of operator manifests and input images ' +
        '(--from-dir), from an ImageStream file (-f), from an existing release with some images replaced (--from-release; ' +
        'with an RHCOS build, every OS tag of the release is swapped to that build), or from TAG=PULLSPEC mappings alone, ' +
        'and push it (--to-image), write it as an oci-archive (--to-file) or as flat manifests (--to-dir). With no output, ' +
        'a dry run prints the digest.',
    )
    .argument('[mappings...]', 'TAG=PULLSPEC overrides of input images')
    .option(
      '--from-dir <dir>',
      'DIR/image-references lists the input images; each DIR/<operator>/ holds its manifests and image-references',
    )
    .option('-f, --from-image-stream-file <file>', 'the input images: an ImageStream file (JSON or YAML; - for stdin, or an http(s) URL)')
    .option('--from-release <image>', 'start from this release image: its images, operators, name and metadata (oc --from-release)')
    .option('--from-image-stream <name>', 'left out: needs a cluster (save the stream to a file and use -f)')
    .option(
      '--name <version>',
      "the release version (semver), e.g. 4.99.0 (default: 0.0.1-<creation time>; with --from-release, the input's)",
    )
    .option('--previous <versions>', 'versions this release can upgrade from (repeatable, or comma-separated)', collect, [])
    .option('--next <version>', 'versions this release can upgrade to (repeatable, or comma-separated)', collect, [])
    .option('--metadata <json>', 'a JSON object stored as release-metadata "metadata"')
    .option('--mapping-file <file>', 'TAG=PULLSPEC pairs, space- or line-separated; # starts a comment')
    .option('--include <tag>', 'keep this input tag even when no operator references it (repeatable, or comma-separated)', collect, [])
    .option(
      '--exclude <tag>',
      'leave this tag out (repeatable, or comma-separated; an unknown tag is ignored); with --from-dir, an operator folder and its mapping',
      collect,
      [],
    )
    .option('--allow-missing-images', 'leave references to tags the inputs lack unchanged instead of failing')
    .option('--skip-manifest-check', 'do not check that manifests are Kubernetes objects')
    .option('--component-versions <pairs>', 'NAME=VERSION[,…]: checked as oc checks them; oc 4.13 writes them nowhere')
    .option('--component-versions-display-names <pairs>', 'NAME=DISPLAY NAME[,…]: checked with --component-versions; written nowhere')
    .option(
      '--reference-mode <mode>',
      "-f: public (default: the stream's public repository and each digest) or source (the pullspecs as given); ignored otherwise, as in oc",
    )
    .option('--release-manifest', 'accepted and ignored, as oc 4.13 reads it nowhere')
    .option('--to-image-base <image>', 'base image the release layer is appended to (layers are mounted or copied)')
    .option(
      '--to-image-base-tag <tag>',
      "the input tag the release layer goes on when no --to-image-base is given (default cluster-version-operator; '' for none)",
    )
    .option('--keep-manifest-list', 'a base that is a manifest list gives a list: the release layer on each of its images')
    .option('--created <time>', 'creation time (RFC 3339); default $SOURCE_DATE_EPOCH, else 1970-01-01T00:00:00Z')
    .option('--to-image <image>', 'push the release image to this repository[:tag] (tag defaults to the version)')
    .option('--to-file <file>', 'write the release image as an oci-archive (tag: the version)')
    .option('--to-dir <dir>', 'write the payload manifests, flat, into this folder')
    .option(
      '--to-signature <file>',
      'with --to-image: write the message to sign for the pushed image (an "atomic container signature" claim, as oc writes it)',
    )
    .option(
      '--sign-key <file>',
      'sign the release for sigstore with this PEM private key (PKCS#8, EC or RSA, or a cosign encrypted key): the sha256-<hex>.sig image is pushed beside it, or tagged in the --to-file archive',
    )
    .option(
      '--gpg-sign <keyid>',
      "sign the release with gpg's key KEYID (simple signing) into --signature-dir, as a cluster's signature store lays them out",
    )
    .option('--signature-dir <dir>', 'with --gpg-sign: the store folder the signature is written to (<algorithm>=<hex>/signature-<n>)')
    .option('--sign-identity <ref>', 'the identity signed (default: the --to-image reference pushed to; needed with --to-file)')
    .option(
      '--passphrase-file <file>',
      'the passphrase of an encrypted --sign-key, or for --gpg-sign (else $OSIMAGE_SIGN_PASSPHRASE, for a cosign key $COSIGN_PASSWORD, or the gpg agent)',
    )
    .option('--dry-run', 'with --to-image: build the image but push nothing; print its digest line')
    .option('-o, --output <format>', 'json prints the resulting image-references and stops')
    .option('--dir <dir>', "oc's folder for the manifests it extracts: osimage reads them into memory and writes nothing there")
    .option('--mirror <repository>', 'left out: mirror the release with oc adm release mirror after building it')
    .option(
      '--full-rebuild',
      "--from-release: read every operator image's manifests, as oc does, instead of keeping the release's files where they cannot change",
    )
    .option('--os', '--from-release: swap every OS tag to the RHCOS build the settings name (RHCOS_* env, or the flags below)')
    .option('--os-image <pullspec>', '--from-release: the OS image (rhel-coreos, or machine-os-content before 4.12); implies --os')
    .option('--extensions-image <pullspec>', '--from-release: the extensions image; implies --os')
    .option('--legacy-os-image <pullspec>', "--from-release: machine-os-content of a 4.12-4.14 release (default: the build's oscontainer)")
    .option('--os-stream <name>', "--from-release: swap this OS stream's tags (rhel-10: rhel-coreos-10, rhel-coreos-10-extensions)")
    .option('--node-image', '--from-release: rhel-coreos is a node image (4.19+): --os-image and --extensions-image are required')
    .option('--build-id <id>', '--from-release: the build id of the given images, for machine-os= in io.openshift.build.versions')
    .option('--manifest-list', "--from-release: use the build's manifest list digests (multi-arch releases)")
    .option('--allow-tag', '--from-release: accept OS pull specs by tag (a payload wants digests)')
    .option('--pins <file>', '--from-release: swap to the build pinned in this release script (as verify --pins reads it)');
  return addSettingsOptions(cmd)
    .addHelpText(
      'after',
      examples([
        'osimage release new --from-dir payload --name 4.99.0 --to-file release.tar',
        'osimage release info oci-archive:release.tar:4.99.0',
        'osimage release new --from-dir payload --name 4.99.0 machine-os-content=quay.io/ocp/os@sha256:… \\\n      --to-image-base quay.io/ocp/cvo@sha256:… --to-image registry.example/ocp/release:4.99.0',
        'osimage release new --from-dir payload --name 4.99.0 --mapping-file overrides.txt --to-dir out/',
        'osimage release new -f is.json --reference-mode source --name 4.99.0 --to-image registry.example/ocp/release:4.99.0',
        'osimage release new --from-release quay.io/ocp/release:4.16.3-x86_64 rhel-coreos=quay.io/x/os@sha256:… --to-image registry.example/ocp/release:4.16.3-os',
        'osimage release new --from-release quay.io/ocp/release:4.16.3-x86_64 --base-url https://rhcos.example/prod/streams \\\n      --channel 4.16-9.4/builds --build 416.94.202406251923-0 --to-image registry.example/ocp/release:4.16.3-os',
        'osimage release new --from-release oci-archive:release.tar:4.16.3 --os --pins hack/release.sh --to-file swapped.tar',
        'osimage release new --from-dir payload --name 4.99.0 --sign-key cosign.key --gpg-sign release@example.com --signature-dir sigs --to-image registry.example/ocp/release:4.99.0',
      ]),
    )
    .action(async (mappingArgs: string[], o: NewOptions) => {
      const mappings = await checkNewOptions(mappingArgs, o);
      if (o.fromRelease !== undefined) {
        await runFromRelease(mappings, o);
        return;
      }
      const stray = FROM_RELEASE_ONLY.filter((k) => o[k] !== undefined && o[k] !== false);
      if (stray.length > 0) throw new UsageError(`${stray.map(flagName).join(', ')} only apply with --from-release`);
      if (o.fromDir !== undefined) await runFromDir(o.fromDir, mappings, o);
      else await runFromStream(mappings, o);
    });
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
  let payload;
  try {
    payload = await assemblePayload({
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
    created,
    base: o.toImageBase,
  };
  await readImages(o, (_open, opts) => publishRelease(publishable, publishOptions(o, opts, { fileBaseGivenOnly: true })));
}
