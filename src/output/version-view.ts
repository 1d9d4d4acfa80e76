/** `osimage version` and `--version`: the version first, as `osimage 0.1.0`, then what else is known. */
import type { BuildInfo } from '../package-info.js';

export interface VersionFacts extends BuildInfo {
  version: string;
  /** `process.version`: `v20.18.1`. */
  node: string;
}

/** Lines: `osimage 0.1.0`, `node v20.18.1`, and `commit 0123abcd…` (with ` (modified)`) when the build knew it. */
export function renderVersion(v: VersionFacts): string {
  const lines = [`osimage ${v.version}`, `node ${v.node}`];
  if (v.commit) lines.push(`commit ${v.commit}${v.modified ? ' (modified)' : ''}`);
  return `${lines.join('\n')}\n`;
}

/** `-o json`: `version` and `node` always; `commit` (and `modified: true`) only when known. */
export function versionJson(v: VersionFacts): Record<string, unknown> {
  const o: Record<string, unknown> = { version: v.version, node: v.node };
  if (v.commit) o.commit = v.commit;
  if (v.modified) o.modified = true;
  return o;
}
