import { buildInfo, packageVersion } from './package-info.js';
import { renderVersion } from './output/version-view.js';
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { EXIT_USAGE, OsimageError, UsageError, describe } from './errors.js';
import { type Io, io, requestedExitCode, withIo } from './context.js';
import { normalizeArgv } from './commands/argv.js';
import { optionDescription } from './commands/help.js';
import { addLogOptions } from './commands/log-options.js';
import { DEBUG_LEVEL, beginLog, logs } from './verbosity.js';
import { beginRun } from './lifecycle.js';
import { CODE_CACHE_PROFILE } from './code-cache-profile.js';

/**
 * A command of the table: its one-line summary, the summaries of its subcommands by name (in help's order),
 * and its module, which exports `command(): Command`.
 */
export interface CommandEntry {
  summary: string;
  subcommands?: Record<string, string>;
  load: () => Promise<{ command: () => Command }>;
}

/**
 * The command list, and every summary help shows: each module is imported only when its command runs (or
 * its help is asked for), so start-up stays small, and the top-level list is written from here alone.
 */
export const COMMANDS: Record<string, CommandEntry> = {
  builds: { summary: "list a channel's RHCOS builds, newest first", load: () => import('./commands/builds.js') },
  payload: {
    summary: "the OS image in the payload's manifests and MachineConfigs",
    subcommands: {
      write: "write the OS images into image-references and the osimageurl ConfigMap, for the folder's generation",
      render: 'render 00-<role>-osimageurl MachineConfigs',
      merge: "merge a pool's MachineConfigs into rendered-<pool>-<md5>, as the MCO of a given release does",
      check: "check operators' image-references against the input images",
      bootimages: 'write the coreos-bootimages ConfigMap: every arch and platform, one or several OS streams',
    },
    load: () => import('./commands/payload.js'),
  },
  resolve: {
    summary: 'resolve an RHCOS build and print its images (AMIs, QEMU, OS container)',
    load: () => import('./commands/resolve.js'),
  },
  packages: {
    summary: "list a build's packages (rpms and extensions), or one package's history across a channel's builds",
    load: () => import('./commands/packages.js'),
  },
  diff: {
    summary: 'compare the packages of two RHCOS builds or of the builds two releases ship',
    load: () => import('./commands/diff.js'),
  },
  release: {
    summary: 'read, compare and assemble release payload images',
    subcommands: {
      info: 'show what a release image holds: name, digest, metadata, versions, images; with two, compare them as oc does',
      diff: 'what changed between two releases: OS streams, component versions, images and RHCOS packages',
      extract: 'extract release-manifests/, CredentialsRequests, the oc and installer binaries, or component sources',
      'os-streams': 'list the OS image streams a release ships (rhel-9, rhel-10, centos-10)',
      bootimages: 'show the bootimage streams a release carries: per arch the build, platforms and regions',
      new: 'assemble a release payload, as oc adm release new does, and push or write it',
      'verify-signatures': 'verify the signatures of a release image: GPG simple signing and sigstore',
    },
    load: () => import('./commands/release.js'),
  },
  stream: {
    summary: 'print (or rewrite, or --check) bootimage stream metadata: every arch and platform of RHCOS builds',
    load: () => import('./commands/stream.js'),
  },
  pin: {
    summary: 'pin an RHCOS build in a release script (and metadata snapshot); --check verifies pins',
    load: () => import('./commands/pin.js'),
  },
  promote: {
    summary: 'test the newest RHCOS build with a command and pin it only if the test passes',
    load: () => import('./commands/promote.js'),
  },
  cache: {
    summary: 'the digest-keyed cache of release queries',
    subcommands: {
      info: 'print the cache folder, its entry count and size',
      prune: 'drop the least recently used entries until the cache fits its bound',
      clear: 'remove every entry',
    },
    load: () => import('./commands/cache.js'),
  },
  verify: {
    summary: "check that a release payload ships the pinned bootimage's OS image (bootimage/payload drift)",
    load: () => import('./commands/verify.js'),
  },
  completion: {
    summary: 'print a shell completion script (bash, zsh, fish) for osimage',
    load: () => import('./commands/completion.js'),
  },
  version: { summary: 'print the version of osimage, of Node.js and the commit built', load: () => import('./commands/version.js') },
};

/** The line the top-level list shows: the summary, then the subcommands by name, so that it cannot miss one. */
export function summaryOf(entry: CommandEntry): string {
  return entry.subcommands ? `${entry.summary}: ${Object.keys(entry.subcommands).join(', ')}` : entry.summary;
}

