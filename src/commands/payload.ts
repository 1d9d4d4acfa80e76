import { Command, Option } from 'commander';
import { UsageError, describe, type Warning } from '../errors.js';
import { env, setExitCode } from '../context.js';
import { addSettingsOptions, examples, outputOption, settingsFrom, type SettingsOptionValues } from './options.js';
import { checkConflicts, flagName, type FlagRule } from './conflicts.js';
import { checkOsImageFlags, osImageConflicts } from './os-image-flags.js';
import { readImages } from './open-image.js';
import { packageVersion } from '../package-info.js';
import { addRegistryOptions, type RegistryOptionValues } from './registry-options.js';
import { DEFAULT_BOOTIMAGES_FILE, MERGE_POLICIES, type MergePolicy } from '../payload/defaults.js';
import { requireOsImagePullspec } from '../payload/pullspec.js';
import { error, info, out, warn } from '../output/terminal.js';
import { resolveBuild } from '../rhcos/resolve.js';
import { writePayload } from '../payload/write.js';
import * as payloadView from '../output/payload-view.js';
import { writeView } from '../output/payload-view.js';
import * as machineconfigModule from '../payload/machineconfig.js';
import { LATEST_MCO_RELEASE, mergeRulesFor } from '../payload/mco-eras.js';
import { json } from '../output/format.js';
import { checkOperators, checkOsImagePairs, readInputImages, withProblems } from '../payload/check.js';
import { replaceImageReferences } from '../release/new/substitute.js';
import { readOperatorDirs } from '../payload/operator-dirs.js';
import { loadReleaseInfo } from '../release/info.js';
import { imageStreamFromObject } from '../oci/image-stream.js';
import * as bootimagesModule from '../payload/bootimages.js';
import * as bootimagesWrite from '../payload/bootimages-write.js';
import { parseArchFlags } from '../stream/collect.js';
import { escapeText } from '../output/escape.js';
import * as payloadJsonView from '../output/payload-json-view.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Validate a pull spec given on the command line: a bad value is a usage error (exit 2). */
async function flagPullspec(flag: string, value: string, allowTag: boolean): Promise<string> {
  try {
    requireOsImagePullspec(value, { allowTag });
  } catch (err) {
    throw new UsageError(`${flag}: ${describe(err)}`);
  }
  return value;
}

interface WriteOptions extends SettingsOptionValues {
  dir: string;
  osImage?: string;
  extensionsImage?: string;
  legacyOsImage?: string;
  osStream?: string;
  nodeImage: boolean;
  buildId?: string;
  manifestList: boolean;
  configmapFile?: string;
  allowTag: boolean;
  addMissing: boolean;
  output: 'text' | 'json';
}

const WRITE_CONFLICTS: FlagRule[] = osImageConflicts('writes');

