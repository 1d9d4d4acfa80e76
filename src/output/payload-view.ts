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
  if (!r.changed) return escapeText(`unchanged: ${r.imageReferences.path} and ${r.configMap.path} already point at ${r.pullspec}`);
  return escapeText(
    [outcome(r.imageReferences, 'tag machine-os-content'), outcome(r.configMap, 'data.osImageURL'), `OS image: ${r.pullspec}`].join('\n'),
  );
}

export function skippedLines(skipped: Skipped[]): string[] {
  return skipped.map((s) => `skipped ${s.source}${s.name ? ` (${s.name})` : ''}: ${s.reason}`);
}

/** stderr lines for a merge: what was merged and where the OS image came from. */
export function mergeNotes(r: MergeResult): string[] {
  return [
    `merged ${r.merged.length} MachineConfig${r.merged.length === 1 ? '' : 's'} for role ${r.role}: ${r.merged.join(', ')}`,
    `osImageURL (${r.policy}): ${r.osImageURL === '' ? '(empty)' : r.osImageURL}${r.osImageURLFrom ? ` from ${r.osImageURLFrom}` : r.osImageURL === '' ? '' : ' from --os-image'}`,
  ];
}

export function checkSummary(r: CheckResult): string {
  return `payload check: ${r.operators} operator${r.operators === 1 ? '' : 's'} (${r.withReferences} with image-references), ${r.references} image reference${r.references === 1 ? '' : 's'}, all found among ${r.inputTags} input tag${r.inputTags === 1 ? '' : 's'}`;
}

export function checkFailure(r: CheckResult): string {
  return `payload check: ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'} in ${new Set(r.problems.map((p) => p.operator)).size} operator(s)`;
}
