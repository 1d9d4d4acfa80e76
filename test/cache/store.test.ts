/**
 * The cache's store: entries with a checksum, corrupted ones discarded, least recently used dropped first,
 * pruning by several processes at once, and a folder that cannot be written changing nothing.
 */
import { mkdir, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { releaseFilesKey, tagKey, type CacheKey } from '../../src/cache/keys.js';
import { cacheDir, parseSize } from '../../src/cache/settings.js';
import { CacheStore } from '../../src/cache/store.js';
import { withIo } from '../../src/context.js';
import { beginRun } from '../../src/lifecycle.js';
import { osimage, osimageBin } from '../helpers/cli.js';
import { tempDir, type Temp } from '../helpers/oci-builder.js';

const UNLINK_BARRIER = fileURLToPath(new URL('../helpers/unlink-barrier.cjs', import.meta.url));

let temp: Temp | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});
const newStore = async (opts: ConstructorParameters<typeof CacheStore>[1] = {}) => {
  temp = await tempDir('osimage-cache-');
  return new CacheStore(temp.dir, opts);
};
const key = (n: number): CacheKey => ({ kind: 'configs', name: `sha256-${String(n).padStart(64, '0')}` });

/** Entry n was last used n seconds after the epoch of the test (older n = used longer ago). */
async function age(store: CacheStore, k: CacheKey, seconds: number): Promise<void> {
  const t = new Date(1_700_000_000_000 + seconds * 1000);
  await utimes(store.path(k), t, t);
}

describe('CacheStore', () => {
  test('putSoon: a read of that entry, info and the end of the run wait for the write', async () => {
    const store = await newStore();
    store.putSoon(key(1), Buffer.from('one'));
    expect((await store.get(key(1)))?.data.toString()).toBe('one');
    store.putSoon(key(2), Buffer.from('two'));
    expect(await store.info()).toMatchObject({ entries: 2 });
    const done = beginRun();
    store.putSoon(key(3), Buffer.from('three'));
    await done();
    expect((await readFile(store.path(key(3)))).toString()).toContain('three');
  });

  test('put then get gives the bytes and the meta back; a missing key is a miss', async () => {
    const store = await newStore();
    await store.put(key(1), Buffer.from('hello'), { mediaType: 'x/y' });
    const e = await store.get(key(1));
    expect(e?.data.toString()).toBe('hello');
    expect(e?.meta).toEqual({ mediaType: 'x/y' });
    expect(await store.get(key(2))).toBeUndefined();
    expect(await store.info()).toMatchObject({ dir: temp!.dir, entries: 1 });
  });

  test('a corrupted entry is a miss and is removed', async () => {
    const notes: string[] = [];
    const store = await newStore({ onNote: (m) => notes.push(m) });
    await store.put(key(1), Buffer.from('hello world'));
    const raw = await readFile(store.path(key(1)));
    raw.writeUInt8(raw.readUInt8(raw.length - 1) ^ 0xff, raw.length - 1);
    await writeFile(store.path(key(1)), raw);
    expect(await store.get(key(1))).toBeUndefined();
    expect(notes.join()).toContain('corrupted');
    expect((await store.info()).entries).toBe(0);
  });

  test('a read makes an entry the most recently used; prune keeps the newest entries within the bound', async () => {
    const store = await newStore();
    for (let n = 1; n <= 5; n++) {
      await store.put(key(n), Buffer.alloc(1000, n));
      await age(store, key(n), n);
    }
    // Entry 1 (the oldest) is read: it becomes the newest.
    expect(await store.get(key(1))).toBeDefined();
    const one = (await readFile(store.path(key(1)))).length;
    const r = await store.prune(one * 3);
    expect(r).toMatchObject({ entries: 3, removed: 2, bytes: one * 3 });
    const left = await Promise.all([1, 2, 3, 4, 5].map(async (n) => (await store.get(key(n))) !== undefined));
    expect(left).toEqual([true, false, false, true, true]);
  });

  test('strictly least recently used: an older entry goes even when it alone would still fit', async () => {
    const store = await newStore();
    await store.put(key(1), Buffer.alloc(100));
    await store.put(key(2), Buffer.alloc(3000));
    await store.put(key(3), Buffer.alloc(1000));
    for (const n of [1, 2, 3]) await age(store, key(n), n);
    const size = async (n: number) => (await readFile(store.path(key(n)))).length;
    const r = await store.prune((await size(3)) + (await size(1)) + 10);
    expect(r).toMatchObject({ entries: 1, removed: 2 });
    expect(await store.get(key(1))).toBeUndefined();
  });

  test('a put keeps the cache within its bound, dropping the least recently used', async () => {
    const store = await newStore({ maxBytes: 2500 });
    for (let n = 1; n <= 4; n++) {
      await store.put(key(n), Buffer.alloc(1000, n));
      await age(store, key(n), n);
    }
    expect((await store.info()).entries).toBe(2);
    expect(await store.get(key(4))).toBeDefined();
    expect(await store.get(key(3))).toBeDefined();
    expect(await store.get(key(1))).toBeUndefined();
  });

  test('clear removes the entries, and only its own folder', async () => {
    const store = await newStore();
    await writeFile(join(temp!.dir, 'mine.txt'), 'keep');
    await store.put(key(1), Buffer.from('x'));
    await store.put(releaseFilesKey('release-manifests', ['sha256:aa'], 'full'), Buffer.from('y'));
    await store.put(tagKey('quay.io', 'a/b', 'latest'), Buffer.from('z'));
    expect((await store.info()).entries).toBe(3);
    await store.clear();
    expect((await store.info()).entries).toBe(0);
    expect(await readdir(temp!.dir)).toEqual(['mine.txt']);
  });

  test('a folder that cannot be written: put is a quiet miss (a note only)', async () => {
    // A file where the folder should be: not writable even by root.
    temp = await tempDir('osimage-cache-');
    await writeFile(join(temp.dir, 'file'), 'not a folder');
    const notes: string[] = [];
    const store = new CacheStore(join(temp.dir, 'file', 'cache'), { onNote: (m) => notes.push(m) });
    await expect(store.put(key(1), Buffer.from('x'))).resolves.toBeUndefined();
    expect(await store.get(key(1))).toBeUndefined();
    expect(notes.join()).toMatch(/cannot write/);
    expect(await store.info()).toMatchObject({ entries: 0 });
  });

  test('two processes pruning the same folder at once both succeed and leave it within the bound', async () => {
    const store = await newStore();
    for (let n = 1; n <= 200; n++) await store.put(key(n), Buffer.alloc(2000, n));
    // The overlap is forced, not hoped for: a preloaded barrier holds each process at its first unlink() until
    // both have listed the folder and chosen the same victims, so the second deletes what the first just deleted.
    const barrier = join(temp!.dir, '..', `${basename(temp!.dir)}-barrier`);
    await mkdir(barrier);
    const env = {
      OSIMAGE_CACHE_DIR: temp!.dir,
      NODE_OPTIONS: `--require=${UNLINK_BARRIER}`,
      OSIMAGE_TEST_BARRIER_DIR: barrier,
      OSIMAGE_TEST_BARRIER_COUNT: '2',
    };
    try {
      const [a, b] = await Promise.all([
        osimageBin(['cache', 'prune', '--max-size', '100K'], { env }),
        osimageBin(['cache', 'prune', '--max-size', '100K'], { env }),
      ]);
      expect([a.exitCode, a.stderr, b.exitCode, b.stderr]).toEqual([0, '', 0, '']);
      expect(await readdir(barrier), 'both processes reached their first delete before either deleted').toHaveLength(2);
    } finally {
      await rm(barrier, { recursive: true, force: true });
    }
    const info = await store.info();
    expect(info.bytes).toBeLessThanOrEqual(100 * 1024);
    expect(info.entries).toBeGreaterThan(0);
  });
});

