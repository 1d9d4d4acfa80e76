/**
 * Shell quoting for pin values, per the place a value sits in an assignment. Only what can be
 * read back unchanged by POSIX shells (and by our own parser) is written; anything else is refused.
 */

/** Where a value is written: a bare word, inside '…', inside "…", or inside ${VAR:-…}. */
export type ValueContext = 'bare' | 'single' | 'double' | 'param';

/** Characters that mean the same in every context (no quoting, expansion, globbing or tilde). */
const PLAIN = /^[A-Za-z0-9_.,:/@%+=-]*$/;

export type Encoded = { ok: true; text: string } | { ok: false; why: string };

/** The text to put between the assignment's quotes (or as the bare word) for `value`. */
export function encodeValue(value: string, ctx: ValueContext): Encoded {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return { ok: false, why: 'it contains a control character or newline' };
  switch (ctx) {
    case 'bare':
      // Backslash-escape everything that is not plain (also `~`, which would expand after = or :).
      return { ok: true, text: [...value].map((c) => (PLAIN.test(c) ? c : `\\${c}`)).join('') };
    case 'single':
      if (value.includes("'")) return { ok: false, why: "it contains ' which a single-quoted value cannot hold" };
      return { ok: true, text: value };
    case 'double':
      return { ok: true, text: value.replace(/[\\"$`]/g, (c) => `\\${c}`) };
    case 'param':
      // Quoting rules inside ${VAR:-word} differ between shells: only plain characters are written there.
      if (!PLAIN.test(value)) {
        const bad = [...value].find((c) => !PLAIN.test(c));
        return {
          ok: false,
          why: `it contains ${JSON.stringify(bad)}, which is not portable inside \${VAR:-…} (use a plain VAR="…" assignment)`,
        };
      }
      return { ok: true, text: value };
  }
}

/** Read back what the shell assigns for the text between the quotes (or a bare word). */
export function decodeValue(raw: string, ctx: ValueContext): string {
  switch (ctx) {
    case 'bare':
      return raw.replace(/\\(.)/g, '$1');
    case 'single':
    case 'param':
      return raw;
    case 'double':
      return raw.replace(/\\([\\"$`])/g, '$1');
  }
}
