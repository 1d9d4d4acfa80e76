import { Command } from 'commander';
import { addRegistryOptions, type RegistryOptionValues } from './registry-options.js';
import { readImages } from './open-image.js';
import { addSettingsOptions, examples, outputOption, settingsFrom, type SettingsOptionValues } from './options.js';
import { compareBuilds, parseSideSpec } from '../packages/compare.js';
import { releaseOsBuild } from '../release/os-build.js';
import { platformForArch } from '../rhcos/platform.js';
import * as packageDiffView from '../output/package-diff-view.js';
import { info, out, warn } from '../output/terminal.js';
import { json } from '../output/format.js';
import { env } from '../context.js';
import { missingChannelError } from '../rhcos/settings.js';

interface DiffOptions extends SettingsOptionValues, RegistryOptionValues {
  all?: boolean;
  output: 'text' | 'json';
}

export function command(): Command {
  const cmd = addRegistryOptions(addSettingsOptions(new Command('diff'), { build: false }))
    .description(
      "Compare the packages of two RHCOS builds: added, removed, upgraded, downgraded (rpm's version order), extensions included.\nFROM and TO are build ids (in --channel), CHANNEL/BUILD (4.18-9.4/builds/418.94.202605101521-0), or release images (registry, oci:, oci-archive:) whose machine-os build is compared.",
    )
    .argument('<from>', 'the older build or release')
    .argument('<to>', 'the newer build or release')
    .option('--all', 'list unchanged packages too')
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText(
      'after',
      examples([
        'osimage diff --channel 4.18-9.4/builds 418.94.202604221012-0 418.94.202605101521-0',
        'osimage diff 4.18-9.4/builds/418.94.202604221012-0 4.18-9.4/builds/418.94.202605101521-0 -o json',
        'osimage diff --channel 4.18-9.4/builds quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64 quay.io/openshift-release-dev/ocp-release:4.18.2-x86_64',
        'osimage diff --channel rhel-10.2/builds oci-archive:old.tar:4.22.0 oci-archive:new.tar:4.22.1 --all',
      ]),
    );
  return cmd.action(async (from: string, to: string, o: DiffOptions) => {
    const settings = settingsFrom(o, env(), { channelOptional: true });
    const view = packageDiffView;
    const sides = [parseSideSpec(from, settings.channel, 'FROM'), parseSideSpec(to, settings.channel, 'TO')] as const;
    // CHANNEL/BUILD names its channel; a bare build id, or a release's build, is looked up in --channel.
    if (settings.channel === '' && sides.some((s) => s.kind === 'release' || s.channel === '')) throw missingChannelError();
    const platform = o.filterByOs ?? platformForArch(settings.arch);
    const report = await readImages(o, (open, opts) =>
      compareBuilds({
        from: sides[0],
        to: sides[1],
        settings,
        releaseBuild: async (image) => releaseOsBuild(image, await open(image), opts, platform),
      }),
    );
    report.warnings.forEach(warn);
    for (const n of report.notes) info(`note: ${n}`);
    if (o.output === 'json') {
      out(json(view.buildDiffJson(report, { all: o.all === true })));
      return;
    }
    out(view.renderBuildDiff(report, { all: o.all === true }));
  });
}
