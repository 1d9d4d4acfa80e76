/**
 * Every file osimage writes is written here: a temp file in the same folder (flushed to disk unless told
 * otherwise, with the existing file's mode), then renamed over the target, so a reader sees the old file
 * or the new one, never half of one. Bytes, streams and symlinks; one file, or several all-or-nothing.
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, lstat, open, rename, stat, symlink, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { OsimageError, describe } from '../errors.js';
import { forEachLimit } from './parallel.js';
import { isMissing, noSuchFile } from './read.js';

export interface AtomicOptions {
  /** Mode for a new file; an existing file keeps its own mode (unless `forceMode`). Default 0o644. */
  mode?: number;
  /**
   * Give `mode` to an existing file too, instead of keeping its mode: `release extract --to` writes every
   * file 0640, new or replaced, as oc does.
   */
  forceMode?: boolean;
  /** fsync the temp file before the rename (default true). Large outputs a rerun can rebuild may skip it. */
  durable?: boolean;
}

export interface AtomicWrite extends AtomicOptions {
  path: string;
  data: string | Uint8Array;
}

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

/** The mode a file written to `path` gets (see {@link AtomicOptions}); the umask never narrows it. */
async function modeFor(path: string, opts: AtomicOptions): Promise<number> {
  const mode = opts.mode ?? 0o644;
  if (opts.forceMode) return mode;
  return (await existingMode(path)) ?? mode;
}

function writeError(path: string, err: unknown): OsimageError {
  if (err instanceof OsimageError) return err;
  const why = isMissing(err) ? noSuchFile(dirname(path), { kind: 'directory' }).message : describe(err);
  return new OsimageError(`cannot write ${path}: ${why}`, { cause: err });
}

/**
 * Fill a new temp file beside `path` (bytes, or a stream piped in), give it the right mode, flush it to
 * disk: the temp file's name, ready to be renamed. On failure nothing is left behind.
 */
async function stage(path: string, body: string | Uint8Array | Readable, opts: AtomicOptions): Promise<string> {
  const mode = await modeFor(path, opts);
  const tmp = tempName(path);
  let fh;
  try {
    fh = await open(tmp, 'wx', mode);
    if (typeof body === 'string' || body instanceof Uint8Array) await fh.writeFile(body);
    else for await (const chunk of body) await fh.write(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array));
    await fh.chmod(mode); // the umask may have narrowed it
    if (opts.durable ?? true) await fh.sync();
    await fh.close();
  } catch (err) {
    await fh?.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw writeError(path, err);
  }
  return tmp;
}

/** Rename the staged temp file over `path`; on failure the temp file is removed. */
async function commit(path: string, tmp: string): Promise<void> {
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw writeError(path, err);
  }
}

/**
 * Write a stream to `path` atomically: the file appears only once the stream has ended without error.
 * The caller may still be feeding the stream (destroy it with an error to abandon the write).
 */
export async function writeStreamAtomic(path: string, body: Readable, opts: AtomicOptions = {}): Promise<void> {
  await commit(path, await stage(path, body, opts));
}

/**
 * Move a file the caller staged itself (written and flushed in a folder on the same file system, as
 * `release extract --to` does for many files at once) to `path`: it gets its mode as any written file does
 * (see {@link AtomicOptions}), then is renamed over `path`. On failure the staged file is removed.
 */
export async function placeStaged(staged: string, path: string, opts: AtomicOptions = {}): Promise<void> {
  try {
    await chmod(staged, await modeFor(path, opts));
  } catch (err) {
    await unlink(staged).catch(() => undefined);
    throw writeError(path, err);
  }
  await commit(path, staged);
}

/** Make `path` a symlink to `target` atomically (replacing a file or link that is there). */
export async function symlinkAtomic(path: string, target: string): Promise<void> {
  const tmp = tempName(path);
  try {
    await symlink(target, tmp);
  } catch (err) {
    throw writeError(path, err);
  }
  await commit(path, tmp);
}

/** Write one file atomically: a temp file in the same folder, then rename. Keeps an existing file's mode. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, opts: AtomicOptions = {}): Promise<void> {
  await writeFilesAtomic([{ path, data, ...opts }]);
}

/**
 * Write several files so that either all change or none does. Every file is staged first (so a write
 * error leaves nothing changed); then each is renamed into place, and if a rename fails the ones
 * already replaced are put back from hard-link backups.
 */
