/**
 * osimage's on-disk cache: entries by key (keys.ts) under `<dir>/v1/<kind>/<name>`, each written atomically
 * (src/files/atomic.ts) with a checksum of its bytes, or for kinds whose content cannot be checked against their name
 * a seal (an HMAC under the user's key, keys.ts SEALED_KINDS); read back only when it holds (a corrupted, rewritten or
 * foreign entry is deleted and counts as a miss), and bounded in size: a read touches the entry's mtime, and pruning
 * drops the least recently used entries first. Several processes may share a folder: no locks, and an entry that
 * another process removed or replaced meanwhile is simply gone. The cache never fails a command: what it cannot
 * read or write is a miss, told only to `onNote` (the command prints it with OSIMAGE_DEBUG).
 *
 * Hostile contents: the folder may hold what osimage did not put there. `v1/` and its kind folders are used only when
 * they are real folders (a symlink is never followed, listed, written or pruned through) owned by the user and not
 * writable by others; an entry is read only as a regular file (opened without following a link and without waiting
 * on a FIFO, then checked on the open descriptor) no larger than its kind allows (keys.ts MAX_ENTRY_BYTES). The
 * folders above `v1/` are the user's choice (`--cache-dir`) and are not checked.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { OsimageError, describe } from '../errors.js';
import { writeFileAtomic } from '../files/atomic.js';
import { isMissing } from '../files/read.js';
import { onShutdown } from '../lifecycle.js';
import { type CacheKey, MAX_ENTRY_BYTES, SEALED_KINDS } from './keys.js';
import { type UserKey, folderProblem, loadUserKey, seal, userStateDir } from './user-key.js';

/** Default bound on the cache's size: 512 MiB. */
export const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

/** The layout's version: a new format gets a new folder, and `clear` removes only this one. */
const LAYOUT = 'v1';
const MAGIC = 'osimage-cache/1';
/**
 * A put that takes the cache past its bound prunes it to this share of the bound: the slack lets the next puts
 * add up sizes without scanning the folder again (a full cache pruned to exactly its bound scanned on every put).
 */
const PRUNE_TO = 0.9;
/** Temp files of writers that died are removed by prune once they are this old (and a stopped clear's folder). */
const STALE_TEMP_MS = 60 * 60 * 1000;
/** Room for an entry's header and meta beyond its kind's data bound. */
const HEADER_BYTES = 64 * 1024;
/** A FIFO is not waited on (it is then refused as not a regular file); a symlink is not followed (ELOOP). */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
/** What open() of a symlink with O_NOFOLLOW fails with (EMLINK on FreeBSD). */
const LINK_ERRORS = new Set(['ELOOP', 'EMLINK']);
/** The prefix of a folder `clear` moved `v1/` to before removing it. */
const CLEARING = `.${LAYOUT}-clear-`;

export interface CacheEntry {
  data: Buffer;
  /** Small text facts stored with the bytes (a manifest's media type). */
  meta: Record<string, string>;
}

export interface CacheInfo {
  dir: string;
  entries: number;
  bytes: number;
}

export interface PruneResult extends CacheInfo {
  removed: number;
}

/** `MAGIC <sum>\n<meta JSON>\n<data>`; the sum is the SHA-256 of the rest, or its seal (Check) for sealed kinds. */
function encode(data: Uint8Array, meta: Record<string, string>, check: Check): Buffer {
  const body = Buffer.concat([Buffer.from(`${JSON.stringify(meta)}\n`), data]);
  return Buffer.concat([Buffer.from(`${MAGIC} ${check(body).toString('hex')}\n`), body]);
}

/** The entry, or undefined when the bytes are not an intact entry (by `check`). */
function decode(raw: Buffer, check: Check): CacheEntry | undefined {
  const nl = raw.indexOf(0x0a);
  if (nl < 0) return undefined;
  const [magic, sum] = raw.subarray(0, nl).toString('latin1').split(' ');
  const body = raw.subarray(nl + 1);
  if (magic !== MAGIC || !sum || !/^[0-9a-f]{64}$/.test(sum)) return undefined;
  if (!timingSafeEqual(Buffer.from(sum, 'hex'), check(body))) return undefined;
  const metaEnd = body.indexOf(0x0a);
  if (metaEnd < 0) return undefined;
  try {
    const meta = JSON.parse(body.subarray(0, metaEnd).toString('utf8')) as unknown;
    if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined;
    return { data: body.subarray(metaEnd + 1), meta: meta as Record<string, string> };
  } catch {
    return undefined;
  }
}

