import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { DEFAULT_HISTORY_LIMIT } from '../packages/defaults.js';
import { addSettingsOptions, examples, outputOption, settingsFrom, type SettingsOptionValues } from './options.js';
import { info, out, warn } from '../output/terminal.js';
import * as packagesView from '../output/packages-view.js';
import { json } from '../output/format.js';
import { packageHistory } from '../packages/history.js';
import { resolveBuild } from '../rhcos/resolve.js';
import { buildPackages, nameMatcher } from '../packages/load.js';

interface PackagesOptions extends SettingsOptionValues {
  package: string[];
  history?: boolean;
  since?: string;
  limit: string;
  cache: boolean;
  output: 'text' | 'json';
}

export function command(): Command {
  return addSettingsOptions(new Command('packages'))
    .description(
      "List an RHCOS build's packages (commitmeta.json's rpm list plus meta.json's extensions), name-[epoch:]version-release.arch, sorted; or, with --history, how one package's version changed across the channel's builds.",
    )
    .option(
      '--package <name>',
      'only this package (exact name or glob with * and ?); repeatable',
      (v: string, acc: string[]) => [...acc, v],
      [],
    )
    .option('--history', "how --package NAME's version changed across the channel's builds, newest first")
    .option('--since <build>', 'with --history: go back to this build (default: --limit builds)')
    .addOption(
      new Option('--limit <n>', 'with --history and no --since: the number of builds to read').default(
        String(DEFAULT_HISTORY_LIMIT),
        String(DEFAULT_HISTORY_LIMIT),
      ),
    )
    .option('--no-cache', 'with --history: neither read nor write the commitmeta cache ($OSIMAGE_CACHE_DIR or $XDG_CACHE_HOME/osimage)')
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText(
      'after',
      examples([
        'osimage packages --channel 4.18-9.4/builds --build 418.94.202605101521-0',
        "osimage packages --channel 4.18-9.4/builds --package 'kernel*' --package podman",
        'osimage packages --channel rhel-10.2/builds --arch aarch64 -o json',
        'osimage packages --channel 4.18-9.4/builds --history --package podman --since 418.94.202604221012-0',
      ]),
    )
    .action(async (opts: PackagesOptions) => {
      const settings = settingsFrom(opts);
      const view = packagesView;
      if (opts.history || opts.since !== undefined) {
        if (!opts.history) throw new UsageError('--since applies only with --history');
        const name = opts.package[0];
        if (opts.package.length !== 1 || name === undefined || /[*?]/.test(name)) {
          throw new UsageError('--history needs exactly one --package NAME (an exact name, no glob)');
        }
        const limit = Number(opts.limit);
        if (!Number.isSafeInteger(limit) || limit < 1)
          throw new UsageError(`--limit: expected a positive number, got ${JSON.stringify(opts.limit)}`);
        const h = await packageHistory({ settings, name, since: opts.since, limit, cache: opts.cache });
        h.warnings.forEach(warn);
        if (h.missing.length > 0) info(`info: skipped ${h.missing.length} build(s) without commitmeta.json: ${h.missing.join(', ')}`);
        if (h.truncated > 0)
          info(`info: read ${h.builds.length + h.missing.length} builds; ${h.truncated} older ones not read (use --since or --limit)`);
        out(opts.output === 'json' ? json(view.historyJson(h)) : view.renderHistory(h));
        return;
      }
      const resolved = await resolveBuild(settings);
      resolved.warnings.forEach(warn);
      const b = await buildPackages(resolved);
      const match = nameMatcher(opts.package);
      const list = b.packages.filter((p) => match(p.name));
      if (opts.package.length > 0 && list.length === 0) {
        warn(`no package of build ${b.build} matches ${opts.package.join(', ')}`);
      }
      out(opts.output === 'json' ? json(view.packagesJson(b, list)) : view.renderPackages(list));
    });
}
