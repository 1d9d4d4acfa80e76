import { execa } from 'execa';
import { access, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, osimage, testEnv } from '../helpers/cli.js';
import { NEWEST_412, OLDER_412, scriptSandbox, type Sandbox } from './setup.js';

let sb: Sandbox;
let script: string;
let meta: string;
let original: string;
beforeEach(async () => {
  ({ sb, script, meta, original } = await scriptSandbox());
});
afterEach(async () => {
  await sb.close();
});

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );
const buildLine = (b: string) => `export RHCOS_BUILD_NAME="\${RHCOS_BUILD_NAME:-${b}}"`;
// Every path is absolute, so the runs need no working folder of their own and run in-process.
const promote = (args: string[], opts: { env?: Record<string, string> } = {}) =>
  osimage(['promote', '--write', script, '--base-url', sb.server.url, ...args], opts);

/**
 * Wait until the test command of `run` has created `marker`. Fails clearly, instead of hanging, when the
 * promotion ends first or the marker does not appear within `ms`; `stop` then ends the run.
 */
async function testStarted(
  marker: string,
  run: Promise<{ exitCode?: number; stderr: unknown }>,
  stop: () => void = () => undefined,
  ms = 10_000,
): Promise<void> {
  let ended: { exitCode?: number; stderr: unknown } | undefined;
  run.then(
    (r) => {
      ended = r;
    },
    (err: unknown) => {
      ended = { stderr: String(err) };
    },
  );
  const deadline = Date.now() + ms;
  while (!(await exists(marker))) {
    if (ended) throw new Error(`the promotion ended (exit ${ended.exitCode}) before its test command started: ${String(ended.stderr)}`);
    if (Date.now() > deadline) {
      stop();
      throw new Error(`the test command did not start within ${ms} ms (${marker} never appeared)`);
    }
    await sleep(20);
  }
}

