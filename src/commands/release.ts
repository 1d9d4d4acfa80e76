import { Command, Option } from 'commander';
import { OsimageError, UsageError } from '../errors.js';
import { checkConflicts, flagName, type FlagRule } from './conflicts.js';
import { readImages } from './open-image.js';
import { addSettingsOptions, examples, outputOption, settingsFrom, type SettingsOptionValues } from './options.js';
import { addRegistryOptions, type RegistryOptionValues } from './registry-options.js';
import { newCommand } from './release-new.js';
import * as outputFormatModule from '../output/output-format.js';
import { createdString, loadReleaseInfo } from '../release/info.js';
import * as releaseView from '../output/release-view.js';
import { error, info, out, outRaw } from '../output/terminal.js';
import { imageFor } from '../oci/image-stream.js';
import * as ocReleaseInfo from '../oc/release-info.js';
import { toJson } from '../oc/release-info.js';
import { diffReleases } from '../release/diff.js';
import * as releaseDiffView from '../output/release-diff-view.js';
import { env } from '../context.js';
import { releasePackageChanges } from '../packages/release-packages.js';
import * as packageDiffView from '../output/package-diff-view.js';
import { json } from '../output/format.js';
import { isNotable } from '../packages/notable.js';
import { extractFile, extractTree } from '../release/extract.js';
import { escapeText } from '../output/escape.js';
import { releaseOsStreams } from '../release/os-image-config.js';
import * as osStreamsView from '../output/os-streams-view.js';
import * as bootimagesModule from '../release/bootimages.js';
import { renderBootimages } from '../output/bootimages-view.js';

interface InfoOptions extends RegistryOptionValues, SettingsOptionValues {
  packages?: boolean;
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

interface ExtractOptions extends RegistryOptionValues {
  file?: string;
  to?: string;
}

/** oc's words, even for the flags osimage lacks (--contents, --size, --verify). */
const INFO_CONFLICTS: FlagRule[] = [
  {
    rule: 'at-most-one',
    flags: ['imageFor', 'commits', 'commitUrls', 'pullspecs'],
    message: 'only one of --commits, --commit-urls, --pullspecs, --contents, --size, --verify may be specified',
  },
  { rule: 'at-most-one', flags: ['output', 'imageFor'], message: '--output and --image-for may not both be specified' },
];

const CHANGES_FROM_CONFLICTS: FlagRule[] = [
  {
    rule: 'excludes',
    flags: ['changesFrom', 'imageFor', 'pullspecs', 'commits', 'commitUrls', 'output'],
    allowed: { output: ['json'] },
    message: (given) => `--changes-from may not be combined with ${given.join(', ')} (it shows a diff as text or -o json)`,
  },
];

/** The release-browser flags apply only to --changes-from (its RHCOS packages section). */
const CHANGES_FROM_ONLY = ['packages', 'baseUrl', 'channel', 'arch'] as const;

const EXTRACT_CONFLICTS: FlagRule[] = [{ rule: 'at-most-one', flags: ['to', 'file'], message: 'only one of --to and --file may be set' }];

const REFERENCE_HELP = 'IMAGE is a registry reference (quay.io/ns/release:tag or @sha256:…), oci:DIR[:TAG] or oci-archive:FILE[:TAG].';

function infoCommand(): Command {
  return addSettingsOptions(addRegistryOptions(new Command('info')), { build: false })
    .description(`Show what a release image holds: name, digest, metadata, component versions and images.\n${REFERENCE_HELP}`)
    .argument('<image>', 'the release image')
    .option('--image-for <tag>', 'print the pull spec of this component image only')
    .option('--pullspecs', "show each image's pull spec instead of its digest")
    .option('--commits', 'show the source repository and commit of each image')
    .option('--commit-urls', 'show a link to the source commit of each image')
    .option('--changes-from <old>', 'show what changed from release OLD to IMAGE: machine-os, component versions, images (text or -o json)')
    .option(
      '--packages',
      'with --changes-from: list every RHCOS package change, not only the notable ones (needs the release browser: --base-url)',
    )
    .option(
      '-o, --output <format>',
      "output format, as oc's: json, name, pullspec, digest, jsonpath=TEMPLATE, jsonpath-as-json=TEMPLATE, jsonpath-file=FILE, go-template=TEMPLATE, go-template-file=FILE, template=TEMPLATE, templatefile=FILE",
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
        'osimage release info --changes-from OLD NEW --base-url https://RELEASE-BROWSER/storage/prod/streams --channel 4.18-9.4/builds --packages',
      ]),
    )
    .action(async (image: string, o: InfoOptions) => {
      if (o.changesFrom !== undefined) return changesFrom(o.changesFrom, image, o);
      const misplaced = CHANGES_FROM_ONLY.filter((k) => o[k] !== undefined);
      if (misplaced.length > 0) {
        throw new UsageError(`${misplaced.map(flagName).join(', ')} only apply with --changes-from (its RHCOS packages section)`);
      }
      checkConflicts(o, INFO_CONFLICTS);
      // output-format.ts loads the JSONPath and Go template engines only for an -o that names one.
      const format = o.output !== undefined ? await outputFormatModule.parseOutputFormat(o.output, o.template) : undefined;
      const view = releaseView;
      const referencesOnly = o.imageFor !== undefined || format === 'name' || format === 'pullspec' || format === 'digest';
      const info = await readImages(o, async (open) => loadReleaseInfo(image, await open(image), { ...filterOf(o), referencesOnly }));
      if (o.imageFor !== undefined) {
        const pull = imageFor(info.references, o.imageFor);
        if (!pull) throw new OsimageError(`no image tag "${o.imageFor}" exists in the release image ${image}`);
        out(pull);
        return;
      }
      if (format === 'json') {
        outRaw(ocReleaseInfo.renderJson(info));
        return;
      }
      if (typeof format === 'object') {
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
      outRaw(view.renderInfo(info, o.pullspecs ? 'pullspecs' : o.commits ? 'commits' : o.commitUrls ? 'commit-urls' : 'digest'));
    });
}

