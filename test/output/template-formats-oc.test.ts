/**
 * `-o jsonpath=…` / `-o go-template=…` against what oc 4.13 printed for the same object: every case of
 * test/fixtures/oc-formats/recorded.json, recorded by test/fixtures/oc-formats/record.mjs as
 *
 *   oc adm release info --insecure REGISTRY/ocp/release:4.13.1 -o FORMAT
 *
 * over test/helpers/oci-builder.ts releaseImage() in a local registry, run here over oc's own `-o json` of that
 * image (release-info.json), so the printers are compared on the very object oc's printers saw.
 * Differences kept on purpose: template errors found before the network exit 2 (oc: 1, after reading the image);
 * a jsonpath execution error is one line (oc adds a dump of the object on more lines); `{{define}}` is refused.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseOutputFormat, printTemplate, type TemplateFormat } from '../../src/output/output-format.js';

const dir = new URL('../fixtures/oc-formats/', import.meta.url);
const data: unknown = JSON.parse(readFileSync(new URL('release-info.json', dir), 'utf8'));
const recorded: { format: string; stdout: string; stderr: string; exit: number }[] = JSON.parse(
  readFileSync(new URL('recorded.json', dir), 'utf8'),
);

/** What osimage prints for one -o value: stdout, the error message (without `error: `), and whether it is a usage error. */
async function run(format: string): Promise<{ stdout: string; error?: string; usage?: boolean }> {
  try {
    const f = await parseOutputFormat(format);
    const r = await printTemplate(f as TemplateFormat, data);
    return { stdout: r.out, ...(r.error !== undefined ? { error: r.error } : {}) };
  } catch (err) {
    if (err instanceof UsageError) return { stdout: '', error: err.message, usage: true };
    throw err;
  }
}

describe('the printers against oc 4.13, case by case', () => {
  test('the recording is there and covers both dialects', () => {
    expect(recorded.length).toBeGreaterThan(100);
    expect(recorded.filter((r) => r.format.startsWith('jsonpath')).length).toBeGreaterThan(40);
    expect(recorded.filter((r) => r.format.startsWith('go-template')).length).toBeGreaterThan(40);
  });

  test.each(recorded.map((r) => [r.format, r] as const))('%s', async (_f, oc) => {
    const mine = await run(oc.format);
    expect(mine.stdout).toBe(oc.stdout);
    if (oc.exit === 0) {
      expect(mine.error).toBeUndefined();
      return;
    }
    expect(oc.stderr.startsWith('error: ')).toBe(true);
    // oc's first line, without the dump of the object that follows a jsonpath execution error.
    const ocError = oc.stderr
      .slice('error: '.length)
      .replace(/\. Printing more information for debugging the template:\n.*$/s, '')
      .replace(/\n$/, '');
    expect(mine.error).toBe(ocError);
    // Parse errors are found before the network: a usage error here; oc finds them after reading the image.
    expect(mine.usage === true).toBe(/^(error parsing|template format specified|--output only|error reading)/.test(ocError));
  });
});