/** The pin variables of an OS stream (`rhel-10` → RHCOS_RHEL_10_BUILD_NAME, …) read as the plain RHCOS_* ones. */
function writeCommand(): Command {
  return addSettingsOptions(new Command('write'))
    .description(
      "Write the OS images into the MCO's payload manifests, for whatever generation DIR is: machine-os-content (2019), machine-os-content plus rhel-coreos(-8) and its extensions (4.12-4.14), rhel-coreos and rhel-coreos-extensions (2023-09 on), or one OS stream's tags (--os-stream). The machine-config-osimageurl ConfigMap is found by kind and name in any manifest of DIR; each of its keys takes the value of the tag whose from.name it equals. Values come from one resolved build (oscontainer, base-oscontainer, extensions-container) unless given; every file changes or none.",
    )
    .requiredOption('--dir <dir>', 'the manifests folder (the MCO install/ folder)')
    .option(
      '--os-image <pullspec>',
      "the OS image, repo@sha256:<64 hex>: machine-os-content in a legacy folder, rhel-coreos (or the stream's tag) otherwise",
    )
    .option('--extensions-image <pullspec>', "the extensions image (rhel-coreos-extensions, or the stream's)")
    .option('--legacy-os-image <pullspec>', "machine-os-content of a 4.12-4.14 folder (default: the build's oscontainer)")
    .option(
      '--os-stream <name>',
      "write this OS stream's tags (rhel-10: rhel-coreos-10, rhel-coreos-10-extensions); the ConfigMap is left alone. Its build: RHCOS_RHEL_10_* variables or the flags",
    )
    .option(
      '--node-image',
      "the payload's rhel-coreos is a node image (4.19+): --os-image and --extensions-image are required, no release-browser image is written",
      false,
    )
    .option('--build-id <id>', 'the build id of the given images, for machine-os= in io.openshift.build.versions annotations')
    .option('--manifest-list', "write the build's manifest list digests (multi-arch payloads)", false)
    .option(
      '--configmap-file <name>',
      'file name of the ConfigMap to create when --dir has none (default 0000_30_machine-config-operator_05_osimageurl.yaml)',
    )
    .option('--allow-tag', 'accept a pull spec by tag (the payload wants a digest)', false)
    .option(
      '--add-missing',
      "also add the OS tags and ConfigMap keys the folder's generation pairs with the declared ones but the folder lacks (and the ConfigMap when there is none); without it only what the folder declares is written",
      false,
    )
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText(
      'after',
      examples([
        'osimage payload write --dir install --os-image quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:<64 hex>',
        'osimage payload write --dir install --add-missing --os-image quay.io/x/os@sha256:<64 hex> --extensions-image quay.io/x/ext@sha256:<64 hex>',
        'osimage payload write --dir install --channel 4.18-9.4/builds   # the newest build of the public mirror',
        'RHCOS_BUILD_NAME=418.94.202604221012-0 osimage payload write --dir install --channel 4.18-9.4/builds',
        'osimage payload write --dir install --base-url file:///srv/mirror/prod/streams --channel 4.16-9.4/builds   # a copy on disk',
        'osimage payload write --dir install --os-stream rhel-10 --channel rhel-10.2/builds',
        'osimage payload write --dir install --os-image quay.io/x/os@sha256:<64 hex> -o json   # what changed, as JSON',
        'osimage payload write --dir install --node-image --os-image quay.io/x/node@sha256:<64 hex> --extensions-image quay.io/x/ext@sha256:<64 hex> --build-id 4.21.9.6.202602041851-0',
      ]),
    )
    .action(async (opts: WriteOptions) => {
      checkConflicts(opts, WRITE_CONFLICTS);
      const images = checkOsImageFlags(opts);
      let arch = '';
      const build = async () => {
        // With --os-stream, the settings come from that stream's own variables (RHCOS_RHEL_10_*).
        const settings = settingsFrom(opts);
        const resolved = await resolveBuild(settings);
        resolved.warnings.forEach(warn);
        arch = resolved.arch;
        return { build: resolved.build, meta: resolved.meta, metaUrl: resolved.metaUrl, manifestList: opts.manifestList };
      };
      const result = await writePayload({
        dir: opts.dir,
        build,
        allowTag: opts.allowTag,
        addMissing: opts.addMissing,
        nodeImage: opts.nodeImage,
        ...images,
        ...(opts.osStream !== undefined ? { stream: opts.osStream } : {}),
        ...(opts.buildId !== undefined ? { buildId: opts.buildId } : {}),
        ...(opts.configmapFile !== undefined ? { configMapFile: opts.configmapFile } : {}),
      });
      if (result.build === undefined) {
        const ignored = (['baseUrl', 'channel', 'build', 'arch'] as const).filter((k) => opts[k] !== undefined);
        if (ignored.length > 0) warn(`--os-image is given, so no build is resolved; ignoring ${ignored.map(flagName).join(', ')}`);
      }
      for (const t of result.tags.filter((t) => t.source === 'build')) {
        const what = t.container === 'oscontainer' ? 'OS container' : t.container;
        info(`${what} of build ${result.build} (${arch})${result.generation === 'legacy' ? '' : ` for ${t.tag}`}: ${t.pullspec}`);
      }
      result.warnings.forEach(warn);
      out(opts.output === 'json' ? json(payloadJsonView.payloadWriteJson(result)) : writeView(result));
    });
}

interface RenderOptions {
  osImage: string;
  role: string[];
  out?: string;
  allowTag: boolean;
  output: 'text' | 'json';
}

