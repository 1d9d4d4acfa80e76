/** One installed package of a build: an rpm of the OS tree, or an extension (meta.json `extensions.manifest`). */
import { formatEvr, type Evr } from '../rpm/vercmp.js';

export interface Package extends Evr {
  name: string;
  arch: string;
  /** true for meta.json `extensions.manifest` entries (kernel-rt, qemu-img…), which the OS tree does not hold. */
  extension: boolean;
}

/** `name-[epoch:]version-release.arch`. */
export function nevra(p: Package): string {
  return `${p.name}-${formatEvr(p)}.${p.arch}`;
}

/** `[epoch:]version-release`. */
export function evr(p: Evr): string {
  return formatEvr(p);
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** By name, then NEVRA, byte-wise (stable across locales). */
export function comparePackages(a: Package, b: Package): number {
  return byString(a.name, b.name) || byString(nevra(a), nevra(b));
}

// rpm allows more in names than this, but every name a build has listed fits; anything else is refused, so a
// hostile list cannot smuggle control characters or separators into output or URLs.
const NAME = /^[A-Za-z0-9_+.-]{1,200}$/;
const VERSION = /^[A-Za-z0-9._+~^]{1,200}$/;
const EPOCH = /^[0-9]{1,10}$/;
const ARCH = /^[A-Za-z0-9_]{1,32}$/;

/** Why a field is not acceptable, or null. */
export function fieldProblem(field: 'name' | 'epoch' | 'version' | 'release' | 'arch', value: unknown): string | null {
  if (typeof value !== 'string') return `${field} must be a string`;
  const re = field === 'name' ? NAME : field === 'epoch' ? EPOCH : field === 'arch' ? ARCH : VERSION;
  return re.test(value) ? null : `invalid ${field} ${JSON.stringify(value.slice(0, 80))}`;
}

/**
 * Parse `[epoch:]version-release.arch` (meta.json `extensions.manifest` values): the arch after the last dot,
 * the release between the last dash and it. Returns null when the value has not that shape.
 */
export function parseEvrArch(value: string): { epoch: string; version: string; release: string; arch: string } | null {
  const colon = value.indexOf(':');
  const epoch = colon === -1 ? '0' : value.slice(0, colon);
  const rest = colon === -1 ? value : value.slice(colon + 1);
  const dot = rest.lastIndexOf('.');
  const dash = rest.lastIndexOf('-', dot);
  if (dot === -1 || dash <= 0 || dash > dot) return null;
  const r = { epoch, version: rest.slice(0, dash), release: rest.slice(dash + 1, dot), arch: rest.slice(dot + 1) };
  for (const f of ['epoch', 'version', 'release', 'arch'] as const) if (fieldProblem(f, r[f]) !== null) return null;
  return r;
}
