/**
 * `--filter-by-os REGEX` is a Go regular expression in oc (regexp.Compile, RE2 syntax). This reads one as Go's
 * parser (regexp/syntax, Perl flags) does: the same errors, in Go's words (`error parsing regexp: missing
 * closing ]: `[``), and, for an expression Go accepts, the JavaScript RegExp that matches the same
 * `os/arch[/variant]` strings. What Go accepts but has no JavaScript equal here (Unicode classes `\pL`, flags
 * inside the expression) is refused with a reason of osimage's own.
 */

/** Go's error, `error parsing regexp: CODE: `EXPR``, or for what Go accepts and osimage cannot match, a reason of osimage's own. */
export class GoRegexpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoRegexpError';
  }
}

const goError = (code: string, expr: string) => new GoRegexpError(`error parsing regexp: ${code}: \`${expr}\``);
const unsupported = (what: string) => new GoRegexpError(`osimage cannot match ${what} (valid in Go, not supported here)`);

const MISSING_BRACKET = 'missing closing ]';
const CHAR_RANGE = 'invalid character class range';
const ESCAPE = 'invalid escape sequence';
const REPEAT_ARG = 'missing argument to repetition operator';
const NESTED_REPEAT = 'invalid nested repetition operator';
const REPEAT_SIZE = 'invalid repeat count';

/** Perl class escapes (same meaning in JavaScript for the ASCII text platforms are). */
const PERL_CLASSES = new Set(['\\d', '\\D', '\\s', '\\S', '\\w', '\\W']);

/** POSIX classes as JavaScript class contents (`[[:alpha:]]`), `[:^alpha:]` negated by the caller. */
const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7f',
  blank: '\\t ',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const isAlnum = (c: string) => /^[0-9A-Za-z]$/.test(c);
const hex = (c: string | undefined) => (c !== undefined && /^[0-9A-Fa-f]$/.test(c) ? Number.parseInt(c, 16) : -1);

/** A character as a JavaScript pattern literal, outside (`class: false`) or inside a class. */
function literal(cp: number, inClass: boolean): string {
  const c = String.fromCodePoint(cp);
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (inClass ? '\\]^-['.includes(c) : '\\^$.|?*+()[]{}/'.includes(c)) return `\\${c}`;
  return c;
}

/**
 * An escape `\…` at `s[i]` that stands for one character (Go's parseEscape): its code point and the index after
 * it, or Go's error.
 */
function parseEscape(s: string, i: number): [number, number] {
  const c = s[i + 1];
  if (c === undefined) throw goError('trailing backslash at end of expression', '');
  const invalid = (end: number) => goError(ESCAPE, s.slice(i, end));
  if (c.codePointAt(0)! < 0x80 && !isAlnum(c)) return [c.codePointAt(0)!, i + 2];
  if ((c >= '1' && c <= '7' && s[i + 2] !== undefined && s[i + 2]! >= '0' && s[i + 2]! <= '7') || c === '0') {
    let r = Number(c);
    let j = i + 2;
    for (let k = 1; k < 3 && s[j] !== undefined && s[j]! >= '0' && s[j]! <= '7'; k++, j++) r = r * 8 + Number(s[j]);
    return [r, j];
  }
  if (c === 'x') {
    if (s[i + 2] === '{') {
      let r = 0;
      let n = 0;
      for (let j = i + 3; j < s.length; j++) {
        if (s[j] === '}') {
          if (n === 0) throw invalid(j + 1);
          return [r, j + 1];
        }
        const v = hex(s[j]);
        if (v < 0) throw invalid(j + 1);
        r = r * 16 + v;
        if (r > 0x10ffff) throw invalid(j + 1);
        n++;
      }
      throw invalid(s.length);
    }
    if (s[i + 2] === undefined) throw invalid(i + 2);
    const x = hex(s[i + 2]);
    const y = hex(s[i + 3]);
    if (x < 0 || y < 0) throw invalid(Math.min(i + 4, s.length));
    return [x * 16 + y, i + 4];
  }
  const simple: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };
  if (c in simple) return [simple[c]!, i + 2];
  throw invalid(i + 1 + String.fromCodePoint(c.codePointAt(0)!).length);
}

