/**
 * The launcher's code cache (src/launcher/code-cache.ts): a cache is written once, used by the next run, keyed by the
 * script's hash, and never a failure: a damaged entry is not used (code-cache-hostile.test.ts: nor anything else
 * without this user's seal), the script still runs and the entry is written again; a folder that cannot be written
 * is skipped. Runs on a small stand-in for dist/bundle/.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { loadBundle } from '../../src/launcher/code-cache.js';

// cli.cjs shares a module with commands.cjs and loads a command lazily, as build/bundle.mjs's scripts do.
const CLI = `
const shared = { hello: (n) => 'hello ' + n };
exports.__shared = { 'src/hello.ts': shared };
exports.main = async (argv) => {
  if (argv[0] === 'help') return 'usage';
  const cmd = await Promise.resolve().then(() => require('osimage-commands:./commands/greet.js'));
  return cmd.greet(argv[0]) + ' ' + require('node:path').basename(__filename);
};
`;
const COMMANDS = `
const { hello } = require('osimage-shared:src/hello.ts');
exports.__commands = { './commands/greet.js': () => Promise.resolve({ greet: (n) => hello(n).toUpperCase() }) };
`;

let dir: string;
let caches: string[];
/** The user key's folder (src/cache/user-key.ts): the test's own, not the host's. */
let keyDir: string;

async function writeBundle(cli = CLI, commands = COMMANDS): Promise<void> {
  const entry = (file: string, text: string) => ({ file, sha256: createHash('sha256').update(text).digest('hex') });
  await writeFile(join(dir, 'cli.cjs'), cli);
  await writeFile(join(dir, 'commands.cjs'), commands);
  await writeFile(join(dir, 'bundle.json'), JSON.stringify({ cli: entry('cli.cjs', cli), commands: entry('commands.cjs', commands) }));
}

