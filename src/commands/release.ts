import { Command, Option } from 'commander';
import { OsimageError, UsageError } from '../errors.js';
import { examples } from './options.js';
import { addRegistryOptions, sourceOptions, type RegistryOptionValues } from './registry-options.js';
import { newCommand } from './release-new.js';

interface InfoOptions extends RegistryOptionValues {
  imageFor?: string;
  pullspecs?: boolean;
  commits?: boolean;
  commitUrls?: boolean;
  changesFrom?: string;
  output?: 'json' | 'name' | 'pullspec' | 'digest';
}

interface ExtractOptions extends RegistryOptionValues {
  file?: string;
  to?: string;
}

const REFERENCE_HELP = 'IMAGE is a registry reference (quay.io/ns/release:tag or @sha256:…), oci:DIR[:TAG] or oci-archive:FILE[:TAG].';

function infoCommand(): Command {
  return addRegistryOptions(new Command('info'))
    .description(`Show what a release image holds: name, digest, metadata, component versions and images.\n${REFERENCE_HELP}`)
    .argument('<image>', 'the release image')
    .option('--image-for <tag>', 'print the pull spec of this component image only')
    .option('--pullspecs', "show each image's pull spec instead of its digest")
    .option('--commits', 'show the source repository and commit of each image')
    .option('--commit-urls', 'show a link to the source commit of each image')
    .option('--changes-from <old>', 'show what changed from release OLD to IMAGE: machine-os, component versions, images (text or -o json)')
    .addOption(
      new Option('-o, --output <format>', 'output format: json, name, pullspec, digest').choices(['json', 'name', 'pullspec', 'digest']),
    )
    .addHelpText(
      'after',
      examples([
        'osimage release info quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
        'osimage release info --image-for machine-os-content oci-archive:release.tar',
        'osimage release info oci:./layout:4.13.1 --pullspecs',
        'osimage release info -a ~/pull-secret.json REGISTRY/ocp/release@sha256:… -o json',
        'osimage release info --filter-by-os linux/arm64 quay.io/openshift-release-dev/ocp-release:4.16.0-multi',
        'osimage release info --changes-from quay.io/openshift-release-dev/ocp-release:4.13.0-x86_64 quay.io/openshift-release-dev/ocp-release:4.13.1-x86_64',
      ]),
    )
    .action(async (image: string, o: InfoOptions) => {
      if (o.changesFrom !== undefined) return changesFrom(o.changesFrom, image, o);
      const views = [o.imageFor !== undefined, o.commits, o.commitUrls, o.pullspecs].filter(Boolean).length;
      if (views > 1)
        throw new UsageError('only one of --commits, --commit-urls, --pullspecs, --contents, --size, --verify may be specified');
      if (o.imageFor !== undefined && o.output !== undefined) throw new UsageError('--output and --image-for may not both be specified');
      const { openImage } = await import('../registry/open.js');
      const { loadReleaseInfo } = await import('../release/info.js');
      const view = await import('../output/release-view.js');
      const { out, warn, error } = await import('../output/terminal.js');
      const state = { verificationFailed: false };
      const { opts, progress } = await sourceOptions(o, state);
      const source = await openImage(image, opts);
      try {
        const referencesOnly = o.imageFor !== undefined || o.output === 'name' || o.output === 'pullspec' || o.output === 'digest';
        const info = await loadReleaseInfo(image, source, {
          ...(o.filterByOs !== undefined ? { filterByOs: o.filterByOs } : {}),
          referencesOnly,
        });
        progress.done();
        if (state.verificationFailed) warn('the release image failed content verification and may have been tampered with');
        if (o.imageFor !== undefined) {
          const { imageFor } = await import('../oci/image-stream.js');
          const pull = imageFor(info.references, o.imageFor);
          if (!pull) throw new OsimageError(`no image tag "${o.imageFor}" exists in the release image ${image}`);
          out(pull);
          return;
        }
        if (o.output === 'json') {
          const { json } = await import('../output/format.js');
          out(json(view.toJson(info)));
          return;
        }
        if (o.output) {
          const r = view.renderList(info, o.output);
          process.stdout.write(r.out);
          for (const e of r.errors) error(e);
          return;
        }
        process.stdout.write(
          view.renderInfo(info, o.pullspecs ? 'pullspecs' : o.commits ? 'commits' : o.commitUrls ? 'commit-urls' : 'digest'),
        );
      } finally {
        progress.done();
        await source.close();
      }
    });
}

