import { createTwoFilesPatch } from 'diff';
import type { CheckReport } from '../pin/check.js';
import type { FileChange, PinPlan } from '../pin/plan.js';
import type { PromoteResult } from '../pin/promote.js';
import { redactUrl } from '../http/redact.js';
import { pinNames } from '../rhcos/settings.js';
import { escapeText } from './escape.js';

/** Texts of pin, pin --check and promote. Imported lazily by those commands only. */

/** A unified diff of one planned file change ('' when nothing changes); a new file diffs against /dev/null. */
export function unifiedDiff(change: FileChange): string {
  if (!change.changed) return '';
  // Plain paths (patch -p0 applies it), /dev/null for a file that does not exist yet.
  const oldName = change.before === undefined ? '/dev/null' : change.path;
  const patch = createTwoFilesPatch(oldName, change.path, change.before ?? '', change.after, undefined, undefined, { context: 3 });
  // Drop the "Index:"/"====" preamble the library adds; keep the ---/+++ headers and hunks.
  return patch.replace(/^(Index:.*\n)?=+\n/, '');
}

export function planDiff(plan: Pick<PinPlan, 'script' | 'meta'>): string {
  return [plan.script, ...(plan.meta ? [plan.meta] : [])].map(unifiedDiff).join('');
}

function pinsLine(plan: PinPlan): string {
  return `${plan.stream ? `OS stream ${plan.stream} build ` : ''}${plan.values.RHCOS_BUILD_NAME} (channel ${plan.values.RHCOS_DEFAULT_CHANNEL}, base URL ${redactUrl(plan.values.RHCOS_BASE_URL)})`;
}

const SOURCE_TEXT: Record<PinPlan['from']['build'], string> = {
  flag: 'from --build',
  env: 'from RHCOS_BUILD_NAME in the environment',
  file: 'the pin already in the file',
  default: 'the default',
  newest: 'the newest build',
};

/** What `pin` did (or, with dryRun, would do). */
export function pinSummary(plan: PinPlan, written: string[] | undefined): string {
  const lines: string[] = [];
  const dry = written === undefined;
  const scriptChanged = plan.script.changed;
  const metaChanged = plan.meta?.changed ?? false;
  if (!scriptChanged && !metaChanged) {
    lines.push(
      `${plan.file} already pins ${pinsLine(plan)}${plan.meta ? ` and ${plan.meta.path} matches it` : ''}; nothing ${dry ? 'would change' : 'changed'}`,
    );
    return escapeText(lines.join('\n'));
  }
  const was = plan.previous.RHCOS_BUILD_NAME?.value;
  const created = plan.script.before === undefined ? ` (${dry ? 'would create it' : 'created'})` : '';
  const source = plan.stream
    ? SOURCE_TEXT[plan.from.build].replace('RHCOS_BUILD_NAME', pinNames(plan.stream).RHCOS_BUILD_NAME)
    : SOURCE_TEXT[plan.from.build];
  const whence = `${source}${was && was !== plan.values.RHCOS_BUILD_NAME ? `; was ${was}` : ''}`;
  lines.push(`${dry ? 'would pin' : 'pinned'} ${pinsLine(plan)} in ${plan.file}${created}: ${whence}`);
  if (plan.script.added.length > 0 && plan.script.before !== undefined)
    lines.push(`  added ${plan.script.added.join(', ')} in the osimage pins block`);
  if (plan.meta) {
    lines.push(
      metaChanged
        ? `  ${dry ? 'would write' : 'wrote'} the metadata snapshot ${plan.meta.path}${plan.meta.before === undefined ? ' (new)' : ''}`
        : `  ${plan.meta.path} already matches`,
    );
  }
  if (dry) lines.push('dry run: nothing written');
  return escapeText(lines.join('\n'));
}

export function checkSummary(r: CheckReport): string {
  const mirror = r.fetchedFrom !== r.baseUrl ? ` (checked at ${redactUrl(r.fetchedFrom)})` : '';
  const meta = r.meta ? `; ${r.meta} matches its meta.json` : '';
  return escapeText(
    `ok: ${r.file} pins ${r.stream ? `OS stream ${r.stream} build ` : ''}${r.build} (channel ${r.channel}, arch ${r.arch}, base URL ${redactUrl(r.baseUrl)})${mirror}; it is in ${r.buildsUrl}${meta}`,
  );
}

export function promoteSummary(r: PromoteResult, meta: string | undefined): string {
  if (r.status === 'already-pinned') {
    return escapeText(`${r.file} already pins the newest build ${r.build} (channel ${r.resolved.channel}); nothing to test or promote`);
  }
  const lines = [
    `promoted ${r.to} in ${r.file}${r.from ? ` (was ${r.from})` : ' (nothing was pinned)'}${meta ? `, snapshot in ${meta}` : ''}`,
  ];
  if (r.commit) lines.push(`committed ${r.commit}`);
  return escapeText(lines.join('\n'));
}