/** What an entry's header must hold for its body: a SHA-256, or an HMAC under the user's key. */
type Check = (body: Uint8Array) => Buffer;
const sha256: Check = (body) => createHash('sha256').update(body).digest();

const sumSizes = (all: ReadonlyArray<{ size: number }>) => all.reduce((n, e) => n + e.size, 0);

const ignoreMissing = (err: unknown) => {
  if (!isMissing(err)) throw err;
};

export interface CacheStoreOptions {
  maxBytes?: number;
  onNote?: (message: string) => void;
  /** Where the user's key is (src/cache/user-key.ts; default `$XDG_STATE_HOME/osimage`, else `~/.local/state/osimage`). */
  keyDir?: string;
}

export class CacheStore {
  readonly dir: string;
  readonly maxBytes: number;
  private readonly onNote: (message: string) => void;
  private readonly keyDir: string;
  /** The user's key, loaded when a sealed entry is first read or written. */
  private userKey: UserKey | undefined;
  /** Writes started by putSoon and not yet done, by path. */
  private readonly pending = new Map<string, Promise<void>>();
  private settleAtShutdown = false;
  /** Kind folders checked (and made) by this run: once, not per read or put. */
  private readonly made = new Set<string>();
  /** Problems already told to onNote (a refused folder is told once, not per entry). */
  private readonly noted = new Set<string>();
  /** The bytes the folder holds, as far as this run knows (scanned at its first put, then added to). */
  private knownBytes: Promise<number> | undefined;

  constructor(dir: string, opts: CacheStoreOptions = {}) {
    this.dir = dir;
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    this.onNote = opts.onNote ?? (() => undefined);
    this.keyDir = opts.keyDir ?? userStateDir(process.env, homedir);
  }

  private get root(): string {
    return join(this.dir, LAYOUT);
  }

  /** Where an entry lives. */
  path(key: CacheKey): string {
    return join(this.root, key.kind, key.name);
  }

  private noteOnce(message: string): void {
    if (this.noted.has(message)) return;
    this.noted.add(message);
    this.onNote(message);
  }

  /** How an entry of this key is checked, or undefined when it is sealed and there is no key (it is then not used). */
  private check(key: CacheKey): Check | undefined {
    if (!SEALED_KINDS.has(key.kind)) return sha256;
    this.userKey ??= loadUserKey(this.keyDir);
    const { key: secret, problem } = this.userKey;
    if (!secret) {
      this.noteOnce(`${problem}: ${key.kind} entries are not used`);
      return undefined;
    }
    const label = `cache:${key.kind}/${key.name}`;
    return (body) => seal(secret, label, [body]);
  }

