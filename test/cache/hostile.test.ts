/**
 * The cache under hostile input: a folder it did not make (a symlink in place of `v1/` or a kind folder) is never
 * followed, listed, written through or pruned through; an entry is read only as a regular file within its kind's
 * size bound (a FIFO, a link to /dev/zero, a huge sparse file are quick misses); entries whose content cannot be
 * checked against their name (release files, package lists) are sealed with the user's key, so a rewritten,
 * moved or foreign entry is a miss; `clear` survives writers racing it; folder names are printed escaped.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, chown, link, lstat, mkdir, open, readFile, readdir, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type CacheKey, MAX_ENTRY_BYTES, commitmetaKey, componentsKey, releaseFilesKey } from '../../src/cache/keys.js';
import { CacheStore } from '../../src/cache/store.js';
import { loadUserKey } from '../../src/cache/user-key.js';
import { MAX_COMMITMETA_BYTES } from '../../src/packages/commitmeta.js';
import { MAX_MANIFEST_BYTES } from '../../src/registry/types.js';
import { osimage } from '../helpers/cli.js';
import { tempDir, type Temp } from '../helpers/oci-builder.js';

let temp: Temp;
let keyDir: string;
beforeEach(async () => {
  temp = await tempDir('osimage-cache-hostile-');
  keyDir = join(temp.dir, 'state', 'osimage');
});
afterEach(async () => temp.cleanup());

const digestKey = (n: number, kind: 'manifests' | 'configs' = 'configs'): CacheKey => ({
  kind,
  name: `sha256-${String(n).padStart(64, '0')}`,
});
const RELEASE = releaseFilesKey('release-manifests', [`sha256:${'a'.repeat(64)}`], 'references');
const OTHER_RELEASE = releaseFilesKey('release-manifests', [`sha256:${'b'.repeat(64)}`], 'references');
const COMMITMETA = commitmetaKey({ baseUrl: 'https://example.com/b', channel: '', build: '418.1', arch: 'x86_64' });
const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );
/** `osimage cache …` with this test's state folder (the user key) and cache folder. */
const cli = (args: string[], env: Record<string, string> = {}) =>
  osimage(['cache', ...args], { env: { XDG_STATE_HOME: join(temp.dir, 'state'), ...env } });

/** A folder outside the cache with a file that must survive. */
async function precious(name: string): Promise<string> {
  const dir = join(temp.dir, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'f'), 'precious');
  // Named as an entry would be, so that only the refusal to follow the link keeps it.
  await writeFile(join(dir, digestKey(9).name), Buffer.alloc(64));
  return dir;
}

describe('links the cache did not make', () => {
  test('a symlinked kind folder: prune, the prune after a write and put never reach what it points to', async () => {
    const outside = await precious('v');
    const dir = join(temp.dir, 'c');
    await mkdir(join(dir, 'v1'), { recursive: true, mode: 0o700 });
    await symlink(outside, join(dir, 'v1', 'manifests'));
    const r = await cli(['prune', '--cache-dir', dir, '--max-size', '0']);
    expect(r.exitCode).toBe(0);
    expect((await readdir(outside)).sort()).toEqual(['f', digestKey(9).name]);
    expect(r.stderr).toMatch(/^warning: .*v1\/manifests is a symlink: the cache does not follow it/m);

    const notes: string[] = [];
    const store = new CacheStore(dir, { maxBytes: 1, keyDir, onNote: (m) => notes.push(m) });
    await store.put(digestKey(1), Buffer.from('x')); // past the bound: prunes
    await store.put(digestKey(2, 'manifests'), Buffer.from('y'));
    expect(await store.get(digestKey(9, 'manifests'))).toBeUndefined(); // the file in v/
    expect((await readdir(outside)).sort()).toEqual(['f', digestKey(9).name]);
    expect(notes.join('\n')).toMatch(/manifests is a symlink/);
  });

  test('a symlinked v1: not listed, not pruned, not written through; clear removes the link only', async () => {
    const outside = await precious('w');
    await mkdir(join(outside, 'configs'));
    await writeFile(join(outside, 'configs', digestKey(3).name), Buffer.alloc(64));
    const dir = join(temp.dir, 'c');
    await mkdir(dir, { mode: 0o700 });
    await symlink(outside, join(dir, 'v1'));
    const store = new CacheStore(dir, { maxBytes: 1, keyDir });
    await store.put(digestKey(1), Buffer.from('x'));
    expect(await store.get(digestKey(3))).toBeUndefined();
    expect(await store.info()).toMatchObject({ entries: 0, bytes: 0 });
    const r = await cli(['prune', '--cache-dir', dir, '--max-size', '0']);
    expect((await readdir(outside)).sort()).toEqual(['configs', 'f', digestKey(9).name]);
    expect(await readdir(join(outside, 'configs'))).toEqual([digestKey(3).name]);
    expect(r.stderr).toMatch(/v1 is a symlink: the cache does not follow it/);
    expect((await cli(['clear', '--cache-dir', dir])).exitCode).toBe(0);
    expect(await exists(join(dir, 'v1'))).toBe(false);
    expect(await readdir(join(outside, 'configs'))).toEqual([digestKey(3).name]);
  });

  test('a kind folder another user owns, or that others may write, is not used', async () => {
    const dir = join(temp.dir, 'c');
    const store = new CacheStore(dir, { keyDir });
    await store.put(digestKey(1), Buffer.from('x'));
    await chmod(join(dir, 'v1', 'configs'), 0o777);
    const notes: string[] = [];
    const again = new CacheStore(dir, { keyDir, onNote: (m) => notes.push(m) });
    expect(await again.get(digestKey(1))).toBeUndefined();
    expect(notes.join('\n')).toMatch(/configs is writable by others/);
    if (process.getuid?.() === 0) {
      await chmod(join(dir, 'v1', 'configs'), 0o700);
      await chown(join(dir, 'v1', 'configs'), 65534, 65534);
      expect(await new CacheStore(dir, { keyDir }).get(digestKey(1))).toBeUndefined();
    }
  });
});

