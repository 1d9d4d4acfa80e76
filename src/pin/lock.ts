import { readFileSync, unlinkSync } from 'node:fs';
import { open, readFile, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { OsimageError, describe } from '../errors.js';
import { isMissing, noSuchFile } from '../files/read.js';
import { realPathOf } from '../files/real-path.js';
import { LockError } from './errors.js';

/** Lock files this process holds, so a signal handler can drop them before exiting. */
const held = new Set<string>();

/**
 * The lock file that guards promotions of `file`: beside the file's real path, so that two names of one
 * file (a symlink and its target) share one lock.
 */
export async function lockPathFor(file: string): Promise<string> {
  return `${await realPathOf(file)}.lock`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Take the lock of `file`: `<real path of file>.lock`, created exclusively, holding our pid. A lock held by a live
 * process, or left by a dead one, is an error naming the pid and how to remove it. Returns the release.
 */
export async function acquireLock(file: string): Promise<() => Promise<void>> {
  const path = await lockPathFor(file).catch((err: unknown) => {
    throw err instanceof OsimageError ? err : new OsimageError(`cannot lock ${file}: ${describe(err)}`);
  });
  try {
    const fh = await open(path, 'wx', 0o644);
    try {
      await fh.writeFile(`${process.pid}\n`);
    } finally {
      await fh.close();
    }
  } catch (err) {
    // The script's folder is not there: the same words as writing the script would give.
    if (isMissing(err)) throw noSuchFile(dirname(file), { kind: 'directory', cause: err });
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new OsimageError(`cannot create lock ${path}: ${describe(err)}`);
    const content = await readFile(path, 'utf8').catch(() => '');
    const pid = /^\s*(\d+)\s*$/.test(content) ? Number(content.trim()) : undefined;
    if (pid === undefined) {
      throw new LockError(
        path,
        undefined,
        false,
        `${path} exists but holds no pid; if no promotion of ${file} is running, remove it: rm ${path}`,
      );
    }
    if (alive(pid)) throw new LockError(path, pid, false, `another promotion of ${file} is running (pid ${pid} holds ${path})`);
    throw new LockError(
      path,
      pid,
      true,
      `stale lock ${path}: pid ${pid} is no longer running; if no promotion of ${file} is running, remove it: rm ${path}`,
    );
  }
  held.add(path);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    held.delete(path);
    await unlink(path).catch(() => undefined);
  };
}

/**
 * Remove the locks this process holds (only those still holding our pid), synchronously: for a
 * SIGINT/SIGTERM handler, so that an interrupted promotion does not leave a stale lock behind.
 */
export function releaseHeldLocksSync(): void {
  for (const path of held) {
    try {
      if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
    } catch {
      // already gone
    }
  }
  held.clear();
}
