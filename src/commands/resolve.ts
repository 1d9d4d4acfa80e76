import { Command } from 'commander';
import { addSettingsOptions, examples, outputOption, settingsFrom, type SettingsOptionValues } from './options.js';

interface ResolveOptions extends SettingsOptionValues {
  region?: string;
  validate: boolean;
  output: 'text' | 'json' | 'env' | 'oscontainer';
}

export function command(): Command {
  return addSettingsOptions(new Command('resolve'))
    .description('Resolve an RHCOS build (pinned, or the newest) against the release browser and print its images.')
    .option('--region <region>', 'print only the AMI of this AWS region (exit 1 when the build has none)')
    .option('--no-validate', 'do not check a pinned build against builds.json; fetch its meta.json directly')
    .addOption(outputOption(['text', 'json', 'env', 'oscontainer'], 'text'))
    .addHelpText(
      'after',
      examples([
        'osimage resolve                                   # the newest build of the default channel',
        'RHCOS_BUILD_NAME=47.245 osimage resolve -o json   # a pinned build, as JSON',
        'osimage resolve --channel rhcos-4.12 --arch aarch64 --region us-east-1',
        'osimage resolve --base-url ./hack/sample/releases -o env > pins.env',
        'os_image=$(osimage resolve -o oscontainer)                  # image@digest, for scripts',
      ]),
    )
    .action(async (opts: ResolveOptions) => {
      const settings = settingsFrom(opts);
      const { resolveBuild } = await import('../rhcos/resolve.js');
      const view = await import('../output/resolve-view.js');
      const { out, warn } = await import('../output/terminal.js');
      const resolved = await resolveBuild(settings, { validate: opts.validate });
      resolved.warnings.forEach(warn);
      out(view.render(resolved, opts.output, opts.region));
    });
}
