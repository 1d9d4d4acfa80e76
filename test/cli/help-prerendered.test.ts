/**
 * `osimage --help` into a pipe: bin/osimage prints dist/bundle/help.txt (build/help.mjs) without loading the CLI. The
 * text must be what the CLI itself prints, and the launcher must fall back to the CLI for anything else.
 */
import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, osimage, REPO, testEnv } from '../helpers/cli.js';

let dir: string;
/** A copy of bin/ and dist/bundle/ whose help.txt is a marker: what prints it took the fast path. */
let bin: string;
const MARKER = 'prerendered help (test marker)\n';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-help-'));
  await cp(join(REPO, 'bin'), join(dir, 'bin'), { recursive: true });
  await mkdir(join(dir, 'dist'));
  await cp(join(REPO, 'dist/bundle'), join(dir, 'dist/bundle'), { recursive: true, filter: (f) => !f.includes('code-cache') });
  await writeFile(join(dir, 'dist/bundle/help.txt'), MARKER);
  bin = join(dir, 'bin/osimage');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const run = (file: string, args: string[]) =>
  execa(process.execPath, [file, ...args], { env: testEnv({ OSIMAGE_NO_CODE_CACHE: '1' }), reject: false, stripFinalNewline: false });

describe('the prerendered top-level help', () => {
  it('is byte for byte what the CLI prints for --help into a pipe', async () => {
    const cli = await osimage(['--help']);
    expect(cli.exitCode).toBe(0);
    expect(await readFile(join(REPO, 'dist/bundle/help.txt'), 'utf8')).toBe(`${cli.stdout}\n`);
  });

  it('is what bin/osimage prints for --help, -h and help, exit 0, nothing on stderr', async () => {
    const text = await readFile(join(REPO, 'dist/bundle/help.txt'), 'utf8');
    for (const a of ['--help', '-h', 'help']) {
      expect(await run(BIN, [a])).toMatchObject({ stdout: text, stderr: '', exitCode: 0 });
    }
  });

  it('is printed without the CLI for those three words only; anything more goes to the CLI', async () => {
    for (const a of ['--help', '-h', 'help']) expect((await run(bin, [a])).stdout).toBe(MARKER);
    for (const args of [['help', 'release'], ['--help', '--debug'], ['--version'], ['-H']]) {
      expect((await run(bin, args)).stdout).not.toContain('test marker');
    }
    expect((await run(bin, ['help', 'release'])).stdout).toMatch(/^Usage: osimage release /);
  });

  it('a bundle without the text: the CLI renders the same help', async () => {
    await rm(join(dir, 'dist/bundle/help.txt'));
    try {
      const r = await run(bin, ['--help']);
      expect(r).toMatchObject({ stderr: '', exitCode: 0 });
      expect(r.stdout).toBe(await readFile(join(REPO, 'dist/bundle/help.txt'), 'utf8'));
    } finally {
      await writeFile(join(dir, 'dist/bundle/help.txt'), MARKER);
    }
  });

  it('a failed write of the output is one line on stderr and exit 1, not a stack', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      for (const args of [['--help'], ['version']]) {
        const r = spawnSync(process.execPath, [BIN, ...args], { env: testEnv(), stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
        expect({ stderr: r.stderr, status: r.status }).toEqual({ stderr: 'error: cannot write to stdout: ENOSPC\n', status: 1 });
      }
    } finally {
      closeSync(full);
    }
  });
});