/** A character class at `s[start] === '['`: the JavaScript class and the index after it. */
function parseClass(s: string, start: number): [string, number] {
  const whole = s.slice(start);
  let i = start + 1;
  let out = '[';
  if (s[i] === '^') {
    out += '^';
    i++;
  }
  let first = true;
  while (i >= s.length || s[i] !== ']' || first) {
    if (i >= s.length) throw goError(MISSING_BRACKET, whole);
    first = false;
    if (s.startsWith('[:', i)) {
      const end = s.indexOf(':]', i + 2);
      if (end >= 0) {
        const name = s.slice(i + 2, end);
        const negated = name.startsWith('^');
        const key = negated ? name.slice(1) : name;
        const set = Object.hasOwn(POSIX, key) ? POSIX[key] : undefined;
        if (set === undefined) throw goError(CHAR_RANGE, s.slice(i, end + 2));
        if (negated) throw unsupported(`the negated class [:${name}:] inside a class`);
        out += set;
        i = end + 2;
        continue;
      }
    }
    if (s[i] === '\\' && (s[i + 1] === 'p' || s[i + 1] === 'P')) throw unsupported('Unicode classes (\\p, \\P)');
    if (PERL_CLASSES.has(s.slice(i, i + 2))) {
      out += s.slice(i, i + 2);
      i += 2;
      continue;
    }
    const rangeStart = i;
    let lo: number;
    [lo, i] = classChar(s, i, whole);
    let hi = lo;
    if (i + 1 < s.length && s[i] === '-' && s[i + 1] !== ']') {
      [hi, i] = classChar(s, i + 1, whole);
      if (hi < lo) throw goError(CHAR_RANGE, s.slice(rangeStart, i));
    }
    out += hi === lo ? literal(lo, true) : `${literal(lo, true)}-${literal(hi, true)}`;
  }
  return [`${out}]`, i + 1];
}

function classChar(s: string, i: number, whole: string): [number, number] {
  if (i >= s.length) throw goError(MISSING_BRACKET, whole);
  if (s[i] === '\\') return parseEscape(s, i);
  const cp = s.codePointAt(i)!;
  return [cp, i + String.fromCodePoint(cp).length];
}

/** `{n}`, `{n,}`, `{n,m}` at `s[i]`: [min, max (-1: none), end], or undefined when it is a literal `{`. */
function parseRepeat(s: string, i: number): [number, number, number] | undefined {
  const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(i));
  if (!m) return undefined;
  const big = (d: string) => (d.length > 8 ? Number.MAX_SAFE_INTEGER : Number(d));
  const min = big(m[1]!);
  const max = m[2] === undefined ? min : m[3] === '' ? -1 : big(m[3]!);
  return [min, max, i + m[0].length];
}

/**
 * Check `pattern` as Go's regexp.Compile does and return a matcher that matches as it would, in time bounded by
 * the sizes of the expression and the text (see {@link linearMatcher}): Go's RE2 never backtracks, JavaScript's
 * RegExp does (`(a+)+$` takes seconds on 25 characters). Throws GoRegexpError with Go's text for what Go refuses.
 */
