/**
 * Reading files out of an image's layers, top layer first, the way a container runtime would see them:
 * a higher layer's copy wins, `.wh.<name>` deletes <name> from the layers below, `.wh..wh..opq` hides
 * everything below its directory. Only entries under the folder asked for are buffered, and a walk stops as
 * soon as the answer cannot change. The bytes of each layer (decompression, digest) come from layer-stream.ts.
 */
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { OsimageError } from '../errors.js';
import type { Descriptor, ImageManifest, ImageSource } from '../registry/types.js';
import { readLayer, requestLayer } from './layer-stream.js';
import type { TarHeader as Header } from '../oci/tar-header.js';

const WHITEOUT = '.wh.';
const OPAQUE = '.wh..wh..opq';

export interface LayerFile {
  /** Path relative to the folder walked (`image-references`, `0000_50_x.yaml`, `sub/dir/f`). */
  path: string;
  type: 'file' | 'symlink';
  /** The file's bytes (empty for a symlink, and for a file whose bytes the walk was told not to read). */
  data: Buffer;
  /** The file's size in bytes (0 for a symlink). */
  size: number;
  /** For a hard link: the path (relative to the folder) of the earlier file of the same layer it repeats. */
  linkOf?: string;
  /** Symlink target, as stored. */
  linkname?: string;
  mode: number;
  /** The entry's modification time, when its header has one. */
  mtime?: Date | undefined;
  /** Index of the layer in the manifest (0 = bottom). */
  layer: number;
}

/** An entry under the folder that could not be taken at face value: absolute, with `..`, or a hard link out of reach. */
export interface UnsafeEntry {
  name: string;
  reason: string;
  layer: number;
}

export interface WalkOptions {
  /** The folder to read, e.g. `release-manifests` (no leading or trailing slash). */
  folder: string;
  /**
   * Called for each visible file, highest copy only. Return 'stop' when the answer is complete:
   * no further entries or layers are read.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a callback may return nothing
  onFile?: (file: LayerFile) => 'stop' | void | Promise<'stop' | void>;
  /** Which files' bytes are read into memory (default: all); the others come with empty `data`. */
  wantData?: (path: string) => boolean;
  /**
   * Keep each read file's bytes until its layer ends, so that a hard link later in the layer gets them
   * (default true). A caller that stores files elsewhere passes false and follows `linkOf` itself.
   */
  holdForLinks?: boolean;
  /** Cap on the bytes held for hard links at once (default MAX_HELD_BYTES): past it the walk fails. */
  maxHeldBytes?: number;
  /** Called for suspicious entries under the folder; they are never passed to onFile. */
  onUnsafe?: (entry: UnsafeEntry) => void;
  /**
   * The paths (relative to folder) the caller needs. When given, the walk stops once every one of them is
   * settled: found in some layer, or deleted by a whiteout above any lower copy.
   */
  only?: string[];
  /**
   * Paths (relative to folder) the caller also wants when they are in the layers `only` makes the walk read:
   * a layer is not left early before they are met, but they never make the walk read another layer.
   */
  alsoWant?: string[];
  /**
   * End the walk with the first layer, top down, that holds a file under the folder, whatever that layer lacks:
   * the layer a payload's builder wrote, and the one oc reads. Whiteouts and files of the layers above it still
   * count; lower layers are not read. Without it every layer counts (the merged view a running container sees).
   */
  stopAtHolder?: boolean;
  /** Told before each layer is read (tests count reads; commands show progress); its blob may have been prefetched. */
  onLayer?: (layer: number, desc: Descriptor) => void;
  /**
   * Request the next lower layer once this many compressed bytes of the current one have been read (default
   * PREFETCH_AFTER_BYTES), so its transfer overlaps the current layer's inflating; Infinity turns it off.
   */
  prefetchAfter?: number;
  /** Told when a layer's blob is requested ahead of its turn (tests check the bound). */
  onPrefetch?: (layer: number, desc: Descriptor) => void;
}

