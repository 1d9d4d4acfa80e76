/**
 * the promotion lock is taken on the pin file's real path, so that `promote --write t.sh`
 * and `promote --write l.sh` (l.sh -> t.sh) cannot both run their tests at once.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockError } from '../../src/pin/errors.js';
import { acquireLock } from '../../src/pin/lock.js';
import { promote } from '../../src/pin/promote.js';

let dir: string;
let target: string;
let link: string;
const releases: Array<() => Promise<void>> = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-lock-link-'));
  target = join(dir, 't.sh');
  link = join(dir, 'l.sh');
  await writeFile(target, '#!/bin/sh\n');
  await symlink('t.sh', link);
});
afterEach(async () => {
  for (const release of releases.splice(0)) await release();
  await rm(dir, { recursive: true, force: true });
});

async function hold(file: string): Promise<void> {
  releases.push(await acquireLock(file));
}

async function lockError(file: string): Promise<LockError> {
  const err = await acquireLock(file).then(
    (release) => {
      releases.push(release);
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LockError);
  return err as LockError;
}

describe('the promotion lock follows symlinks to the real file', () => {
  it('held through the file, refused through a symlink to it', async () => {
    await hold(target);
    const err = await lockError(link);
    expect(err.stale).toBe(false);
    expect(err.pid).toBe(process.pid);
    expect(err.lockFile).toBe(`${target}.lock`);
    expect(err.message).toBe(`another promotion of ${link} is running (pid ${process.pid} holds ${target}.lock)`);
  });

  it('held through the symlink, refused through the file', async () => {
    await hold(link);
    expect((await lockError(target)).lockFile).toBe(`${target}.lock`);
  });

  it('through a chain of links, a linked folder, and a link whose target does not exist yet', async () => {
    await symlink('l.sh', join(dir, 'l2.sh'));
    await mkdir(join(dir, 'real'));
    await symlink('real', join(dir, 'folder'));
    await symlink('folder/new.sh', join(dir, 'dangling.sh'));
    await hold(join(dir, 'l2.sh'));
    expect((await lockError(target)).lockFile).toBe(`${target}.lock`);
    await hold(join(dir, 'dangling.sh'));
    expect((await lockError(join(dir, 'folder', 'new.sh'))).lockFile).toBe(join(dir, 'real', 'new.sh.lock'));
  });

  it('promote --write through the symlink stops before testing while the file is being promoted', async () => {
    await hold(target);
    let tested = false;
    const err = await promote({
      file: link,
      flags: { baseUrl: 'http://127.0.0.1:9/unused' },
      env: {},
      test: 'exit 0',
      commit: false,
      runTest: async () => {
        tested = true;
        return { exitCode: 0, signal: undefined };
      },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LockError);
    expect(tested).toBe(false);
  });
});

describe('a script in a folder that is not there', () => {
  it('is refused in the words writing it would give, naming the folder', async () => {
    const file = join(dir, 'hack', 'release.sh');
    const err = await acquireLock(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).toBe(`${join(dir, 'hack')}: no such directory`);
  });
});