export function compileGoRegexp(pattern: string): GoRegexp {
  let out = '';
  let i = 0;
  let depth = 0;
  // Whether a repetition has something to repeat (not at the start, nor right after `(` or `|`).
  let operand = false;
  // Where the repetition just before started, if the last thing was one (Go refuses `a**`).
  let lastRepeat = -1;
  let ignoreCase = false;
  while (i < pattern.length) {
    const c = pattern[i]!;
    let repeatAt = -1;
    if (c === '(') {
      if (pattern[i + 1] === '?') {
        if (pattern.length - i > 4 && pattern[i + 2] === 'P' && pattern[i + 3] === '<') {
          const end = pattern.indexOf('>', i);
          if (end < 0) throw goError('invalid named capture', pattern.slice(i));
          if (!/^[A-Za-z0-9_]+$/.test(pattern.slice(i + 4, end))) throw goError('invalid named capture', pattern.slice(i, end + 1));
          // The name changes nothing a match test sees.
          out += '(';
          i = end + 1;
          depth++;
          operand = false;
        } else {
          // Flags and non-capturing groups: (?i) (?i:…) (?:…) (?-s:…).
          let j = i + 2;
          let sign = 1;
          let sawFlag = false;
          const flags: string[] = [];
          for (;;) {
            const f = pattern[j];
            if (f === undefined) throw goError('invalid or unsupported Perl syntax', pattern.slice(i, j));
            j++;
            if ('imsU'.includes(f)) {
              flags.push(sign < 0 ? `-${f}` : f);
              sawFlag = true;
            } else if (f === '-' && sign > 0) {
              sign = -1;
              sawFlag = false;
            } else if ((f === ':' || f === ')') && (sign > 0 || sawFlag)) {
              // s, m and U change nothing for a one-line `os/arch` test; a leading (?i) is the whole expression's flag.
              if (flags.includes('i')) {
                if (i === 0 && f === ')') ignoreCase = true;
                else throw unsupported(`the case-insensitive flag in ${pattern.slice(i, j)} (only a leading (?i) is)`);
              }
              if (f === ':') {
                out += '(?:';
                depth++;
                operand = false;
              }
              break;
            } else {
              throw goError('invalid or unsupported Perl syntax', pattern.slice(i, j));
            }
          }
          i = j;
        }
      } else {
        out += '(';
        depth++;
        operand = false;
        i++;
      }
    } else if (c === '|') {
      out += '|';
      operand = false;
      i++;
    } else if (c === ')') {
      if (depth === 0) throw goError('unexpected )', pattern);
      out += ')';
      depth--;
      operand = true;
      i++;
    } else if (c === '^' || c === '$' || c === '.') {
      out += c;
      operand = true;
      i++;
    } else if (c === '[') {
      let cls: string;
      [cls, i] = parseClass(pattern, i);
      out += cls;
      operand = true;
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && parseRepeat(pattern, i) !== undefined)) {
      let end = i + 1;
      if (c === '{') {
        const [min, max, after] = parseRepeat(pattern, i)!;
        end = after;
        if (min > 1000 || max > 1000 || (max >= 0 && min > max)) throw goError(REPEAT_SIZE, pattern.slice(i, end));
      }
      const lazy = pattern[end] === '?';
      const after = lazy ? end + 1 : end;
      if (lastRepeat >= 0) throw goError(NESTED_REPEAT, pattern.slice(lastRepeat, after));
      if (!operand) throw goError(REPEAT_ARG, pattern.slice(i, after));
      // JavaScript refuses to repeat an anchor; Go repeats the empty match: the same strings match without it.
      if (!/[\^$]$/.test(out) || /\\[\^$]$/.test(out)) out += pattern.slice(i, after);
      repeatAt = i;
      i = after;
    } else if (c === '\\') {
      const d = pattern[i + 1];
      if (d === 'A' || d === 'z') {
        out += d === 'A' ? '^' : '$';
        i += 2;
      } else if (d === 'b' || d === 'B') {
        out += `\\${d}`;
        i += 2;
      } else if (d === 'C') {
        throw goError(ESCAPE, '\\C');
      } else if (d === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const text = pattern.slice(i + 2, end < 0 ? pattern.length : end);
        for (const ch of text) out += literal(ch.codePointAt(0)!, false);
        i = end < 0 ? pattern.length : end + 2;
      } else if (d === 'p' || d === 'P') {
        throw unsupported('Unicode classes (\\p, \\P)');
      } else if (PERL_CLASSES.has(`\\${d}`)) {
        out += `\\${d}`;
        i += 2;
      } else {
        let cp: number;
        [cp, i] = parseEscape(pattern, i);
        out += literal(cp, false);
      }
      operand = true;
    } else {
      const cp = pattern.codePointAt(i)!;
      out += literal(cp, false);
      i += String.fromCodePoint(cp).length;
      operand = true;
    }
    lastRepeat = repeatAt;
  }
  if (depth > 0) throw goError('missing closing )', pattern);
  const flags = ignoreCase ? 'i' : '';
  try {
    new RegExp(out, flags);
  } catch (err) {
    throw unsupported(`this expression (${(err as Error).message})`);
  }
  return linearMatcher(out, flags);
}

/** A compiled expression: `source` is the JavaScript pattern it stands for, `test` never backtracks. */
export interface GoRegexp {
  readonly source: string;
  readonly flags: string;
  test(text: string): boolean;
}

/**
 * The longest text tested: platform strings are `os/arch[/variant]` (`linux/arm64/v8`: 14 characters); a longer
 * one, from a hostile image, never matches. The matcher's time grows with the square of the text (and the size of
 * the expression), so the bound is what keeps a 241-character platform from costing seconds per entry.
 */
export const MAX_SUBJECT = 64;

type ReNode =
  | { t: 'char'; re: RegExp }
  | { t: 'assert'; kind: string }
  | { t: 'seq'; items: ReNode[] }
  | { t: 'alt'; items: ReNode[] }
  | { t: 'repeat'; node: ReNode; min: number; max: number };

/**
 * The JavaScript pattern compileGoRegexp wrote (its own small dialect: literals, `\xNN`, escapes, classes, `.`,
 * anchors, `\b`, groups, `|`, `* + ? {n,m}` and their lazy forms) as a tree whose single characters are tested
 * by one-character RegExps.
 */
