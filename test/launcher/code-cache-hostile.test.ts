/**
 * The launcher's code cache under hostile input. V8 checks little of a code cache (a magic number, its version,
 * the source's length, the flags): an entry made for another script of the same length runs that script's code,
 * and a damaged one can crash the process. So an entry is used only when it carries the seal of this user's key
 * (src/cache/user-key.ts) over its name and bytes; any other entry (crafted, another user's, copied, damaged) is
 * ignored and written anew, and never reaches V8.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { loadBundle } from '../../src/launcher/code-cache.js';

let dir: string;
let caches: string[];
let keyDir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-code-cache-hostile-'));
  caches = [join(dir, 'code-cache'), join(dir, 'user-cache')];
  keyDir = join(dir, 'state', 'osimage');
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** A cli.cjs whose answer is `word`; sources this process has not compiled yet (V8 keeps compiled code in memory). */
const cliSaying = (word: string, salt: string) => `// ${salt}\nexports.main = async (argv) => '${word} ' + argv[0];\n`;

async function writeBundle(cli: string): Promise<string> {
  const sha256 = createHash('sha256').update(cli).digest('hex');
  await writeFile(join(dir, 'cli.cjs'), cli);
  await writeFile(join(dir, 'commands.cjs'), 'exports.__commands = {};\n');
  await writeFile(
    join(dir, 'bundle.json'),
    JSON.stringify({ cli: { file: 'cli.cjs', sha256 }, commands: { file: 'commands.cjs', sha256 } }),
  );
  return `${process.version}-${process.arch}-${sha256.slice(0, 32)}.bin`;
}

async function run(argv: string[], opts: { cacheDirs?: string[]; keyDir?: string } = {}) {
  const b = loadBundle({ dir, cacheDirs: opts.cacheDirs ?? caches, keyDir: opts.keyDir ?? keyDir, noCache: false });
  const out = await b.cli.main(argv);
  b.saveCodeCache();
  return { out, use: { ...b.codeCache } };
}

describe('only entries this user wrote are used', () => {
  test('an entry made for another script of the same length (a crafted entry) does not run: the script does', async () => {
    const salt = `${Date.now()} ${Math.random()}`;
    const evil = cliSaying('pwned', salt);
    const honest = cliSaying('hello', salt);
    expect(evil.length).toBe(honest.length);
    const evilName = await writeBundle(evil);
    expect(await run(['bob'])).toMatchObject({ out: 'pwned bob', use: { cli: 'missing' } });
    // The entry V8 made for the other script, put where the launcher looks for this script's.
    const entry = await readFile(join(caches[0]!, evilName));
    const honestName = await writeBundle(honest);
    await writeFile(join(caches[0]!, honestName), entry);
    expect(await run(['bob'])).toEqual({ out: 'hello bob', use: { cli: 'invalid' } });
    expect(await readFile(join(caches[0]!, honestName))).not.toEqual(entry);
    expect(await run(['ann'])).toEqual({ out: 'hello ann', use: { cli: 'used' } });
  });

  test('an entry written under another key (another user, a copied or restored cache) is ignored and written anew', async () => {
    await writeBundle(cliSaying('hello', `${Date.now()} ${Math.random()}`));
    expect(await run(['bob'], { keyDir: join(dir, 'other-state') })).toMatchObject({ use: { cli: 'missing' } });
    expect(await run(['bob'], { keyDir: join(dir, 'other-state') })).toMatchObject({ use: { cli: 'used' } });
    expect(await run(['bob'])).toEqual({ out: 'hello bob', use: { cli: 'invalid' } });
    expect(await run(['bob'])).toEqual({ out: 'hello bob', use: { cli: 'used' } });
  });

  test('entries are written 0600 in a 0700 folder; the key is kept apart from them', async () => {
    const name = await writeBundle(cliSaying('hello', `${Date.now()} ${Math.random()}`));
    await run(['bob'], { cacheDirs: [caches[1]!] });
    expect((await stat(caches[1]!)).mode & 0o777).toBe(0o700);
    expect((await stat(join(caches[1]!, name))).mode & 0o777).toBe(0o600);
    expect(await readdir(caches[1]!)).toEqual([name]);
    expect(await readdir(keyDir)).toEqual(['cache-key']);
  });

  test('without a key it can trust (its folder writable by others), no code cache is read or written', async () => {
    await writeBundle(cliSaying('hello', `${Date.now()} ${Math.random()}`));
    await mkdir(keyDir, { recursive: true, mode: 0o700 });
    await chmod(keyDir, 0o777);
    expect(await run(['bob'])).toEqual({ out: 'hello bob', use: { cli: 'off' } });
    expect(await readdir(caches[0]!).catch(() => [])).toEqual([]);
  });

  test.runIf(process.getuid?.() === 0)('an entry file another user owns is not read', async () => {
    const name = await writeBundle(cliSaying('hello', `${Date.now()} ${Math.random()}`));
    await run(['bob']);
    await chown(join(caches[0]!, name), 65534, 65534);
    expect(await run(['bob'])).toMatchObject({ use: { cli: 'missing' } });
  });
});