export interface WalkResult {
  /** Layer indexes read, top first. */
  layersRead: number[];
  /**
   * Why the walk ended: all layers read, the caller stopped, the query was settled, the folder was hidden below,
   * or (stopAtHolder) a layer held the folder.
   */
  ended: 'bottom' | 'stopped' | 'settled' | 'hidden' | 'held';
  /** Paths (relative to folder) deleted by whiteouts in the layers read, which lower layers could not bring back. */
  deleted: Set<string>;
}

/**
 * A layer this big (compressed bytes read so far) takes long enough to inflate that the next one down is
 * requested meanwhile: one layer ahead at most, and only the blob stream is opened, so what waits is bounded by
 * the stream's and the socket's buffers (backpressure), and peak memory stays flat. A small top layer, such as a
 * release-manifests layer that answers the query, never triggers an extra request.
 */
export const PREFETCH_AFTER_BYTES = 4 * 1024 * 1024;

/** Default cap on the bytes of a layer's files held in memory at once (each file is also capped by MAX_FILE_BYTES). */
export const MAX_HELD_BYTES = 256 * 1024 * 1024;

const mib = (n: number) => `${Math.round(n / (1024 * 1024))} MiB`;

/** Whether a name is already normal: relative, no empty, `.` or `..` segment (a trailing `/` aside). */
function plainName(raw: string): boolean {
  if (raw === '' || raw.charCodeAt(0) === 0x2f) return false;
  let start = 0;
  for (let i = 0; i <= raw.length; i++) {
    if (i < raw.length && raw.charCodeAt(i) !== 0x2f) continue;
    const len = i - start;
    if (len === 0 && i < raw.length) return false;
    if (len === 1 && raw.charCodeAt(start) === 0x2e) return false;
    if (len === 2 && raw.charCodeAt(start) === 0x2e && raw.charCodeAt(start + 1) === 0x2e) return false;
    start = i + 1;
  }
  return true;
}

/** The last segment of a normal name, and the folder before it ('' at the top). */
function splitName(name: string): { dir: string; base: string } {
  const slash = name.lastIndexOf('/');
  return slash < 0 ? { dir: '', base: name } : { dir: name.slice(0, slash), base: name.slice(slash + 1) };
}

/** `./a/b`, `/a/b/` → `a/b`; absolute or `..` names are flagged. */
function normalizeName(raw: string): { name: string; unsafe?: string } {
  // Most names of a layer are already normal: the general path below costs several copies of each.
  if (plainName(raw)) return { name: raw.endsWith('/') ? raw.slice(0, -1) : raw };
  let n = raw.replace(/^(\.\/)+/, '');
  const absolute = n.startsWith('/');
  n = n.replace(/^\/+/, '').replace(/\/+$/, '');
  if (n.split('/').includes('..')) return { name: posix.normalize(n), unsafe: 'the path contains ..' };
  n = posix.normalize(n);
  if (n === '.') n = '';
  if (absolute) return { name: n, unsafe: 'the path is absolute' };
  return { name: n };
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  let i = path.lastIndexOf('/');
  while (i > 0) {
    out.push(path.slice(0, i));
    i = path.lastIndexOf('/', i - 1);
  }
  return out;
}

/** Whiteout and visibility bookkeeping across layers, in full paths. */
class Overlay {
  /** Paths settled by a higher layer (a file or symlink there wins). */
  readonly seen = new Set<string>();
  /** Paths deleted by a higher layer's whiteout, or replaced there by a non-directory. */
  readonly deleted = new Set<string>();
  /** Directories made opaque by a higher layer. */
  readonly opaque = new Set<string>();
  /** Folders in a higher layer (entries or the implied parents of entries): they hide lower non-directories. */
  readonly dirs = new Set<string>();

  /** Is a lower layer's copy of the non-directory `path` hidden by what higher layers did? */
  hidden(path: string): boolean {
    return this.dirs.has(path) || this.settled(path);
  }

