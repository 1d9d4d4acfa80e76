/** `diff FROM TO` views: text, and `-o json` in the rpm-ostree / coreos-assembler `pkgdiff` shape. */
import type { Advisory } from '../packages/advisories.js';
import type { BuildDiffReport, SideReport } from '../packages/compare.js';
import { toPkgdiff, type ChangeKind, type PackageChange, type PackageDiff } from '../packages/diff.js';
import { evr, nevra } from '../packages/package.js';
import { escapeText } from './escape.js';
import { table } from './format.js';

const TITLES: Array<[ChangeKind, string]> = [
  ['upgraded', 'Upgraded'],
  ['downgraded', 'Downgraded'],
  ['added', 'Added'],
  ['removed', 'Removed'],
  ['unchanged', 'Unchanged'],
];

const ext = (c: PackageChange) => ((c.to ?? c.from)?.extension ? '(extension)' : '');

function row(c: PackageChange): string[] {
  if (c.kind === 'added') return [`  ${c.name}`, nevra(c.to!), ext(c)];
  if (c.kind === 'removed') return [`  ${c.name}`, nevra(c.from!), ext(c)];
  if (c.kind === 'unchanged') return [`  ${c.name}`, `${evr(c.to!)}.${c.to!.arch}`, ext(c)];
  return [`  ${c.name}`, `${evr(c.from!)} → ${evr(c.to!)}`, ext(c)];
}

/** The change sections of a diff (unchanged only with `all`); `kinds` limits them. */
export function renderChanges(d: PackageDiff, opts: { all?: boolean; only?: (c: PackageChange) => boolean } = {}): string {
  let t = '';
  for (const [kind, title] of TITLES) {
    if (kind === 'unchanged' && !opts.all) continue;
    const items = d.changes.filter((c) => c.kind === kind && (opts.only?.(c) ?? true));
    if (items.length === 0) continue;
    t += `${title} (${items.length}):\n${table(items.map(row))}\n`;
  }
  return t;
}

function sideLine(s: SideReport): string {
  const rel = s.release
    ? ` (machine-os of ${s.release.name || s.release.image}${s.release.nodeImage ? `, node image ${s.release.nodeImage}` : ''})`
    : '';
  return `${s.channel}/${s.build}${rel}`;
}

function advisoryLine(a: Advisory): string {
  const sev = a.severity ? ` (${a.severity})` : '';
  const cves = a.cves.length > 0 ? `  ${a.cves.join(', ')}` : '';
  return `  ${a.id}${sev}${cves}`;
}

export function counts(d: PackageDiff): string {
  const c = d.counts;
  return `${c.upgraded} upgraded, ${c.downgraded} downgraded, ${c.added} added, ${c.removed} removed, ${c.unchanged} unchanged`;
}

export function renderBuildDiff(r: BuildDiffReport, opts: { all?: boolean } = {}): string {
  let t = `Packages of RHCOS ${r.from.arch}: ${sideLine(r.from)} → ${sideLine(r.to)}\n`;
  t += `${counts(r.diff)}\n`;
  const body = renderChanges(r.diff, opts);
  if (body !== '') t += `\n${body}`;
  if (r.advisories.length > 0) {
    t += `\nAdvisories (${r.advisories.length}, from ${r.to.build}'s meta.json, against its previous build):\n`;
    t += `${r.advisories.map(advisoryLine).join('\n')}\n`;
  }
  return escapeText(t);
}

/**
 * `diff -o json`:
 * { "from": {spec, channel, build, arch, release: {image, name, tag, nodeImage}|null, commitMetaUrl, packageCount},
 *   "to": {…}, "counts": {added, removed, upgraded, downgraded, unchanged},
 *   "pkgdiff": [ [name, type, {"PreviousPackage": [name, evr, arch], "NewPackage": [name, evr, arch]}] ],
 *     (type 0 added, 1 removed, 2 upgraded, 3 downgraded: the shape of meta.json `pkgdiff`)
 *   "unchanged": [ [name, evr, arch] ]   (with --all only)
 *   "advisories": [ {id, severity, packages, cves} ], "notes": [string] }
 */
export function buildDiffJson(r: BuildDiffReport, opts: { all?: boolean } = {}) {
  return {
    from: r.from,
    to: r.to,
    counts: r.diff.counts,
    pkgdiff: toPkgdiff(r.diff),
    ...(opts.all ? { unchanged: r.diff.changes.filter((c) => c.kind === 'unchanged').map((c) => [c.name, evr(c.to!), c.to!.arch]) } : {}),
    advisories: r.advisories,
    notes: r.notes,
  };
}

/**
 * The "RHCOS packages" section of `release diff`: the two builds, the counts and the notable
 * changes (kernel, cri-o, podman, systemd, …); every change with `full`.
 */
export function renderPackagesSection(r: BuildDiffReport, opts: { full: boolean; notable: (c: PackageChange) => boolean }): string {
  const same = r.from.build === r.to.build;
  let t = `\nRHCOS packages (${r.from.arch}): ${same ? `${r.to.build} (unchanged)` : `${r.from.build} → ${r.to.build}`}\n`;
  t += `  ${counts(r.diff)}\n`;
  if (opts.full) {
    const body = renderChanges(r.diff);
    if (body !== '') t += body.replace(/^/gm, '  ').replace(/^ +$/gm, '');
  } else {
    const notable = r.diff.changes.filter(opts.notable);
    if (notable.length > 0) t += `${table(notable.map((c) => [`  ${row(c)[0]!}`, row(c)[1]!]))}\n`;
    const rest = r.diff.changes.filter((c) => c.kind !== 'unchanged').length - notable.length;
    if (rest > 0) t += `  … and ${rest} more (--packages lists them all)\n`;
  }
  for (const n of r.notes) t += `  Note: ${n}\n`;
  return escapeText(t);
}