/** The loader as bin/osimage runs it (a CommonJS script), built from src/ for this test. */
function buildLoader(out: string): void {
  buildSync({
    entryPoints: [fileURLToPath(new URL('../../src/launcher/code-cache.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: out,
    logLevel: 'error',
  });
}

/** A script with enough compiled code for a damaged entry to matter: functions that all run at load. */
function bigCli(): string {
  const fns: string[] = [];
  for (let i = 0; i < 300; i++) {
    fns.push(`function f${i}(s) { const o = { k${i}: s + ${i} }; return Object.keys(o).map((k) => k + o[k]).join(',').length + ${i}; }`);
  }
  const calls = Array.from({ length: 300 }, (_, i) => `f${i}('x')`).join(' + ');
  return `${fns.join('\n')}\nconst total = ${calls};\nexports.main = async (argv) => 'sum ' + total + ' ' + argv[0];\n`;
}

describe('a damaged entry never reaches V8', () => {
  test('8 bit flips per entry, 8 runs: every run answers, none crashes (V8 fatal error or SIGSEGV)', async () => {
    const loader = join(dir, 'loader.cjs');
    buildLoader(loader);
    const name = await writeBundle(bigCli());
    const child = () =>
      spawnSync(
        process.execPath,
        [
          '-e',
          `const b = require(${JSON.stringify(loader)}).loadBundle({ dir: ${JSON.stringify(dir)}, cacheDirs: ${JSON.stringify(caches)}, keyDir: ${JSON.stringify(keyDir)}, noCache: false });
           b.cli.main(['bob']).then((o) => { b.saveCodeCache(); process.stdout.write(o + ' ' + b.codeCache.cli); });`,
        ],
        { encoding: 'utf8', timeout: 20_000 },
      );
    const first = child();
    expect(first.status, first.stderr).toBe(0);
    const expected = first.stdout.replace(/ missing$/, '');
    expect(child().stdout).toBe(`${expected} used`);
    const genuine = await readFile(join(caches[0]!, name));
    // A fixed sequence (xorshift), so that a failure is the same on every machine.
    let seed = 0x9e3779b9;
    const random = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const outcomes: string[] = [];
    for (let run = 0; run < 8; run++) {
      const damaged = Buffer.from(genuine);
      // Past the first 64 bytes (the header V8 checks, and ours): damage V8 does not look for.
      for (let i = 0; i < 8; i++) {
        const at = 64 + random(damaged.length - 64);
        damaged[at]! ^= 1 << random(8);
      }
      await writeFile(join(caches[0]!, name), damaged);
      const r = child();
      outcomes.push(r.status === 0 && r.stdout.startsWith(expected) ? 'ok' : `exit ${r.status ?? r.signal}: ${r.stderr.split('\n')[0]}`);
    }
    expect(outcomes).toEqual(Array(8).fill('ok'));
  }, 120_000);
});
