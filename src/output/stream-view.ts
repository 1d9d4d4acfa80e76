import { createTwoFilesPatch } from 'diff';
import type { CheckResult } from '../stream/check.js';
import type { TargetUpdate } from '../stream/target.js';
import { escapeText } from './escape.js';

/** Texts of `osimage stream`. Imported lazily by that command only. */

/** A unified diff of the stream file ('' when it stays as it is); a new file diffs against /dev/null. */
export function targetDiff(file: string, before: string | undefined, after: string | undefined): string {
  if (after === undefined || after === before) return '';
  const patch = createTwoFilesPatch(before === undefined ? '/dev/null' : file, file, before ?? '', after, undefined, undefined, {
    context: 3,
  });
  return patch.replace(/^(Index:.*\n)?=+\n/, '');
}

/** `FILE: written (stream rhcos-4.16; aarch64, x86_64 updated; s390x kept)`, or why it was left alone. */
export function targetSummary(file: string, u: TargetUpdate, dryRun: boolean): string {
  if (u.text === undefined)
    return `${file}: unchanged (stream ${u.name}: the builds are the ones already in the file; only metadata would change)`;
  const parts = [`stream ${u.name}`];
  if (u.changed.length > 0) parts.push(`${u.changed.join(', ')} updated`);
  if (u.kept.length > 0) parts.push(`${u.kept.join(', ')} kept`);
  return `${file}: ${dryRun ? 'would be written' : 'written'} (${parts.join('; ')})`;
}

/** One line per difference, then a summary line. */
export function checkReport(file: string, r: CheckResult): string {
  if (r.differences.length === 0) {
    return escapeText(
      `ok: ${file}: ${r.arches} arches, ${r.artifacts} artifacts: every build is still in its builds.json and every sha256 matches its meta.json`,
    );
  }
  const n = r.differences.length;
  return escapeText([...r.differences, `${file}: ${n} difference${n === 1 ? '' : 's'} from the release browser`].join('\n'));
}
