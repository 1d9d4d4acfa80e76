/**
 * osimage's on-disk cache: entries by key (keys.ts) under `<dir>/v1/<kind>/<name>`, each written atomically
 * (src/files/atomic.ts) with a checksum of its bytes, read back only when the checksum holds (a corrupted entry
 * is deleted and counts as a miss), and bounded in size: a read touches the entry's mtime, and pruning drops
 * the least recently used entries first. Several processes may share a folder: no locks, and an entry that
 * another process removed or replaced meanwhile is simply gone. The cache never fails a command: what it
 * cannot read or write is a miss, told only to `onNote` (the command prints it with OSIMAGE_DEBUG).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe } from '../errors.js';
import { writeFileAtomic } from '../files/atomic.js';
import { isMissing } from '../files/read.js';
import { onShutdown } from '../lifecycle.js';
import type { CacheKey } from './keys.js';

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
/** Temp files of writers that died are removed by prune once they are this old. */
const STALE_TEMP_MS = 60 * 60 * 1000;

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

/** `MAGIC <sha256 of the rest>\n<meta JSON>\n<data>` */
function encode(data: Uint8Array, meta: Record<string, string>): Buffer {
  const body = Buffer.concat([Buffer.from(`${JSON.stringify(meta)}\n`), data]);
  const sum = createHash('sha256').update(body).digest('hex');
  return Buffer.concat([Buffer.from(`${MAGIC} ${sum}\n`), body]);
}

/** The entry, or undefined when the bytes are not an intact entry. */
function decode(raw: Buffer): CacheEntry | undefined {
  const nl = raw.indexOf(0x0a);
  if (nl < 0) return undefined;
  const [magic, sum] = raw.subarray(0, nl).toString('latin1').split(' ');
  const body = raw.subarray(nl + 1);
  if (magic !== MAGIC || sum !== createHash('sha256').update(body).digest('hex')) return undefined;
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

const sumSizes = (all: ReadonlyArray<{ size: number }>) => all.reduce((n, e) => n + e.size, 0);

const ignoreMissing = (err: unknown) => {
  if (!isMissing(err)) throw err;
};

export class CacheStore {
  readonly dir: string;
  readonly maxBytes: number;
  private readonly onNote: (message: string) => void;
  /** Writes started by putSoon and not yet done, by path. */
  private readonly pending = new Map<string, Promise<void>>();
  private settleAtShutdown = false;
  /** Folders made by this run (made once, not per put). */
  private readonly made = new Set<string>();
  /** The bytes the folder holds, as far as this run knows (scanned at its first put, then added to). */
  private knownBytes: Promise<number> | undefined;

  constructor(dir: string, opts: { maxBytes?: number; onNote?: (message: string) => void } = {}) {
    this.dir = dir;
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    this.onNote = opts.onNote ?? (() => undefined);
  }

  private get root(): string {
    return join(this.dir, LAYOUT);
  }

  /** Where an entry lives. */
  path(key: CacheKey): string {
    return join(this.root, key.kind, key.name);
  }

  /** The entry, if the cache has an intact one; it becomes the most recently used. */
  async get(key: CacheKey): Promise<CacheEntry | undefined> {
    const path = this.path(key);
    await this.pending.get(path);
    let raw: Buffer;
    try {
      raw = await readFile(path);
    } catch (err) {
      if (!isMissing(err)) this.onNote(`cannot read ${path}: ${describe(err)}`);
      return undefined;
    }
    const entry = decode(raw);
    if (!entry) {
      this.onNote(`${path} is corrupted: removed`);
      await this.discard(key);
      return undefined;
    }
    const now = new Date();
    await utimes(path, now, now).catch(() => undefined);
    return entry;
  }

  /** Remove one entry (a caller found its content wrong). */
  async discard(key: CacheKey): Promise<void> {
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
    let encoded: Uint8Array;
    try {
      const folder = join(this.root, key.kind);
      if (!this.made.has(folder)) {
        await mkdir(folder, { recursive: true, mode: 0o700 });
        this.made.add(folder);
      }
      // A cache is rebuilt by the next run: no fsync; every entry is 0600, whatever was there.
      encoded = encode(data, meta);
      await writeFileAtomic(path, encoded, { mode: 0o600, forceMode: true, durable: false });
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

  /** Every entry with its size and last use; entries removed meanwhile by another process are left out. */
  private async entries(now: number): Promise<Array<{ path: string; size: number; used: number }>> {
    const out: Array<{ path: string; size: number; used: number }> = [];
    let kinds: string[];
    try {
      kinds = await readdir(this.root);
    } catch (err) {
      ignoreMissing(err);
      return out;
    }
    for (const kind of kinds) {
      let names: string[];
      try {
        names = await readdir(join(this.root, kind));
      } catch (err) {
        if (isMissing(err) || (err as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
        throw err;
      }
      for (const name of names) {
        const path = join(this.root, kind, name);
        try {
          const st = await stat(path);
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

  /** Remove every entry (only this layout's folder: the cache folder itself and anything else in it stay). */
  async clear(): Promise<void> {
    await this.settle();
    this.knownBytes = undefined;
    this.made.clear();
    await rm(this.root, { recursive: true, force: true });
  }
}
