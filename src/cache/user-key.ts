/**
 * The user's cache key: 32 random bytes that seal what osimage caches for this user (src/cache/store.ts: entries
 * not named by their own digest; src/launcher/code-cache.ts: V8 code cache entries) with an HMAC-SHA256, so that only
 * entries this user's osimage wrote are used. An entry written by another user into a shared folder, restored
 * from a CI cache, copied from another machine or damaged fails the seal and is ignored.
 *
 * Where: `$XDG_STATE_HOME/osimage/cache-key` (an absolute XDG_STATE_HOME only), else
 * `~/.local/state/osimage/cache-key`: deliberately not beside the entries it seals. Cache folders are what gets
 * shared, restored from a CI cache or copied between machines, and a key travelling with them would seal whatever
 * came with it. Losing the key only costs the entries it sealed (a new one is made).
 *
 * Trusted only when nobody else could have written or read it: the folder is a real folder (not a link) owned by
 * the current user and not writable by group or others; the key file is a regular file (opened without following
 * a link, checked on the open descriptor) owned by the user, mode 0600 or narrower, with one link and 32 bytes. A
 * key file that fails those checks in a folder that passes them was put there by this user (or root): it is
 * replaced. A folder that fails them gives no key, and the caches seal and trust nothing for that run.
 *
 * Synchronous and importing only node:fs and node:path (node:crypto when a key is made or an HMAC computed): the
 * launcher calls it before the CLI loads, where every module loaded is start-up time.
 */
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { isAbsolute, join } from 'node:path';

export const KEY_BYTES = 32;
/** An HMAC-SHA256. */
export const SEAL_BYTES = 32;
const KEY_FILE = 'cache-key';

/** The user's state folder for osimage: `$XDG_STATE_HOME/osimage`, else `~/.local/state/osimage`. */
export function userStateDir(vars: NodeJS.ProcessEnv, homedir: () => string): string {
  const xdg = vars.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'osimage');
  return join(vars.HOME || homedir(), '.local', 'state', 'osimage');
}

const crypto = () => process.getBuiltinModule('node:crypto') as typeof import('node:crypto');

/** The key, or why there is none (for a note). */
export type UserKey = { key: Buffer; problem?: undefined } | { key?: undefined; problem: string };

/** Why a folder or file is not the user's alone, or undefined when it is (no uid on Windows: nothing to check). */
function notPrivate(st: { uid: number; mode: number }, path: string, writableBy = 0o022): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  if (st.uid !== uid) return `${path} is not owned by the current user (uid ${st.uid}, not ${uid})`;
  if (st.mode & writableBy)
    return `${path} is ${writableBy & 0o044 ? 'readable or writable' : 'writable'} by others (mode 0${(st.mode & 0o777).toString(8)})`;
  return undefined;
}

/**
 * Why a folder osimage made for this user may not be used: a symlink (never followed: osimage did not make it), not
 * a folder, another user's, or writable by others (who could swap what is in it). Undefined when it may.
 */
export function folderProblem(
  st: { uid: number; mode: number; isSymbolicLink(): boolean; isDirectory(): boolean },
  path: string,
): string | undefined {
  if (st.isSymbolicLink()) return `${path} is a symlink: the cache does not follow it`;
  if (!st.isDirectory()) return `${path} is not a folder`;
  return notPrivate(st, path);
}

/** The key file's bytes, 'missing', or why it is not a key to trust (then it is replaced). */
function readKeyFile(path: string): Buffer | 'missing' | 'bad' {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'bad'; // ELOOP: a symlink
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size !== KEY_BYTES || st.nlink !== 1 || notPrivate(st, path, 0o077)) return 'bad';
    const key = Buffer.alloc(KEY_BYTES);
    return readSync(fd, key, 0, KEY_BYTES, 0) === KEY_BYTES ? key : 'bad';
  } finally {
    closeSync(fd);
  }
}

/**
 * The key in `dir`, made on first use. A key appears whole or not at all (written to a temp file, then hard-linked
 * to its name, which fails when another process made it first: then that one is read), so processes starting at
 * once agree on one key.
 */
export function loadUserKey(dir: string): UserKey {
  try {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      st = lstatSync(dir);
    }
    const problem = folderProblem(st, dir);
    if (problem) return { problem };
    const path = join(dir, KEY_FILE);
    for (let attempt = 0; attempt < 3; attempt++) {
      const found = readKeyFile(path);
      if (Buffer.isBuffer(found)) return { key: found };
      // The folder is the user's alone: whatever is in it (a link, a loose or short file) was put there by this user.
      if (found === 'bad') unlinkSync(path);
      const tmp = join(dir, `.${KEY_FILE}.${process.pid}.${crypto().randomBytes(6).toString('hex')}`);
      writeFileSync(tmp, crypto().randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
      try {
        linkSync(tmp, path);
        unlinkSync(tmp);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') unlinkSync(tmp);
        // A file system without hard links: a rename, which may replace a key made at the same moment (the entries
        // the other process seals with it this run are then misses next time).
        else if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') renameSync(tmp, path);
        else throw err;
      }
    }
    return { problem: `${path}: no key could be made` };
  } catch (err) {
    return { problem: `cannot use the cache key in ${dir}: ${(err as Error).message}` };
  }
}

/** HMAC-SHA256 under `key` of `label`, a NUL, then `parts`: the label names what is sealed (its kind and name). */
export function seal(key: Buffer, label: string, parts: readonly Uint8Array[]): Buffer {
  const h = crypto().createHmac('sha256', key).update(label).update('\0');
  for (const p of parts) h.update(p);
  return h.digest();
}

/** Whether `mac` is the seal of `parts` under `key` and `label` (compared in constant time). */
export function sealMatches(mac: Uint8Array, key: Buffer, label: string, parts: readonly Uint8Array[]): boolean {
  return mac.length === SEAL_BYTES && crypto().timingSafeEqual(mac, seal(key, label, parts));
}
