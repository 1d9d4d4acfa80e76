/**
 * `release extract`: one file's raw bytes, or every file of release-manifests/ written under a folder.
 * Paths that would land outside the folder (absolute names, `..`, symlinks pointing out) are refused before
 * anything is written; each file is written atomically.
 */
import { lstat, mkdir, realpath, unlink } from 'node:fs/promises';
import { dirname, join, posix, relative, resolve, sep, isAbsolute } from 'node:path';
import { OsimageError, describe } from '../errors.js';
import { symlinkAtomic, writeFileAtomic } from '../files/atomic.js';
import { resolveImage, type ResolvedImage } from '../registry/platform.js';
import type { Descriptor, ImageConfig, ImageSource } from '../registry/types.js';
import { RELEASE_FOLDER, readImageConfig } from './info.js';
import { findFile, walkLayers, type LayerFile, type UnsafeEntry } from './overlay.js';

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
 * Create the folders of `relDir` under `root` one at a time, so that a folder that already exists as a symlink
 * leading out of `root` is found before anything is created through it.
 */
async function makeParents(realRoot: string, root: string, relDir: string, refuse: (why: string) => Error): Promise<void> {
  let cur = root;
  for (const part of relDir === '.' ? [] : relDir.split('/')) {
    cur = join(cur, part);
    const st = await lstat(cur).catch(() => undefined);
    if (!st) {
      try {
        await mkdir(cur);
      } catch (err) {
        throw new OsimageError(`cannot create ${cur}: ${describe(err)}`);
      }
      continue;
    }
    if (st.isSymbolicLink()) {
      const real = await realpath(cur).catch(() => cur);
      if (escapes(relative(realRoot, real))) throw refuse(`${cur} resolves to ${real}`);
      continue;
    }
    if (!st.isDirectory()) throw new OsimageError(`cannot create ${cur}: a file is in the way`);
  }
}

export interface ExtractedTree {
  digest: string;
  listDigest?: string;
  config: ImageConfig;
  files: string[];
}

function escapes(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

/** Write every file of release-manifests/ under `dir` (created if missing). */
export async function extractTree(source: ImageSource, dir: string, opts: ExtractOptions = {}): Promise<ExtractedTree> {
  const image = await resolveImage(source, opts.filterByOs);
  const manifest = image.manifest.parsed;
  const config = await readImageConfig(source, manifest.config);
  const files: LayerFile[] = [];
  const unsafe: UnsafeEntry[] = [];
  await walkLayers(source, manifest, {
    folder: RELEASE_FOLDER,
    ...(opts.onLayer ? { onLayer: opts.onLayer } : {}),
    onUnsafe: (u) => unsafe.push(u),
    onFile: (f) => {
      files.push(f);
    },
  });
  const root = resolve(dir);
  const refuse = (name: string, why: string) =>
    new OsimageError(`refusing to extract ${name} from ${source.name}: ${why} (it would be written outside ${dir})`);
  if (unsafe.length > 0) throw refuse(unsafe[0]!.name, unsafe[0]!.reason);
  for (const f of files) {
    const target = resolve(root, ...f.path.split('/'));
    if (escapes(relative(root, target))) throw refuse(`${RELEASE_FOLDER}/${f.path}`, 'the path escapes the folder');
    if (f.type === 'symlink') {
      const link = f.linkname ?? '';
      if (link.startsWith('/')) throw refuse(`${RELEASE_FOLDER}/${f.path}`, `it is a symlink to the absolute path ${link}`);
      const pointsTo = posix.normalize(posix.join(posix.dirname(f.path), link));
      if (pointsTo === '..' || pointsTo.startsWith('../'))
        throw refuse(`${RELEASE_FOLDER}/${f.path}`, `it is a symlink to ${link}, outside release-manifests/`);
    }
  }

  try {
    await mkdir(root, { recursive: true });
  } catch (err) {
    throw new OsimageError(`cannot create ${dir}: ${describe(err)}`);
  }
  const realRoot = await realpath(root);
  const ordered = [...files.filter((f) => f.type === 'file'), ...files.filter((f) => f.type === 'symlink')];
  for (const f of ordered) {
    const target = join(root, ...f.path.split('/'));
    await makeParents(realRoot, root, dirname(f.path), (why) => refuse(`${RELEASE_FOLDER}/${f.path}`, why));
    const existing = await lstat(target).catch(() => undefined);
    if (existing?.isSymbolicLink()) await unlink(target);
    if (f.type === 'file') await writeFileAtomic(target, f.data);
    else await symlinkAtomic(target, f.linkname ?? '');
  }
  return {
    digest: image.manifest.digest,
    ...(image.list ? { listDigest: image.list.digest } : {}),
    config,
    files: ordered.map((f) => f.path),
  };
}
