import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { examples } from './options.js';
import { addRegistryOptions, sourceOptions, type RegistryOptionValues } from './registry-options.js';

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

/** `--created`, else SOURCE_DATE_EPOCH, else the Unix epoch: the same inputs always give the same digest. */
export function createdTime(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  let date: Date;
  if (flag !== undefined) {
    date = new Date(flag);
    if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(flag))
      throw new UsageError(`--created: ${JSON.stringify(flag)} is not an RFC 3339 time`);
  } else if (env.SOURCE_DATE_EPOCH) {
    if (!/^\d+$/.test(env.SOURCE_DATE_EPOCH))
      throw new UsageError(`SOURCE_DATE_EPOCH: ${JSON.stringify(env.SOURCE_DATE_EPOCH)} is not a number of seconds`);
    date = new Date(Number(env.SOURCE_DATE_EPOCH) * 1000);
  } else {
    date = new Date(0);
  }
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

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
    .option('--next <version>', 'versions this release can upgrade to (repeatable)', collect, [])
    .option('--metadata <json>', 'a JSON object stored as release-metadata "metadata"')
    .option('--mapping-file <file>', 'TAG=PULLSPEC pairs, space- or line-separated; # starts a comment')
    .option('--include <tag>', 'keep this input tag even when no operator references it (repeatable)', collect, [])
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
      const targets = [o.toImage, o.toFile, o.toDir].filter((t) => t !== undefined).length;
      if (targets !== 1) throw new UsageError('give exactly one of --to-image, --to-file and --to-dir');
      const created = createdTime(o.created);
      const { readFile } = await import('node:fs/promises');
      const { OsimageError, describe } = await import('../errors.js');
      const { parseMappings } = await import('../release/new/mappings.js');
      const { releaseMetadata } = await import('../release/new/metadata.js');
      const { assemblePayload, MissingImagesError } = await import('../release/new/assemble.js');
      const { info, error, out } = await import('../output/terminal.js');

      let mappingFile: { path: string; text: string } | undefined;
      if (o.mappingFile !== undefined) {
        try {
          mappingFile = { path: o.mappingFile, text: await readFile(o.mappingFile, 'utf8') };
        } catch (err) {
          throw new OsimageError(`cannot read --mapping-file ${o.mappingFile}: ${describe(err)}`);
        }
      }
      const mappings = parseMappings(mappingArgs, mappingFile);
      const metadata = releaseMetadata({
        name: o.name,
        previous: o.previous,
        next: o.next,
        ...(o.metadata !== undefined ? { metadataJson: o.metadata } : {}),
      });
      if (o.toImage !== undefined) {
        const { parseReference } = await import('../registry/reference.js');
        if (parseReference(o.toImage).reference.digest)
          throw new UsageError('--to-image may only point to a repository or tag, not a digest');
      }

      let payload;
      try {
        payload = await assemblePayload({
          fromDir: o.fromDir!,
          metadata,
          mappings,
          created,
          include: o.include,
          ...(o.allowMissingImages ? { allowMissingImages: true } : {}),
          ...(o.skipManifestCheck ? { skipManifestCheck: true } : {}),
        });
      } catch (err) {
        if (err instanceof MissingImagesError) {
          for (const p of err.problems) error(p.message);
          process.exitCode = 1;
          return;
        }
        throw err;
      }
      for (const n of payload.notes) info(`info: ${n}`);

      if (o.toDir !== undefined) {
        const { writeReleaseDir } = await import('../release/new/output.js');
        await writeReleaseDir(payload.files, o.toDir);
        info(`info: wrote ${payload.files.length} files to ${o.toDir}`);
        return;
      }

      const state = { verificationFailed: false };
      const { opts, progress } = await sourceOptions(o, state);
      const { composeReleaseImage, loadBase } = await import('../release/new/image.js');
      let baseSource;
      let base;
      let baseRef: { registry: string; repository: string } | undefined;
      try {
        if (o.toImageBase !== undefined) {
          const { openImage } = await import('../registry/open.js');
          baseSource = await openImage(o.toImageBase, opts);
          base = await loadBase(baseSource, o.filterByOs);
          if (!o.toImageBase.startsWith('oci:') && !o.toImageBase.startsWith('oci-archive:')) {
            const { parseReference } = await import('../registry/reference.js');
            baseRef = parseReference(o.toImageBase).reference;
          }
        }
        const image = await composeReleaseImage({ name: metadata.version, files: payload.files, created, ...(base ? { base } : {}) });
        const tag = metadata.version.replace(/\+/g, '_');
        let digest: string;
        let name: string;
        if (o.toFile !== undefined) {
          const { writeReleaseArchive } = await import('../release/new/output.js');
          await writeReleaseArchive(image, o.toFile, tag, baseSource);
          digest = image.manifest.descriptor.digest;
          name = `oci-archive:${o.toFile}:${tag}`;
        } else {
          const { pushRelease } = await import('../release/new/output.js');
          // A tag the user typed wins; else the version.
          const { parseImageReference } = await import('../oci/reference.js');
          const typedTag = parseImageReference(o.toImage!, { dockerTransport: true }).tag !== undefined;
          const target = typedTag ? o.toImage! : `${o.toImage}:${tag}`;
          digest = await pushRelease(image, target, baseSource, {
            ...(opts.registryConfig ? { registryConfig: opts.registryConfig } : {}),
            ...(opts.insecure ? { insecure: true } : {}),
            ...(opts.caFile ? { caFile: opts.caFile } : {}),
            ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
            ...(baseRef ? { baseRegistry: baseRef.registry, baseRepository: baseRef.repository } : {}),
          });
          name = target;
        }
        progress.done();
        info(`info: wrote ${name}`);
        out(`${digest} ${metadata.version} ${created}`);
      } finally {
        progress.done();
        await baseSource?.close();
      }
    });
}
