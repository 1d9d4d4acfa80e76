import { randomBytes } from 'node:crypto';
import { link, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { OsimageError, describe } from '../errors.js';

export interface AtomicWrite {
  path: string;
  data: string | Uint8Array;
  /** Mode for a new file; an existing file keeps its own mode. Default 0o644. */
  mode?: number;
}

/** Test hook: throw after the temp file is written and before the rename (simulates a crash). */
export const hooks: { beforeRename?: (path: string) => void } = {};

function tempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

async function existingMode(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new OsimageError(`cannot stat ${path}: ${describe(err)}`);
  }
}

/** Write the data to a temp file in the same folder, flushed to disk, with the right mode. */
async function stage(w: AtomicWrite): Promise<string> {
  const mode = (await existingMode(w.path)) ?? w.mode ?? 0o644;
  const tmp = tempName(w.path);
  let fh;
  try {
    fh = await open(tmp, 'wx', mode);
    await fh.writeFile(w.data);
    await fh.chmod(mode); // the umask may have narrowed it
    await fh.sync();
  } catch (err) {
    await fh?.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw new OsimageError(`cannot write ${w.path}: ${describe(err)}`);
  }
  await fh.close();
  return tmp;
}

/** Write one file atomically: a temp file in the same folder, then rename. Keeps an existing file's mode. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, opts: { mode?: number } = {}): Promise<void> {
  await writeFilesAtomic([{ path, data, ...opts }]);
}

/**
 * Write several files so that either all change or none does. Every file is staged first (so a write
 * error leaves nothing changed); then each is renamed into place, and if a rename fails the ones
 * already replaced are put back from hard-link backups.
 */
export async function writeFilesAtomic(writes: AtomicWrite[]): Promise<void> {
  const staged: Array<{ path: string; tmp: string }> = [];
  try {
    for (const w of writes) staged.push({ path: w.path, tmp: await stage(w) });
  } catch (err) {
    await Promise.all(staged.map((s) => unlink(s.tmp).catch(() => undefined)));
    throw err;
  }
  const done: Array<{ path: string; backup: string | undefined }> = [];
  try {
    for (const s of staged) {
      hooks.beforeRename?.(s.path);
      let backup: string | undefined;
      if (writes.length > 1 && (await existingMode(s.path)) !== undefined) {
        backup = tempName(s.path);
        await link(s.path, backup);
      }
      await rename(s.tmp, s.path);
      done.push({ path: s.path, backup });
    }
  } catch (err) {
    for (const d of done.reverse()) {
      if (d.backup) await rename(d.backup, d.path).catch(() => undefined);
      else await unlink(d.path).catch(() => undefined);
    }
    await Promise.all(staged.map((s) => unlink(s.tmp).catch(() => undefined)));
    throw err instanceof OsimageError ? err : new OsimageError(`cannot replace files: ${describe(err)}`);
  }
  await Promise.all(done.map((d) => (d.backup ? unlink(d.backup).catch(() => undefined) : undefined)));
}
