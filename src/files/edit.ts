/**
 * Editing the user's own files (pin scripts, metadata snapshots, payload manifests) in place. The atomic write
 * renames a new file over the old name, which would silently turn a symlink into a plain file and needs no write
 * permission on the file itself; an edit instead writes where the name leads (a symlink, even a dangling one, is
 * kept and its target written) and refuses a file its mode says must not be written. Files osimage lays out
 * itself from images (release extract) are written with the plain atomic write, which never follows links.
 */
import { access, constants, stat } from 'node:fs/promises';
import { OsimageError, describe } from '../errors.js';
import { type AtomicOptions, type AtomicWrite, writeFilesAtomic } from './atomic.js';
import { realPathOf } from './real-path.js';

/**
 * The file an edit of `path` writes: its real path. An existing file must be writable: by its mode bits for
 * root (who may write anything, so a file with no write bit at all is refused), by access(2) for anyone else.
 */
export async function editTarget(path: string): Promise<string> {
  let target: string;
  try {
    target = await realPathOf(path);
  } catch (err) {
    throw new OsimageError(`cannot write ${path}: ${describe(err)}`, { cause: err });
  }
  const st = await stat(target).catch(() => undefined);
  if (st === undefined) return target; // a new file (or one the write will fail to create, with its own error)
  const named = target === path ? path : `${path} (${target})`;
  const mode = (st.mode & 0o7777).toString(8).padStart(4, '0');
  if (process.getuid?.() === 0) {
    if ((st.mode & 0o222) === 0) {
      throw new OsimageError(
        `${named} is read-only (mode ${mode}): osimage does not overwrite a file no one may write, even as root; make it writable (chmod u+w) to edit it`,
        { code: 'read-only' },
      );
    }
  } else {
    try {
      await access(target, constants.W_OK);
    } catch {
      throw new OsimageError(`${named} is not writable by you (mode ${mode}); make it writable (chmod u+w) to edit it`, {
        code: 'read-only',
      });
    }
  }
  return target;
}

/** {@link writeFilesAtomic} for files being edited: each written at its {@link editTarget}. */
export async function editFilesAtomic(writes: AtomicWrite[]): Promise<void> {
  const targets = await Promise.all(writes.map(async (w) => ({ ...w, path: await editTarget(w.path) })));
  targets.forEach((t, i) => {
    const j = targets.findIndex((u) => u.path === t.path);
    if (j < i) throw new OsimageError(`${writes[j]!.path} and ${writes[i]!.path} are the same file (${t.path}); give two files`);
  });
  await writeFilesAtomic(targets);
}

/** {@link editFilesAtomic} of one file. */
export async function editFileAtomic(path: string, data: string | Uint8Array, opts: AtomicOptions = {}): Promise<void> {
  await editFilesAtomic([{ path, data, ...opts }]);
}
