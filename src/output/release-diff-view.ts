/** `release diff OLD NEW` views: text, and the documented `-o json` object. */
import type { ImageChange, MachineOsChange, ReleaseDiff } from '../release/diff.js';
import { DEFAULT_STREAM, versionLabel } from '../release/references.js';
import { escapeText } from './escape.js';
import { tabwrite } from './release-view.js';

const NONE = '<none>';
const shortDigest = (pullspec: string, digest: string | null) => digest ?? pullspec;

function changeNote(c: ImageChange): string {
  if (!c.digestChanged) return 'moved repository, same digest';
  return c.rebuilt ? 'rebuilt (same commit)' : '';
}

function machineOsLine(title: string, os: MachineOsChange): string {
  return os.changed ? `${title}: ${os.from ?? NONE} -> ${os.to ?? NONE}\n` : `${title}: ${os.to ?? NONE} (unchanged)\n`;
}

export function renderDiff(d: ReleaseDiff): string {
  let t = `Changes from ${d.from.name || d.from.image} to ${d.to.name || d.to.image}\n`;
  t += tabwrite(`  From:\t${d.from.image}\t${d.from.digest}\n  To:\t${d.to.image}\t${d.to.digest}\n`);
  t += '\n';
  t += machineOsLine('Machine OS', d.machineOs);
  for (const s of d.machineOsStreams) t += machineOsLine(`Machine OS (${s.stream})`, s);

  if (d.components.length > 0) {
    let c = '\nComponent Versions:\n';
    for (const v of d.components)
      c += `  ${versionLabel(v.component, v.stream ?? DEFAULT_STREAM)}\t${v.from ?? NONE}\t->\t${v.to ?? NONE}\t${v.displayName}\n`;
    t += tabwrite(c).replace(/ +$/gm, '');
  } else {
    t += '\nComponent Versions: unchanged\n';
  }

  const { added, removed, changed, unchanged } = d.images;
  if (changed.length > 0) {
    let s = `\nImages Changed (${changed.length}):\n  NAME\tFROM\tTO\t\n`;
    for (const c of changed) s += `  ${c.name}\t${shortDigest(c.from, c.fromDigest)}\t${shortDigest(c.to, c.toDigest)}\t${changeNote(c)}\n`;
    t += tabwrite(s).replace(/ +$/gm, '');
  }
  if (added.length > 0) {
    let s = `\nImages Added (${added.length}):\n  NAME\tPULL SPEC\n`;
    for (const a of added) s += `  ${a.name}\t${a.pullspec}\n`;
    t += tabwrite(s);
  }
  if (removed.length > 0) {
    let s = `\nImages Removed (${removed.length}):\n  NAME\tPULL SPEC\n`;
    for (const r of removed) s += `  ${r.name}\t${r.pullspec}\n`;
    t += tabwrite(s);
  }
  if (changed.length + added.length + removed.length === 0) t += '\nImages: no changes\n';
  t += `\n${unchanged} image${unchanged === 1 ? '' : 's'} unchanged\n`;
  return escapeText(t);
}

/**
 * The stable `release diff OLD NEW -o json` object: the ReleaseDiff itself.
 *
 * {
 *   "from": { "image", "name", "digest" },
 *   "to":   { "image", "name", "digest" },
 *   "machineOs": { "from": string|null, "to": string|null, "changed": boolean },   (the default OS stream)
 *   "machineOsStreams": [ { "stream": "rhel-10", "from", "to", "changed" } ],       (the other OS streams)
 *   "components": [ { "component", "stream": string|null, "displayName", "from": string|null, "to": string|null } ],
 *   "images": {
 *     "added":   [ { "name", "pullspec", "digest": string|null } ],
 *     "removed": [ { "name", "pullspec", "digest": string|null } ],
 *     "changed": [ { "name", "from", "to", "fromDigest", "toDigest", "digestChanged", "rebuilt" } ],
 *     "unchanged": number
 *   }
 * }
 */
export function releaseDiffJson(d: ReleaseDiff): ReleaseDiff {
  return d;
}