  /** Is the whole folder hidden from lower layers (opaque, deleted, or an ancestor so)? */
  folderHidden(folder: string): boolean {
    return this.opaque.has(folder) || this.settled(folder);
  }

  /** `path` is settled or deleted above, the root is opaque, or an ancestor is deleted, opaque or a file. */
  private settled(path: string): boolean {
    if (this.seen.has(path) || this.deleted.has(path) || this.opaque.has('')) return true;
    return ancestors(path).some((a) => this.deleted.has(a) || this.opaque.has(a) || this.seen.has(a));
  }
}

/** The folder a walk reads, and which names concern it. */
class Scope {
  readonly prefix: string;
  constructor(readonly folder: string) {
    this.prefix = `${folder}/`;
  }
  has(name: string): boolean {
    return name === this.folder || name.startsWith(this.prefix);
  }
  /** Names outside the folder matter only as whiteouts of the folder or an ancestor. */
  whiteoutMatters(target: string): boolean {
    return this.has(target) || this.prefix.startsWith(`${target}/`) || target === '';
  }
}

/**
 * What one layer does under the folder: `apply` takes its entries in order and gives the files it makes visible
 * (the highest copy only); `commit` then lets its whiteouts, opaque markers and folders hide what lower layers
 * hold. Whiteouts take effect for lower layers only, so nothing of a layer is committed before its end.
 */
class LayerState {
  private readonly deletes = new Set<string>();
  private readonly opaques = new Set<string>();
  readonly seen = new Set<string>();
  private readonly dirs = new Set<string>();
  private readonly files = new Map<string, { rel: string; size: number; data: Buffer | undefined }>();
  private held = 0;
  /** Whether the layer has a file (not a folder, not a whiteout) under the folder, visible or not. */
  holdsFolder = false;

  constructor(
    private readonly scope: Scope,
    private readonly overlay: Overlay,
    private readonly layer: number,
    private readonly where: { source: string; digest: string },
    private readonly opts: WalkOptions,
  ) {}

  /** One entry of the layer: the file it makes visible, or undefined (not in the folder, hidden, a marker). */
  apply(h: Header, data: Buffer | undefined): LayerFile | undefined {
    const { scope, opts } = this;
    const { name, unsafe } = normalizeName(h.name);
    const { dir, base } = splitName(name);
    if (unsafe) {
      if (scope.has(name) || h.name.replace(/^(\.\/|\/)+/, '').startsWith(scope.prefix))
        opts.onUnsafe?.({ name: h.name, reason: unsafe, layer: this.layer });
      return undefined;
    }
    // Every entry under the folder makes its parents folders in this layer (and a directory entry itself).
    if (scope.has(name)) {
      for (const a of ancestors(name)) if (a.startsWith(scope.prefix)) this.dirs.add(a);
      if (h.type === 'directory' && name !== scope.folder) this.dirs.add(name);
    }
    if (base === OPAQUE) {
      if (scope.whiteoutMatters(dir)) this.opaques.add(dir);
      return undefined;
    }
    if (base.startsWith(WHITEOUT)) {
      if (base.startsWith(`${WHITEOUT}${WHITEOUT}`)) return undefined; // other aufs metadata
      const target = dir ? `${dir}/${base.slice(WHITEOUT.length)}` : base.slice(WHITEOUT.length);
      if (scope.whiteoutMatters(target)) this.deletes.add(target);
      return undefined;
    }
    if (!scope.has(name)) return undefined;
    if (name !== scope.folder && h.type !== 'directory') this.holdsFolder = true;
    if (name === scope.folder) {
      // A non-directory where the folder should be replaces it for the layers below.
      if (h.type !== 'directory') this.deletes.add(scope.folder);
      return undefined;
    }
    if (h.type === 'directory' || this.overlay.hidden(name) || this.seen.has(name)) return undefined;
    const file = this.fileOf(h, name, data);
    if (file === 'ignored') return undefined;
    this.seen.add(name); // even a device or fifo shadows lower copies
    return file === 'shadows' ? undefined : file;
  }

