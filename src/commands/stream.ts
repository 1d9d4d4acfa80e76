import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { checkConflicts } from './conflicts.js';
import { addSettingsOptions, examples, settingsFrom, type SettingsOptionValues } from './options.js';
import { readText, readTextIfExists } from '../files/read.js';
import { parseStreamFile, updateTarget } from '../stream/target.js';
import { checkStream } from '../stream/check.js';
import * as contextModule from '../context.js';
import { formatStream } from '../stream/format.js';
import { editFileAtomic } from '../files/edit.js';
import * as collectModule from '../stream/collect.js';
import * as terminalModule from '../output/terminal.js';
import * as streamView from '../output/stream-view.js';
import * as generateModule from '../stream/generate.js';
import * as nameModule from '../stream/name.js';
import * as packageInfo from '../package-info.js';

interface StreamOptions extends Omit<SettingsOptionValues, 'arch'> {
  arch: string[];
  name?: string;
  signatures?: boolean;
  locationBase?: string;
  target?: string;
  dryRun?: boolean;
  check?: boolean;
}

const collect = (v: string, prev: string[]) => [...prev, v];

export function command(): Command {
  return addSettingsOptions(new Command('stream'), { arch: false })
    .description(
      'Print the bootimage stream metadata (every arch and platform) of RHCOS builds as JSON, as plume cosa2stream builds it; or rewrite, or check, a stream file pinned in git.',
    )
    .option(
      '--arch <arch[=channel]>',
      'an arch to include, repeatable; A=CHANNEL when each arch has its own channel (default: every arch in builds.json)',
      collect,
      [],
    )
    .option('--name <name>', 'the "stream" field (default: from the channel, e.g. rhcos-4.16-9.4; with --target the file\'s own)')
    .option('--signatures', 'add "signature" (location + .sig) to every artifact (default: none, as the installer\'s files today)')
    .option(
      '--location-base <url>',
      'write artifact locations against this public URL instead of --base-url (a release browser read from a mirror)',
    )
    .option('--target <file>', 'rewrite this stream file in place: the arches asked for are replaced, the others kept')
    .option('--dry-run', 'with --target: print a unified diff on stdout and write nothing')
    .option('--check', 'with --target: exit 1 naming each build gone from builds.json and each sha256 that no longer matches')
    .addHelpText(
      'after',
      examples([
        'osimage stream --channel 4.16-9.4/builds                                       # every arch of the newest build',
        'osimage stream --channel 4.16-9.4/builds --build 416.94.202405291527-0 --arch x86_64 --arch s390x',
        'osimage stream --base-url https://rhcos.mirror.openshift.com/art/storage/releases --channel rhcos-4.8 --arch x86_64 --arch s390x=rhcos-4.8-s390x --signatures   # 2021 per-arch channels',
        'osimage stream --channel 4.18-9.4/builds --target data/data/coreos/coreos-rhel-9.json --dry-run',
        'osimage stream --channel 4.18-9.4/builds --target data/data/coreos/coreos-rhel-9.json',
        'osimage stream --check --target data/data/coreos/coreos-rhel-9.json            # CI: exit 1 on drift',
        'osimage stream --check --target rhcos.json --base-url https://mirror.example/art --channel 4.16-9.4/builds',
      ]),
    )
    .action(async (opts: StreamOptions) => {
      checkConflicts(opts, [
        {
          rule: 'excludes',
          flags: ['check', 'dryRun', 'name', 'signatures', 'locationBase', 'build'],
          message: (given) => `--check reads the builds from the file; it cannot be combined with ${given.join(', ')}`,
        },
      ]);
      if (opts.dryRun && opts.target === undefined) throw new UsageError('--dry-run needs --target FILE');
      if (opts.check && opts.target === undefined) throw new UsageError('--check needs --target FILE');
      // --check reads the builds from the file: a channel only tells a mirror's base in their locations (checkStream says when).
      const settings = settingsFrom({ ...opts, arch: undefined }, contextModule.env(), { channelOptional: opts.check === true });
      const [{ parseArchFlags, collectStream }, term, view] = await Promise.all([collectModule, terminalModule, streamView]);
      const arches = parseArchFlags(opts.arch);
      if (opts.check) {
        const file = opts.target!;
        const stream = parseStreamFile(await readText(file), file);
        const channels = new Map(arches.map((a) => [a.arch, a.channel ?? settings.channel]));
        const mirror =
          settings.sources.baseUrl === 'default'
            ? {}
            : { baseUrl: settings.baseUrl, channelOf: (a: string) => channels.get(a) ?? settings.channel };
        const result = await checkStream(stream, mirror);
        term.out(view.checkReport(file, result));
        if (result.differences.length > 0) contextModule.setExitCode(1);
        return;
      }
      const [{ generateStream }, { streamNameFor }, { packageVersion }] = await Promise.all([generateModule, nameModule, packageInfo]);
      const collected = await collectStream(settings, arches);
      collected.warnings.forEach(term.warn);
      const { stream, warnings } = generateStream(collected.inputs, {
        name: opts.name ?? streamNameFor(settings.channel),
        generator: `osimage ${packageVersion()}`,
        signatures: opts.signatures === true,
        ...(opts.locationBase !== undefined ? { locationBase: opts.locationBase } : {}),
        ...(collected.buildsTimestamp !== undefined ? { buildsTimestamp: collected.buildsTimestamp } : {}),
      });
      warnings.forEach(term.warn);
      if (opts.target === undefined) {
        term.outRaw(formatStream(stream));
        return;
      }
      const file = opts.target;
      const before = await readTextIfExists(file);
      const update = updateTarget(before, file, stream);
      if (opts.dryRun) {
        term.outRaw(view.targetDiff(file, before, update.text));
        term.info(view.targetSummary(file, update, true));
        return;
      }
      if (update.text !== undefined) {
        await editFileAtomic(file, update.text);
      }
      term.info(view.targetSummary(file, update, false));
    });
}
