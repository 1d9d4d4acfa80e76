import { Command, Option } from 'commander';
import { OsimageError, UsageError } from '../errors.js';
import { checkConflicts, type FlagRule } from './conflicts.js';
import { readImages } from './open-image.js';
import { examples, outputOption } from './options.js';
import { addRegistryOptions, type RegistryOptionValues } from './registry-options.js';
import { newCommand } from './release-new.js';
import * as infoFlags from './release-info-flags.js';
import { addInfoFlags, type InfoFlagValues } from './release-info-flags.js';
import { diffCommand } from './release-diff.js';
import * as outputFormatModule from '../output/output-format.js';
import { loadReleaseInfo } from '../release/info.js';
import * as releaseView from '../output/release-view.js';
import { error, out, outRaw } from '../output/terminal.js';
import { imageFor } from '../oci/image-stream.js';
import { OUTPUT_FORMATS } from '../output/output-format.js';
import { offerValues } from '../output/command-table.js';
import { json } from '../output/format.js';
import { extractCommand } from './release-extract.js';
import { verifySignaturesCommand } from './release-verify-signatures.js';

interface InfoOptions extends InfoFlagValues {
  imageFor?: string;
  pullspecs?: boolean;
  commits?: boolean;
  commitUrls?: boolean;
  changesFrom?: string;
  /** json, name, pullspec, digest, or a template format (jsonpath=…, go-template=…): src/output/output-format.ts. */
  output?: string;
  template?: string;
  /** oc's --allow-missing-template-keys (default true): false makes a missing key an error in jsonpath and go-template. */
  allowMissingTemplateKeys: boolean;
}

/** oc's words. */
const INFO_CONFLICTS: FlagRule[] = [
  {
    rule: 'at-most-one',
    flags: ['imageFor', 'commits', 'commitUrls', 'pullspecs', 'contents', 'size', 'verify'],
    message: 'only one of --commits, --commit-urls, --pullspecs, --contents, --size, --verify may be specified',
  },
  { rule: 'at-most-one', flags: ['output', 'imageFor'], message: '--output and --image-for may not both be specified' },
];

const REFERENCE_HELP =
  'IMAGE is a registry reference (quay.io/ns/release:tag or @sha256:…; docker://REF too), oci:DIR[:TAG], oci-archive:FILE[:TAG], dir:DIR or docker-archive:FILE[:REF] (as skopeo writes them).';