  /** The file an entry is; `shadows` for a device or fifo (no file, but lower copies stay hidden); `ignored`. */
  private fileOf(h: Header, name: string, data: Buffer | undefined): LayerFile | 'shadows' | 'ignored' {
    const { opts } = this;
    const rel = name.slice(this.scope.prefix.length);
    const mode = (h.mode ?? 0) & 0o7777;
    if (h.type === 'file' || h.type === 'contiguous-file') {
      const hold = data && (opts.holdForLinks ?? true) ? data : undefined;
      this.held += hold?.length ?? 0;
      const cap = opts.maxHeldBytes ?? MAX_HELD_BYTES;
      if (this.held > cap)
        throw new OsimageError(
          `cannot read ${this.where.source}: the files of layer ${this.where.digest} under ${this.scope.folder}/ need more than ${mib(cap)} of memory (at ${h.name})`,
        );
      this.files.set(name, { rel, size: h.size ?? 0, data: hold });
      return { path: rel, type: 'file', data: data ?? Buffer.alloc(0), size: h.size ?? 0, mode, mtime: h.mtime, layer: this.layer };
    }
    if (h.type === 'symlink') {
      return { path: rel, type: 'symlink', data: Buffer.alloc(0), size: 0, linkname: h.linkname, mode, mtime: h.mtime, layer: this.layer };
    }
    if (h.type !== 'link') return 'shadows';
    // A hard link to an earlier entry of this layer.
    const target = normalizeName(h.linkname ?? '');
    const earlier = target.unsafe ? undefined : this.files.get(target.name);
    if (!earlier) {
      opts.onUnsafe?.({
        name: h.name,
        reason: `hard link to ${h.linkname}, which is not a file of this layer under ${this.scope.folder}/`,
        layer: this.layer,
      });
      return 'ignored';
    }
    if (!earlier.data && (opts.holdForLinks ?? true) && (opts.wantData?.(rel) ?? true))
      throw new OsimageError(`cannot read ${this.where.source}: ${h.name} is a hard link to ${h.linkname}, whose bytes were not read`);
    this.files.set(name, earlier);
    return {
      path: rel,
      type: 'file',
      data: earlier.data ?? Buffer.alloc(0),
      size: earlier.size,
      linkOf: earlier.rel,
      mode,
      mtime: h.mtime,
      layer: this.layer,
    };
  }

  /** The layer has ended: what it holds and hides now counts for every layer below. */
  commit(deleted: Set<string>): void {
    const { overlay, scope } = this;
    for (const p of this.seen) overlay.seen.add(p);
    for (const p of this.deletes) {
      if (this.seen.has(p)) continue;
      overlay.deleted.add(p);
      if (p.startsWith(scope.prefix)) deleted.add(p.slice(scope.prefix.length));
    }
    for (const d of this.opaques) overlay.opaque.add(d);
    for (const d of this.dirs) overlay.dirs.add(d);
  }
}

/**
 * Walk the layers top down for files under `opts.folder`, honouring whiteouts: each visible file is given
 * to onFile once (its highest copy). This is regclient's "first layer, top down, that has this path" with
 * a callback, generalised to a folder.
 */
