/**
 * The package diff of two builds, as rpm-ostree's `db diff` and coreos-assembler's meta.json `pkgdiff` give it:
 * added, removed, upgraded, downgraded (and unchanged), compared by rpm's EVR order. Packages pair by name;
 * a name listed more than once on a side (install-only kernels, gpg-pubkey) pairs by NEVRA, leftovers being
 * added or removed. Pure.
 */
import { compareEvr } from '../rpm/vercmp.js';
import { comparePackages, evr, nevra, type Package } from './package.js';

export type ChangeKind = 'added' | 'removed' | 'upgraded' | 'downgraded' | 'unchanged';

export interface PackageChange {
  name: string;
  kind: ChangeKind;
  from: Package | null;
  to: Package | null;
}

export interface PackageDiff {
  changes: PackageChange[];
  counts: Record<ChangeKind, number>;
}

function byName(list: Package[]): Map<string, Package[]> {
  const m = new Map<string, Package[]>();
  for (const p of list) m.set(p.name, [...(m.get(p.name) ?? []), p]);
  return m;
}

export function diffPackages(from: Package[], to: Package[]): PackageDiff {
  const a = byName(from);
  const b = byName(to);
  const changes: PackageChange[] = [];
  for (const name of new Set([...a.keys(), ...b.keys()])) {
    const olds = a.get(name) ?? [];
    const news = b.get(name) ?? [];
    if (olds.length === 1 && news.length === 1 && olds[0]!.arch === news[0]!.arch) {
      const [o, n] = [olds[0]!, news[0]!];
      const order = compareEvr(o, n);
      changes.push({ name, kind: order < 0 ? 'upgraded' : order > 0 ? 'downgraded' : 'unchanged', from: o, to: n });
      continue;
    }
    const newKeys = new Set(news.map(nevra));
    const oldKeys = new Set(olds.map(nevra));
    for (const o of olds)
      changes.push(newKeys.has(nevra(o)) ? { name, kind: 'unchanged', from: o, to: o } : { name, kind: 'removed', from: o, to: null });
    for (const n of news) if (!oldKeys.has(nevra(n))) changes.push({ name, kind: 'added', from: null, to: n });
  }
  changes.sort((x, y) => comparePackages((x.to ?? x.from)!, (y.to ?? y.from)!));
  const counts: Record<ChangeKind, number> = { added: 0, removed: 0, upgraded: 0, downgraded: 0, unchanged: 0 };
  for (const c of changes) counts[c.kind]++;
  return { changes, counts };
}

/** rpm-ostree / coreos-assembler `pkgdiff` types. */
export const PKGDIFF_TYPE = { added: 0, removed: 1, upgraded: 2, downgraded: 3 } as const;

export type PkgdiffEntry = [string, number, { PreviousPackage?: [string, string, string]; NewPackage?: [string, string, string] }];

/** The changes in the `pkgdiff` shape: `[name, type, {PreviousPackage: [name, evr, arch], NewPackage: [...]}]`. */
export function toPkgdiff(d: PackageDiff): PkgdiffEntry[] {
  const triple = (p: Package): [string, string, string] => [p.name, evr(p), p.arch];
  return d.changes
    .filter((c) => c.kind !== 'unchanged')
    .map((c) => [
      c.name,
      PKGDIFF_TYPE[c.kind as Exclude<ChangeKind, 'unchanged'>],
      { ...(c.from ? { PreviousPackage: triple(c.from) } : {}), ...(c.to ? { NewPackage: triple(c.to) } : {}) },
    ]);
}

/** The architecture most of a list's arch-specific packages have (noarch ignored); null for an empty list. */
export function mainArch(list: Package[]): string | null {
  const counts = new Map<string, number>();
  for (const p of list) if (p.arch !== 'noarch' && !p.extension) counts.set(p.arch, (counts.get(p.arch) ?? 0) + 1);
  let best: string | null = null;
  for (const [arch, n] of counts) if (best === null || n > counts.get(best)!) best = arch;
  return best;
}