function infoCommand(): Command {
  return addInfoFlags(addRegistryOptions(new Command('info')))
    .description(
      `Show what a release image holds: name, digest, metadata, component versions and images. With two images (or --changes-from OLD), compare them as oc does.\n${REFERENCE_HELP}`,
    )
    .argument('<image...>', 'the release image (two: OLD NEW, compared as with --changes-from OLD)')
    .option('--image-for <tag>', 'print the pull spec of this component image only')
    .option('--pullspecs', "show each image's pull spec instead of its digest")
    .option('--commits', 'show the source repository and commit of each image')
    .option('--commit-urls', 'show a link to the source commit of each image')
    .option(
      '--merged-layers',
      'read release-manifests/ through every layer, merged as a running container sees them (default: the first layer, top down, that holds it, as oc reads the top layer)',
    )
    .option(
      '--changes-from <old>',
      "show what changed from release OLD to IMAGE, as oc shows it (images by digest, or --commits; -o json); osimage's own report is `release diff`",
    )
    .addOption(
      offerValues(
        new Option(
          '-o, --output <format>',
          "output format, as oc's: json, name, pullspec, digest, jsonpath=TEMPLATE, jsonpath-as-json=TEMPLATE, jsonpath-file=FILE, go-template=TEMPLATE, go-template-file=FILE, template=TEMPLATE, templatefile=FILE",
        ),
        OUTPUT_FORMATS,
      ),
    )
    .option(
      '--template <template>',
      'the template (or, for the -file formats, its file) of -o jsonpath, go-template, … when not given after =',
    )
    .option(
      '--allow-missing-template-keys',
      'with a template -o: a missing key prints nothing (jsonpath) or <no value> (go-template); =false makes it an error, as in oc',
      true,
    )
    .addOption(new Option('--no-allow-missing-template-keys').hideHelp())
    .addHelpText(
      'after',
      examples([
        'osimage release info quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
        'osimage release info --image-for machine-os-content oci-archive:release.tar',
        'osimage release info oci:./layout:4.13.1 --pullspecs',
        'osimage release info -a ~/pull-secret.json REGISTRY/ocp/release@sha256:… -o json',
        "osimage release info -o jsonpath='{.displayVersions.machine-os.Version}' quay.io/openshift-release-dev/ocp-release:4.13.1-x86_64",
        `osimage release info -o jsonpath='{range .references.spec.tags[*]}{.name}{"\\t"}{.from.name}{"\\n"}{end}' oci-archive:release.tar`,
        'osimage release info -o go-template=\'{{range .references.spec.tags}}{{.name}}{{"\\n"}}{{end}}\' oci:./layout:4.13.1',
        'osimage release info --filter-by-os linux/arm64 quay.io/openshift-release-dev/ocp-release:4.16.0-multi',
        'osimage release info --changes-from quay.io/openshift-release-dev/ocp-release:4.13.0-x86_64 quay.io/openshift-release-dev/ocp-release:4.13.1-x86_64',
        'osimage release info quay.io/openshift-release-dev/ocp-release:4.13.0-x86_64 quay.io/openshift-release-dev/ocp-release:4.13.1-x86_64 --commits',
        'osimage release info --size oci-archive:release.tar:4.16.3',
        'osimage release info --merged-layers oci-archive:flattened-release.tar',
        'osimage release info --verify quay.io/openshift-release-dev/ocp-release@sha256:… quay.io/openshift-release-dev/ocp-release@sha256:…',
        'osimage release info --icsp-file icsp.yaml --include-images -o json MIRRORED/ocp/release@sha256:…',
        'osimage release info --dir ./mirror file://openshift/release:4.13.1-x86_64 --contents',
        'osimage release info --changelog ~/changelog --changes-from OLD NEW',
        'osimage release info --bugs ~/changelog --skip-bug-check -o name OLD NEW',
      ]),
    )
    .action(async (images: string[], o: InfoOptions) => {
      checkConflicts(o, INFO_CONFLICTS);
      await infoFlags.prepareInfoFlags(images, o);
      if (o.verify) return infoFlags.verifyReleases(images, o);
      const comparison = comparisonOf(images, o);
      if (comparison && (o.changelog || o.bugs)) return infoFlags.showChangelog(comparison.from, comparison.to, o);
      if (comparison) return changesFrom(comparison.from, comparison.to, o);
      if (images.length > 1) throw new UsageError(`too many arguments for 'info'. Expected 1 argument but got ${images.length}.`);
      const image = images[0]!;
      // output-format.ts loads the JSONPath and Go template engines only for an -o that names one.
      const format = o.output !== undefined ? await outputFormatModule.parseOutputFormat(o.output, o.template) : undefined;
      // --contents wins over -o, as in oc, once -o has been checked.
      if (o.contents) return infoFlags.showContents(image, o);
      const view = releaseView;
      const referencesOnly = o.imageFor !== undefined || format === 'name' || format === 'pullspec' || format === 'digest';
      const info = await readImages(o, (open) => infoFlags.loadInfo(image, open, o, { ...filterOf(o), referencesOnly }));
      if (o.imageFor !== undefined) {
        const pull = imageFor(info.references, o.imageFor);
        if (!pull) throw new OsimageError(`no image tag "${o.imageFor}" exists in the release image ${image}`);
        out(pull);
        return;
      }
      if (format === 'json') {
        outRaw((await import('../oc/release-info.js')).renderJson(info));
        return;
      }
      if (typeof format === 'object') {
        const { toJson } = await import('../oc/release-info.js');
        const r = await outputFormatModule.printTemplate(format, toJson(info), {
          allowMissingKeys: o.allowMissingTemplateKeys,
          write: outRaw,
        });
        outRaw(r.out);
        if (r.error !== undefined) throw new OsimageError(r.error);
        return;
      }
      if (format) {
        const r = view.renderList(info, format);
        outRaw(r.out);
        for (const e of r.errors) error(e);
        return;
      }
      const table = o.pullspecs ? 'pullspecs' : o.commits ? 'commits' : o.commitUrls ? 'commit-urls' : 'digest';
      outRaw(view.renderInfo(info, table, await infoFlags.sizeSection(info, o)));
    });
}

