/**
 * `release extract`: one file's raw bytes, or every file of release-manifests/ written under a folder.
 * For `--to`, files are streamed into a staging folder inside DIR as the layers are read (memory stays flat),
 * then everything is checked (names, files another entry needs as folders, symlinks followed through the
 * image's own links and what DIR already holds) before anything is moved into place; on a refusal DIR is left
 * as it was. Each staged file is written, given its mode and time and flushed through one descriptor, many at
 * once (not one fsync after another); each folder is flushed once after the renames. The small steps of a file
 * (open, write, mode, time, close, rename) only touch the page cache and are made synchronously: ~860 manifests
 * would make seven trips each through the thread pool, which meanwhile inflates the next layer. Only the
 * flushes, which wait on the disk, go to the pool.
 * Each file (and symlink) gets the modification time of its tar entry, as oc's extraction gives it, not the time
 * of the run: a second extraction of the same release leaves the times as they were.
 */
import { closeSync, copyFileSync, fchmodSync, fsync, futimesSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { chmod, lstat, lutimes, mkdir, mkdtemp, realpath, rm, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { OsimageError, describe } from '../errors.js';
import { symlinkAtomic, syncMany } from '../files/atomic.js';
import { forEachLimit } from '../files/parallel.js';
import { resolveImage, type ResolvedImage } from '../registry/platform.js';
import type { Descriptor, ImageConfig, ImageSource } from '../registry/types.js';
import { escapes, folderConflict, lexicalEscape, linkEscape, type PlannedEntry } from './extract-plan.js';
import { RELEASE_FOLDER, readImageConfig } from './info.js';
import { findFile, walkLayers, type LayerFile } from './overlay.js';

export interface ExtractOptions {
  filterByOs?: string;
  onLayer?: (layer: number, desc: Descriptor) => void;
}

/** The bytes of release-manifests/NAME (highest layer's copy, whiteouts honoured), or undefined. */
export async function extractFile(
  source: ImageSource,
  name: string,
  opts: ExtractOptions = {},
): Promise<{ file: LayerFile | undefined; image: ResolvedImage }> {
  const image = await resolveImage(source, opts.filterByOs);
  const file = await findFile(source, image.manifest.parsed, RELEASE_FOLDER, name, opts.onLayer ? { onLayer: opts.onLayer } : {});
  return { file: file?.type === 'file' ? file : undefined, image };
}

/**
 * Check (and with `create`, make) the folders of `relDir` under `root` one at a time, so that a folder that
 * already exists as a symlink leading out of `root`, or a file in the way, is found before anything is
 * written. `known` remembers folders already checked.
 */
async function parents(
  root: string,
  realRoot: string,
  relDir: string,
  refuse: (why: string) => Error,
  known: Set<string>,
  create: boolean,
): Promise<void> {
  let cur = root;
  for (const part of relDir === '.' ? [] : relDir.split('/')) {
    cur = join(cur, part);
    if (known.has(cur)) continue;
    const st = await lstat(cur).catch(() => undefined);
    if (!st) {
      if (!create) return; // nothing below a missing folder exists either
      try {
        // The image's folders get 0755 whatever the umask, as oc gives them.
        await mkdir(cur, { mode: FOLDER_MODE });
        await chmod(cur, FOLDER_MODE);
      } catch (err) {
        throw new OsimageError(`cannot create ${cur}: ${describe(err)}`);
      }
    } else if (st.isSymbolicLink()) {
      const real = await realpath(cur).catch(() => cur);
      if (escapes(relative(realRoot, real))) throw refuse(`${cur} resolves to ${real}`);
    } else if (!st.isDirectory()) throw refuse(`${cur} is a file, not a folder`);
    known.add(cur);
  }
}

export interface ExtractedTree {
  digest: string;
  listDigest?: string;
  config: ImageConfig;
  files: string[];
}

/** oc's modes for what `extract --to` writes: every file (new or replaced) 0640, each folder it makes 0755. */
const FILE_MODE = 0o640;
const FOLDER_MODE = 0o755;

/** Staged writes in flight at once, and the bytes they may hold. */
const STAGE_PARALLEL = 32;
const STAGE_BYTES = 64 * 1024 * 1024;

/** What is at `path` (not following a symlink), or undefined when nothing, or nothing that can be looked at. */
function lstatOrNone(path: string) {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** fsync(2) of a descriptor, on the thread pool. */
const fsyncFd = (fd: number) => new Promise<void>((ok, fail) => fsync(fd, (err) => (err ? fail(err) : ok())));

/**
 * Writes new files into the staging folder without waiting for each one's flush: at most STAGE_PARALLEL
 * flushes or STAGE_BYTES in flight. Each file is created, filled, given FILE_MODE and `mtime` at once, then
 * flushed to disk through the same descriptor (the flushes of many files overlap, and the layers' reading goes
 * on meanwhile). The first failure is thrown by the next call, or by `done`.
 */
class Stager {
  private readonly pending = new Map<string, Promise<void>>();
  private bytes = 0;
  private failure: unknown;

  async write(what: string, tmp: string, data: Buffer, copyOf?: string, mtime?: Date): Promise<void> {
    while (this.pending.size >= STAGE_PARALLEL || (this.bytes > STAGE_BYTES && this.pending.size > 0)) {
      await Promise.race(this.pending.values());
    }
    if (this.failure) throw this.failure;
    const earlier = copyOf !== undefined ? this.pending.get(copyOf) : undefined;
    const size = data.length;
    this.bytes += size;
    const p = (async () => {
      await earlier;
      if (copyOf !== undefined) copyFileSync(copyOf, tmp);
      const fd = openSync(tmp, copyOf !== undefined ? 'r+' : 'wx', 0o600);
      try {
        for (let at = 0; copyOf === undefined && at < data.length; ) at += writeSync(fd, data, at);
        // The staging folder is private (0700); the mode is the one the file gets in DIR, whatever the umask.
        fchmodSync(fd, FILE_MODE);
        if (mtime) futimesSync(fd, mtime, mtime);
        await fsyncFd(fd);
      } finally {
        closeSync(fd);
      }
    })()
      .catch((err: unknown) => {
        this.failure ??= new OsimageError(`cannot write ${what}: ${describe(err)}`);
      })
      .finally(() => {
        this.bytes -= size;
        this.pending.delete(tmp);
      });
    this.pending.set(tmp, p);
  }

  async done(): Promise<void> {
    await Promise.all(this.pending.values());
    if (this.failure) throw this.failure;
  }
}

interface Staged extends PlannedEntry {
  /** The staged copy of a file, inside the staging folder. */
  tmp?: string;
  /** The time in the entry's tar header: the file gets it, as oc's extraction gives it. */
  mtime?: Date;
}

/** Write every file of release-manifests/ under `dir` (created if missing). */
export async function extractTree(source: ImageSource, dir: string, opts: ExtractOptions = {}): Promise<ExtractedTree> {
  const image = await resolveImage(source, opts.filterByOs);
  const manifest = image.manifest.parsed;
  // The config is asked for alongside the layers; a failure is reported once the walk is over.
  const configRead = readImageConfig(source, manifest.config);
  configRead.catch(() => undefined);
  const root = resolve(dir);
  const refuse = (name: string, why: string) =>
    new OsimageError(`refusing to extract ${name} from ${source.name}: ${why} (it would be written outside ${dir})`);
  const entryName = (path: string) => `${RELEASE_FOLDER}/${path}`;

  let created: string | undefined;
  try {
    created = await mkdir(root, { recursive: true });
  } catch (err) {
    throw new OsimageError(`cannot create ${dir}: ${describe(err)}`);
  }
  const realRoot = await realpath(root);
  const stage = await mkdtemp(join(root, '.osimage-extract-'));
  let moving = false;
  try {
    const entries: Staged[] = [];
    const stagedOf = new Map<string, string>();
    const stager = new Stager();
    await walkLayers(source, manifest, {
      folder: RELEASE_FOLDER,
      holdForLinks: false,
      // Every layer is read: the next one is requested as soon as this one starts, so that its transfer overlaps
      // the staging of a release layer's many small files (still one layer ahead at most).
      prefetchAfter: 0,
      ...(opts.onLayer ? { onLayer: opts.onLayer } : {}),
      onUnsafe: (u) => {
        throw refuse(u.name, u.reason);
      },
      onFile: async (f) => {
        const e: Staged = {
          path: f.path,
          type: f.type,
          ...(f.linkname !== undefined ? { linkname: f.linkname } : {}),
          ...(f.mtime !== undefined ? { mtime: f.mtime } : {}),
        };
        const why = lexicalEscape(e, RELEASE_FOLDER);
        if (why) throw refuse(entryName(f.path), why);
        if (f.type === 'file') {
          e.tmp = join(stage, String(entries.length));
          await stager.write(
            `${entryName(f.path)} to ${stage}`,
            e.tmp,
            f.data,
            f.linkOf !== undefined ? stagedOf.get(f.linkOf) : undefined,
            f.mtime,
          );
          stagedOf.set(f.path, e.tmp);
        }
        entries.push(e);
      },
    });

    // The staged copies have the layer's times (a rename keeps them, so each file appears with its time) and are on disk.
    await stager.done();
    // Before anything is moved into DIR: an unreadable config leaves DIR as it was.
    const config = await configRead;
    // Everything is known: check it all before the first file is moved into DIR.
    const conflict = folderConflict(entries);
    if (conflict)
      throw new OsimageError(
        `cannot extract ${entryName(conflict[0])} from ${source.name}: the image also has ${entryName(conflict[1])}, which needs it to be a folder`,
      );
    const plan = new Map(entries.map((e) => [e.path, e]));
    const checked = new Set<string>();
    for (const e of entries) await parents(root, realRoot, dirname(e.path), (why) => refuse(entryName(e.path), why), checked, false);
    await forEachLimit(entries, STAGE_PARALLEL, async (e) => {
      const target = join(root, ...e.path.split('/'));
      if (lstatOrNone(target)?.isDirectory())
        throw new OsimageError(`cannot extract ${entryName(e.path)} from ${source.name}: ${target} is a folder`);
      if (e.type === 'symlink') {
        const why = await linkEscape(root, realRoot, plan, e);
        if (why) throw refuse(entryName(e.path), why);
      }
    });

    moving = true;
    const ordered = [...entries.filter((e) => e.type === 'file'), ...entries.filter((e) => e.type === 'symlink')];
    const made = new Set<string>();
    for (const e of ordered) await parents(root, realRoot, dirname(e.path), (why) => refuse(entryName(e.path), why), made, true);
    const place = async (e: Staged) => {
      const target = join(root, ...e.path.split('/'));
      if (e.tmp) {
        // A rename replaces a file or a symlink there as it is: only a symlink's own creation needs to look first.
        // The staged file already has its mode, its time and its bytes on disk.
        try {
          renameSync(e.tmp, target);
        } catch (err) {
          try {
            unlinkSync(e.tmp);
          } catch {
            // the staging folder is removed at the end anyway
          }
          throw new OsimageError(`cannot write ${target}: ${describe(err)}`, { cause: err });
        }
      } else {
        if ((await lstat(target).catch(() => undefined))?.isSymbolicLink()) await unlink(target);
        await symlinkAtomic(target, e.linkname ?? '');
        if (e.mtime) await lutimes(target, e.mtime, e.mtime).catch(() => undefined);
      }
    };
    // Files first, then symlinks (which may point at them); the paths are distinct, so each group runs in parallel.
    await forEachLimit(
      ordered.filter((e) => e.tmp),
      STAGE_PARALLEL,
      place,
    );
    await forEachLimit(
      ordered.filter((e) => !e.tmp),
      STAGE_PARALLEL,
      place,
    );
    // The renames are durable once each folder that received one is flushed.
    await syncMany([...new Set(ordered.map((e) => dirname(join(root, ...e.path.split('/')))))]);
    // Re-check what was laid out: a symlink that resolves outside DIR after all is removed.
    for (const e of ordered) {
      if (e.type !== 'symlink') continue;
      const target = join(root, ...e.path.split('/'));
      const real = await realpath(target).catch(() => undefined);
      if (real !== undefined && escapes(relative(realRoot, real))) {
        await unlink(target).catch(() => undefined);
        throw refuse(entryName(e.path), `it resolves to ${real}`);
      }
    }
    return {
      digest: image.manifest.digest,
      ...(image.list ? { listDigest: image.list.digest } : {}),
      config,
      files: ordered.map((e) => e.path),
    };
  } finally {
    await rm(stage, { recursive: true, force: true });
    // DIR was made for this run and nothing was moved into it: leave no trace of it either.
    if (created && !moving) await rm(created, { recursive: true, force: true }).catch(() => undefined);
  }
}