  /**
   * Why `v1/` or its `kind` folder may not be used (folderProblem: a symlink, another user's, writable by others),
   * told once; 'missing' when it is not there (made first when `make`); undefined when it may. Checked once per run.
   */
  private async folder(kind: string, make: boolean): Promise<string | undefined> {
    const dir = join(this.root, kind);
    if (this.made.has(dir)) return undefined;
    // Made one level at a time, each checked first: a recursive mkdir would go through a symlinked v1/.
    if (make) await mkdir(this.dir, { recursive: true, mode: 0o700 });
    for (const path of [this.root, dir]) {
      let st: Awaited<ReturnType<typeof lstat>>;
      try {
        st = await lstat(path);
      } catch (err) {
        if (!isMissing(err)) throw err;
        if (!make) return 'missing';
        await mkdir(path, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e;
        });
        st = await lstat(path);
      }
      const problem = folderProblem(st, path);
      if (problem) {
        this.noteOnce(`${problem} (osimage cache clear removes it)`);
        return problem;
      }
    }
    this.made.add(dir);
    return undefined;
  }

  /** The entry, if the cache has an intact one; it becomes the most recently used. */
  async get(key: CacheKey): Promise<CacheEntry | undefined> {
    const path = this.path(key);
    await this.pending.get(path);
    const check = this.check(key);
    let fh: Awaited<ReturnType<typeof open>> | undefined;
    try {
      if (!check || (await this.folder(key.kind, false))) return undefined;
      try {
        fh = await open(path, READ_FLAGS);
      } catch (err) {
        if (isMissing(err)) return undefined;
        if (!LINK_ERRORS.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
        return await this.drop(key, `${path} is a symlink, not an entry`);
      }
      const st = await fh.stat();
      if (!st.isFile()) return await this.drop(key, `${path} is not a regular file`);
      const bound = MAX_ENTRY_BYTES[key.kind] + HEADER_BYTES;
      if (st.size > bound) return await this.drop(key, `${path} is larger than a ${key.kind} entry may be (${st.size} bytes)`);
      const raw = Buffer.allocUnsafe(st.size);
      let n = 0;
      for (let r = -1; n < raw.length && r !== 0; n += r) r = (await fh.read(raw, n, raw.length - n, n)).bytesRead;
      const entry = decode(raw.subarray(0, n), check);
      if (!entry) return await this.drop(key, `${path} is corrupted`);
      const now = new Date();
      await fh.utimes(now, now).catch(() => undefined);
      return entry;
    } catch (err) {
      this.onNote(`cannot read ${path}: ${describe(err)}`);
      return undefined;
    } finally {
      await fh?.close().catch(() => undefined);
    }
  }

  /** A miss: `why` is noted and the name removed (a link goes, not what it points to). */
  private async drop(key: CacheKey, why: string): Promise<undefined> {
    this.onNote(`${why}: removed`);
    await this.discard(key);
    return undefined;
  }

  /** Remove one entry (a caller found its content wrong). */
  async discard(key: CacheKey): Promise<void> {
    if (await this.folder(key.kind, false).catch(() => 'unknown')) return;
    await unlink(this.path(key)).catch(() => undefined);
  }

  /**
   * put() without waiting for it: the write runs alongside what the caller does next (a cold query
   * wrote the manifest and the tag's digest before it asked for the layer; now they are written while the layer
   * comes). A read of the same entry, info, prune and clear wait for such writes first, and the run waits for
   * them before it ends (src/lifecycle.ts), so nothing is left behind and a later read sees the entry.
   */
  putSoon(key: CacheKey, data: Uint8Array, meta: Record<string, string> = {}): void {
    const path = this.path(key);
    const write: Promise<void> = (this.pending.get(path) ?? Promise.resolve())
      .then(() => this.put(key, data, meta))
      .finally(() => {
        if (this.pending.get(path) === write) this.pending.delete(path);
      });
    this.pending.set(path, write);
    if (!this.settleAtShutdown) {
      this.settleAtShutdown = true;
      onShutdown(() => {
        this.settleAtShutdown = false;
        return this.settle();
      });
    }
  }

  /** Wait for the writes putSoon started. */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending.values()]);
  }

  /** Store an entry (replacing any), then keep the cache within its bound. Never throws. */
  async put(key: CacheKey, data: Uint8Array, meta: Record<string, string> = {}): Promise<void> {
    const path = this.path(key);
    if (data.length > MAX_ENTRY_BYTES[key.kind]) {
      this.onNote(`${path}: ${data.length} bytes are too large to cache (a ${key.kind} entry holds at most ${MAX_ENTRY_BYTES[key.kind]})`);
      return;
    }
    const check = this.check(key);
    if (!check) return;
    let encoded: Uint8Array;
    try {
      encoded = encode(data, meta, check);
      // A cache is rebuilt by the next run: no fsync; every entry is 0600, whatever was there. A clear by another
      // process may remove the folder between the check and the write: checked (and made) again once.
      for (let attempt = 0; ; attempt++) {
        if (await this.folder(key.kind, true)) return;
        try {
          await writeFileAtomic(path, encoded, { mode: 0o600, forceMode: true, durable: false });
          break;
        } catch (err) {
          if (attempt > 0 || !isMissing((err as Error).cause)) throw err;
          this.made.clear();
        }
      }
    } catch (err) {
      this.onNote(`cannot write ${path}: ${describe(err)}`);
      return;
    }
    try {
      // The folder is scanned once per run (the scan counts this entry), then sizes are added up: a put costs the
      // same at 100 entries as at 5,000 (a scan per put made a run's puts quadratic). The count is chained before
      // any await, so puts running at once each add their size. Past the bound, prune scans and settles the count.
      const size = encoded.length;
      const counted = this.knownBytes ? this.knownBytes.then((n) => n + size) : this.entries(Date.now()).then(sumSizes);
      this.knownBytes = counted;
      if ((await counted) > this.maxBytes) {
        const pruned = this.pruneNow(Math.floor(this.maxBytes * PRUNE_TO)).then((r) => r.bytes);
        this.knownBytes = pruned;
        await pruned;
      }
    } catch (err) {
      this.knownBytes = undefined;
      this.onNote(`cannot prune ${this.dir}: ${describe(err)}`);
    }
  }

  /**
   * Every entry with its size and last use; entries removed meanwhile by another process are left out. Only
   * regular files in kind folders that may be used (folderProblem) are entries: a link there is never followed,
   * so nothing outside the cache is listed, counted or pruned.
   */
  private async entries(now: number): Promise<Array<{ path: string; size: number; used: number }>> {
    const out: Array<{ path: string; size: number; used: number }> = [];
    let kinds: string[];
    try {
      const problem = folderProblem(await lstat(this.root), this.root);
      if (problem) {
        this.noteOnce(`${problem} (osimage cache clear removes it)`);
        return out;
      }
      kinds = await readdir(this.root);
    } catch (err) {
      ignoreMissing(err);
      return out;
    }
    for (const kind of kinds) {
      const folder = join(this.root, kind);
      let names: string[];
      try {
        const problem = folderProblem(await lstat(folder), folder);
        if (problem) {
          if (!problem.endsWith('is not a folder')) this.noteOnce(`${problem} (osimage cache clear removes it)`);
          continue;
        }
        names = await readdir(folder);
      } catch (err) {
        if (isMissing(err)) continue;
        throw err;
      }
      for (const name of names) {
        const path = join(folder, name);
        try {
          const st = await lstat(path);
          if (!st.isFile()) continue;
          // Another writer's temp file: left alone unless its writer is long gone.
          if (name.startsWith('.')) {
            if (now - st.mtimeMs > STALE_TEMP_MS) await unlink(path).catch(ignoreMissing);
            continue;
          }
          out.push({ path, size: st.size, used: st.mtimeMs });
        } catch (err) {
          ignoreMissing(err);
        }
      }
    }
    return out;
  }

  /** The folder, its entry count and their size in bytes. */
  async info(): Promise<CacheInfo> {
    await this.settle();
    const all = await this.entries(Date.now());
    return { dir: this.dir, entries: all.length, bytes: sumSizes(all) };
  }

  /**
   * Keep the most recently used entries whose sizes add up to at most `maxBytes`; remove the rest. Safe to run
   * in several processes at once: an entry already removed by another is not an error.
   */
  async prune(maxBytes: number = this.maxBytes): Promise<PruneResult> {
    await this.settle();
    return this.pruneNow(maxBytes);
  }

  /** prune() without waiting for pending writes (a write prunes after itself). */
  private async pruneNow(maxBytes: number): Promise<PruneResult> {
    const all = await this.entries(Date.now());
    all.sort((a, b) => b.used - a.used || (a.path < b.path ? -1 : 1));
    let bytes = 0;
    let entries = 0;
    let removed = 0;
    let full = false;
    for (const e of all) {
      // Strictly least recently used first: once one entry does not fit, every older one goes too.
      full ||= bytes + e.size > maxBytes;
      if (!full) {
        bytes += e.size;
        entries++;
        continue;
      }
      await unlink(e.path).catch(ignoreMissing);
      removed++;
    }
    return { dir: this.dir, entries, bytes, removed };
  }

  /**
   * Remove every entry (only this layout's folder: the cache folder itself and anything else in it stay). `v1/` is
   * first renamed away, then removed: writers racing the clear find no folder (and make a new one) instead of adding
   * files to one being removed, which made the removal fail (ENOTEMPTY). A symlinked `v1/` is moved and removed
   * as a link; nothing it points to is touched. The folder a clear that was stopped left behind goes too.
   */
  async clear(): Promise<void> {
    await this.settle();
    this.knownBytes = undefined;
    this.made.clear();
    // `.v1-clear-<time>-<pid>-<random>`: the time tells another clear whether this one may still be running.
    const away = join(this.dir, `${CLEARING}${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
    try {
      try {
        await rename(this.root, away);
      } catch (err) {
        ignoreMissing(err);
      }
      const now = Date.now();
      let names: string[] = [];
      try {
        names = await readdir(this.dir);
      } catch (err) {
        ignoreMissing(err);
      }
      for (const name of names) {
        const path = join(this.dir, name);
        if (!name.startsWith(CLEARING)) continue;
        // Another clear's folder is its own to remove, unless that clear is long gone.
        const started = Number.parseInt(name.slice(CLEARING.length), 36);
        if (path !== away && now - started <= STALE_TEMP_MS) continue;
        await rm(path, { recursive: true, force: true, maxRetries: 3 });
      }
    } catch (err) {
      throw new OsimageError(`cannot clear ${this.dir}: ${describe(err)}`, { cause: err });
    }
  }
}