function renderCommand(): Command {
  return new Command('render')
    .description('Render one MachineConfig 00-<role>-osimageurl per role, carrying only spec.osImageURL (and Ignition version 2.2.0).')
    .requiredOption('--os-image <pullspec>', 'the OS container, repo@sha256:<64 hex>')
    .requiredOption('--role <role>', 'a pool role (repeat for more)', collect)
    .option('--out <dir>', 'write one <name>.yaml per role into this folder (created if missing) instead of stdout')
    .option('--allow-tag', 'accept a pull spec by tag', false)
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText(
      'after',
      examples([
        'osimage payload render --os-image quay.io/x/os@sha256:<64 hex> --role master --role worker',
        'osimage payload render --os-image quay.io/x/os@sha256:<64 hex> --role master --role worker --out manifests/',
        'osimage payload render --os-image quay.io/x/os@sha256:<64 hex> --role worker -o json   # a v1 List',
      ]),
    )
    .action(async (opts: RenderOptions) => {
      const pullspec = await flagPullspec('--os-image', opts.osImage, opts.allowTag);
      const mc = machineconfigModule;
      let configs;
      try {
        configs = mc.renderOsImageUrlConfigs(pullspec, opts.role, { allowTag: opts.allowTag });
      } catch (err) {
        throw new UsageError(describe(err));
      }
      if (opts.out === undefined) {
        out(opts.output === 'json' ? json(payloadJsonView.renderListJson(configs)) : mc.toYamlStream(configs));
        return;
      }
      const written = await mc.writeMachineConfigs(opts.out, configs);
      if (opts.output === 'json') {
        out(json(payloadJsonView.renderFilesJson(opts.out, written)));
        return;
      }
      for (const w of written) (w.action === 'unchanged' ? info : out)(`${w.path}: ${w.action}`);
      if (written.every((w) => w.action === 'unchanged')) out(`unchanged: ${configs.length} MachineConfig file(s) in ${opts.out}`);
    });
}

interface MergeOptions {
  role: string[];
  pool?: string;
  openshiftVersion: string;
  policy?: MergePolicy;
  osImage?: string;
  extensionsImage?: string;
  output: 'yaml' | 'json' | 'name';
}

function mergeCommand(): Command {
  return new Command('merge')
    .description(
      "Merge a pool's MachineConfigs into one rendered config, as the machine-config-operator of --openshift-version does, and print it.\n" +
        "From 4.6 every config is converted to Ignition spec 3 and merged with Ignition's own rules (files, units and users by key);\n" +
        "before, Ignition 2 configs are appended. The result carries that release's fields and defaults (kernelType: default, ...).\n" +
        'It is named rendered-<pool>-<md5 hex>: the same spec always gives the same name, but not the name a cluster computes\n' +
        "(the operator hashes with its own salt and Go's YAML encoding).",
    )
    .argument('<path...>', 'MachineConfig files or folders (.yaml, .yml, .json; multi-document files and Lists are read)')
    .requiredOption(
      '--role <role>',
      'a role the pool selects (machineconfiguration.openshift.io/role); repeat for a custom pool: --role worker --role infra',
      collect,
      [],
    )
    .option('--pool <name>', 'the pool rendered (default: the one role, or the custom role beside worker)')
    .option('--openshift-version <x.y>', `the release whose MCO merges, from 4.1 (the merge rules of that release)`, LATEST_MCO_RELEASE)
    .addOption(
      new Option(
        '--policy <policy>',
        "how osImageURL is chosen (default: the release's): last-wins (4.12 on: the last non-empty MC value, else --os-image), controller-config (4.1-4.11: only --os-image), first-non-empty (2019-01)",
      ).choices([...MERGE_POLICIES]),
    )
    .option('--os-image <pullspec>', "the ControllerConfig's OS image: osImageURL to 4.11, baseOSContainerImage from 4.12")
    .option('--extensions-image <pullspec>', "the ControllerConfig's baseOSExtensionsContainerImage (4.12 on)")
    .addOption(outputOption(['yaml', 'json', 'name'], 'yaml'))
    .addHelpText(
      'after',
      examples([
        'osimage payload merge --role master manifests/',
        'osimage payload merge --role worker --role infra manifests/          # a custom pool: rendered-infra-…',
        'osimage payload merge --role worker --openshift-version 4.10 --os-image quay.io/x/os@sha256:<64 hex> 00-worker.yaml 99-user.yaml',
        'osimage payload merge --role master --policy first-non-empty --openshift-version 4.1 -o name manifests/',
      ]),
    )
    .action(async (paths: string[], opts: MergeOptions) => {
      const mc = machineconfigModule;
      const view = payloadView;
      let pool: string;
      try {
        opts.role.forEach(mc.validateRole);
        const p = opts.pool ?? mc.poolOfRoles(opts.role);
        if (p === undefined) throw new UsageError(`--role ${opts.role.join(', ')}: name the pool these roles render with --pool`);
        pool = mc.validateRole(p);
        mergeRulesFor(opts.openshiftVersion);
      } catch (err) {
        throw new UsageError(describe(err));
      }
      if (opts.osImage !== undefined) await flagPullspec('--os-image', opts.osImage, true);
      if (opts.extensionsImage !== undefined) await flagPullspec('--extensions-image', opts.extensionsImage, true);
      const docs = await mc.loadManifests(paths);
      const { selected, skipped } = mc.selectForRole(docs, opts.role);
      for (const l of view.skippedLines(skipped)) info(l);
      const result = mc.mergeMachineConfigs(
        selected.map((s) => s.mc),
        pool,
        {
          release: opts.openshiftVersion,
          policy: opts.policy,
          osImage: opts.osImage,
          extensionsImage: opts.extensionsImage,
          sources: selected.map((s) => s.source),
        },
      );
      for (const l of view.mergeNotes(result)) info(l);
      result.warnings.forEach(warn);
      if (opts.output === 'name') out(result.name);
      else if (opts.output === 'json') out(json(result.rendered));
      else out(mc.toYaml(result.rendered));
    });
}

