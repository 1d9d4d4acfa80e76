/**
 * hack/bench/lib/snapshot-entry.cjs, the start-up snapshot hack/bench/startup-forms.mjs measures (osimage ships no
 * snapshot): built from a small stand-in for dist/bundle/, the blob runs the CLI with the run's arguments, loads a
 * command through the code cache it writes (and uses it on the next run), or, built with everything evaluated, needs
 * no script at run time.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO } from '../helpers/cli.js';

const ENTRY = join(REPO, 'hack/bench/lib/snapshot-entry.cjs');
// As build/bundle.mjs's scripts: cli.cjs shares a module with commands.cjs and loads a command lazily.
const CLI = `
const shared = { hello: (n) => 'hello ' + n };
exports.__shared = { 'src/hello.ts': shared };
exports.main = async (argv) => {
  if (argv[0] === '--help') { process.stdout.write('usage\\n'); return 0; }
  const cmd = await Promise.resolve().then(() => require('osimage-commands:./commands/greet.js'));
  process.stdout.write(cmd.greet(argv.join(' ')) + '\\n');
  return argv.length;
};
`;
const COMMANDS = `
const { hello } = require('osimage-shared:src/hello.ts');
exports.__commands = { './commands/greet.js': () => Promise.resolve({ greet: (n) => hello(n).toUpperCase() }) };
`;

let dir: string;
const bundle = () => join(dir, 'bundle');

function build(blob: string, cache: string, preload = ''): void {
  execFileSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', ENTRY], {
    env: { ...process.env, OSIMAGE_SNAPSHOT_BUNDLE: bundle(), OSIMAGE_SNAPSHOT_CACHE: cache, OSIMAGE_SNAPSHOT_PRELOAD: preload },
    stdio: 'ignore',
  });
}

function runBlob(blob: string, args: string[]): { stdout: string; code: number } {
  try {
    return { stdout: execFileSync(process.execPath, ['--snapshot-blob', blob, '--', ...args], { encoding: 'utf8' }), code: 0 };
  } catch (err) {
    const e = err as { stdout: string; status: number };
    return { stdout: e.stdout, code: e.status };
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-snapshot-'));
  await mkdir(bundle());
  const entry = (file: string, text: string) => ({ file, sha256: createHash('sha256').update(text).digest('hex') });
  await writeFile(join(bundle(), 'cli.cjs'), CLI);
  await writeFile(join(bundle(), 'commands.cjs'), COMMANDS);
  await writeFile(join(bundle(), 'bundle.json'), JSON.stringify({ cli: entry('cli.cjs', CLI), commands: entry('commands.cjs', COMMANDS) }));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('the start-up snapshot of the bench', () => {
  test('runs the CLI with the arguments after --, and a command through the code cache it writes', () => {
    const blob = join(dir, 'cli.blob');
    const cache = join(dir, 'cache');
    build(blob, cache);
    expect(runBlob(blob, ['--help'])).toEqual({ stdout: 'usage\n', code: 0 });
    expect(existsSync(cache)).toBe(false);
    expect(runBlob(blob, ['big', 'world'])).toEqual({ stdout: 'HELLO BIG WORLD\n', code: 2 });
    expect(readdirSync(cache)).toEqual(['commands-greet.bin']);
    expect(runBlob(blob, ['again'])).toEqual({ stdout: 'HELLO AGAIN\n', code: 1 });
  });

  test('built with everything evaluated, it runs without the scripts', async () => {
    const blob = join(dir, 'all.blob');
    build(blob, join(dir, 'cache-all'), 'all');
    await rm(join(bundle(), 'commands.cjs'));
    try {
      expect(runBlob(blob, ['world'])).toEqual({ stdout: 'HELLO WORLD\n', code: 1 });
    } finally {
      // The other test needs the script, whichever order they run in.
      await writeFile(join(bundle(), 'commands.cjs'), COMMANDS);
    }
  });
});
