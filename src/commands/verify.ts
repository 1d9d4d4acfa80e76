import { Command, Option } from 'commander';
import { setExitCode } from '../context.js';
import { UsageError } from '../errors.js';
import { checkConflicts, pinsFile, type FlagRule } from './conflicts.js';
import { readImages } from './open-image.js';
import {
  addSettingsOptions,
  examples,
  noteIgnoredEnvPins,
  osStreamOption,
  outputOption,
  settingsFrom,
  type SettingsOptionValues,
} from './options.js';
import { addRegistryOptions, type RegistryOptionValues } from './registry-options.js';
import * as terminalModule from '../output/terminal.js';
import { settingsFromPinsFile } from '../verify/pins.js';
import { verify } from '../verify/verify.js';
import * as verifyView from '../output/verify-view.js';
import { json } from '../output/format.js';

interface VerifyOptions extends SettingsOptionValues, RegistryOptionValues {
  release: string;
  pins?: string;
  /** The old name of --pins, kept as a hidden alias. */
  write?: string;
  tag?: string;
  osStream?: string;
  output: 'text' | 'json';
}

const VERIFY_CONFLICTS: FlagRule[] = [
  {
    rule: 'excludes',
    flags: ['pins', 'build', 'channel'],
    message: '--pins reads the build and channel from FILE; --build and --channel cannot be used with it',
  },
  { rule: 'at-most-one', flags: ['tag', 'osStream'], message: '--tag and --os-stream may not both be specified' },
];

const HELP = `
The bootimage:
  With --pins FILE, the build pinned in FILE (a release script such as hack/release.sh), read as
  \`pin --check\` reads it: the environment is ignored, --base-url may point at a mirror and --arch picks
  the architecture. Without --pins, the build the usual settings name (flags, then RHCOS_* env, then
  defaults; no build means the newest). Its OS container is the meta.json container the payload tag
  pairs with: "oscontainer" for machine-os-content, "base-oscontainer" for rhel-coreos, rhel-coreos-8
  and an OS stream's tag (a build without it is compared by its "oscontainer", with a note).
  With --os-stream NAME the pins read are that OS stream's (rhel-10 → RHCOS_RHEL_10_BUILD_NAME,
  RHCOS_RHEL_10_DEFAULT_CHANNEL, RHCOS_RHEL_10_BASE_URL), in FILE or in the environment; the default
  stream's pins (RHCOS_*) are read without --os-stream.

The payload:
  Without --tag, the first OS tag the payload has: rhel-coreos, rhel-coreos-8, machine-os-content.
  --tag NAME reads exactly that tag; --os-stream NAME the OS image of that OS image stream (found as
  \`release os-streams\` finds it). Its build id comes from the tag's io.openshift.build.versions
  annotation (machine-os=<id>), else from the OS container's own labels, read from its registry (from the
  release's own layout for oci:/oci-archive:); when that cannot be reached the build id is "unknown".
  A node image (4.19+, label coreos.build.manifest-list-tag) is judged by its base build
  (org.opencontainers.image.version): the pinned build → consistent.

Extensions:
  The payload's extensions tag (rhel-coreos-extensions, the stream's) against meta.json's
  "extensions-container": consistent, drift (exit 1) or absent (either side has none).

Bootimage stream:
  When the release carries release-manifests/0000_50_installer_coreos-bootimages.yaml (4.8+), the
  build its stream names for the pinned arch (data.stream; with --os-stream NAME, data.streams[NAME]
  unless NAME is the release's default stream) against the pinned build: consistent, differs (exit 1:
  the installer would boot new machines from another build than the one pinned) or absent. The file
  is read from the layers already read for image-references, never from another layer.

Verdict (exit status):
  consistent (0)       the same digest, whatever the repository: new nodes boot straight into it.
  payload-newer (1)    new nodes boot the bootimage, pivot to the payload's OS and reboot on first boot.
  bootimage-newer (1)  the same pivot and reboot, and it is a downgrade.
  different (1)        the images differ and which is newer is unknown: a pivot and reboot.
  Errors (a build without an oscontainer, a release without the tag, a bad FILE) exit 1; usage errors 2.
`;

export function command(): Command {
  const cmd = addRegistryOptions(addSettingsOptions(new Command('verify')))
    .description("Check that a release payload ships the pinned bootimage's OS image (catch bootimage/payload drift).")
    .requiredOption(
      '--release <image>',
      'the release image: a registry reference (docker://REF too), oci:DIR[:TAG], oci-archive:FILE[:TAG], dir:DIR or docker-archive:FILE[:REF]',
    )
    .option('--pins <file>', 'read the pinned build from this release script (e.g. hack/release.sh)')
    .addOption(new Option('--write <file>', 'old name of --pins').hideHelp())
    .option(
      '--tag <name>',
      'the payload tag of the OS image (default: rhel-coreos, rhel-coreos-8 or machine-os-content, the first there is)',
    )
    .addOption(
      osStreamOption(
        "verify this OS image stream's OS image (rhel-9, rhel-10; see `release os-streams`), against that stream's pins (rhel-10 → RHCOS_RHEL_10_BUILD_NAME, …)",
      ),
    )
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText('after', HELP)
    .addHelpText(
      'after',
      examples([
        'osimage verify --pins hack/release.sh --release quay.io/openshift-release-dev/ocp-release:4.13.1-x86_64',
        'osimage verify --build 418.94.202605101521-0 --channel 4.18-9.4/builds --release oci-archive:release.tar -o json',
        'osimage verify --pins hack/release.sh --tag rhel-coreos --release REGISTRY/ocp/release:4.16.0 -a pull-secret.json',
        'osimage verify --pins hack/release.sh --os-stream rhel-10 --release quay.io/openshift-release-dev/ocp-release:4.21.0-x86_64',
      ]),
    )
    .action(async (o: VerifyOptions) => {
      const pins = pinsFile(o);
      checkConflicts({ ...o, pins }, VERIFY_CONFLICTS);
      if (o.tag === '') throw new UsageError('--tag: the tag name is empty');
      if (o.osStream === '') throw new UsageError('--os-stream: the stream name is empty');
      const term = terminalModule;
      let settings;
      let pinnedIn: string | undefined;
      if (pins !== undefined) {
        noteIgnoredEnvPins('--pins', pins, o.osStream);
        const pinned = await settingsFromPinsFile(pins, { baseUrl: o.baseUrl, arch: o.arch, osStream: o.osStream });
        settings = pinned.settings;
        pinnedIn = pinned.buildPin;
      } else {
        settings = settingsFrom(o);
      }
      const view = verifyView;
      const report = await readImages(o, (_open, sourceOptions) =>
        verify({ release: o.release, tag: o.tag, osStream: o.osStream, settings, pinnedIn, sourceOptions, filterByOs: o.filterByOs }),
      );
      report.warnings.forEach(term.warn);
      if (o.output === 'json') {
        term.out(json(view.verifyJson(report)));
      } else {
        term.out(view.renderVerify(report));
      }
      if (!report.consistent) setExitCode(1);
    });
  return cmd;
}