function reTree(src: string, flags: string): ReNode {
  let i = 0;
  const chars = new Map<string, RegExp>();
  const char = (text: string): ReNode => {
    let re = chars.get(text);
    if (!re) chars.set(text, (re = new RegExp(`^(?:${text})$`, flags)));
    return { t: 'char', re };
  };
  const alt = (): ReNode => {
    const items = [seq()];
    while (src[i] === '|') {
      i++;
      items.push(seq());
    }
    return items.length === 1 ? items[0]! : { t: 'alt', items };
  };
  const seq = (): ReNode => {
    const items: ReNode[] = [];
    while (i < src.length && src[i] !== '|' && src[i] !== ')') {
      let node = atom();
      for (;;) {
        const m = /^(?:([*+?])|\{(\d+)(,(\d*))?\})\??/.exec(src.slice(i));
        if (!m) break;
        i += m[0].length;
        const [min, max] =
          m[1] === '*'
            ? [0, -1]
            : m[1] === '+'
              ? [1, -1]
              : m[1] === '?'
                ? [0, 1]
                : [Number(m[2]), m[3] === undefined ? Number(m[2]) : m[4] === '' ? -1 : Number(m[4])];
        node = { t: 'repeat', node, min: min!, max: max! };
      }
      items.push(node);
    }
    return items.length === 1 ? items[0]! : { t: 'seq', items };
  };
  const atom = (): ReNode => {
    const c = src[i]!;
    if (c === '(') {
      i += src.startsWith('(?:', i) ? 3 : 1;
      const inner = alt();
      i++; // `)`
      return inner;
    }
    if (c === '^' || c === '$') {
      i++;
      return { t: 'assert', kind: c };
    }
    if (c === '[') {
      let j = i + 1;
      if (src[j] === '^') j++;
      while (src[j] !== ']') j += src[j] === '\\' ? 2 : 1;
      const text = src.slice(i, j + 1);
      i = j + 1;
      return char(text);
    }
    if (c === '\\') {
      const d = src[i + 1]!;
      if (d === 'b' || d === 'B') {
        i += 2;
        return { t: 'assert', kind: d };
      }
      const n = d === 'x' ? 4 : 2;
      const text = src.slice(i, i + n);
      i += n;
      return char(text);
    }
    i++;
    return char(c);
  };
  return alt();
}

/**
 * Go's leftmost-first search reduced to a yes/no answer, computed as the sets of positions where each node can
 * end when started at each position, each set computed once: polynomial in the text's length, never exponential.
 */
function linearMatcher(source: string, flags: string): GoRegexp {
  const tree = reTree(source, flags);
  const test = (text: string): boolean => {
    if (text.length > MAX_SUBJECT) return false;
    const n = text.length;
    const isWord = (p: number) => p >= 0 && p < n && /\w/.test(text[p]!);
    const memo = new Map<ReNode, (number[] | undefined)[]>();
    const step = (node: ReNode, from: Iterable<number>): Set<number> => {
      const next = new Set<number>();
      for (const p of from) for (const e of ends(node, p)) next.add(e);
      return next;
    };
    const ends = (node: ReNode, p: number): number[] => {
      let row = memo.get(node);
      if (!row) memo.set(node, (row = []));
      const known = row[p];
      if (known) return known;
      let result: number[];
      switch (node.t) {
        case 'char':
          result = p < n && node.re.test(text[p]!) ? [p + 1] : [];
          break;
        case 'assert': {
          const ok = node.kind === '^' ? p === 0 : node.kind === '$' ? p === n : (isWord(p - 1) !== isWord(p)) === (node.kind === 'b');
          result = ok ? [p] : [];
          break;
        }
        case 'seq': {
          let cur = new Set([p]);
          for (const item of node.items) {
            if (cur.size === 0) break;
            cur = step(item, cur);
          }
          result = [...cur];
          break;
        }
        case 'alt':
          result = [...new Set(node.items.flatMap((item) => ends(item, p)))];
          break;
        case 'repeat': {
          let cur = new Set([p]);
          for (let k = 0; k < node.min && cur.size > 0; k++) cur = step(node.node, cur);
          const all = new Set(cur);
          let frontier = cur;
          for (let k = node.min; (node.max < 0 || k < node.max) && frontier.size > 0; k++) {
            frontier = new Set([...step(node.node, frontier)].filter((e) => !all.has(e)));
            for (const e of frontier) all.add(e);
          }
          result = [...all];
        }
      }
      row[p] = result;
      return result;
    };
    for (let p = 0; p <= n; p++) if (ends(tree, p).length > 0) return true;
    return false;
  };
  return { source, flags, test };
}