interface CheckOptions extends RegistryOptionValues {
  dir: string;
  images?: string;
  fromRelease?: string;
  output: 'text' | 'json';
}

const CHECK_CONFLICTS: FlagRule[] = [
  { rule: 'exactly-one', flags: ['images', 'fromRelease'], message: 'give exactly one of --images and --from-release' },
];

function checkCommand(): Command {
  return addRegistryOptions(
    new Command('check')
      .description(
        "Check operator manifests against the input images as oc adm release new would: every tag an operator's image-references names must be an input tag; no source repository twice. Beyond oc: each OS key of a machine-config-osimageurl ConfigMap must hold, as text oc's substitution finds, the from.name of the tag it pairs with (else the release ships two OS images). Reports every problem at once.\n" +
          'The input images come from an ImageStream file (--images) or from a release image (--from-release: registry, oci: or oci-archive:).',
      )
      .requiredOption('--dir <dir>', 'one folder per operator, each with its manifests and its own image-references')
      .option('--images <file>', "the input ImageStream (JSON or YAML), e.g. a release's image-references")
      .option('--from-release <image>', "take the input images from this release image's image-references"),
  )
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText(
      'after',
      examples([
        'osimage payload check --dir operators/ --images release/image-references',
        'osimage payload check --dir operators/ --from-release quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
        'osimage payload check --dir operators/ --from-release oci-archive:release.tar:4.99.0',
      ]),
    )
    .action(async (opts: CheckOptions) => {
      checkConflicts(opts, CHECK_CONFLICTS);
      const view = payloadView;
      const operators = await readOperatorDirs(opts.dir);
      const input = opts.images !== undefined ? await readInputImages(opts.images) : await releaseInputs(opts.fromRelease!, opts);
      const result = withProblems(checkOperators(operators, input), await checkOsImagePairs(opts.dir, operators, replaceImageReferences));
      if (opts.output === 'json') out(json(result));
      else if (result.ok) out(view.checkSummary(result));
      if (!result.ok) {
        for (const p of result.problems) error(p.message);
        if (opts.output === 'text') error(view.checkFailure(result));
        setExitCode(1);
      }
    });
}

/** The input ImageStream of a release image: its release-manifests/image-references, read with an early stop. */
async function releaseInputs(image: string, o: RegistryOptionValues) {
  const info = await readImages(o, async (open) =>
    loadReleaseInfo(image, await open(image), {
      referencesOnly: true,
      ...(o.filterByOs !== undefined ? { filterByOs: o.filterByOs } : {}),
    }),
  );
  // payload check reads its inputs strictly, wherever they come from.
  return imageStreamFromObject(info.references, { strict: true, source: `${image} (release-manifests/image-references)` });
}

