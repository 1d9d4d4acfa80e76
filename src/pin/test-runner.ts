import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestRunner } from './promote.js';
import { env } from '../context.js';

/** Process groups of the test commands running now (each test is the leader of its own group). */
const running = new Set<number>();

/** How long a stopped test gets to exit on SIGTERM before its group is killed. */
export const STOP_GRACE_MS = 2000;

/**
 * A TestRunner that runs the command through the shell (execa, shell: true) with our environment plus
 * the candidate's RHCOS_* values. Its output goes to the given streams as it comes (the
 * promote command sends both to stderr so that stdout carries only osimage's answer).
 * The command runs in a process group of its own, so that `stopRunningTests` can stop it with
 * everything it started, rather than leave them running after osimage exits.
 */
export function shellTestRunner(io: { stdout: Writable; stderr: Writable; env?: NodeJS.ProcessEnv }): TestRunner {
  return async (command, candidate) => {
    const { execa } = await import('execa');
    const sub = execa(command, {
      shell: true,
      env: { ...(io.env ?? env()), ...candidate },
      extendEnv: false,
      stdin: 'ignore',
      // Piped, not handed over: the run's streams may be a test's captures, which have no file descriptor.
      stdout: ['pipe', forward(io.stdout)],
      stderr: ['pipe', forward(io.stderr)],
      buffer: false,
      reject: false,
      detached: true,
    });
    const group = sub.pid;
    if (group !== undefined) running.add(group);
    try {
      const r = await sub;
      return { exitCode: r.exitCode, signal: r.signal };
    } finally {
      if (group !== undefined) running.delete(group);
    }
  };
}

/** A stream that passes what the command writes on to `stream`, and leaves `stream` open when the command ends. */
function forward(stream: Writable): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      if (stream.write(chunk)) done();
      else stream.once('drain', () => done());
    },
  });
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // the group is gone
  }
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stop every running test command and whatever it started: SIGTERM to its process group, then SIGKILL
 * to the group if anything in it is still there after `graceMs`. For promote's SIGINT/SIGTERM handler.
 */
export async function stopRunningTests(graceMs = STOP_GRACE_MS): Promise<void> {
  const groups = [...running];
  for (const g of groups) signalGroup(g, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groups.some(groupAlive) && Date.now() < deadline) await sleep(25);
  for (const g of groups) if (groupAlive(g)) signalGroup(g, 'SIGKILL');
}
