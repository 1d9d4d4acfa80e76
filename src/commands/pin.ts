import { Command } from 'commander';
import { env } from '../context.js';
import { UsageError, type Warning } from '../errors.js';
import { checkConflicts, pinsFile, type FlagRule } from './conflicts.js';
import { addSettingsOptions, examples, noteIgnoredEnvPins, osStreamOption, outputOption, type SettingsOptionValues } from './options.js';
import * as terminalModule from '../output/terminal.js';
import * as pinView from '../output/pin-view.js';
import * as pinJsonView from '../output/pin-json-view.js';
import { json } from '../output/format.js';
import { PinCheckError } from '../pin/errors.js';
import { checkPins } from '../pin/check.js';
import { misspeltEnvWarnings } from '../rhcos/settings.js';
import { applyPlan, planPin } from '../pin/plan.js';
import {
  addContainerSignatureOptions,
  type ContainerSignatureOptionValues,
  containerSignatureCheck,
  verifyContainers,
} from './container-signature-options.js';

interface PinOptions extends SettingsOptionValues, ContainerSignatureOptionValues {
  write?: string;
  pins?: string;
  meta?: string;
  latest?: boolean;
  dryRun?: boolean;
  check?: boolean;
  osStream?: string;
  output: 'text' | 'json';
}

const PIN_CONFLICTS: FlagRule[] = [
  { rule: 'excludes', flags: ['check', 'latest', 'dryRun'], message: '--check cannot be combined with --latest or --dry-run' },
  {
    rule: 'excludes',
    flags: ['check', 'build', 'channel'],
    message: '--check reads the build and channel from FILE; --build and --channel cannot be used with it',
  },
  { rule: 'at-most-one', flags: ['latest', 'build'], message: '--latest and --build contradict each other: pick one' },
];

const HELP = `
Which build is pinned (without --check):
  Each value comes from the first of: the flag (--build, --channel, --base-url), the environment
  (RHCOS_BUILD_NAME, RHCOS_DEFAULT_CHANNEL, RHCOS_BASE_URL), the pin FILE already has, the default
  (there is no default channel; a FILE that pins a build but no channel was written in 2019 and means
  maipo). With no build from any of those, the newest build is pinned. So a plain \`pin\` re-pins what FILE
  already pins (refreshing --meta and filling in missing variables) and never moves a pinned branch;
  --latest ignores every build pin and takes the newest build of the (pinned) channel.
  Branch cut: on the new branch run \`osimage pin --write hack/release.sh --meta data/rhcos.json --latest\`
  (add --channel for the branch's stream when FILE pins none yet) and commit both files.

Editing FILE:
  Assignments at the start of a line are edited in place in any of these forms, keeping the form,
  the quoting and every other byte: VAR=v, export VAR=v, VAR="\${VAR:-v}", export VAR="\${VAR:-v}",
  : "\${VAR:=v}" (a pin set only for one command, after another command on a line, or with
  readonly/declare/local is refused). Absent variables go in one "# BEGIN osimage pins" block after the shebang
  and leading comments. A missing FILE is created (mode 0755). Values that cannot be written safely
  in the assignment's form are refused. FILE and --meta are written atomically, together or not at all.

A second OS stream (--os-stream NAME):
  The pins of stream NAME are their own variables: --os-stream rhel-10 reads and writes
  RHCOS_RHEL_10_BUILD_NAME, RHCOS_RHEL_10_DEFAULT_CHANNEL and RHCOS_RHEL_10_BASE_URL (the name upper-cased,
  '-' as '_'), in FILE and in the environment, instead of RHCOS_*; everything else works as above. One
  stream per run: pin the default stream without --os-stream, then the other with it. --meta names that
  stream's own snapshot.

--check --pins FILE:
  Reads the pins from FILE only (the environment is ignored; --base-url may point at a mirror, and
  --arch picks the architecture). Fails (exit 1) when FILE is missing, assigns a misspelt pin
  variable, has no build pin, pins a build builds.json no longer lists (for the arch), or, with
  --meta, when the snapshot no longer matches the build's meta.json (naming each changed field). A field
  the build has that a snapshot from an older osimage does not record (azure, gcp, base-oscontainer,
  extensions-container) is a warning, not a failure. Warnings are printed before any error. A FILE
  without a channel is checked against maipo (and, without a base URL, maipo's 2019 release browser,
  which no longer answers: give --base-url of a copy), with a warning, so old branches still check.
`;

