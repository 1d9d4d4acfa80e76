/**
 * promote stopped by SIGTERM/SIGINT used to exit and leave the test command running,
 * re-parented to init. The test command now runs in its own process group, and promote stops the whole
 * group (SIGTERM, then SIGKILL after a short grace) before it exits. Checked by pid: the test command and a
 * child it started write their pids, and after promote exits neither is alive.
 */
import { execa } from 'execa';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STOP_GRACE_MS } from '../../src/pin/test-runner.js';
import { BIN, testEnv } from '../helpers/cli.js';
import { type Sandbox, scriptSandbox } from './setup.js';

let sb: Sandbox;
let script: string;
let original: string;
const spawned: number[] = [];
beforeEach(async () => {
  ({ sb, script, original } = await scriptSandbox());
});
afterEach(async () => {
  // Never leave a test command behind, even when an assertion failed.
  for (const pid of spawned.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await sb.close();
});

/** Our environment without the host's pins (RHCOS_* and look-alikes), so the host cannot leak in. */
/** Alive and not a zombie waiting for its parent (or init) to reap it. */
async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && !/^\d+ \(.*\) Z/.test(stat);
}

async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

async function pidIn(file: string): Promise<number> {
  let pid = Number.NaN;
  await until(file, 15_000, async () => {
    pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    return pid > 0;
  });
  spawned.push(pid);
  return pid;
}

/**
 * promote's exit code, from the exit event: its output streams stay open as long as anything it leaves
 * behind holds them, so awaiting the result itself would wait for the leftovers.
 */
function exitOf(sub: ReturnType<typeof startPromote>): Promise<number | null> {
  return new Promise((resolve) => {
    if (sub.exitCode !== null) resolve(sub.exitCode);
    else sub.once('exit', (code) => resolve(code));
  });
}

function startPromote(test: string) {
  return execa(BIN, ['promote', '--write', script, '--base-url', sb.server.url, '--test', test], {
    cwd: sb.work,
    env: testEnv(),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
}

describe('promote stopped by a signal stops the test command and everything it started', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s: exit %d, the test command and its child are gone, the lock too', async (signal, code) => {
    const sub = startPromote(`sh -c 'sleep 300 & echo $! > child.pid; echo $$ > test.pid; wait'`);
    const child = await pidIn(join(sb.work, 'child.pid'));
    const test = await pidIn(join(sb.work, 'test.pid'));
    expect(await isAlive(test)).toBe(true);
    expect(await isAlive(child)).toBe(true);

    sub.kill(signal);
    expect(await exitOf(sub)).toBe(code);
    await until('the test command and its child to be gone', 5_000, async () => !(await isAlive(test)) && !(await isAlive(child)));
    const r = await sub;
    expect(r.stderr).toContain(`error: interrupted by ${signal}; not promoted`);
    expect(r.stderr).not.toContain('test command');
    expect(await exists(`${script}.lock`)).toBe(false);
    expect(await readFile(script, 'utf8')).toBe(original);
  });

  it('a test command that ignores SIGTERM is killed after the grace period', async () => {
    const sub = startPromote(`trap '' TERM; echo $$ > test.pid; while :; do sleep 0.1; done`);
    const test = await pidIn(join(sb.work, 'test.pid'));
    const stopped = Date.now();
    sub.kill('SIGTERM');
    expect(await exitOf(sub)).toBe(143);
    // promote waited the whole grace before killing: the clock started before the signal was sent, and promote's
    // deadline is on the same clock, so the bound is exact (and only grows on a loaded machine).
    expect(Date.now() - stopped).toBeGreaterThanOrEqual(STOP_GRACE_MS);
    await until('the test command to be gone', 5_000, async () => !(await isAlive(test)));
    await sub;
    expect(await exists(`${script}.lock`)).toBe(false);
  });
});
