import { Command } from 'commander';
import { setExitCode } from '../context.js';
import { describe } from '../errors.js';
import { addSettingsOptions, examples, outputOption, settingsFrom, type SettingsOptionValues } from './options.js';
import { chooseBuild, fetchBuildList } from '../rhcos/resolve.js';
import { error, out } from '../output/terminal.js';
import * as buildsView from '../output/builds-view.js';
import { json } from '../output/format.js';

interface BuildsOptions extends SettingsOptionValues {
  output: 'text' | 'json';
}

export function command(): Command {
  return addSettingsOptions(new Command('builds'))
    .description("List the channel's builds, newest first, and show which one the current settings resolve to.")
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText(
      'after',
      examples([
        'osimage builds --channel 4.18-9.4/builds                     # the public mirror (the default --base-url)',
        'osimage builds --channel rhel-10.2/builds --arch aarch64 -o json',
        'osimage builds --base-url file:///srv/mirror/prod/streams --channel 4.16-9.4/builds   # a copy on disk',
      ]),
    )
    .action(async (opts: BuildsOptions) => {
      const settings = settingsFrom(opts);
      const view = buildsView;
      const list = await fetchBuildList(settings);
      let resolved: string | null = null;
      let problem: string | null = null;
      try {
        resolved = chooseBuild(list, settings);
      } catch (err) {
        problem = describe(err);
      }
      const shown = { list, settings, resolved, problem };
      if (opts.output === 'json') {
        out(json(view.buildsJson(shown)));
      } else {
        out(view.renderBuilds(shown));
      }
      if (problem) {
        error(problem);
        setExitCode(1);
      }
    });
}
