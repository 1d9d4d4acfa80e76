import { Command } from 'commander';
import { buildInfo, packageVersion } from '../package-info.js';
import { json } from '../output/format.js';
import { out } from '../output/terminal.js';
import { renderVersion, versionJson } from '../output/version-view.js';
import { examples, outputOption } from './options.js';

export function command(): Command {
  return new Command('version')
    .description(
      "Print osimage's version (`osimage 0.1.0`), the Node.js version running it, and the git commit it was built from when the build knew it. `osimage --version` prints the same text.",
    )
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText('after', examples(['osimage version', 'osimage version -o json', 'osimage --version']))
    .action((opts: { output: 'text' | 'json' }) => {
      const facts = { version: packageVersion(), node: process.version, ...buildInfo() };
      out(opts.output === 'json' ? json(versionJson(facts)) : renderVersion(facts));
    });
}