interface BootimagesOptions extends Omit<SettingsOptionValues, 'arch'> {
  dir: string;
  file: string;
  arch: string[];
  name: string[];
  /** The old name of --name, kept as a deprecated alias. */
  stream?: string;
  signatures?: boolean;
  locationBase?: string;
  osStream: string[];
  marketplace: string[];
  era: string;
  output: 'text' | 'json';
}

const BOOTIMAGES_HELP = `
Streams:
  Every arch of the build by default (--arch A, repeatable, for fewer; A=CHANNEL where each arch has its
  own channel). Each arch at the pinned build where builds.json lists it, else at its newest build.
  data.stream is that stream. With --os-stream NAME=CHANNEL[@BUILD] (repeatable) each OS stream is
  generated from its own channel and written to data.streams (name → stream); data.stream is the only
  one, or rhel-9 when there are several. --marketplace [NAME=]FILE merges a marketplace file (arch →
  images, as the installer's data/data/coreos/marketplace/) into that stream's
  rhel-coreos-extensions.marketplace.
  A rerun that would change only metadata (last-modified, generator) leaves the file alone.

Names (the "stream" field of each stream):
  --name NAME names the one stream (or the only --os-stream); --name OS_STREAM=NAME, repeatable, names
  one OS stream, e.g. --name rhel-9=rhcos-4.21 --name rhel-10=rhcos-4.22. A stream not named keeps the
  name the file already gives it, else is named from its channel (4.16-9.4/builds → rhcos-4.16-9.4).

Formats (--era), as the installer's generator wrote the ConfigMap:
  2021     data.stream is the stream file itself: 2-space JSON with a final newline (stream: |)
  2025-08  data.stream is one line of JSON (single-quoted YAML), with creationTimestamp: null
  2025-11  the same, without creationTimestamp
  2026     2-space JSON without a final newline (stream: |-), data.streams beside it
  auto (default) follows the file when there is one, else 2026; --os-stream always writes 2026. Every
  form has stream-metadata's field order, Go's escaping (\\u003c, \\u003e, \\u0026) and no unknown fields.
`;

