/**
 * src/files/atomic.ts modes: a new file gets `mode` (default 0644) whatever the umask; a replaced file keeps
 * its own mode, unless `forceMode` (oc's `extract --to` writes 0640 over anything).
 */
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { placeStaged, writeFileAtomic } from '../../src/files/atomic.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-atomic-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const modeOf = async (path: string) => (await stat(path)).mode & 0o7777;

test('a replaced file keeps its mode; with forceMode it gets the mode asked for', async () => {
  const f = join(dir, 'f');
  await writeFile(f, 'old');
  await chmod(f, 0o600);
  await writeFileAtomic(f, 'new', { mode: 0o640 });
  expect(await modeOf(f)).toBe(0o600);
  await writeFileAtomic(f, 'newer', { mode: 0o640, forceMode: true });
  expect(await modeOf(f)).toBe(0o640);
  expect(await readFile(f, 'utf8')).toBe('newer');
  await writeFileAtomic(join(dir, 'fresh'), 'x');
  expect(await modeOf(join(dir, 'fresh'))).toBe(0o644);
});

test('placeStaged moves a staged file into place with the same mode rules', async () => {
  const target = join(dir, 'target');
  await writeFile(target, 'old');
  await chmod(target, 0o600);
  const staged = join(dir, 'staged');
  await writeFile(staged, 'new', { mode: 0o600 });
  await placeStaged(staged, target, { mode: 0o640, forceMode: true });
  expect(await modeOf(target)).toBe(0o640);
  expect(await readFile(target, 'utf8')).toBe('new');
  await expect(stat(staged)).rejects.toThrow();
});
