import { Command } from 'commander';
import { setExitCode } from '../context.js';
import { UsageError } from '../errors.js';
import { checkConflicts, flagName, type FlagRule } from './conflicts.js';
import { readImages } from './open-image.js';
import { addSettingsOptions, examples } from './options.js';
import { addRegistryOptions } from './registry-options.js';
import { OS_FLAGS, type NewOptions } from './release-new-options.js';
import { runFromRelease } from './release-new-from-release.js';
import { createdTime } from '../release/new/created.js';
import { parseMappings } from '../release/new/mappings.js';
import { releaseMetadata } from '../release/new/metadata.js';
import { CREATE_PREFIX, MissingImagesError, assemblePayload } from '../release/new/assemble.js';
import * as targetModule from '../release/new/target.js';
import { error, info, out } from '../output/terminal.js';
import { readText } from '../files/read.js';
import * as publishModule from '../release/new/publish.js';
import { writeReleaseDir } from '../release/new/publish.js';
import { composeReleaseImage, loadBase } from '../release/new/image.js';

const collect = (v: string, acc: string[]) => [...acc, v];

const NEW_CONFLICTS: FlagRule[] = [
  { rule: 'at-most-one', flags: ['fromDir', 'fromRelease'], message: 'only one of --from-release or --from-dir may be specified' },
  { rule: 'at-most-one', flags: ['toImage', 'toFile', 'toDir'], message: 'give exactly one of --to-image, --to-file and --to-dir' },
];

/** Flags of --from-release only (the others are shared with --from-dir). */
export const FROM_RELEASE_ONLY = [
  'exclude',
  'toImageBaseTag',
  'keepManifestList',
  'output',
  'referenceMode',
  'dryRun',
  'fullRebuild',
  'allowTag',
  ...OS_FLAGS,
] as const;