function bootimagesCommand(): Command {
  return addSettingsOptions(new Command('bootimages'), { arch: false })
    .description(
      'Write the coreos-bootimages ConfigMap (openshift-machine-config-operator) as the installer does: data.stream is the stream metadata JSON of the resolved build for every arch, data.streams every OS stream by name.',
    )
    .requiredOption('--dir <dir>', 'the manifests folder')
    .option('--file <name>', 'file name in --dir', DEFAULT_BOOTIMAGES_FILE)
    .option('--arch <arch[=channel]>', 'an arch to include, repeatable (default: every arch in builds.json)', collect, [])
    .option(
      '--name <[os-stream=]name>',
      'the "stream" field: NAME for the one stream, OS_STREAM=NAME for each --os-stream, repeatable (default: the file\'s name for it, else from the channel)',
      collect,
      [],
    )
    .addOption(new Option('--stream <name>', 'old name of --name (deprecated)').hideHelp())
    .option('--signatures', 'add "signature" (location + .sig) to every artifact (default: none, as the installer today)')
    .option('--location-base <url>', 'write artifact locations against this public URL instead of --base-url (a mirror)')
    .option('--os-stream <name=channel[@build]>', 'an OS stream for data.streams, repeatable (rhel-9=4.18-9.4/builds)', collect, [])
    .option('--marketplace <[name=]file>', "merge this marketplace file into the stream's rhel-coreos-extensions, repeatable", collect, [])
    .option(
      '--era <era>',
      `the installer's ConfigMap form: auto, ${bootimagesModule.BOOTIMAGES_ERAS.join(', ')} (see Formats below)`,
      'auto',
    )
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText('after', BOOTIMAGES_HELP)
    .addHelpText(
      'after',
      examples([
        'osimage payload bootimages --dir manifests --channel 4.18-9.4/builds',
        'osimage payload bootimages --dir manifests --channel 4.16-9.4/builds --arch aarch64 --name rhcos-4.16',
        'osimage payload bootimages --dir manifests --channel 4.18-9.4/builds -o json   # each stream and arch, as JSON',
        'osimage payload bootimages --dir manifests --os-stream rhel-9=4.18-9.4/builds --os-stream rhel-10=rhel-10.2/builds',
        'osimage payload bootimages --dir manifests --os-stream rhel-9=4.18-9.4/builds@418.94.202605101521-0 --marketplace rhel-9=marketplace/rhcos.json',
        'osimage payload bootimages --dir manifests --os-stream rhel-9=rhel-9.8/builds --os-stream rhel-10=rhel-10.2/builds --name rhel-9=rhcos-4.21 --name rhel-10=rhcos-4.22',
        'osimage payload bootimages --dir manifests --channel 4.18-9.4/builds --era 2025-11   # one-line data.stream, as the 2025 installer',
      ]),
    )
    .action(async (opts: BootimagesOptions) => {
      const boot = bootimagesModule;
      const run = bootimagesWrite;
      // Kept for -o json as well as printed as they come.
      const warnings: Array<Warning | string> = [];
      const onWarning = (w: Warning | string) => {
        warnings.push(w);
        warn(w);
      };
      let nameFlags = opts.name;
      if (opts.stream !== undefined) {
        onWarning({ code: 'deprecated-flag', message: '--stream is deprecated: use --name (the "stream" field)' });
        if (nameFlags.some((n) => n !== opts.stream)) throw new UsageError('--stream is the old name of --name: give one of them');
        nameFlags = [opts.stream];
      }
      const names = boot.parseNameFlags(nameFlags);
      const era = boot.parseEra(opts.era);
      const osStreams = boot.parseOsStreamFlags(opts.osStream);
      const marketplaces = boot.parseMarketplaceFlags(opts.marketplace);
      if (osStreams.length > 0 && (opts.build !== undefined || opts.channel !== undefined)) {
        throw new UsageError(
          '--os-stream NAME=CHANNEL[@BUILD] gives each stream its channel and build; --channel and --build cannot be used with it',
        );
      }
      const arches = parseArchFlags(opts.arch);
      const problem = run.bootimagesRequestProblem({ osStreams, names, arches, marketplaces, era });
      if (problem !== undefined) throw new UsageError(problem);
      // --os-stream here is NAME=CHANNEL, not the stream of the pin variables that resolve and pin read.
      const { osStream: _streams, ...settingsFlags } = opts;
      // Each --os-stream names its own channel.
      const settings = settingsFrom({ ...settingsFlags, arch: undefined }, env(), { channelOptional: osStreams.length > 0 });
      const outcome = await run.writeBootimagesFromBuilds({
        dir: opts.dir,
        file: opts.file,
        baseUrl: settings.baseUrl,
        channel: settings.channel,
        build: settings.build,
        arches,
        names,
        osStreams,
        marketplaces,
        era,
        signatures: opts.signatures === true,
        locationBase: opts.locationBase,
        generator: `osimage ${packageVersion()}`,
        onWarning,
      });
      if (outcome.written && outcome.eraFromFile && outcome.era !== boot.CURRENT_ERA) {
        info(escapeText(`${outcome.path}: kept the ${outcome.era} installer's form the file had (--era ${boot.CURRENT_ERA} for today's)`));
      }
      if (opts.output === 'json') out(json(payloadJsonView.bootimagesJson(outcome, warnings)));
      else out(escapeText(`${outcome.path}: ${outcome.written ? 'written' : 'unchanged'} (${outcome.summary})`));
    });
}

export function command(): Command {
  return new Command('payload')
    .description("The OS image in the release payload's manifests and MachineConfigs (the subcommands below).")
    .addCommand(writeCommand())
    .addCommand(renderCommand())
    .addCommand(mergeCommand())
    .addCommand(checkCommand())
    .addCommand(bootimagesCommand())
    .addHelpText(
      'after',
      examples([
        "osimage payload write --dir manifests/machine-config-operator --channel 4.18-9.4/builds   # the newest build's OS images",
        'osimage payload render --os-image quay.io/ocp/os@sha256:… --role master --role worker',
        'osimage payload check --dir payload --from-release oci-archive:release.tar:4.99.0',
        'osimage payload bootimages --dir manifests/machine-config-operator --channel 4.18-9.4/builds',
      ]),
    );
}
