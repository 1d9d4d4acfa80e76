/**
 * Checking what `release extract --to` is about to lay out, before anything is written: names that climb out
 * of the folder, files that another entry needs as a folder, and symlinks whose target, followed through the
 * links the image lays out and the ones already in the folder, leads outside it.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, join, posix, relative, sep } from 'node:path';

/** What the image lays out at one path (relative to the folder). */
export interface PlannedEntry {
  path: string;
  type: 'file' | 'symlink';
  linkname?: string;
}

/** Symlinks followed while resolving one target, as the kernel's limit (ELOOP). */
const MAX_HOPS = 40;

export function escapes(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

/** Why the entry's own name or (for a symlink) its target text leads out, or undefined. */
export function lexicalEscape(e: PlannedEntry, folder: string): string | undefined {
  const normal = posix.normalize(e.path);
  if (normal === '..' || normal.startsWith('../') || posix.isAbsolute(normal)) return 'the path escapes the folder';
  if (e.type !== 'symlink') return undefined;
  const link = e.linkname ?? '';
  if (link.startsWith('/')) return `it is a symlink to the absolute path ${link}`;
  const pointsTo = posix.normalize(posix.join(posix.dirname(e.path), link));
  if (pointsTo === '..' || pointsTo.startsWith('../')) return `it is a symlink to ${link}, outside ${folder}/`;
  return undefined;
}

/** An entry that another entry of the image needs as a folder: `[file, child]`, or undefined. */
export function folderConflict(entries: PlannedEntry[]): [string, string] | undefined {
  const nonDirs = new Set(entries.map((e) => e.path));
  for (const e of entries) {
    for (let i = e.path.indexOf('/'); i > 0; i = e.path.indexOf('/', i + 1)) {
      const parent = e.path.slice(0, i);
      if (nonDirs.has(parent)) return [parent, e.path];
    }
  }
  return undefined;
}

type Node = { kind: 'link'; target: string } | { kind: 'real'; components: string[] } | { kind: 'other' };

/**
 * Follow `link.linkname` from the link's folder one component at a time, through the image's own symlinks
 * first and then what is on disk under `root`: the symlink that leads outside (or the loop), or undefined
 * when the target stays inside.
 */
export async function linkEscape(
  root: string,
  realRoot: string,
  plan: Map<string, PlannedEntry>,
  link: PlannedEntry,
): Promise<string | undefined> {
  const node = async (path: string): Promise<Node> => {
    const planned = plan.get(path);
    if (planned) return planned.type === 'symlink' ? { kind: 'link', target: planned.linkname ?? '' } : { kind: 'other' };
    const onDisk = join(root, ...path.split('/'));
    const st = await lstat(onDisk).catch(() => undefined);
    if (!st?.isSymbolicLink()) return { kind: 'other' };
    const real = await realpath(onDisk).catch(() => undefined);
    if (real === undefined) return { kind: 'link', target: await readlink(onDisk) };
    const rel = relative(realRoot, real);
    return escapes(rel) ? { kind: 'link', target: real } : { kind: 'real', components: rel ? rel.split(sep) : [] };
  };

  const stack = posix.dirname(link.path) === '.' ? [] : posix.dirname(link.path).split('/');
  const queue = (link.linkname ?? '').split('/');
  const out = (via: string | undefined) =>
    `it is a symlink to ${link.linkname}, which leads outside the folder${via ? ` through the symlink ${via}` : ''}`;
  let via: string | undefined;
  let hops = 0;
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (stack.length === 0) return out(via);
      stack.pop();
      continue;
    }
    const path = [...stack, part].join('/');
    const n = await node(path);
    if (n.kind === 'other') {
      stack.push(part);
      continue;
    }
    if (++hops > MAX_HOPS) return `it is a symlink to ${link.linkname}, which loops through the symlink ${path}`;
    via = path;
    if (n.kind === 'real') stack.splice(0, stack.length, ...n.components);
    else if (n.target.startsWith('/')) return out(path);
    // A relative target is read from the folder the link is in, which is `stack` as it is now.
    else queue.unshift(...n.target.split('/'));
  }
  return undefined;
}