/**
 * `--changes-from OLD NEW`: a diff of two releases. Only the text view and -o json apply to it. With a release
 * browser (--base-url or RHCOS_BASE_URL), an "RHCOS packages" section too: the package diff of the two
 * releases' machine-os builds; when it cannot be had, one `info:` line says why and the exit code is unchanged.
 * Without one it is skipped silently (the historical default host no longer answers: never wait on it).
 */
async function changesFrom(oldImage: string, newImage: string, o: InfoOptions): Promise<void> {
  checkConflicts(o, CHANGES_FROM_CONFLICTS);
  if (oldImage === '') throw new UsageError('--changes-from: the image is empty');
  const view = releaseDiffView;
  const wantPackages = o.baseUrl !== undefined || (env().RHCOS_BASE_URL ?? '') !== '';
  const settings = wantPackages ? settingsFrom(o) : undefined;
  const { diff, packages } = await readImages(o, async (open, opts) => {
    const oldInfo = await loadReleaseInfo(oldImage, await open(oldImage), filterOf(o));
    const newInfo = await loadReleaseInfo(newImage, await open(newImage), filterOf(o));
    const diff = diffReleases(oldInfo, newInfo);
    if (!settings) return { diff, packages: undefined };
    return { diff, packages: await releasePackageChanges(oldInfo, newInfo, settings, opts, o.filterByOs) };
  });
  if (packages && 'skipped' in packages) info(`info: RHCOS packages not shown: ${packages.skipped}`);
  const pkgView = packages ? packageDiffView : undefined;
  if (o.output === 'json') {
    const extra = !packages
      ? {}
      : { rhcosPackages: 'report' in packages ? pkgView!.buildDiffJson(packages.report) : { skipped: packages.skipped } };
    out(json({ ...view.releaseDiffJson(diff), ...extra }));
    return;
  }
  const section =
    packages && 'report' in packages
      ? pkgView!.renderPackagesSection(packages.report, { full: o.packages === true, notable: isNotable })
      : '';
  out(view.renderDiff(diff) + section);
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
      checkConflicts(o, EXTRACT_CONFLICTS);
      if (o.file !== undefined) {
        const name = o.file;
        const { file } = await readImages(o, async (open) => extractFile(await open(image), name, filterOf(o)));
        if (!file) throw new OsimageError(`image did not contain ${name}`);
        outRaw(file.data);
        return;
      }
      const tree = await readImages(o, async (open) => extractTree(await open(image), o.to ?? '.', filterOf(o)));
      out(
        escapeText(
          `Extracted release payload from digest ${tree.listDigest ?? tree.digest} created at ${createdString(tree.config.created)}`,
        ),
      );
    });
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
      const view = osStreamsView;
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
      const boot = bootimagesModule;
      const found = await readImages(o, async (open) => boot.readReleaseBootimages(await open(image), filterOf(o)));
      if (o.output === 'json') {
        const { text } = boot.pickStream(found, o.osStream, image);
        outRaw(text.endsWith('\n') ? text : `${text}\n`);
        return;
      }
      const picked = o.osStream !== undefined ? [boot.pickStream(found, o.osStream, image)] : boot.allStreams(found, image);
      outRaw(renderBootimages(picked, boot.defaultStreamName(found)));
    });
}

/** `--filter-by-os` as the release readers take it. */
function filterOf(o: RegistryOptionValues): { filterByOs?: string } {
  return o.filterByOs !== undefined ? { filterByOs: o.filterByOs } : {};
}

export function command(): Command {
  return new Command('release')
    .description('Release payload images: info, extract, os-streams, bootimages, new.')
    .addCommand(infoCommand())
    .addCommand(extractCommand())
    .addCommand(osStreamsCommand())
    .addCommand(bootimagesCommand())
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