describe('osimage promote', () => {
  it('runs the test with RHCOS_* set to the candidate, streams its output to stderr, and pins when it passes', async () => {
    const test = [
      `test "$RHCOS_BUILD_NAME" = ${NEWEST_412}`,
      'test "$RHCOS_DEFAULT_CHANNEL" = rhcos-4.12',
      `test "$RHCOS_BASE_URL" = ${sb.server.url}`,
      'echo "tested $RHCOS_BUILD_NAME on stdout"',
      'echo "and on stderr" >&2',
    ].join(' && ');
    const r = await promote(['--test', test, '--meta', meta], { env: { RHCOS_BUILD_NAME: 'ignored-by-promote' } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`promoted ${NEWEST_412} in ${script} (was ${OLDER_412}), snapshot in ${meta}`);
    expect(r.stderr).toContain(`tested ${NEWEST_412} on stdout`);
    expect(r.stderr).toContain('and on stderr');
    // promote always tests the newest build: the note that --latest ignores RHCOS_BUILD_NAME is not its warning.
    expect(r.stderr).not.toContain('ignoring RHCOS_BUILD_NAME');
    expect(await readFile(script, 'utf8')).toContain(buildLine(NEWEST_412));
    expect(JSON.parse(await readFile(meta, 'utf8')).buildid).toBe(NEWEST_412);
    expect(await exists(`${script}.lock`)).toBe(false);
  });

  it('the same test fails against a candidate it does not expect: exit 1, nothing written', async () => {
    const r = await promote(['--test', `test "$RHCOS_BUILD_NAME" = ${OLDER_412}`, '--meta', meta]);
    expect(r.exitCode).toBe(1);
    expect(await readFile(script, 'utf8')).toBe(original);
    expect(await exists(meta)).toBe(false);
  });

  it('on a failing test exits 1 naming its exit code and leaves every file untouched', async () => {
    const r = await promote(['--test', 'echo failing >&2; exit 3', '--meta', meta]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('failing');
    expect(r.stderr).toContain(
      `error: test command "echo failing >&2; exit 3" exited with code 3 for candidate ${NEWEST_412}; not promoted, ${script} and ${meta} left untouched`,
    );
    expect(await readFile(script, 'utf8')).toBe(original);
    expect(await exists(meta)).toBe(false);
    expect(await exists(`${script}.lock`)).toBe(false);
  });

  it('says so and runs no test when the newest build is already pinned', async () => {
    expect((await promote(['--test', 'exit 0'])).exitCode).toBe(0);
    const marker = join(sb.work, 'ran');
    const r = await promote(['--test', `touch ${marker}`]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`${script} already pins the newest build ${NEWEST_412} (channel rhcos-4.12); nothing to test or promote`);
    expect(await exists(marker)).toBe(false);
    // A missing snapshot of the pinned build is pointed out, not written without a test.
    const m = await promote(['--test', `touch ${marker}`, '--meta', meta]);
    expect(m.exitCode).toBe(0);
    expect(m.stderr).toContain(`warning: ${meta} is missing; refresh it with: osimage pin --write ${script} --meta ${meta}`);
    expect(await exists(meta)).toBe(false);
    expect(await exists(marker)).toBe(false);
  });

  it('--build is a usage error (promote always tests the newest build)', async () => {
    const r = await promote(['--test', 'exit 0', '--build', OLDER_412]);
    expect(r.exitCode).toBe(2);
  });
});

describe('promote lock', () => {
  it('stops a second promotion of the same FILE while one is running', async () => {
    const started = join(sb.work, 'started');
    const release = join(sb.work, 'release-it');
    const first = promote(['--test', `touch ${started}; while [ ! -e ${release} ]; do sleep 0.05; done`]);
    await testStarted(started, first);
    const lock = await readFile(`${script}.lock`, 'utf8');
    expect(lock).toMatch(/^\d+\n$/);

    const second = await promote(['--test', 'exit 0']);
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toBe(`error: another promotion of ${script} is running (pid ${lock.trim()} holds ${script}.lock)`);

    await writeFile(release, '');
    const r = await first;
    expect(r.exitCode).toBe(0);
    expect(await readFile(script, 'utf8')).toContain(buildLine(NEWEST_412));
    expect(await exists(`${script}.lock`)).toBe(false);
  });

  it('an interrupted promotion (SIGTERM) drops its lock and writes nothing', async () => {
    const started = join(sb.work, 'started');
    // A process of its own (a signal ends the process), with the test environment: RHCOS_* of the host
    // (an RHCOS_BUILD_NAME=bogus, say) must not reach it.
    const sub = execa(
      BIN,
      ['promote', '--write', script, '--base-url', sb.server.url, '--test', `touch ${started}; while :; do sleep 0.05; done`],
      { cwd: sb.work, env: testEnv(), extendEnv: false, reject: false, stdin: 'ignore' },
    );
    await testStarted(started, sub, () => sub.kill('SIGTERM'));
    expect(await exists(`${script}.lock`)).toBe(true);
    sub.kill('SIGTERM');
    const r = await sub;
    expect(r.exitCode).toBe(143);
    expect(r.stderr).toContain('error: interrupted by SIGTERM; not promoted');
    expect(await exists(`${script}.lock`)).toBe(false);
    expect(await readFile(script, 'utf8')).toBe(original);
  });

  it('reports a stale lock left by a dead process, with how to remove it', async () => {
    const dead = execa(process.execPath, ['-e', '']);
    await dead;
    expect(dead.pid).toBeGreaterThan(0);
    await writeFile(`${script}.lock`, `${dead.pid}\n`);
    const r = await promote(['--test', 'exit 0']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      `error: stale lock ${script}.lock: pid ${dead.pid} is no longer running; if no promotion of ${script} is running, remove it: rm ${script}.lock`,
    );
    expect(await readFile(script, 'utf8')).toBe(original);
    expect(await exists(`${script}.lock`)).toBe(true);

    await writeFile(`${script}.lock`, 'garbage');
    const unknown = await promote(['--test', 'exit 0']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toBe(
      `error: ${script}.lock exists but holds no pid; if no promotion of ${script} is running, remove it: rm ${script}.lock`,
    );
  });
});

describe('promote --commit (a real git repository)', () => {
  const git = (...args: string[]) => execa('git', args, { cwd: sb.work });
  beforeEach(async () => {
    await git('init', '--quiet', '--initial-branch=main');
    await git('config', 'user.name', 'Release Bot');
    await git('config', 'user.email', 'release-bot@example.com');
    await git('config', 'commit.gpgsign', 'false');
    await git('add', 'release.sh');
    await git('commit', '--quiet', '-m', 'initial');
  });

  it('commits exactly the changed files with a message naming the old and new build', async () => {
    await writeFile(join(sb.work, 'other.txt'), 'someone else\n');
    await git('add', 'other.txt');
    const r = await promote(['--test', 'exit 0', '--meta', meta, '--commit']);
    expect(r.exitCode).toBe(0);
    const head = (await git('rev-parse', 'HEAD')).stdout;
    expect(r.stdout).toBe(`promoted ${NEWEST_412} in ${script} (was ${OLDER_412}), snapshot in ${meta}\ncommitted ${head}`);
    const message = (await git('log', '-1', '--format=%B')).stdout;
    expect(message.split('\n')[0]).toBe(`Promote RHCOS build ${NEWEST_412} (was ${OLDER_412})`);
    expect(message).toContain('Tested with: exit 0');
    expect((await git('show', '--name-only', '--format=', 'HEAD')).stdout.split('\n').sort()).toEqual(['release.sh', 'rhcos.json']);
    expect((await git('show', 'HEAD:release.sh')).stdout).toContain(buildLine(NEWEST_412));
    // Someone else's staged file stays staged, uncommitted.
    expect((await git('status', '--porcelain')).stdout).toBe('A  other.txt');
  });

  it('refuses, before running the test, when the files have uncommitted changes', async () => {
    const dirty = `${original}# local edit\n`;
    await writeFile(script, dirty);
    const marker = join(sb.work, 'ran');
    const r = await promote(['--test', `touch ${marker}`, '--commit']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('error: refusing to promote with --commit: uncommitted changes to release.sh (commit or stash them first)');
    expect(await exists(marker)).toBe(false);
    expect(await readFile(script, 'utf8')).toBe(dirty);
    expect((await git('rev-list', '--count', 'HEAD')).stdout).toBe('1');
  });

  it('a failing test commits nothing', async () => {
    const r = await promote(['--test', 'exit 3', '--meta', meta, '--commit']);
    expect(r.exitCode).toBe(1);
    expect((await git('rev-list', '--count', 'HEAD')).stdout).toBe('1');
    expect((await git('status', '--porcelain')).stdout).toBe('');
    expect((await stat(script)).isFile()).toBe(true);
  });
});
