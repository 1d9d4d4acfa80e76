/**
 * A fault before a rename, for tests of atomic writes (a crash after the temp file is written and before it
 * replaces the target). Nothing in src/ knows about it: a test file swaps in this `node:fs/promises` with
 *
 *   vi.mock('node:fs/promises', async (real) => (await import('../helpers/rename-fault.js')).withRenameFault(real));
 *
 * and sets `renameFault.beforeRename`, called with the target of every rename that puts new content in place; the
 * renames that roll back (a backup made by `link` put back over its file) do not call it. A throw from it is
 * the rename failing. Reset it after each test.
 */
import type * as FsPromises from 'node:fs/promises';

export const renameFault: { beforeRename?: (path: string) => void } = {};

export async function withRenameFault(importOriginal: () => Promise<typeof FsPromises>): Promise<typeof FsPromises> {
  const fs = await importOriginal();
  const backups = new Set<string>();
  const link: typeof fs.link = async (existing, backup) => {
    await fs.link(existing, backup);
    backups.add(String(backup));
  };
  const rename: typeof fs.rename = async (from, to) => {
    if (!backups.delete(String(from))) renameFault.beforeRename?.(String(to));
    return fs.rename(from, to);
  };
  return { ...fs, link, rename };
}
