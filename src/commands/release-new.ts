import { Command } from 'commander';
import { setExitCode } from '../context.js';
import { checkConflicts, type FlagRule } from './conflicts.js';
import { readImages } from './open-image.js';
import { examples } from './options.js';
import { addRegistryOptions, type RegistryOptionValues } from './registry-options.js';

interface NewOptions extends RegistryOptionValues {
  fromDir?: string;
  name: string;
  previous: string[];
  next: string[];
  metadata?: string;
  mappingFile?: string;
  toImageBase?: string;
  toImage?: string;
  toFile?: string;
  toDir?: string;
  include: string[];
  allowMissingImages?: boolean;
  skipManifestCheck?: boolean;
  created?: string;
}

const collect = (v: string, acc: string[]) => [...acc, v];

const NEW_CONFLICTS: FlagRule[] = [
  { rule: 'exactly-one', flags: ['toImage', 'toFile', 'toDir'], message: 'give exactly one of --to-image, --to-file and --to-dir' },
];

export function newCommand(): Command {
  return addRegistryOptions(new Command('new'))
    .description(
      'Assemble a release payload from a folder of operator manifests and input images, as `oc adm release new --from-dir` does,\n' +
        'and push it (--to-image), write it as an oci-archive (--to-file) or as flat manifests (--to-dir).',
    )
    .argument('[mappings...]', 'TAG=PULLSPEC overrides of input images')
    .requiredOption(
      '--from-dir <dir>',
      'DIR/image-references lists the input images; each DIR/<operator>/ holds its manifests and image-references',
    )
    .requiredOption('--name <version>', 'the release version (semver), e.g. 4.99.0')
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
    .addHelpText(
      'after',
      examples([
        'osimage release new --from-dir payload --name 4.99.0 --to-file release.tar',
        'osimage release info oci-archive:release.tar:4.99.0',
        'osimage release new --from-dir payload --name 4.99.0 machine-os-content=quay.io/ocp/os@sha256:… \\\n      --to-image-base quay.io/ocp/cvo@sha256:… --to-image registry.example/ocp/release:4.99.0',
        'osimage release new --from-dir payload --name 4.99.0 --mapping-file overrides.txt --to-dir out/',
      ]),
    )
    .action(async (mappingArgs: string[], o: NewOptions) => {
      checkConflicts(o, NEW_CONFLICTS);
      const { createdTime } = await import('../release/new/created.js');
      const created = createdTime(o.created);
      const { parseMappings } = await import('../release/new/mappings.js');
      const { releaseMetadata } = await import('../release/new/metadata.js');
      const { assemblePayload, MissingImagesError, CREATE_PREFIX } = await import('../release/new/assemble.js');
      const target = await import('../release/new/target.js');
      const { info, error, out } = await import('../output/terminal.js');

      let mappingFile: { path: string; text: string } | undefined;
      if (o.mappingFile !== undefined) {
        const { readText } = await import('../files/read.js');
        mappingFile = { path: o.mappingFile, text: await readText(o.mappingFile) };
      }
      const mappings = parseMappings(mappingArgs, mappingFile);
      const metadata = releaseMetadata({
        name: o.name,
        previous: o.previous,
        next: o.next,
        ...(o.metadata !== undefined ? { metadataJson: o.metadata } : {}),
      });
      if (o.toImage !== undefined) target.checkPushTarget(o.toImage);

      info(`info: Using ${o.fromDir} as the input to the release`);
      let payload;
      try {
        payload = await assemblePayload({
          onInfo: (line) => info(`info: ${line}`),
          fromDir: o.fromDir!,
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
        const { writeReleaseDir } = await import('../release/new/publish.js');
        await writeReleaseDir(payload.files, o.toDir);
        return;
      }

      const { composeReleaseImage, loadBase } = await import('../release/new/image.js');
      const publish = await import('../release/new/publish.js');
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