/** The flags a comparison reads; `--contents` and `--verify` change what `info` does with two releases. */
interface ComparisonOptions extends InfoFlagValues {
  commits?: boolean;
}

/**
 * Whether `info` compares two releases, as oc decides: `--changes-from OLD` (an empty value is no value), or
 * exactly two images without `--verify`, the first being OLD. One IMAGE is needed beside OLD.
 */
function comparisonOf(images: string[], o: ComparisonOptions): { from: string; to: string } | undefined {
  let from = o.changesFrom ?? '';
  let rest = images;
  if (from === '' && images.length === 2 && !o.verify) [from, ...rest] = images as [string, string];
  if (from === '' || o.verify) return undefined;
  if (rest.length !== 1) {
    // oc checks the -o name first.
    checkOutputName(o.output ?? '');
    throw new UsageError('must specify a single release image as argument when comparing to another release image');
  }
  return { from, to: rest[0]! };
}

/** An -o that is no format of `info` at all: oc's words (its template, if any, is not looked at yet). */
function checkOutputName(output: string): void {
  if (output !== '' && !OUTPUT_FORMATS.includes(output.split('=')[0]!)) {
    throw new UsageError(`--output only supports ${OUTPUT_FORMATS.join(', ')}`);
  }
}

/**
 * oc's comparison of two releases: a FROM/TO table and the images changed, rebuilt, added and removed (text,
 * `--commits` for source links), or `-o json` `{from, to, changedImages, changedManifests}`; with `--contents`
 * only a hint on comparing the extracted files. Other views of `info` do not apply; oc ignores them, but an -o
 * other than json is refused (oc does so after reading both images).
 */
async function changesFrom(oldImage: string, newImage: string, o: ComparisonOptions): Promise<void> {
  const output = o.output ?? '';
  checkOutputName(output);
  const [ocChanges, { readReleaseChanges }, changesView] = await Promise.all([
    import('../oc/changes.js'),
    import('../release/changes.js'),
    import('../output/changes-view.js'),
  ]);
  if (o.contents) {
    outRaw(ocChanges.contentsHint('osimage release', oldImage, newImage));
    return;
  }
  if (output !== '' && output !== 'json') throw new UsageError(`unrecognized output mode: ${output}`);
  const asJson = output === 'json';
  // Each release is read as `info` reads one (mirrors; the component images with --include-images, --size).
  const changes = await readImages(o, (open) =>
    readReleaseChanges(oldImage, newImage, open, {
      ...filterOf(o),
      manifests: asJson,
      load: (image, load) => infoFlags.loadInfo(image, open, o, load),
    }),
  );
  if (asJson) {
    outRaw(ocChanges.renderChangesJson(changes));
    return;
  }
  outRaw(changesView.renderChanges(changes, { commits: o.commits === true, now: new Date() }));
}

interface OsStreamsOptions extends RegistryOptionValues {
  output: 'text' | 'json';
}