/** `--changes-from OLD NEW`: a diff of two releases. Only the text view and -o json apply to it. */
async function changesFrom(oldImage: string, newImage: string, o: InfoOptions): Promise<void> {
  const conflicts = [
    o.imageFor !== undefined ? '--image-for' : undefined,
    o.pullspecs ? '--pullspecs' : undefined,
    o.commits ? '--commits' : undefined,
    o.commitUrls ? '--commit-urls' : undefined,
    o.output !== undefined && o.output !== 'json' ? `--output ${o.output}` : undefined,
  ].filter((c): c is string => c !== undefined);
  if (conflicts.length > 0)
    throw new UsageError(`--changes-from may not be combined with ${conflicts.join(', ')} (it shows a diff as text or -o json)`);
  if (oldImage === '') throw new UsageError('--changes-from: the image is empty');
  const { openImage } = await import('../registry/open.js');
  const { loadReleaseInfo } = await import('../release/info.js');
  const { diffReleases } = await import('../release/diff.js');
  const view = await import('../output/release-diff-view.js');
  const { out, warn } = await import('../output/terminal.js');
  const state = { verificationFailed: false };
  const { opts, progress } = await sourceOptions(o, state);
  const load = async (ref: string) => {
    const source = await openImage(ref, opts);
    try {
      return await loadReleaseInfo(ref, source, o.filterByOs !== undefined ? { filterByOs: o.filterByOs } : {});
    } finally {
      await source.close();
    }
  };
  try {
    const oldInfo = await load(oldImage);
    const newInfo = await load(newImage);
    progress.done();
    if (state.verificationFailed) warn('the release image failed content verification and may have been tampered with');
    const diff = diffReleases(oldInfo, newInfo);
    if (o.output === 'json') {
      const { json } = await import('../output/format.js');
      out(json(view.diffJson(diff)));
      return;
    }
    out(view.renderDiff(diff));
  } finally {
    progress.done();
  }
}

function extractCommand(): Command {
  return addRegistryOptions(new Command('extract'))
    .description(
      `Extract release-manifests/ from a release image: one file to stdout (--file), or every file into a folder (--to).\n${REFERENCE_HELP}`,
    )
    .argument('<image>', 'the release image')
    .option('--file <name>', 'write the raw bytes of release-manifests/NAME to stdout')
    .option('--to <dir>', 'write every file of release-manifests/ under this folder (default: the current folder)')
    .addHelpText(
      'after',
      examples([
        'osimage release extract oci-archive:release.tar --file image-references',
        'osimage release extract quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64 --to ./manifests',
      ]),
    )
    .action(async (image: string, o: ExtractOptions) => {
      if (o.file !== undefined && o.to !== undefined) throw new UsageError('only one of --to and --file may be set');
      const { openImage } = await import('../registry/open.js');
      const { extractFile, extractTree } = await import('../release/extract.js');
      const { out, outRaw, warn } = await import('../output/terminal.js');
      const state = { verificationFailed: false };
      const { opts, progress } = await sourceOptions(o, state);
      const filter = o.filterByOs !== undefined ? { filterByOs: o.filterByOs } : {};
      const source = await openImage(image, opts);
      try {
        if (o.file !== undefined) {
          const { file } = await extractFile(source, o.file, filter);
          progress.done();
          if (state.verificationFailed) warn('the release image failed content verification and may have been tampered with');
          if (!file) throw new OsimageError(`image did not contain ${o.file}`);
          outRaw(file.data);
          return;
        }
        const tree = await extractTree(source, o.to ?? '.', filter);
        progress.done();
        if (state.verificationFailed) warn('the release image failed content verification and may have been tampered with');
        const { createdString } = await import('../release/info.js');
        out(`Extracted release payload from digest ${tree.listDigest ?? tree.digest} created at ${createdString(tree.config.created)}`);
      } finally {
        progress.done();
        await source.close();
      }
    });
}

export function command(): Command {
  return new Command('release')
    .description('Release payload images: info, extract, new.')
    .addCommand(infoCommand())
    .addCommand(extractCommand())
    .addCommand(newCommand())
    .addHelpText(
      'after',
      examples([
        'osimage release info --image-for machine-os-content quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
        'osimage release extract oci-archive:release.tar --file image-references',
        'osimage release new --from-dir payload --name 4.99.0 --to-file release.tar',
      ]),
    );
}
