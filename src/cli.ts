import { packageVersion } from './package-info.js';
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { EXIT_USAGE, OsimageError, UsageError, describe } from './errors.js';
import { type Io, env, io, requestedExitCode, withIo } from './context.js';
import { envFlag } from './env-flag.js';
import { normalizeArgv } from './commands/argv.js';
import { beginRun } from './lifecycle.js';

/**
 * The command list. Each module is imported only when its command runs (or its help is asked for),
 * so start-up stays small. A module exports `command(): Command`.
 */
export const COMMANDS: Record<string, { summary: string; load: () => Promise<{ command: () => Command }> }> = {
  builds: { summary: "list a channel's RHCOS builds, newest first", load: () => import('./commands/builds.js') },
  payload: {
    summary: 'write the OS image into payload manifests; render, merge and check MachineConfigs; coreos-bootimages',
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
    summary: 'read, compare and assemble release payload images: info, diff, extract, os-streams, bootimages, new',
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
    summary: 'the digest-keyed cache of release queries: info, prune, clear',
    load: () => import('./commands/cache.js'),
  },
  verify: {
    summary: "check that a release payload ships the pinned bootimage's OS image (bootimage/payload drift)",
    load: () => import('./commands/verify.js'),
  },
};

/** The command the arguments name (`osimage resolve ...`, `osimage help resolve`), if any. */
function commandName(argv: string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  const first = words[0] === 'help' ? words[1] : words[0];
  return first !== undefined && first in COMMANDS ? first : undefined;
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

async function runCommand(argv: string[], run: Io): Promise<number> {
  // commander is CommonJS: require() skips the ES module loader's export scan of it (~4 ms of start-up, measured).
  const { Command, CommanderError } = createRequire(import.meta.url)('commander') as typeof import('commander');
  const terminal = await import('./output/terminal.js');
  await terminal.loadColors();
  // commander writes help and its own errors to the run's streams, not the process's.
  const output = {
    writeOut: (s: string) => void run.stdout.write(s),
    writeErr: (s: string) => void run.stderr.write(s),
    getOutHelpWidth: () => (run.stdout.isTTY ? (run.stdout.columns ?? 80) : 80),
    getErrHelpWidth: () => (run.stderr.isTTY ? (run.stderr.columns ?? 80) : 80),
    getOutHasColors: () => terminal.useColor(run.stdout),
    getErrHasColors: () => terminal.useColor(run.stderr),
  };
  const program = new Command('osimage')
    .description('The OS image (RHCOS) of an OpenShift release, from build to payload.')
    .version(packageVersion(), '-V, --version');
  const name = commandName(argv);
  if (name) {
    program.addCommand((await COMMANDS[name]!.load()).command());
  } else {
    for (const [n, c] of Object.entries(COMMANDS)) program.command(n).description(c.summary);
  }
  (function configure(c: Command) {
    c.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput(output);
    c.commands.forEach(configure);
  })(program);
  try {
    // oc's flag forms (`--insecure=true`, `-o=json`) and its unknown-flag text: src/commands/argv.ts.
    await program.parseAsync(normalizeArgv(program, argv), { from: 'user' });
    return requestedExitCode(run) ?? 0;
  } catch (err) {
    return exitCodeFor(err, CommanderError, terminal);
  }
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
  if (err instanceof UsageError && err.seeHelpOf !== undefined) {
    io().stderr.write(`See '${err.seeHelpOf} --help' for usage.\n`);
    return err.exitCode;
  }
  const hint = (await import('./output/hints.js')).hintFor(err);
  if (hint !== undefined) terminal.info(`info: ${hint}`);
  if (err instanceof OsimageError) return err.exitCode;
  if (envFlag(env().OSIMAGE_DEBUG) && err instanceof Error && err.stack) {
    // The stack's first line is the message, which may quote text from outside: escaped as every other line is.
    io().stderr.write(`${(await import('./output/escape.js')).escapeText(err.stack)}\n`);
  }
  return 1;
}
