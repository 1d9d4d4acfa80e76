import { Command } from 'commander';
import type { ResolveFormat } from '../output/resolve-view.js';
import { checkConflicts } from './conflicts.js';
import { addSettingsOptions, examples, outputOption, settingsFrom, type SettingsOptionValues } from './options.js';
import { resolveBuild } from '../rhcos/resolve.js';
import * as resolveView from '../output/resolve-view.js';
import { out, warn } from '../output/terminal.js';
import { credentialsNotWritten } from '../pin/plan.js';
import {
  addContainerSignatureOptions,
  type ContainerSignatureOptionValues,
  containerSignatureCheck,
  verifyContainers,
} from './container-signature-options.js';

interface ResolveOptions extends SettingsOptionValues, ContainerSignatureOptionValues {
  region?: string;
  validate: boolean;
  manifestList?: boolean;
  output: ResolveFormat;
}

export function command(): Command {
  const cmd = addSettingsOptions(new Command('resolve'))
    .description('Resolve an RHCOS build (pinned, or the newest) against the release browser and print its images.')
    .option('--region <region>', 'print only the AMI of this AWS region (exit 1 when the build has none)')
    .option('--no-validate', 'do not check a pinned build against builds.json; fetch its meta.json directly')
    .option('--manifest-list', 'print the OS image and the containers by their manifest list digest (multi-arch payloads)')
    .addOption(outputOption(['text', 'json', 'env', 'oscontainer', 'os-image'], 'text'));
  return addContainerSignatureOptions(cmd, 'answering')
    .addHelpText(
      'after',
      examples([
        'osimage resolve --channel 4.18-9.4/builds                   # the newest build, from the public mirror',
        'RHCOS_BUILD_NAME=418.94.202604221012-0 osimage resolve --channel 4.18-9.4/builds -o json   # a pinned build, as JSON',
        'osimage resolve --channel 4.18-9.4/builds --arch aarch64 --region us-east-1',
        'osimage resolve --channel 4.16-9.4/builds -o env > pins.env  # RHCOS_* lines a shell can source',
        'os_image=$(osimage resolve --channel 4.16-9.4/builds -o os-image)   # image@digest, for scripts',
        'osimage resolve --channel 4.18-9.4/builds -o os-image       # the primary OS image: base-oscontainer, else oscontainer',
        'osimage resolve --channel rhel-10.2/builds -o os-image --manifest-list   # by manifest list digest',
        'osimage resolve --channel 4.18-9.4/builds --verify-signatures --key rhcos.pub -o os-image   # only a signed OS image',
        'osimage resolve --channel 4.18-9.4/builds --verify-signatures --key rhcos.pub --identity-rule matchRepository -a auth.json',
      ]),
    )
    .action(async (opts: ResolveOptions) => {
      checkConflicts(opts, [
        {
          rule: 'excludes',
          flags: ['manifestList', 'output'],
          allowed: { output: ['text', 'json', 'env', 'os-image'] },
          message: '--manifest-list does not apply to -o oscontainer (it is always image@digest): use -o os-image or -o json',
        },
      ]);
      const verify = containerSignatureCheck(opts);
      const settings = settingsFrom(opts);
      const view = resolveView;
      const resolved = await resolveBuild(settings, { validate: opts.validate });
      resolved.warnings.forEach(warn);
      const signatures = verify ? await verifyContainers(resolved, verify, opts.manifestList === true) : undefined;
      if (opts.output === 'env') credentialsNotWritten(resolved.baseUrl, 'the output').forEach(warn);
      out(view.render(resolved, opts.output, { region: opts.region, manifestList: opts.manifestList === true, signatures }));
    });
}
