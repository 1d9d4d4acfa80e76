/** Text views of the payload commands' results. */
import type { CheckResult } from '../payload/check.js';
import type { MergeResult, Skipped } from '../payload/machineconfig.js';
import type { FileOutcome, PayloadWriteResult } from '../payload/write.js';
import { escapeText } from './escape.js';

function outcome(f: FileOutcome, what: string): string {
  switch (f.action) {
    case 'created':
      return `${f.path}: created (${what})`;
    case 'appended':
      return `${f.path}: ${what} added`;
    case 'updated':
      return `${f.path}: ${what} updated${f.previous === undefined ? '' : ` (was ${f.previous || '""'})`}`;
    case 'unchanged':
      return `${f.path}: ${what} unchanged`;
  }
}

export function writeView(r: PayloadWriteResult): string {
  if (r.generation === 'legacy' && r.stream === undefined && r.configMap) return legacyWriteView(r, r.configMap);
  const files = r.configMap ? `${r.imageReferences.path} and ${r.configMap.path}` : r.imageReferences.path;
  const what = `${r.generation}${r.stream ? `, OS stream ${r.stream}` : ''}`;
  if (!r.changed) return escapeText(`unchanged: ${files} already hold these images (${what})`);
  const lines = [
    `${r.imageReferences.path}: ${r.imageReferences.action === 'created' ? 'created' : r.imageReferences.action === 'unchanged' ? 'unchanged' : 'updated'} (${what})`,
  ];
  for (const t of r.tags) lines.push(`  tag ${t.tag} ${tagAction(t.action, t.previous)}: ${t.pullspec}`);
  for (const b of r.buildVersions) lines.push(`  tag ${b.tag} io.openshift.build.versions machine-os=${b.value} (was ${b.previous})`);
  if (r.configMap) {
    lines.push(`${r.configMap.path}: ${r.configMap.action}`);
    for (const k of r.keys)
      lines.push(
        `  data.${k.key} ${k.previous === k.value ? 'unchanged' : k.previous === undefined ? 'added' : `updated (was ${k.previous || '""'})`} (= tag ${k.tag})`,
      );
  } else lines.push('ConfigMap: left alone (it has keys only for the default OS stream)');
  if (r.build) lines.push(`build: ${r.build}`);
  return escapeText(lines.join('\n'));
}

function tagAction(action: string, previous: string | undefined): string {
  if (action === 'updated') return previous === undefined ? 'updated' : `updated (was ${previous || '""'})`;
  return action === 'appended' ? 'added' : action;
}

function legacyWriteView(r: PayloadWriteResult, cm: FileOutcome): string {
  if (!r.changed) return escapeText(`unchanged: ${r.imageReferences.path} and ${cm.path} already point at ${r.pullspec}`);
  const lines = [outcome(r.imageReferences, 'tag machine-os-content'), outcome(cm, 'data.osImageURL')];
  for (const b of r.buildVersions)
    lines.push(`${r.imageReferences.path}: machine-os=${b.value} in io.openshift.build.versions (was ${b.previous})`);
  return escapeText([...lines, `OS image: ${r.pullspec}`].join('\n'));
}

export function skippedLines(skipped: Skipped[]): string[] {
  return skipped.map((s) => `skipped ${s.source}${s.name ? ` (${s.name})` : ''}: ${s.reason}`);
}

/** stderr lines for a merge: what was merged and where the OS image came from. */
export function mergeNotes(r: MergeResult): string[] {
  return [
    `merged ${r.merged.length} MachineConfig${r.merged.length === 1 ? '' : 's'} for pool ${r.role} as the MCO of OpenShift ${r.release}: ${r.merged.join(', ')}`,
    `osImageURL (${r.policy}): ${r.osImageURL === '' ? '(empty)' : r.osImageURL}${r.osImageURLFrom ? ` from ${r.osImageURLFrom}` : r.osImageURL === '' ? '' : ' from --os-image'}`,
  ];
}

export function checkSummary(r: CheckResult): string {
  return `payload check: ${r.operators} operator${r.operators === 1 ? '' : 's'} (${r.withReferences} with image-references), ${r.references} image reference${r.references === 1 ? '' : 's'}, all found among ${r.inputTags} input tag${r.inputTags === 1 ? '' : 's'}`;
}

export function checkFailure(r: CheckResult): string {
  return `payload check: ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'} in ${new Set(r.problems.map((p) => p.operator)).size} operator(s)`;
}