/** Command `name` from its module, with the summaries of the table (the module types none of its own). */
export async function loadCommand(name: string): Promise<Command> {
  const entry = COMMANDS[name]!;
  const cmd = (await entry.load()).command().summary(summaryOf(entry));
  for (const sub of cmd.commands) {
    const summary = entry.subcommands?.[sub.name()];
    if (summary !== undefined) sub.summary(summary);
  }
  return cmd;
}

/** The program's examples (as src/commands/options.ts `examples` writes them; that module is not loaded here). */
const PROGRAM_EXAMPLES = `
Examples:
  osimage resolve --channel 4.18-9.4/builds   # the newest build of a stream of the public RHCOS mirror
  osimage builds --channel rhel-10.2/builds   # that stream's builds, newest first
  osimage help release info                   # the help of one command
`;

/** `osimage release info`: the words that run `c`. */
function commandPath(c: Command): string {
  return c.parent ? `${commandPath(c.parent)} ${c.name()}` : c.name();
}

/** The words of the arguments that are not options (nor the level after `-v` / `--loglevel`, src/commands/log-options.ts). */
const wordsOf = (argv: string[]) => argv.filter((a, i) => !a.startsWith('-') && !['-v', '--v', '--loglevel'].includes(argv[i - 1] ?? ''));

/** The command the arguments name (`osimage resolve ...`, `osimage help resolve`), if any. */
function commandName(argv: string[]): string | undefined {
  const words = wordsOf(argv);
  const first = words[0] === 'help' ? words[1] : words[0];
  return first !== undefined && first in COMMANDS ? first : undefined;
}

/**
 * The launcher keeps a code cache entry per command run (src/launcher/code-cache.ts): `release-info`, `cache-prune`,
 * `resolve`, with `-help` for a help run, from the command table alone (so the names are bounded).
 */
export function codeCacheProfile(argv: string[], name: string): string {
  const words = wordsOf(argv);
  const next = words[words.indexOf(name) + 1];
  const subcommands = COMMANDS[name]?.subcommands;
  const sub = next !== undefined && subcommands && Object.hasOwn(subcommands, next) ? next : undefined;
  const help = argv.includes('--help') || argv.includes('-h');
  return [name, sub, help ? 'help' : undefined].filter(Boolean).join('-');
}

/**
 * Run osimage with `argv` (without node and the script) and return its exit code: 0 success, 1 failure,
 * 2 usage. `given` gives the run its own streams, environment and working folder (tests run the source
 * in-process this way); by default the process's own. Adds no process listeners and never exits the
 * process: the launcher (bin/osimage) owns the process.
 */
export async function main(argv: string[], given: Partial<Io> = {}): Promise<number> {
  const run: Io = {
    stdout: given.stdout ?? process.stdout,
    stderr: given.stderr ?? process.stderr,
    env: given.env ?? process.env,
    cwd: given.cwd ?? process.cwd(),
  };
  return withIo(run, async () => {
    const done = beginRun();
    try {
      return await runCommand(argv, run);
    } finally {
      await done();
    }
  });
}

/** The program, its own options and `--version` (src/output/version-view.ts), without commands. */
function newProgram(Command: typeof import('commander').Command): Command {
  const program = new Command('osimage')
    .description('The OS image (RHCOS) of an OpenShift release, from build to payload.')
    .addHelpText('after', PROGRAM_EXAMPLES)
    .version(
      renderVersion({ version: packageVersion(), node: process.version, ...buildInfo() }).trimEnd(),
      '-V, --version',
      'print the version of osimage, of Node.js and the commit built (as `osimage version`)',
    );
  return addLogOptions(program);
}

async function addEveryCommand(program: Command): Promise<Command> {
  for (const n of Object.keys(COMMANDS)) program.addCommand(await loadCommand(n));
  return program;
}

/** How help shows every command of the tree; the man page (build/man.mjs) reads the tree so configured too. */
function configureHelp(c: Command, Help: typeof import('commander').Help): Command {
  // -v / --loglevel / --debug work on every command: its help lists them.
  c.configureHelp({
    ...c.configureHelp(),
    showGlobalOptions: true,
    optionDescription: optionDescription(Help.prototype.optionDescription),
  });
  for (const sub of c.commands) configureHelp(sub, Help);
  return c;
}

/** The program with every command loaded, as `completion` reads it: build/man.mjs writes the man page from it. */
export async function everyCommand(): Promise<Command> {
  const { Command, Help } = createRequire(import.meta.url)('commander') as typeof import('commander');
  return configureHelp(await addEveryCommand(newProgram(Command)), Help);
}