export function command(): Command {
  const cmd = addSettingsOptions(new Command('pin'))
    .description('Pin an RHCOS build in a release script (and a metadata snapshot), or check the pins (--check).')
    .option('--write <file>', 'the shell script to write the pins into, e.g. hack/release.sh')
    .option('--pins <file>', 'with --check: the shell script to read the pins from (--write is accepted too)')
    .option('--meta <file>', "also write (or with --check, verify) the build's metadata snapshot JSON")
    .option('--latest', 'pin the newest build, ignoring any build pin (--build, RHCOS_BUILD_NAME, FILE)')
    .option('--dry-run', 'print a unified diff of the changes on stdout and write nothing')
    .option('--check', 'check the pins in FILE (and --meta) against the release browser; write nothing')
    .addOption(osStreamOption())
    .addOption(outputOption(['text', 'json'], 'text'));
  return addContainerSignatureOptions(cmd, 'pinning (not with --check)')
    .addHelpText('after', HELP)
    .addHelpText(
      'after',
      examples([
        'osimage pin --write hack/release.sh --meta data/rhcos.json --channel 4.18-9.4/builds --latest   # branch cut',
        'osimage pin --write hack/release.sh --build 418.94.202604221012-0 --dry-run',
        'osimage pin --check --pins hack/release.sh --meta data/rhcos.json                         # CI on a release branch',
        'osimage pin --check --pins hack/release.sh -o json                                        # the answer as JSON',
        'osimage pin --check --pins hack/release.sh --base-url file:///srv/mirror/prod/streams      # check against a mirror',
        'osimage pin --os-stream rhel-10 --write hack/release.sh --channel rhel-10.2/builds --latest  # the RHEL 10 stream',
        'osimage pin --check --os-stream rhel-10 --pins hack/release.sh --meta data/rhcos-rhel-10.json',
        'osimage pin --write hack/release.sh --channel 4.18-9.4/builds --latest --verify-signatures --key rhcos.pub   # only a signed build',
      ]),
    )
    .action(async (opts: PinOptions) => {
      const term = terminalModule;
      const view = pinView;
      checkConflicts(opts, PIN_CONFLICTS);
      if (opts.check && opts.verifySignatures)
        throw new UsageError('--verify-signatures checks a build before it is pinned; it does not apply to --check');
      const verify = containerSignatureCheck(opts);
      if (opts.check) {
        const file = pinsFile(opts);
        if (file === undefined) throw new UsageError("required option '--pins <file>' not specified");
        noteIgnoredEnvPins('--check', file, opts.osStream);
        const warnings: Warning[] = [];
        const report = await checkPins({
          file,
          meta: opts.meta,
          baseUrl: opts.baseUrl,
          arch: opts.arch,
          osStream: opts.osStream,
          onWarning: (w) => {
            warnings.push(w);
            term.warn(w);
          },
        }).catch((err: unknown) => {
          // A check that fails is still an answer a script reads: ok false and the reason, then the error (exit 1).
          if (opts.output === 'json' && err instanceof PinCheckError) {
            term.out(json(pinJsonView.checkFailedJson({ file, meta: opts.meta, osStream: opts.osStream }, warnings, err)));
          }
          throw err;
        });
        term.out(opts.output === 'json' ? json(pinJsonView.checkJson(report)) : view.checkSummary(report));
        return;
      }
      if (opts.pins !== undefined) throw new UsageError('--pins is read by --check; to write the pins give --write FILE');
      if (opts.write === undefined) throw new UsageError("required option '--write <file>' not specified");
      const write = opts.write;
      misspeltEnvWarnings(env()).forEach(term.warn);
      const plan = await planPin({ file: write, meta: opts.meta, flags: opts, env: env(), latest: opts.latest ?? false });
      if (verify) await verifyContainers(plan.resolved, verify);
      for (const n of plan.notes) term.info(`info: ${n.message}`);
      plan.warnings.forEach(term.warn);
      if (opts.dryRun) {
        if (opts.output === 'json') {
          term.out(json(pinJsonView.pinJson(plan, undefined)));
          return;
        }
        term.outRaw(view.planDiff(plan));
        term.info(view.pinSummary(plan, undefined));
        return;
      }
      const written = await applyPlan(plan);
      term.out(opts.output === 'json' ? json(pinJsonView.pinJson(plan, written)) : view.pinSummary(plan, written));
    });
}