describe('entries are read only as regular files within a bound', () => {
  const kinds: Array<[string, CacheKey]> = [
    ['manifests', digestKey(5, 'manifests')],
    ['release', RELEASE],
    ['commitmeta', COMMITMETA],
  ];

  test.each(kinds)('%s: a FIFO is a miss at once, and goes', async (_kind, key) => {
    const notes: string[] = [];
    const store = new CacheStore(join(temp.dir, 'c'), { keyDir, onNote: (m) => notes.push(m) });
    await store.put(key, Buffer.from('x'));
    const path = store.path(key);
    await rm(path);
    execFileSync('mkfifo', [path]);
    const got = await Promise.race([store.get(key), new Promise((r) => setTimeout(() => r('hung'), 5000))]);
    if (got === 'hung') {
      // Let the reader that is stuck in the FIFO go, so that the test process can end.
      const w = await open(path, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
      await w?.close();
    }
    expect(got).toBeUndefined();
    expect(await exists(path)).toBe(false);
    expect(notes.join('\n')).toMatch(/not a regular file/);
  });

  test.each(kinds)('%s: a symlink (to /dev/zero, or to a valid entry) is a miss, and the link goes', async (_kind, key) => {
    const store = new CacheStore(join(temp.dir, 'c'), { keyDir });
    await store.put(key, Buffer.from('x'));
    const path = store.path(key);
    const elsewhere = join(temp.dir, 'elsewhere');
    await writeFile(elsewhere, await readFile(path));
    await rm(path);
    await symlink(elsewhere, path);
    expect(await store.get(key)).toBeUndefined();
    expect(await exists(path)).toBe(false);
    expect(await readFile(elsewhere)).toBeDefined();
    await symlink('/dev/zero', path);
    expect(await store.get(key)).toBeUndefined();
    expect(await exists(path)).toBe(false);
  });

  test.each(kinds)('%s: an entry larger than its kind may be (a 1.5 GiB sparse file) is not read', async (_kind, key) => {
    const notes: string[] = [];
    const store = new CacheStore(join(temp.dir, 'c'), { keyDir, onNote: (m) => notes.push(m) });
    await store.put(key, Buffer.from('x'));
    await truncate(store.path(key), 1.5 * 1024 ** 3);
    expect(await store.get(key)).toBeUndefined();
    expect(notes.join('\n')).toMatch(/larger than a \w+ entry may be/);
    expect(await exists(store.path(key))).toBe(false);
  });

  test('each bound holds at least what is fetched for that kind', () => {
    expect(MAX_ENTRY_BYTES.manifests).toBeGreaterThanOrEqual(MAX_MANIFEST_BYTES);
    expect(MAX_ENTRY_BYTES.commitmeta).toBeGreaterThanOrEqual(MAX_COMMITMETA_BYTES);
  });

  test('put does not write an entry larger than its kind may be', async () => {
    const notes: string[] = [];
    const store = new CacheStore(join(temp.dir, 'c'), { keyDir, onNote: (m) => notes.push(m) });
    await store.put({ kind: 'tags', name: 'a'.repeat(64) }, Buffer.alloc(1024 * 1024));
    expect(await store.info()).toMatchObject({ entries: 0 });
    expect(notes.join('\n')).toMatch(/too large to cache/);
  });
});

describe('entries not named by their content are sealed with the user key', () => {
  /** The entry rewritten with other data and its checksum recomputed, as anyone who reads the format can. */
  async function rewrite(path: string, data: string): Promise<void> {
    const raw = await readFile(path);
    const nl = raw.indexOf(0x0a);
    const [magic] = raw.subarray(0, nl).toString('latin1').split(' ');
    const body = Buffer.from(`{}\n${data}`);
    const sum = createHash('sha256').update(body).digest('hex');
    await writeFile(path, Buffer.concat([Buffer.from(`${magic} ${sum}\n`), body]));
  }

  test.each([
    ['release', RELEASE],
    ['components', componentsKey(`sha256:${'c'.repeat(64)}`, undefined)],
    ['commitmeta', COMMITMETA],
  ] as const)('%s: an entry rewritten with its checksum recomputed is a miss, and goes', async (_what, key) => {
    const store = new CacheStore(join(temp.dir, 'c'), { keyDir });
    await store.put(key, Buffer.from('{"imageReferences":"genuine"}'));
    expect((await store.get(key))?.data.toString()).toContain('genuine');
    await rewrite(store.path(key), '{"imageReferences":"forged"}');
    expect(await store.get(key)).toBeUndefined();
    expect(await exists(store.path(key))).toBe(false);
  });

  test('an entry sealed with another key (another user, another machine, a copied cache) is a miss', async () => {
    const dir = join(temp.dir, 'c');
    await new CacheStore(dir, { keyDir: join(temp.dir, 'other-state') }).put(RELEASE, Buffer.from('theirs'));
    await new CacheStore(dir, { keyDir: join(temp.dir, 'other-state') }).put(digestKey(1), Buffer.from('theirs too'));
    const mine = new CacheStore(dir, { keyDir });
    expect(await mine.get(RELEASE)).toBeUndefined();
    // An entry named by its content's digest needs no seal: its reader hashes it against the digest (by-digest.ts).
    expect((await mine.get(digestKey(1)))?.data.toString()).toBe('theirs too');
  });

  test('a genuine sealed entry moved under another name is a miss (the seal covers the name)', async () => {
    const store = new CacheStore(join(temp.dir, 'c'), { keyDir });
    await store.put(RELEASE, Buffer.from('for image a'));
    await writeFile(store.path(OTHER_RELEASE), await readFile(store.path(RELEASE)));
    expect(await store.get(OTHER_RELEASE)).toBeUndefined();
    expect((await store.get(RELEASE))?.data.toString()).toBe('for image a');
  });

  test('without a usable key, sealed kinds are neither read nor written (a note), the rest still work', async () => {
    await mkdir(keyDir, { recursive: true, mode: 0o777 });
    await chmod(keyDir, 0o777);
    const notes: string[] = [];
    const store = new CacheStore(join(temp.dir, 'c'), { keyDir, onNote: (m) => notes.push(m) });
    await store.put(RELEASE, Buffer.from('x'));
    await store.put(digestKey(1), Buffer.from('y'));
    expect(await store.get(RELEASE)).toBeUndefined();
    expect((await store.get(digestKey(1)))?.data.toString()).toBe('y');
    expect(await store.info()).toMatchObject({ entries: 1 });
    expect(notes.join('\n')).toMatch(/writable by others/);
  });
});

describe('the user key', () => {
  test('made once, 0600 in a 0700 folder; the same key the next time', async () => {
    const a = loadUserKey(keyDir);
    expect(a.key).toHaveLength(32);
    expect((await stat(keyDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(keyDir, 'cache-key'))).mode & 0o777).toBe(0o600);
    expect(loadUserKey(keyDir).key).toEqual(a.key);
    expect(await readdir(keyDir)).toEqual(['cache-key']);
  });

  test('a key file that is a link, loose, of the wrong size or with a second name is replaced; the link target is untouched', async () => {
    await mkdir(keyDir, { recursive: true, mode: 0o700 });
    const target = join(temp.dir, 'target');
    await writeFile(target, Buffer.alloc(32, 1), { mode: 0o600 });
    await symlink(target, join(keyDir, 'cache-key'));
    const k = loadUserKey(keyDir).key;
    expect(k).toHaveLength(32);
    expect(k).not.toEqual(Buffer.alloc(32, 1));
    expect((await lstat(join(keyDir, 'cache-key'))).isFile()).toBe(true);
    expect(await readFile(target)).toEqual(Buffer.alloc(32, 1));
    await chmod(join(keyDir, 'cache-key'), 0o644);
    const loose = loadUserKey(keyDir).key;
    expect(loose).not.toEqual(k);
    expect((await stat(join(keyDir, 'cache-key'))).mode & 0o777).toBe(0o600);
    await writeFile(join(keyDir, 'cache-key'), 'short', { mode: 0o600 });
    const fresh = loadUserKey(keyDir).key;
    expect(fresh).toHaveLength(32);
    // A second name for the key (a hard link somewhere else) means it may be read from there: a new key is made.
    await link(join(keyDir, 'cache-key'), join(temp.dir, 'second-name'));
    expect(loadUserKey(keyDir).key).not.toEqual(fresh);
    expect(await readFile(join(temp.dir, 'second-name'))).toEqual(fresh);
  });

  test('processes starting at once agree on one key', async () => {
    const mod = join(temp.dir, 'user-key.cjs');
    buildSync({
      entryPoints: [fileURLToPath(new URL('../../src/cache/user-key.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: mod,
      logLevel: 'error',
    });
    const code = `process.stdout.write(require(${JSON.stringify(mod)}).loadUserKey(${JSON.stringify(keyDir)}).key.toString('hex'))`;
    const keys = await Promise.all(Array.from({ length: 6 }, () => execa(process.execPath, ['-e', code]).then((r) => r.stdout)));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(await readdir(keyDir)).toEqual(['cache-key']);
  });

  test('a key folder that is a link, writable by others, or not the user’s gives no key', async () => {
    const real = join(temp.dir, 'real');
    await mkdir(real, { mode: 0o700 });
    await mkdir(join(temp.dir, 'state'), { recursive: true });
    await symlink(real, keyDir);
    expect(loadUserKey(keyDir)).toEqual({ problem: expect.stringMatching(/is a symlink/) });
    expect(await readdir(real)).toEqual([]);
    await rm(keyDir);
    await mkdir(keyDir, { mode: 0o700 });
    await chmod(keyDir, 0o770);
    expect(loadUserKey(keyDir)).toEqual({ problem: expect.stringMatching(/writable by others/) });
    if (process.getuid?.() === 0) {
      await chmod(keyDir, 0o700);
      await chown(keyDir, 65534, 65534);
      expect(loadUserKey(keyDir)).toEqual({ problem: expect.stringMatching(/not owned by/) });
    }
  });
});

describe('clear and the folder name', () => {
  test('clears while writers race them: every clear succeeds (no ENOTEMPTY), and the writers never fail', async () => {
    const dir = join(temp.dir, 'c');
    const failures: string[] = [];
    for (let round = 0; round < 20; round++) {
      const writers = Array.from({ length: 40 }, (_, i) =>
        new CacheStore(dir, { keyDir }).put(digestKey(round * 100 + i, i % 2 ? 'configs' : 'manifests'), Buffer.alloc(100)),
      );
      const clear = () => new CacheStore(dir, { keyDir }).clear().catch((e: unknown) => failures.push(String(e)));
      await Promise.all([clear(), ...writers, clear()]);
    }
    expect(failures).toEqual([]);
    await new CacheStore(dir, { keyDir }).clear();
    expect(await readdir(dir)).toEqual([]);
  });

  test('clear that cannot remove the folder fails with one line naming it', async (ctx) => {
    const dir = join(temp.dir, 'c');
    await new CacheStore(dir, { keyDir }).put(digestKey(1), Buffer.from('x'));
    // A folder that cannot be changed: read-only for a user; immutable for root, who may write any folder.
    const root = process.getuid?.() === 0;
    try {
      if (root) execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
      else await chmod(dir, 0o500);
    } catch {
      ctx.skip(); // no chattr, or not allowed here
    }
    try {
      const r = await cli(['clear', '--cache-dir', dir]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^error: cannot clear ${dir}: .+$`));
      expect(r.stderr.split('\n')).toHaveLength(1);
    } finally {
      if (root) execFileSync('chattr', ['-i', dir]);
      else await chmod(dir, 0o700);
    }
  });

  test('info, prune and clear print control characters of the folder name as visible escapes', async () => {
    const dir = join(temp.dir, 'c\u001b]0;owned\u0007\u001b[31mred\u202e');
    await new CacheStore(dir, { keyDir }).put(digestKey(1), Buffer.from('x'));
    for (const args of [['info'], ['prune'], ['clear']]) {
      const r = await cli([...args, '--cache-dir', dir]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(r.stdout).toContain('c\\x1b]0;owned\\x07\\x1b[31mred\\u202e');
    }
  });
});