export async function writeFilesAtomic(writes: AtomicWrite[]): Promise<void> {
  // Only a multi-file write makes hard-link backups, the one thing a refused rename could leave behind.
  if (writes.length > 1) for (const w of writes) await refuseOthersInSticky(w.path);
  const staged: Array<{ path: string; tmp: string }> = [];
  try {
    for (const w of writes) staged.push({ path: w.path, tmp: await stage(w.path, w.data, w) });
  } catch (err) {
    await Promise.all(staged.map((s) => unlink(s.tmp).catch(() => undefined)));
    throw err;
  }
  const done: Array<{ path: string; backup: string | undefined }> = [];
  // The backup of the file being replaced now: made, but its rename has not happened (or failed).
  let pending: string | undefined;
  try {
    for (const s of staged) {
      if (writes.length > 1 && (await existingMode(s.path)) !== undefined) {
        pending = tempName(s.path);
        await link(s.path, pending);
      }
      await rename(s.tmp, s.path);
      done.push({ path: s.path, backup: pending });
      pending = undefined;
    }
  } catch (err) {
    // Put back what was replaced, then remove every temp file and backup: the folders are as they were.
    const kept: string[] = [];
    for (const d of done.reverse()) {
      if (!d.backup) await unlink(d.path).catch(() => undefined);
      else if (
        !(await rename(d.backup, d.path).then(
          () => true,
          () => false,
        ))
      )
        kept.push(d.backup);
    }
    const debris = [...staged.map((s) => s.tmp), ...(pending ? [pending] : [])];
    await Promise.all(debris.map((p) => unlink(p).catch(() => undefined)));
    const why = err instanceof OsimageError ? err.message : `cannot replace files: ${describe(err)}`;
    // A backup that could not be put back holds the only copy of the old file: keep it, and say where.
    if (kept.length > 0)
      throw new OsimageError(`${why}; the old content could not be restored and is kept in ${kept.join(', ')}`, { cause: err });
    throw err instanceof OsimageError ? err : new OsimageError(why, { cause: err });
  }
  await Promise.all(done.map((d) => (d.backup ? unlink(d.backup).catch(() => undefined) : undefined)));
}

/**
 * Why `path` cannot be replaced by `uid`, or undefined: in a sticky folder (/tmp) only the owner of a file, of
 * the folder, or root may replace or remove it. Asked before anything is written, because the hard-link backup
 * of a multi-file write would otherwise be made, the rename refused, and the link (to another user's file)
 * left behind where this user cannot remove it.
 */
export function stickyRefusal(
  path: string,
  file: { uid: number } | undefined,
  dir: { uid: number; mode: number },
  uid: number,
): string | undefined {
  if (file === undefined || uid === 0 || (dir.mode & 0o1000) === 0) return undefined;
  if (file.uid === uid || dir.uid === uid) return undefined;
  return `cannot replace ${path}: it belongs to another user (uid ${file.uid}) in a sticky folder`;
}

async function refuseOthersInSticky(path: string): Promise<void> {
  const uid = process.geteuid?.();
  if (uid === undefined) return;
  const file = await lstat(path).catch(() => undefined);
  const dir = await stat(dirname(path)).catch(() => undefined);
  const why = dir && stickyRefusal(path, file, dir, uid);
  if (why) throw new OsimageError(why);
}

/** fsync one file or folder by path (a folder's fsync makes the renames into it durable). */
async function syncPath(path: string): Promise<void> {
  let fh;
  try {
    fh = await open(path, 'r');
    await fh.sync();
  } catch (err) {
    throw new OsimageError(`cannot flush ${path} to disk: ${describe(err)}`, { cause: err });
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * Make many files written with `durable: false` durable at once: their data is flushed with many fsyncs in
 * flight together (the file system batches them), then each folder once, instead of one sync after another.
 */
export async function syncMany(paths: string[], opts: { parallel?: number } = {}): Promise<void> {
  await forEachLimit(paths, opts.parallel ?? 32, syncPath);
}
