/**
 * The shell, as far as pins need it: one tokenizer (below), and quoting for pin values per the place a
 * value sits in an assignment. Only what can be read back unchanged by POSIX shells (and by our own
 * tokenizer) is written; anything else is refused.
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

/**
 * The one shell tokenizer: a script's lines as words, operators and comments, following quotes, `${…}`,
 * continuation lines and here-documents across lines, and marking which words sit at a command position
 * (where `NAME=v` really assigns). The pin reader and editor both work on these tokens.
 */

/** A word of one line (offsets into the line's text); a word may begin inside a quote opened on an earlier line. */
export interface WordToken {
  kind: 'word';
  start: number;
  end: number;
  text: string;
  /** The word goes on past the end of the line (a quote or `${` is still open). */
  open: boolean;
  /** The word began on an earlier line (the line started inside a quote). */
  continued: boolean;
  /** At a command position: the first word of a command, after an assignment prefix or a keyword such as `then`. */
  command: boolean;
  /** An argument of export, readonly, declare, typeset or local. */
  declaration: boolean;
}

export interface OpToken {
  kind: 'op' | 'comment';
  start: number;
  end: number;
  text: string;
}

export type Token = WordToken | OpToken;

export interface TokenLine {
  /** Read as code from its start: not inside a quote, after a continuation, or in a here-document. */
  fresh: boolean;
  /** A line of a here-document's body (or its delimiter): no tokens. */
  heredoc: boolean;
  tokens: Token[];
}

/** Words after which the next word is still at a command position. */
const KEYWORDS = new Set(['then', 'do', 'else', 'elif', 'if', 'while', 'until', '!', '{', '}', 'time']);
/** Builtins whose NAME=value arguments are assignments. */
const DECLARATIONS = new Set(['export', 'readonly', 'declare', 'typeset', 'local']);
/** Operators, longest first. Those that do not start with < or > separate commands. */
const OPERATORS = [';;&', ';;', ';&', '&&', '||', '|&', '>>', '>&', '<&', '>|', '<>', ';', '&', '|', '(', ')', '<', '>'];
const NAME_EQ = /^[A-Za-z_][A-Za-z0-9_]*=/;
const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

type Nest = "'" | '"' | '${';

/** Tokenize a script's lines (without their line ends). */
export function tokenize(lines: string[]): TokenLine[] {
  const nest: Nest[] = [];
  let continued = false;
  const pending: Array<{ delim: string; strip: boolean }> = [];
  let heredoc: { delim: string; strip: boolean } | undefined;
  const out: TokenLine[] = [];

  for (const text of lines) {
    if (heredoc) {
      const body = heredoc.strip ? text.replace(/^\t+/, '') : text;
      if (body === heredoc.delim) heredoc = pending.shift();
      out.push({ fresh: false, heredoc: true, tokens: [] });
      continue;
    }
    const fresh = nest.length === 0 && !continued;
    const tokens: Token[] = [];
    let atCommand = fresh;
    let declArgs = false;
    continued = false;
    let word: { start: number; continued: boolean } | undefined = nest.length > 0 ? { start: 0, continued: true } : undefined;
    const endWord = (end: number) => {
      if (!word) return;
      const w: WordToken = {
        kind: 'word',
        start: word.start,
        end,
        text: text.slice(word.start, end),
        open: nest.length > 0,
        continued: word.continued,
        command: atCommand && !word.continued,
        declaration: declArgs && !word.continued,
      };
      tokens.push(w);
      word = undefined;
      if (w.continued || NAME_EQ.test(w.text) || !atCommand) return;
      if (DECLARATIONS.has(w.text)) declArgs = true;
      if (!KEYWORDS.has(w.text)) atCommand = false;
    };

    let i = 0;
    while (i < text.length) {
      const c = text[i]!;
      const top = nest[nest.length - 1];
      if (top === "'") {
        if (c === "'") nest.pop();
        i++;
        continue;
      }
      if (top === '"' || top === '${') {
        if (c === '\\') i += 2;
        else if (top === '"' && c === '"') {
          nest.pop();
          i++;
        } else if (top === '${' && c === '}') {
          nest.pop();
          i++;
        } else if (text.startsWith('${', i)) {
          nest.push('${');
          i += 2;
        } else if (top === '${' && (c === '"' || (c === "'" && !nest.includes('"')))) {
          nest.push(c);
          i++;
        } else i++;
        continue;
      }
      if (isBlank(c)) {
        endWord(i);
        i++;
        continue;
      }
      if (/\s/.test(c)) {
        // A carriage return, form feed or vertical tab: not a blank between words, and it ends no command.
        endWord(i);
        tokens.push({ kind: 'op', start: i, end: i + 1, text: c });
        i++;
        continue;
      }
      if (c === '#' && !word) {
        tokens.push({ kind: 'comment', start: i, end: text.length, text: text.slice(i) });
        break;
      }
      if (/[;&|()<>]/.test(c)) {
        endWord(i);
        if (text.startsWith('<<', i) && text[i + 2] !== '<') {
          let j = i + 2;
          const strip = text[j] === '-';
          if (strip) j++;
          while (isBlank(text[j])) j++;
          const m = /^(?:'([^']*)'|"([^"]*)"|((?:\\.|[^\s;&|<>()])+))/.exec(text.slice(j));
          if (m) {
            const delim = m[1] ?? m[2] ?? m[3]!.replace(/\\(.)/g, '$1').replace(/["']/g, '');
            pending.push({ delim, strip });
            tokens.push({ kind: 'op', start: i, end: j + m[0].length, text: text.slice(i, j + m[0].length) });
            i = j + m[0].length;
            continue;
          }
        }
        const op = OPERATORS.find((o) => text.startsWith(o, i))!;
        tokens.push({ kind: 'op', start: i, end: i + op.length, text: op });
        if (!/^[<>]/.test(op)) {
          atCommand = true;
          declArgs = false;
        }
        i += op.length;
        continue;
      }
      word ??= { start: i, continued: false };
      if (c === '\\') {
        if (i + 1 >= text.length) continued = true;
        i += 2;
      } else if (c === "'" || c === '"') {
        nest.push(c);
        i++;
      } else if (text.startsWith('${', i)) {
        nest.push('${');
        i += 2;
      } else i++;
    }
    endWord(Math.min(i, text.length));
    // Only quotes go on to the next line; an unclosed ${ is the line's own problem.
    while (nest[nest.length - 1] === '${') nest.pop();
    if (nest.length === 0 && !continued && pending.length > 0) heredoc = pending.shift();
    out.push({ fresh, heredoc: false, tokens });
  }
  return out;
}