export function newCommand(): Command {
  const cmd = addRegistryOptions(new Command('new'))
    .description(
      'Assemble a release payload, as `oc adm release new` does: from a folder of operator manifests and input images ' +
        '(--from-dir), or from an existing release with some images replaced (--from-release; with an RHCOS build, every ' +
        'OS tag of the release is swapped to that build), and push it (--to-image), write it as an oci-archive (--to-file) ' +
        'or as flat manifests (--to-dir). With --from-release and no output, a dry run prints the digest.',
    )
    .argument('[mappings...]', 'TAG=PULLSPEC overrides of input images')
    .option(
      '--from-dir <dir>',
      'DIR/image-references lists the input images; each DIR/<operator>/ holds its manifests and image-references',
    )
    .option('--from-release <image>', 'start from this release image: its images, operators, name and metadata (oc --from-release)')
    .option('--name <version>', "the release version (semver), e.g. 4.99.0 (default with --from-release: the input's)")
    .option('--previous <versions>', 'versions this release can upgrade from (repeatable, or comma-separated)', collect, [])
    .option('--next <version>', 'versions this release can upgrade to (repeatable, or comma-separated)', collect, [])
    .option('--metadata <json>', 'a JSON object stored as release-metadata "metadata"')
    .option('--mapping-file <file>', 'TAG=PULLSPEC pairs, space- or line-separated; # starts a comment')
    .option('--include <tag>', 'keep this input tag even when no operator references it (repeatable, or comma-separated)', collect, [])
    .option('--allow-missing-images', 'leave references to tags the inputs lack unchanged instead of failing')
    .option('--skip-manifest-check', 'do not check that manifests are Kubernetes objects')
    .option('--to-image-base <image>', 'base image the release layer is appended to (layers are mounted or copied)')
    .option('--created <time>', 'creation time (RFC 3339); default $SOURCE_DATE_EPOCH, else 1970-01-01T00:00:00Z')
    .option('--to-image <image>', 'push the release image to this repository[:tag] (tag defaults to the version)')
    .option('--to-file <file>', 'write the release image as an oci-archive (tag: the version)')
    .option('--to-dir <dir>', 'write the payload manifests, flat, into this folder')
    .option(
      '--exclude <tag>',
      '--from-release: leave this tag out (repeatable, or comma-separated; an unknown tag is ignored)',
      collect,
      [],
    )
    .option(
      '--to-image-base-tag <tag>',
      "--from-release: the input tag the release layer goes on when the release's base-image-digest names none (default cluster-version-operator)",
    )
    .option('--keep-manifest-list', '--from-release: read manifest lists as linux/amd64; without a base match, build on the input release')
    .option('-o, --output <format>', '--from-release: json prints the resulting image-references and stops')
    .option('--reference-mode <mode>', '--from-release: accepted and ignored, as oc ignores it there')
    .option('--dry-run', '--from-release: build the image but push nothing; print its digest line')
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
        'osimage release new --from-release quay.io/ocp/release:4.16.3-x86_64 rhel-coreos=quay.io/x/os@sha256:… --to-image registry.example/ocp/release:4.16.3-os',
        'osimage release new --from-release quay.io/ocp/release:4.16.3-x86_64 --base-url https://rhcos.example/prod/streams \\\n      --channel 4.16-9.4/builds --build 416.94.202406251923-0 --to-image registry.example/ocp/release:4.16.3-os',
        'osimage release new --from-release oci-archive:hack/sample/components.oci-archive:4.16.3 --os --pins release.sh --to-file swapped.tar',
      ]),
    )
    .action(async (mappingArgs: string[], o: NewOptions) => {
      checkConflicts(o, NEW_CONFLICTS);
      if (o.fromRelease !== undefined) {
        await runFromRelease(mappingArgs, o);
        return;
      }
      const stray = FROM_RELEASE_ONLY.filter((k) => o[k] !== undefined && o[k] !== false && !(Array.isArray(o[k]) && o[k].length === 0));
      if (stray.length > 0) throw new UsageError(`${stray.map(flagName).join(', ')} only apply with --from-release`);
      const { fromDir, name } = o;
      if (fromDir === undefined) throw new UsageError('must specify --from-dir or --from-release');
      if (name === undefined) throw new UsageError("required option '--name <version>' not specified");
      if (o.toImage === undefined && o.toFile === undefined && o.toDir === undefined)
        throw new UsageError('give exactly one of --to-image, --to-file and --to-dir');
      const created = createdTime(o.created);
      const target = targetModule;

      let mappingFile: { path: string; text: string } | undefined;
      if (o.mappingFile !== undefined) {
        mappingFile = { path: o.mappingFile, text: await readText(o.mappingFile) };
      }
      const mappings = parseMappings(mappingArgs, mappingFile);
      const metadata = releaseMetadata({
        name,
        previous: o.previous,
        next: o.next,
        ...(o.metadata !== undefined ? { metadataJson: o.metadata } : {}),
      });
      if (o.toImage !== undefined) target.checkPushTarget(o.toImage);

      info(`info: Using ${fromDir} as the input to the release`);
      let payload;
      try {
        payload = await assemblePayload({
          onInfo: (line) => info(`info: ${line}`),
          fromDir,
          metadata,
          mappings,
          created,
          include: o.include.flatMap((t) => t.split(',')).filter(Boolean),
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

      if (o.toDir !== undefined) {
        await writeReleaseDir(payload.files, o.toDir);
        return;
      }
      const publish = publishModule;
      const tag = target.releaseTag(metadata.version);
      const written = await readImages(o, async (open, opts) => {
        const baseSource = o.toImageBase !== undefined ? await open(o.toImageBase) : undefined;
        const base = baseSource ? await loadBase(baseSource, o.filterByOs) : undefined;
        const image = await composeReleaseImage({ name: metadata.version, files: payload.files, created, ...(base ? { base } : {}) });
        if (o.toFile !== undefined) {
          await publish.writeReleaseArchive(image, o.toFile, tag, baseSource);
          return { digest: image.manifest.descriptor.digest, name: `oci-archive:${o.toFile}:${tag}` };
        }
        const name = target.pushTarget(o.toImage!, metadata.version);
        const digest = await publish.pushRelease(image, name, baseSource, {
          ...(opts.registryConfig ? { registryConfig: opts.registryConfig } : {}),
          ...(opts.insecure ? { insecure: true } : {}),
          ...(opts.caFile ? { caFile: opts.caFile } : {}),
          ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
          ...(o.toImageBase !== undefined ? target.baseRepository(o.toImageBase) : {}),
        });
        info(`info: Pushed to ${o.toImage}`);
        return { digest, name };
      });
      out(`${written.digest} ${metadata.version} ${created}`);
    });
}