async function runCommand(given: string[], run: Io): Promise<number> {
  // `osimage help payload write` is `osimage payload write --help`: commander's help command reads one word.
  let argv = given[0] === 'help' && Object.hasOwn(COMMANDS, given[1] ?? '') ? [...given.slice(1), '--help'] : given;
  // commander is CommonJS: require() skips the ES module loader's export scan of it (~4 ms of start-up, measured).
  const { Command, CommanderError, Help } = createRequire(import.meta.url)('commander') as typeof import('commander');
  const terminal = await import('./output/terminal.js');
  await terminal.loadColors();
  // -v N / --loglevel N / --debug (read anywhere on the line) and OSIMAGE_DEBUG: lines go to this run's stderr.
  beginLog((line) => terminal.info(line));
  // commander writes help and its own errors to the run's streams, not the process's.
  const output = {
    writeOut: (s: string) => void run.stdout.write(s),
    writeErr: (s: string) => void run.stderr.write(s),
    getOutHelpWidth: () => (run.stdout.isTTY ? (run.stdout.columns ?? 80) : 80),
    getErrHelpWidth: () => (run.stderr.isTTY ? (run.stderr.columns ?? 80) : 80),
    getOutHasColors: () => terminal.useColor(run.stdout),
    getErrHasColors: () => terminal.useColor(run.stderr),
  };
  const program = newProgram(Command);
  const name = commandName(argv);
  if (name) {
    // Named only while the command's module loads: runs in one process (the tests) never see another's name.
    const globals = globalThis as Record<symbol, unknown>;
    globals[CODE_CACHE_PROFILE] = codeCacheProfile(argv, name);
    try {
      // completion's scripts describe every command: the one run that loads them all.
      if (name === 'completion') await addEveryCommand(program);
      else program.addCommand(await loadCommand(name));
    } finally {
      delete globals[CODE_CACHE_PROFILE];
    }
  } else {
    for (const [n, c] of Object.entries(COMMANDS)) program.command(n).description(summaryOf(c));
  }
  (function configure(c: Command) {
    // After a usage error, oc's (pflag's) pointer at the command's help, as argv.ts prints it for flag errors.
    c.exitOverride()
      .showHelpAfterError(`See '${commandPath(c)} --help' for usage.`)
      .configureOutput(output);
    c.commands.forEach(configure);
  })(program);
  configureHelp(program, Help);
  // `osimage help bogus` fails as `osimage bogus` does (one line, exit 2), not with the parent's whole help.
  if (given[0] === 'help') argv = unknownHelpTopic(program, given.slice(1)) ?? argv;
  try {
    // oc's flag forms (`--insecure=true`, `-o=json`) and its unknown-flag text: src/commands/argv.ts.
    await program.parseAsync(normalizeArgv(program, argv), { from: 'user' });
    return requestedExitCode(run) ?? 0;
  } catch (err) {
    return exitCodeFor(err, CommanderError, terminal);
  }
}

/** The words of `osimage help WORDS` up to the first that names no subcommand of a command that has some, if any. */
function unknownHelpTopic(program: Command, words: string[]): string[] | undefined {
  let c = program;
  for (const [i, w] of words.entries()) {
    if (w.startsWith('-') || w === 'help') return undefined;
    const sub = c.commands.find((s) => s.name() === w || s.aliases().includes(w));
    if (sub === undefined) return c.commands.length > 0 ? words.slice(0, i + 1) : undefined;
    c = sub;
  }
  return undefined;
}

/**
 * Print the error (`error: <message>`, one line) and, when osimage knows what to do about it, one hint
 * (`info: <hint>`, src/output/hints.ts); return the exit code.
 */
async function exitCodeFor(
  err: unknown,
  CommanderError: typeof import('commander').CommanderError,
  terminal: Pick<typeof import('./output/terminal.js'), 'error' | 'info'>,
): Promise<number> {
  if (err instanceof CommanderError) {
    // commander has already printed its message; help and --version exit 0.
    return err.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  terminal.error(err instanceof OsimageError ? err.message : describe(err));
  if (err instanceof UsageError && err.didYouMean !== undefined) io().stderr.write(`(Did you mean ${err.didYouMean}?)\n`);
  if (err instanceof UsageError && err.seeHelpOf !== undefined) {
    io().stderr.write(`See '${err.seeHelpOf} --help' for usage.\n`);
    return err.exitCode;
  }
  const hint = (await import('./output/hints.js')).hintFor(err);
  if (hint !== undefined) terminal.info(`info: ${hint}`);
  if (err instanceof OsimageError) return err.exitCode;
  if (logs(DEBUG_LEVEL) && err instanceof Error && err.stack) {
    // The stack's first line is the message, which may quote text from outside: escaped as every other line is.
    io().stderr.write(`${(await import('./output/escape.js')).escapeText(err.stack)}\n`);
  }
  return 1;
}
