/** `packages` views: a build's package list and one package's history, as text and the documented `-o json`. */
import type { PackageHistory } from '../packages/history.js';
import type { BuildPackages } from '../packages/load.js';
import { evr, nevra, type Package } from '../packages/package.js';
import { escapeText } from './escape.js';

/** One NEVRA a line, sorted; extensions marked `(extension)`. */
export function renderPackages(list: Package[]): string {
  return escapeText(list.map((p) => (p.extension ? `${nevra(p)}  (extension)` : nevra(p))).join('\n'));
}

/**
 * `packages -o json`:
 * { "build", "channel", "arch", "commitMetaUrl",
 *   "packages": [ { "name", "epoch", "version", "release", "arch", "evr", "nevra", "extension": boolean } ] }
 */
export function packagesJson(b: BuildPackages, list: Package[]) {
  return {
    build: b.build,
    channel: b.channel,
    arch: b.arch,
    commitMetaUrl: b.commitMetaUrl,
    packages: list.map((p) => ({
      name: p.name,
      epoch: p.epoch,
      version: p.version,
      release: p.release,
      arch: p.arch,
      evr: evr(p),
      nevra: nevra(p),
      extension: p.extension,
    })),
  };
}

const ABSENT = '(absent)';

/** `BUILD  NAME OLD → NEW`, newest first, then the oldest build read with its version. */
export function renderHistory(h: PackageHistory): string {
  const width = Math.max(0, ...h.builds.map((b) => b.length));
  const lines = h.changes.map((c) => `${c.build.padEnd(width)}  ${h.name} ${c.from ?? ABSENT} → ${c.to ?? ABSENT}`);
  if (h.first) {
    lines.push(
      `${h.first.build.padEnd(width)}  ${h.name} ${h.first.version ?? ABSENT}  (oldest of ${h.builds.length} build${h.builds.length === 1 ? '' : 's'} read)`,
    );
  }
  return escapeText(lines.join('\n'));
}

/**
 * `packages --history -o json`: { "name", "channel", "arch", "builds": [id, newest first], "first": {build, version}|null,
 * "changes": [ { "build", "from": string|null, "to": string|null } ], "missing": [id], "truncated": number }
 */
export function historyJson(h: PackageHistory) {
  return {
    name: h.name,
    channel: h.channel,
    arch: h.arch,
    builds: h.builds,
    first: h.first,
    changes: h.changes,
    missing: h.missing,
    truncated: h.truncated,
  };
}
