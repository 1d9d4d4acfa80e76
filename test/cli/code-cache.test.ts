/**
 * The launcher's code cache (src/code-cache.ts): a cache is written once, used by the next run, keyed by the
 * script's hash, and never a failure: a damaged entry is rejected by V8, the script still runs and the entry is
 * written again; a folder that cannot be written is skipped. Runs on a small stand-in for dist/bundle/.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { loadBundle } from '../../src/code-cache.js';

// cli.cjs shares a module with commands.cjs and loads a command lazily, as hack/bundle.mjs's scripts do.
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

async function writeBundle(cli = CLI, commands = COMMANDS): Promise<void> {
  const entry = (file: string, text: string) => ({ file, sha256: createHash('sha256').update(text).digest('hex') });
  await writeFile(join(dir, 'cli.cjs'), cli);
  await writeFile(join(dir, 'commands.cjs'), commands);
  await writeFile(join(dir, 'bundle.json'), JSON.stringify({ cli: entry('cli.cjs', cli), commands: entry('commands.cjs', commands) }));
}

async function run(argv: string[], cacheDirs = caches) {
  const b = loadBundle({ dir, cacheDirs, noCache: false });
  const out = await b.cli.main(argv);
  b.saveCodeCache();
  return { out, use: { ...b.codeCache } };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-code-cache-'));
  caches = [join(dir, 'code-cache'), join(dir, 'user-cache')];
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
    for (const f of files) expect(f).toMatch(new RegExp(`^${process.version}-${process.arch}-[0-9a-f]{32}\\.bin$`));
    expect(await run(['ann'])).toEqual({ out: 'HELLO ANN cli.cjs', use: { cli: 'used', commands: 'used' } });
    expect(await readdir(caches[1]!).catch(() => [])).toEqual([]);
  });

  test('a changed script does not read the old entry', async () => {
    await run(['bob']);
    await writeBundle(CLI.replace("'hello '", "'hi '"));
    expect(await run(['bob'])).toEqual({ out: 'HI BOB cli.cjs', use: { cli: 'missing', commands: 'used' } });
  });

  test('a damaged entry is rejected, the script still runs, and the entry is written again', async () => {
    // Sources this process has not compiled yet (V8 would take them from its in-memory cache), with damaged entries.
    const fresh = `// ${Date.now()} ${Math.random()}\n`;
    await writeBundle(CLI + fresh, COMMANDS + fresh);
    const key = (text: string) => `${process.version}-${process.arch}-${createHash('sha256').update(text).digest('hex').slice(0, 32)}.bin`;
    await mkdir(caches[0]!, { recursive: true });
    for (const text of [CLI + fresh, COMMANDS + fresh]) await writeFile(join(caches[0]!, key(text)), Buffer.alloc(4096, 7));
    expect(await run(['bob'])).toEqual({ out: 'HELLO BOB cli.cjs', use: { cli: 'rejected', commands: 'rejected' } });
    for (const text of [CLI + fresh, COMMANDS + fresh])
      expect(await readFile(join(caches[0]!, key(text)))).not.toEqual(Buffer.alloc(4096, 7));
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
    const b = loadBundle({ dir, cacheDirs: caches, noCache: false });
    const seen: string[][] = [];
    const stream = { write: (_s: string) => seen.push(existsSync(caches[0]!) ? readdirSync(caches[0]!) : []) };
    b.saveCodeCacheBeforeOutput([stream]);
    const out = await b.cli.main(['bob']); // loads commands.cjs, so both entries are pending
    stream.write(String(out));
    stream.write('again');
    expect(seen.map((files) => files.length)).toEqual([2, 2]);
  });

  test('noCache reads and writes nothing', async () => {
    const b = loadBundle({ dir, cacheDirs: caches, noCache: true });
    expect(await b.cli.main(['bob'])).toBe('HELLO BOB cli.cjs');
    b.saveCodeCache();
    expect(b.codeCache).toEqual({ cli: 'off', commands: 'off' });
    await mkdir(caches[0]!, { recursive: true });
    expect(await readdir(caches[0]!)).toEqual([]);
    expect(await readFile(join(dir, 'bundle.json'), 'utf8')).toContain('cli.cjs');
  });
});
