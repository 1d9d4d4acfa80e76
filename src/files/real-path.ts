/**
 * Where a file really is: every symlink followed, also a last link whose target does not exist yet (an edit
 * may create the file), so that every name of one file gives the same path. Locks are taken on it and edits
 * write to it, so a symlinked pin file keeps its link and two names of one file share one lock.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';

/** Links followed before giving up, as the kernel's ELOOP limit. */
const MAX_LINKS = 40;

/** The real path of `file` (absolute), following a dangling last link to where its target would be. */
export async function realPathOf(file: string, depth = 0): Promise<string> {
  const abs = resolvePath(file);
  try {
    return await realpath(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const st = await lstat(abs).catch(() => undefined);
  if (st?.isSymbolicLink()) {
    if (depth >= MAX_LINKS) throw Object.assign(new Error('too many levels of symbolic links'), { code: 'ELOOP' });
    return realPathOf(resolvePath(dirname(abs), await readlink(abs)), depth + 1);
  }
  const dir = await realpath(dirname(abs)).catch(() => dirname(abs));
  return join(dir, basename(abs));
}
