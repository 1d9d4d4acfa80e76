import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { addSettingsOptions, examples, outputOption, settingsFrom, type SettingsOptionValues } from './options.js';
import { addRegistryOptions, sourceOptions, type RegistryOptionValues } from './registry-options.js';
import { env, setExitCode } from '../context.js';

interface VerifyOptions extends SettingsOptionValues, RegistryOptionValues {
  release: string;
  write?: string;
  tag: string;
  output: 'text' | 'json';
}

const HELP = `
The bootimage:
  With --write FILE, the build pinned in FILE (a release script such as hack/release.sh), read as
  \`pin --check\` reads it: the environment is ignored, --base-url may point at a mirror and --arch picks
  the architecture. Without --write, the build the usual settings name (flags, then RHCOS_* env, then
  defaults; no build means the newest). Its OS container is meta.json's "oscontainer".

The payload:
  The release image's --tag (machine-os-content; rhel-coreos for 4.12+ payloads). Its build id comes
  from the tag's io.openshift.build.versions annotation (machine-os=<id>), else from the OS container's
  own labels, read from its registry; when that cannot be reached the build id is "unknown".

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
    .requiredOption('--release <image>', 'the release image: a registry reference, oci:DIR[:TAG] or oci-archive:FILE[:TAG]')
    .option('--write <file>', 'read the pinned build from this release script (e.g. hack/release.sh)')
    .option('--tag <name>', 'the payload tag of the OS image', 'machine-os-content')
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText('after', HELP)
    .addHelpText(
      'after',
      examples([
        'osimage verify --write hack/release.sh --release quay.io/openshift-release-dev/ocp-release:4.13.1-x86_64',
        'osimage verify --build 412.86.202301250001-0 --channel rhcos-4.12 --release oci-archive:release.tar -o json',
        'osimage verify --write hack/release.sh --tag rhel-coreos --release REGISTRY/ocp/release:4.16.0 -a pull-secret.json',
      ]),
    )
    .action(async (o: VerifyOptions) => {
      if (o.write !== undefined && (o.build !== undefined || o.channel !== undefined)) {
        throw new UsageError('--write reads the build and channel from FILE; --build and --channel cannot be used with it');
      }
      if (o.tag === '') throw new UsageError('--tag: the tag name is empty');
      const term = await import('../output/terminal.js');
      let settings;
      let pinnedIn: string | undefined;
      if (o.write !== undefined) {
        const ignored = ['RHCOS_BUILD_NAME', 'RHCOS_DEFAULT_CHANNEL', 'RHCOS_BASE_URL'].filter((v) => env()[v]);
        if (ignored.length > 0)
          term.info(`note: --write reads the pins from ${o.write}; ignoring ${ignored.join(', ')} from the environment`);
        const { settingsFromPinsFile } = await import('../verify/pins.js');
        const pinned = await settingsFromPinsFile(o.write, { baseUrl: o.baseUrl, arch: o.arch });
        settings = pinned.settings;
        pinnedIn = pinned.buildPin;
      } else {
        settings = settingsFrom(o);
      }
      const { verify } = await import('../verify/verify.js');
      const view = await import('../output/verify-view.js');
      const state = { verificationFailed: false };
      const { opts, progress } = await sourceOptions(o, state);
      let report;
      try {
        report = await verify({
          release: o.release,
          tag: o.tag,
          settings,
          pinnedIn,
          sourceOptions: opts,
          filterByOs: o.filterByOs,
        });
      } finally {
        progress.done();
      }
      if (state.verificationFailed) term.warn('the release image failed content verification and may have been tampered with');
      report.warnings.forEach(term.warn);
      if (o.output === 'json') {
        const { json } = await import('../output/format.js');
        term.out(json(view.verifyJson(report)));
      } else {
        term.out(view.renderVerify(report));
      }
      if (!report.consistent) setExitCode(1);
    });
  return cmd;
}
