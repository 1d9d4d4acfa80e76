/**
 * Template output is handed out as it is made, in bounded pieces, never built whole: `{{.}}` fifty thousand
 * times over a release prints hundreds of megabytes, which must flow to stdout, not sit in one string.
 */
import { describe, expect, it } from 'vitest';
import { parseOutputFormat, printTemplate, type TemplateFormat } from '../../src/output/output-format.js';

const object = {
  metadata: { version: '4.16.3', name: 'x'.repeat(4000) },
  references: { spec: { tags: Array.from({ length: 20 }, (_, i) => ({ name: `t${i}` })) } },
};

async function run(format: string, n: number) {
  const f = (await parseOutputFormat(format)) as TemplateFormat;
  const chunks: number[] = [];
  let total = 0;
  const r = await printTemplate(f, object, {
    write: (c) => {
      chunks.push(c.length);
      total += c.length;
    },
  });
  return { r, chunks, total, each: total / n };
}

describe('streamed template output', () => {
  it('go-template: pieces of about 64 KiB, adding up to the whole', async () => {
    const n = 2000;
    const { r, chunks, total, each } = await run(`go-template=${'{{.}}'.repeat(n)}`, n);
    expect(r).toEqual({ out: '' });
    expect(total).toBeGreaterThan(8_000_000);
    expect(chunks.length).toBeGreaterThan(100);
    expect(Math.max(...chunks)).toBeLessThan(64 * 1024 + each + 1);
  });

  it('jsonpath: each result handed out on its own, after all were found', async () => {
    const n = 2000;
    const { r, chunks, total } = await run(`jsonpath=${'{@}'.repeat(n)}`, n);
    expect(r).toEqual({ out: '' });
    expect(chunks.length).toBe(n);
    expect(total).toBeGreaterThan(8_000_000);
  });

  it('a go-template error: what ran is handed out, then the error', async () => {
    const f = (await parseOutputFormat('go-template={{.metadata.version}} {{index .metadata 1}}')) as TemplateFormat;
    const out: string[] = [];
    const r = await printTemplate(f, object, { write: (c) => out.push(c) });
    expect(out.join('')).toBe('4.16.3 ');
    // oc's debugging text follows what ran; the caller prints it after the pieces.
    expect(r.out).toMatch(/^Error executing template: /);
    expect(r.error).toMatch(/^error executing template /);
  });
});
