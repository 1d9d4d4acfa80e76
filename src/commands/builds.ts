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
        'osimage builds --channel ootpa',
        'osimage builds --base-url file:///srv/mirror/storage/releases --channel rhcos-4.12 --arch aarch64 -o json',
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