describe('settings', () => {
  test('sizes', () => {
    expect(parseSize('512M')).toBe(512 * 1024 * 1024);
    expect(parseSize('1GiB')).toBe(1024 ** 3);
    expect(parseSize('100k')).toBe(102_400);
    expect(parseSize('0')).toBe(0);
    expect(() => parseSize('lots')).toThrow(/not a size/);
  });

  test('the folder: --cache-dir, OSIMAGE_CACHE_DIR, an absolute XDG_CACHE_HOME, ~/.cache', () => {
    const run = <T>(env: NodeJS.ProcessEnv, f: () => T) => withIo({ stdout: process.stdout, stderr: process.stderr, env, cwd: '/work' }, f);
    expect(run({ HOME: '/h', OSIMAGE_CACHE_DIR: '/c' }, () => cacheDir('rel'))).toBe('/work/rel');
    expect(run({ HOME: '/h', OSIMAGE_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' }, () => cacheDir())).toBe('/c');
    expect(run({ HOME: '/h', XDG_CACHE_HOME: '/x' }, () => cacheDir())).toBe('/x/osimage');
    expect(run({ HOME: '/h', XDG_CACHE_HOME: 'relative' }, () => cacheDir())).toBe('/h/.cache/osimage');
  });
});

describe('osimage cache', () => {
  test('info, prune and clear', async () => {
    const store = await newStore();
    for (let n = 1; n <= 3; n++) await store.put(key(n), Buffer.alloc(100, n));
    const env = { OSIMAGE_CACHE_DIR: temp!.dir };
    const i = await osimage(['cache', 'info'], { env });
    expect(i.exitCode).toBe(0);
    expect(i.stdout).toMatch(new RegExp(`^Folder: +${temp!.dir}\nEntries: +3\nSize: +\\d+ bytes\nMax size: +512\\.0 MiB`));
    const p = await osimage(['cache', 'prune', '--max-size', '0', '--cache-dir', temp!.dir]);
    expect(p).toEqual({ stdout: `Removed 3 entries; 0 entries, 0 bytes, left in ${temp!.dir}`, stderr: '', exitCode: 0 });
    await store.put(key(1), Buffer.from('x'));
    const c = await osimage(['cache', 'clear'], { env });
    expect(c).toEqual({ stdout: `Cleared ${temp!.dir}`, stderr: '', exitCode: 0 });
    expect((await store.info()).entries).toBe(0);
    const bad = await osimage(['cache', 'prune', '--max-size', 'lots'], { env });
    expect(bad.exitCode).toBe(2);
  });
});