function osStreamsCommand(): Command {
  return addRegistryOptions(new Command('os-streams'))
    .description(
      `List the OS image streams a release ships (rhel-9, rhel-10, centos-10), found as the machine-config-operator finds them: candidate tags, then each image's labels.\n${REFERENCE_HELP}`,
    )
    .argument('<image>', 'the release image')
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText(
      'after',
      examples([
        'osimage release os-streams quay.io/openshift-release-dev/ocp-release:4.21.0-x86_64',
        'osimage release os-streams oci-archive:release.tar -o json',
        'osimage release os-streams -a ~/pull-secret.json --filter-by-os linux/arm64 REGISTRY/ocp/release:4.21.0-multi',
      ]),
    )
    .action(async (image: string, o: OsStreamsOptions) => {
      const [view, { releaseOsStreams }] = await Promise.all([
        import('../output/os-streams-view.js'),
        import('../release/os-image-config.js'),
      ]);
      const found = await readImages(o, async (open, opts) => {
        const info = await loadReleaseInfo(image, await open(image), { ...filterOf(o), referencesOnly: true });
        return releaseOsStreams(image, info.references, opts, o.filterByOs);
      });
      if (o.output === 'json') {
        out(json(view.osStreamsJson(found)));
        return;
      }
      out(view.renderOsStreams(found));
    });
}

interface BootimagesOptions extends RegistryOptionValues {
  osStream?: string;
  output: 'text' | 'json';
}

function bootimagesCommand(): Command {
  return addRegistryOptions(new Command('bootimages'))
    .description(
      `Show the bootimage streams a release carries (release-manifests/0000_50_installer_coreos-bootimages.yaml): per arch the build, platforms and region counts, or with -o json the stream JSON as stored (data.stream, or data.streams[NAME] with --os-stream).\n${REFERENCE_HELP}`,
    )
    .argument('<image>', 'the release image')
    .option('--os-stream <name>', 'the OS stream of data.streams to show (rhel-9, rhel-10); default: data.stream')
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText(
      'after',
      examples([
        'osimage release bootimages quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
        'osimage release bootimages oci-archive:release.tar -o json > stream.json',
        'osimage release bootimages --os-stream rhel-10 -o json quay.io/openshift-release-dev/ocp-release:4.21.0-multi',
      ]),
    )
    .action(async (image: string, o: BootimagesOptions) => {
      if (o.osStream === '') throw new UsageError('--os-stream: the stream name is empty');
      const boot = await import('../release/bootimages.js');
      const found = await readImages(o, async (open) => boot.readReleaseBootimages(await open(image), filterOf(o)));
      if (o.output === 'json') {
        const { text } = boot.pickStream(found, o.osStream, image);
        outRaw(text.endsWith('\n') ? text : `${text}\n`);
        return;
      }
      const picked = o.osStream !== undefined ? [boot.pickStream(found, o.osStream, image)] : boot.allStreams(found, image);
      const { renderBootimages } = await import('../output/bootimages-view.js');
      outRaw(renderBootimages(picked, boot.defaultStreamName(found)));
    });
}

/** `--filter-by-os` as the release readers take it. */
function filterOf(o: RegistryOptionValues): { filterByOs?: string } {
  return o.filterByOs !== undefined ? { filterByOs: o.filterByOs } : {};
}

export function command(): Command {
  return new Command('release')
    .description('Read, compare and assemble release payload images (the subcommands below).')
    .addCommand(infoCommand())
    .addCommand(diffCommand())
    .addCommand(extractCommand())
    .addCommand(osStreamsCommand())
    .addCommand(bootimagesCommand())
    .addCommand(newCommand())
    .addCommand(verifySignaturesCommand())
    .addHelpText(
      'after',
      examples([
        'osimage release info --image-for machine-os-content quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
        'osimage release diff oci-archive:old.tar oci-archive:new.tar',
        'osimage release extract oci-archive:release.tar --file image-references',
        'osimage release new --from-dir payload --name 4.99.0 --to-file release.tar',
      ]),
    );
}