async function run(argv: string[], cacheDirs = caches) {
  const b = loadBundle({ dir, cacheDirs, keyDir, noCache: false });
  const out = await b.cli.main(argv);
  b.saveCodeCache();
  return { out, use: { ...b.codeCache } };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-code-cache-'));
  caches = [join(dir, 'code-cache'), join(dir, 'user-cache')];
  keyDir = join(dir, 'state', 'osimage');
  await writeBundle();
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('the launcher code cache', () => {
  test('the first run writes an entry per script it ran, keyed by node version and script hash; the next run uses them', async () => {
    expect(await run(['help'])).toEqual({ out: 'usage', use: { cli: 'missing' } });
    const first = await run(['bob']);
    expect(first).toEqual({ out: 'HELLO BOB cli.cjs', use: { cli: 'used', commands: 'missing' } });
    const files = (await readdir(caches[0]!)).sort();
    expect(files).toHaveLength(2);
    // cli.cjs's entry is shared; commands.cjs's is per command module (here ./commands/greet.js).
    expect(files.map((f) => f.replace(/^v[\d.]+-\w+-[0-9a-f]{32}/, '')).sort()).toEqual(['-greet.bin', '.bin']);
    for (const f of files) expect(f.startsWith(`${process.version}-${process.arch}-`)).toBe(true);
    expect(await run(['ann'])).toEqual({ out: 'HELLO ANN cli.cjs', use: { cli: 'used', commands: 'used' } });
    expect(await readdir(caches[1]!).catch(() => [])).toEqual([]);
  });

  test('a changed script does not read the old entry', async () => {
    await run(['bob']);
    await writeBundle(CLI.replace("'hello '", "'hi '"));
    expect(await run(['bob'])).toEqual({ out: 'HI BOB cli.cjs', use: { cli: 'missing', commands: 'used' } });
  });

  test('a damaged entry is not used (it never reaches V8), the script still runs, and the entry is written again', async () => {
    // Sources this process has not compiled yet (V8 would take them from its in-memory cache), with damaged entries.
    const fresh = `// ${Date.now()} ${Math.random()}\n`;
    await writeBundle(CLI + fresh, COMMANDS + fresh);
    const key = (text: string, profile = '') =>
      `${process.version}-${process.arch}-${createHash('sha256').update(text).digest('hex').slice(0, 32)}${profile}.bin`;
    const entries = [key(CLI + fresh), key(COMMANDS + fresh, '-greet')];
    await mkdir(caches[0]!, { recursive: true });
    for (const name of entries) await writeFile(join(caches[0]!, name), Buffer.alloc(4096, 7));
    expect(await run(['bob'])).toEqual({ out: 'HELLO BOB cli.cjs', use: { cli: 'invalid', commands: 'invalid' } });
    for (const name of entries) expect(await readFile(join(caches[0]!, name))).not.toEqual(Buffer.alloc(4096, 7));
    expect(await run(['bob'])).toEqual({ out: 'HELLO BOB cli.cjs', use: { cli: 'used', commands: 'used' } });
  });

  test('a folder that cannot be written is skipped for the next; none writable is no failure', async () => {
    await writeFile(join(dir, 'a-file'), '');
    const blocked = join(dir, 'a-file', 'code-cache');
    await run(['bob'], [blocked, caches[1]!]);
    expect(await readdir(caches[1]!)).toHaveLength(2);
    expect(await run(['bob'], [blocked, caches[1]!])).toMatchObject({ use: { cli: 'used', commands: 'used' } });
    expect(await run(['bob'], [blocked])).toEqual({ out: 'HELLO BOB cli.cjs', use: { cli: 'missing', commands: 'missing' } });
  });

  test('the entries are written before the first output, so that nothing is left to do after the answer', async () => {
    const b = loadBundle({ dir, cacheDirs: caches, keyDir, noCache: false });
    const seen: string[][] = [];
    const stream = { write: (_s: string) => seen.push(existsSync(caches[0]!) ? readdirSync(caches[0]!) : []) };
    b.saveCodeCacheBeforeOutput([stream]);
    const out = await b.cli.main(['bob']); // loads commands.cjs, so both entries are pending
    stream.write(String(out));
    stream.write('again');
    expect(seen.map((files) => files.length)).toEqual([2, 2]);
  });

  test("commands.cjs keeps an entry per command module: one command's entry is not another's", async () => {
    await writeBundle(
      CLI.replace('./commands/greet.js', `./commands/' + (argv[1] ?? 'greet') + '.js`),
      COMMANDS.replace(
        'exports.__commands = {',
        "exports.__commands = { './commands/wave.js': () => Promise.resolve({ greet: (n) => 'wave ' + n }),",
      ),
    );
    expect(await run(['bob'])).toMatchObject({ use: { commands: 'missing' } });
    expect(await run(['bob'])).toMatchObject({ use: { commands: 'used' } });
    expect(await run(['bob', 'wave'])).toEqual({ out: 'wave bob cli.cjs', use: { cli: 'used', commands: 'missing' } });
    expect(await run(['ann', 'wave'])).toMatchObject({ use: { commands: 'used' } });
    expect((await readdir(caches[0]!)).filter((f) => /-(greet|wave)\.bin$/.test(f))).toHaveLength(2);
  });

  test('a run that fails keeps no entry of its command: the next successful run writes it (cli.cjs keeps its own)', async () => {
    const ended = async (argv: string[], exitCode: number, early: boolean) => {
      const b = loadBundle({ dir, cacheDirs: caches, keyDir, noCache: false });
      await b.cli.main(argv);
      // As bin/osimage: the entries are written before the first output, then the end of the run is told its code.
      if (early) b.saveCodeCache();
      b.saveCodeCache(exitCode);
      return { ...b.codeCache };
    };
    const commandEntries = async () => (await readdir(caches[0]!)).filter((f) => f.endsWith('-greet.bin'));
    expect(await ended(['bob'], 1, true)).toEqual({ cli: 'missing', commands: 'missing' });
    expect(await commandEntries()).toEqual([]);
    expect(await ended(['bob'], 2, false)).toEqual({ cli: 'used', commands: 'missing' });
    expect(await commandEntries()).toEqual([]);
    expect(await ended(['bob'], 0, true)).toEqual({ cli: 'used', commands: 'missing' });
    expect(await commandEntries()).toHaveLength(1);
    expect(await ended(['bob'], 0, false)).toEqual({ cli: 'used', commands: 'used' });
    // A later failure does not remove an entry it did not write.
    expect(await ended(['bob'], 1, true)).toEqual({ cli: 'used', commands: 'used' });
    expect(await commandEntries()).toHaveLength(1);
  });

  test('the entry of commands.cjs is named by the command run, as cli.cjs names it; a name that is no file name is not used', async () => {
    await writeBundle(CLI.replace('const cmd =', "globalThis[Symbol.for('osimage.codeCacheProfile')] = argv[1]; const cmd ="), COMMANDS);
    try {
      expect(await run(['bob', 'greet-loud'])).toMatchObject({ use: { commands: 'missing' } });
      expect(await run(['bob', 'greet-loud'])).toMatchObject({ use: { commands: 'used' } });
      expect(await run(['bob', 'greet-loud-help'])).toMatchObject({ use: { commands: 'missing' } });
      expect(await run(['bob', '../../escape'])).toMatchObject({ use: { commands: 'missing' } });
      const names = (await readdir(caches[0]!)).map((f) => f.replace(/^v[\d.]+-\w+-[0-9a-f]{32}/, '')).sort();
      expect(names).toEqual(['-greet-loud-help.bin', '-greet-loud.bin', '-greet.bin', '.bin']);
    } finally {
      delete (globalThis as Record<symbol, unknown>)[Symbol.for('osimage.codeCacheProfile')];
    }
  });

  test('given the arguments, cli.cjs keeps one entry for runs that name a command and one for those that do not', async () => {
    const withArgv = async (argv: string[]) => {
      const b = loadBundle({ dir, cacheDirs: caches, keyDir, noCache: false, argv });
      await b.cli.main(argv);
      b.saveCodeCache();
      return b.codeCache.cli;
    };
    expect(await withArgv(['--help'])).toBe('missing');
    expect(await withArgv(['bob'])).toBe('missing');
    expect(await withArgv(['ann'])).toBe('used');
    expect(await withArgv(['-h'])).toBe('used');
  });

  test("beforeCommands runs once, after cli.cjs's entry is written and before commands.cjs loads; never without a command", async () => {
    const calls: Array<{ files: number; commands: unknown }> = [];
    const load = () => {
      const b = loadBundle({
        dir,
        cacheDirs: caches,
        keyDir,
        noCache: false,
        beforeCommands: () =>
          calls.push({ files: existsSync(caches[0]!) ? readdirSync(caches[0]!).length : 0, commands: b.codeCache.commands }),
      });
      return b;
    };
    expect(await load().cli.main(['help'])).toBe('usage');
    expect(calls).toEqual([]);
    const b = load();
    expect(await b.cli.main(['bob'])).toBe('HELLO BOB cli.cjs');
    await b.cli.main(['ann']);
    expect(calls).toEqual([{ files: 1, commands: undefined }]);
  });

  test('a split package runs from its own script, only when first required, with its own cache entry', async () => {
    const commands = `
const { hello } = require('osimage-shared:src/hello.ts');
exports.__commands = {
  './commands/greet.js': () => Promise.resolve({ greet: (n) => hello(n).toUpperCase() }),
  './commands/shout.js': () => Promise.resolve({ greet: (n) => require('osimage-pkg:loud/lib/x.js').shout(n) }),
};
`;
    const loud = `module.exports = { get 'loud/lib/x.js'() { return { shout: (n) => n + '!!' }; } };`;
    await writeBundle(CLI.replace('./commands/greet.js', `./commands/' + (argv[1] ?? 'greet') + '.js`), commands);
    const manifest = JSON.parse(await readFile(join(dir, 'bundle.json'), 'utf8'));
    await writeFile(join(dir, 'loud.cjs'), loud);
    manifest.packages = { loud: { file: 'loud.cjs', sha256: createHash('sha256').update(loud).digest('hex') } };
    await writeFile(join(dir, 'bundle.json'), JSON.stringify(manifest));
    expect(await run(['bob'])).toEqual({ out: 'HELLO BOB cli.cjs', use: { cli: 'missing', commands: 'missing' } });
    expect(await run(['bob', 'shout'])).toEqual({ out: 'bob!! cli.cjs', use: { cli: 'used', commands: 'missing', loud: 'missing' } });
    expect(await run(['ann', 'shout'])).toEqual({ out: 'ann!! cli.cjs', use: { cli: 'used', commands: 'used', loud: 'used' } });
    // cli, commands for greet and for shout, loud (for shout).
    expect(await readdir(caches[0]!)).toHaveLength(4);
  });

  test('an entry that is a symlink or not a regular file is not read (a link to /dev/zero, a FIFO): it is written anew', async () => {
    await run(['bob']);
    const [cliEntry, commandsEntry] = (await readdir(caches[0]!)).sort((a, b) => a.length - b.length);
    // A symlink to a valid entry is still not followed; a FIFO would block a plain open.
    await rename(join(caches[0]!, cliEntry!), join(dir, 'elsewhere.bin'));
    await symlink(join(dir, 'elsewhere.bin'), join(caches[0]!, cliEntry!));
    await rm(join(caches[0]!, commandsEntry!));
    execFileSync('mkfifo', [join(caches[0]!, commandsEntry!)]);
    expect(await run(['bob'])).toEqual({ out: 'HELLO BOB cli.cjs', use: { cli: 'missing', commands: 'missing' } });
    for (const name of [cliEntry!, commandsEntry!]) expect((await lstat(join(caches[0]!, name))).isFile()).toBe(true);
    expect(await run(['bob'])).toEqual({ out: 'HELLO BOB cli.cjs', use: { cli: 'used', commands: 'used' } });
  });

  test('noCache reads and writes nothing', async () => {
    const b = loadBundle({ dir, cacheDirs: caches, keyDir, noCache: true });
    expect(await b.cli.main(['bob'])).toBe('HELLO BOB cli.cjs');
    b.saveCodeCache();
    expect(b.codeCache).toEqual({ cli: 'off', commands: 'off' });
    await mkdir(caches[0]!, { recursive: true });
    expect(await readdir(caches[0]!)).toEqual([]);
    expect(await readFile(join(dir, 'bundle.json'), 'utf8')).toContain('cli.cjs');
  });
});
