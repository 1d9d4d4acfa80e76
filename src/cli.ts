import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { EXIT_USAGE, OsimageError, describe } from './errors.js';
import { shutdown } from './lifecycle.js';

/**
 * The command list. Each module is imported only when its command runs (or its help is asked for),
 * so start-up stays small. A module exports `command(): Command`.
 */
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ command: () => Command }> }> = {
  builds: { summary: "list a channel's RHCOS builds, newest first", load: () => import('./commands/builds.js') },
  payload: {
    summary: 'write the OS image into payload manifests; render, merge and check MachineConfigs; coreos-bootimages',
    load: () => import('./commands/payload.js'),
  },
  resolve: {
    summary: 'resolve an RHCOS build and print its images (AMIs, QEMU, OS container)',
    load: () => import('./commands/resolve.js'),
  },
  release: { summary: 'read release payload images: info, extract', load: () => import('./commands/release.js') },
  pin: {
    summary: 'pin an RHCOS build in a release script (and metadata snapshot); --check verifies pins',
    load: () => import('./commands/pin.js'),
  },
  promote: {
    summary: 'test the newest RHCOS build with a command and pin it only if the test passes',
    load: () => import('./commands/promote.js'),
  },
  verify: {
    summary: "check that a release payload ships the pinned bootimage's OS image (bootimage/payload drift)",
    load: () => import('./commands/verify.js'),
  },
};

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The command the arguments name (`osimage resolve ...`, `osimage help resolve`), if any. */
function commandName(argv: string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  const first = words[0] === 'help' ? words[1] : words[0];
  return first !== undefined && first in COMMANDS ? first : undefined;
}

export async function main(argv: string[]): Promise<void> {
  // `osimage ... | head`: a closed pipe ends the process quietly, as other Unix tools do.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
  const [{ Command, CommanderError }] = await Promise.all([
    import('commander'),
    import('./output/terminal.js').then((t) => t.loadColors()),
  ]);
  const program = new Command('osimage')
    .description('The OS image (RHCOS) of an OpenShift release, from build to payload.')
    .version(version(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  const name = commandName(argv);
  if (name) {
    program.addCommand((await COMMANDS[name]!.load()).command());
  } else {
    for (const [n, c] of Object.entries(COMMANDS)) program.command(n).description(c.summary);
  }
  program.commands.forEach(function configure(c: Command) {
    c.exitOverride().showHelpAfterError('(run with --help for usage)');
    c.commands.forEach(configure);
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    process.exitCode = await exitCodeFor(err, CommanderError);
  } finally {
    await shutdown();
  }
}

async function exitCodeFor(err: unknown, CommanderError: typeof import('commander').CommanderError): Promise<number> {
  if (err instanceof CommanderError) {
    // commander has already printed its message; help and --version exit 0.
    return err.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  const { error } = await import('./output/terminal.js');
  if (err instanceof OsimageError) {
    error(err.message);
    return err.exitCode;
  }
  error(describe(err));
  if (process.env.OSIMAGE_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return 1;
}