export async function walkLayers(source: ImageSource, manifest: ImageManifest, opts: WalkOptions): Promise<WalkResult> {
  const scope = new Scope(opts.folder.replace(/^\/+|\/+$/g, ''));
  const overlay = new Overlay();
  const wanted = opts.only ? new Set(opts.only.map((p) => `${scope.prefix}${p}`)) : undefined;
  const alsoWanted = new Set((opts.alsoWant ?? []).map((p) => `${scope.prefix}${p}`));
  const layersRead: number[] = [];
  const deleted = new Set<string>();
  const prefetchAfter = opts.prefetchAfter ?? PREFETCH_AFTER_BYTES;
  let ahead: { layer: number; raw: Promise<Readable> } | undefined;

  const wants = (h: Header): boolean => {
    if (h.type !== 'file' && h.type !== 'contiguous-file') return false;
    const { name, unsafe } = normalizeName(h.name);
    return (
      !unsafe &&
      name.startsWith(scope.prefix) &&
      !splitName(name).base.startsWith(WHITEOUT) &&
      (opts.wantData?.(name.slice(scope.prefix.length)) ?? true)
    );
  };

  /** Read layer `i`; says whether (and why) the walk ends there. */
  const readOne = async (i: number): Promise<'stopped' | 'settled' | 'held' | undefined> => {
    const desc = manifest.layers[i]!;
    opts.onLayer?.(i, desc);
    layersRead.push(i);
    const state = new LayerState(scope, overlay, i, { source: source.name, digest: desc.digest }, opts);
    let stopped: 'stopped' | 'settled' | undefined;
    let raw: Promise<Readable> | undefined;
    if (ahead?.layer === i) {
      raw = ahead.raw;
      ahead = undefined;
    }
    const below = i - 1;
    const prefetch = (total: number) => {
      if (ahead || below < 0 || total < prefetchAfter) return;
      const d = manifest.layers[below]!;
      opts.onPrefetch?.(below, d);
      ahead = { layer: below, raw: requestLayer(source, d) };
    };
    await readLayer(
      source,
      desc,
      {
        wants,
        onEntry: async (h, data) => {
          const file = state.apply(h, data);
          if (!file) return;
          if ((await opts.onFile?.(file)) === 'stop') {
            stopped = 'stopped';
            return 'stop';
          }
          const name = `${scope.prefix}${file.path}`;
          const asked = wanted?.has(name) || alsoWanted.has(name);
          if (wanted && asked && [...wanted, ...alsoWanted].every((p) => state.seen.has(p) || overlay.hidden(p))) {
            stopped = 'settled';
            return 'stop';
          }
        },
      },
      { ...(raw ? { raw } : {}), ...(below >= 0 && Number.isFinite(prefetchAfter) ? { onBytes: prefetch } : {}) },
    );
    state.commit(deleted);
    return stopped ?? (opts.stopAtHolder && state.holdsFolder ? 'held' : undefined);
  };

  try {
    for (let i = manifest.layers.length - 1; i >= 0; i--) {
      const stopped = await readOne(i);
      if (stopped) return { layersRead, ended: stopped, deleted };
      if (wanted && [...wanted].every((p) => overlay.hidden(p))) return { layersRead, ended: 'settled', deleted };
      if (overlay.folderHidden(scope.folder)) return { layersRead, ended: 'hidden', deleted };
    }
    return { layersRead, ended: 'bottom', deleted };
  } finally {
    // A prefetched layer the walk did not reach (it stopped, settled or failed): abort its request.
    if (ahead)
      void ahead.raw.then(
        (s) => s.destroy(),
        () => undefined,
      );
  }
}

/**
 * The first layer, top down, that has `folder/path`, honouring whiteouts: its bytes, or undefined when no
 * layer has it or a whiteout above deleted it.
 */
export async function findFile(
  source: ImageSource,
  manifest: ImageManifest,
  folder: string,
  path: string,
  extra: Pick<WalkOptions, 'onLayer' | 'prefetchAfter' | 'onPrefetch'> = {},
): Promise<LayerFile | undefined> {
  const rel = normalizeName(path);
  if (rel.unsafe || rel.name === '') return undefined;
  let found: LayerFile | undefined;
  await walkLayers(source, manifest, {
    ...extra,
    folder,
    only: [rel.name],
    wantData: (p) => p === rel.name,
    onFile: (f) => {
      if (f.path === rel.name) {
        found = f;
        return 'stop';
      }
    },
  });
  return found;
}
