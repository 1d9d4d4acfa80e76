import { Command } from 'commander';
import { UsageError } from '../errors.js';
import { addSettingsOptions, examples, osStreamOption, outputOption, type SettingsOptionValues } from './options.js';
import { env, io } from '../context.js';
import * as terminalModule from '../output/terminal.js';
import * as pinView from '../output/pin-view.js';
import { promoteJson } from '../output/pin-json-view.js';
import { json } from '../output/format.js';
import { misspeltEnvWarnings } from '../rhcos/settings.js';
import { promote } from '../pin/promote.js';
import { shellTestRunner, stopRunningTests } from '../pin/test-runner.js';
import { releaseHeldLocksSync } from '../pin/lock.js';

interface PromoteOptions extends SettingsOptionValues {
  test: string;
  write: string;
  meta?: string;
  commit?: boolean;
  osStream?: string;
  output: 'text' | 'json';
}

const HELP = `
Promote takes the newest build of the channel (flag, else environment, else FILE's pin, else the
default; likewise the base URL). When FILE already pins it, promote says so and exits 0 without
testing. Otherwise it runs CMD through the shell with RHCOS_BUILD_NAME, RHCOS_DEFAULT_CHANNEL and
RHCOS_BASE_URL set to the candidate; CMD's output (stdout and stderr) is streamed to stderr, so
stdout carries only promote's answer. Only when CMD exits 0 are FILE (and --meta) written, together
or not at all; otherwise promote exits 1 naming CMD's exit code and leaves every file untouched.

--os-stream NAME promotes that OS stream's pins instead (one stream per run): rhel-10 reads and
writes RHCOS_RHEL_10_BUILD_NAME, RHCOS_RHEL_10_DEFAULT_CHANNEL and RHCOS_RHEL_10_BASE_URL, in FILE
and in the environment, and CMD sees those three set to the candidate.

--commit commits the changed files with git ("Promote RHCOS build NEW (was OLD)"); it refuses to
start (before running CMD) when those files have uncommitted changes. FILE.lock (holding the pid, beside
FILE's real path) stops two promotions of the same FILE at once; a promotion stopped by SIGINT/SIGTERM
stops CMD's whole process group and removes its lock (exit 130/143), and a lock left by a dead process
is reported with the command to remove it.
`;

export function command(): Command {
  return addSettingsOptions(new Command('promote'))
    .description('Test the newest RHCOS build with a command and pin it only when the test passes.')
    .requiredOption('--test <cmd>', 'shell command that tests the candidate (sees RHCOS_* set to it); exit 0 = pass')
    .option('--write <file>', 'the release script holding the pins', 'hack/release.sh')
    .option('--meta <file>', "also write the build's metadata snapshot JSON")
    .option('--commit', 'git commit the changed files (refuses when they have uncommitted changes)')
    .addOption(osStreamOption())
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText('after', HELP)
    .addHelpText(
      'after',
      examples([
        "osimage promote --test 'make e2e-aws' --meta data/rhcos.json --commit     # periodic job on master",
        'osimage promote --test ./hack/smoke.sh --write hack/release.sh --channel 4.18-9.4/builds',
        "osimage promote --test 'make e2e-aws' -o json > promote.json                  # the answer as JSON",
        "osimage promote --os-stream rhel-10 --test 'make e2e-rhel10' --meta data/rhcos-rhel-10.json   # the RHEL 10 stream",
      ]),
    )
    .action(async (opts: PromoteOptions) => {
      if (opts.build !== undefined)
        throw new UsageError('promote always tests the newest build; to pin a given build use: osimage pin --build NAME');
      if (opts.test.trim() === '') throw new UsageError('--test: the command is empty');
      const term = terminalModule;
      const view = pinView;
      misspeltEnvWarnings(env()).forEach(term.warn);
      // Interrupted (Ctrl-C, a CI timeout): drop our lock so the next run is not met by a stale one, and
      // stop the test command's whole process group before exiting. No file has been written unless the test passed.
      let stopping: Promise<never> | undefined;
      const onSignal = (signal: NodeJS.Signals) => {
        stopping ??= (async () => {
          releaseHeldLocksSync();
          term.error(`interrupted by ${signal}; not promoted`);
          await stopRunningTests();
          process.exit(signal === 'SIGINT' ? 130 : 143);
        })();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const result = await promote({
        file: opts.write,
        meta: opts.meta,
        flags: { baseUrl: opts.baseUrl, channel: opts.channel, arch: opts.arch, osStream: opts.osStream },
        env: env(),
        test: opts.test,
        commit: opts.commit ?? false,
        runTest: shellTestRunner({ stdout: io().stderr, stderr: io().stderr }),
        onProgress: (m) => term.info(m),
      })
        .catch(async (err: unknown) => {
          // The test we stopped fails the promotion: the signal handler has the last word.
          if (stopping) await stopping;
          throw err;
        })
        .finally(() => {
          // Also after a failure: a run in-process (tests) must not leave its listeners on the process.
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        });
      result.warnings.forEach(term.warn);
      term.out(opts.output === 'json' ? json(promoteJson(result, opts.meta, opts.osStream)) : view.promoteSummary(result, opts.meta));
    });
}
