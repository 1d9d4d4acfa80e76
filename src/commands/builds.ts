import { Command } from 'commander';
import { addSettingsOptions, examples, outputOption, settingsFrom, type SettingsOptionValues } from './options.js';
import { setExitCode } from '../context.js';

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
      const { fetchBuildList, chooseBuild } = await import('../rhcos/resolve.js');
      const { out, error } = await import('../output/terminal.js');
      const { json, keyValues, table } = await import('../output/format.js');
      const list = await fetchBuildList(settings);
      let resolved: string | null = null;
      let problem: string | null = null;
      try {
        resolved = chooseBuild(list, settings);
      } catch (err) {
        problem = (err as Error).message;
      }
      if (opts.output === 'json') {
        out(
          json({
            buildsURL: list.url,
            schemaVersion: list.schemaVersion,
            timestamp: list.timestamp ?? null,
            arch: settings.arch,
            pinned: settings.build || null,
            resolved,
            error: problem,
            builds: list.builds.map((b) => (b.arches ? { id: b.id, arches: b.arches } : { id: b.id })),
          }),
        );
      } else {
        const head = keyValues([
          ['builds.json', list.url],
          ['Schema', list.schemaVersion],
          ['Timestamp', list.timestamp ?? '(none)'],
          ['Resolves to', resolved ? `${resolved} (${settings.build ? 'pinned' : `newest for ${settings.arch}`})` : '(nothing)'],
        ]);
        const rows = list.builds.map((b) => [b.id === resolved ? '*' : ' ', b.id, b.arches ? b.arches.join(',') : '']);
        out(`${head}\n\n${table([[' ', 'BUILD', list.layout === 'v1' ? 'ARCHES' : ''], ...rows])}`);
      }
      if (problem) {
        error(problem);
        setExitCode(1);
      }
    });
}
