/**
 * YAML text as go-yaml v2 writes a value decoded from JSON (sigs.k8s.io/yaml JSONToYAML, what oc and the
 * Kubernetes libraries print manifests with): block style, two-space indent, sequences in a mapping not indented,
 * empty collections as `[]` / `{}`, mapping keys in go-yaml's order (letters by code point, runs of digits by
 * value, anything else before letters), and each string in the style go-yaml picks:
 *
 * - plain when it would read back as the same string (not `true`, `1`, `null`, a date, `1:20`…) and no indicator
 *   or surrounding space forbids it; else single-quoted when plain was refused for its characters only, else
 *   double-quoted (escapes as go-yaml writes them);
 * - a literal block (`|`, `|-`, `|+`) when it holds a line break, unless something forbids a block;
 * - long plain and quoted scalars fold at a space once the line has passed 80 columns.
 *
 * Numbers: integers in decimal, other numbers as Go's strconv.FormatFloat(f, 'g', -1, 64). Pure; no I/O.
 */

type Value = null | boolean | number | bigint | string | Value[] | { [k: string]: Value };

const BEST_WIDTH = 80;
const BEST_INDENT = 2;

// ---- how go-yaml resolves a plain scalar (to know whether a string may be written plain) ----

const RESOLVE_MAP = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  '',
  '~',
  'null',
  'Null',
  'NULL',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
  '<<',
]);

const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
/** Go's time.Parse layouts go-yaml tries: 2006-1-2T15:4:5.999999999Z07:00 (t too), 2006-1-2 15:4:5.999999999, 2006-1-2. */
const TIMESTAMP = [
  /^\d{4}-\d{1,2}-\d{1,2}[Tt]\d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
  /^\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?$/,
  /^\d{4}-\d{1,2}-\d{1,2}$/,
];

function validDate(s: string): boolean {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
  if (d > days) return false;
  const t = /[Tt ](\d{1,2}):(\d{1,2}):(\d{1,2})/.exec(s);
  return !t || (Number(t[1]) < 24 && Number(t[2]) < 60 && Number(t[3]) < 60);
}

/** Go's strconv.ParseInt(s, 0, 64) or ParseUint(s, 0, 64) would accept it. */
function goInteger(s: string): boolean {
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return false;
  const body = m[2]!;
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) v = BigInt(`0o${body.slice(1)}`);
  else v = BigInt(body);
  if (m[1] === '-') return v <= 2n ** 63n;
  return v < 2n ** 64n && (m[1] !== '+' || v < 2n ** 63n);
}

/** Whether go-yaml would read `s`, written plain, as the string `s` (its resolve gives !!str). */
export function resolvesToString(s: string): boolean {
  if (s === '') return false;
  const c = s[0]!;
  const hint = /[0-9]/.test(c) ? 'D' : c === '+' || c === '-' ? 'S' : 'yYnNtTfFoO~'.includes(c) ? 'M' : c === '.' ? '.' : '';
  if (hint === '') return true;
  if (RESOLVE_MAP.has(s)) return false;
  if (hint === 'M') return true;
  if (hint === '.') return !/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s);
  if (/^[0-9]{4}-/.test(s) && TIMESTAMP.some((r) => r.test(s)) && validDate(s)) return false;
  const plain = s.replace(/_/g, '');
  if (goInteger(plain) || YAML_FLOAT.test(plain)) return false;
  if (/^0b[01]+$/.test(plain) || /^-0b[01]+$/.test(plain)) return false;
  return true;
}

function isBase60Float(s: string): boolean {
  return /^[-+0-9]/.test(s) && s.includes(':') && BASE60_FLOAT.test(s);
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64), as go-yaml writes a float. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Infinity) return '.inf';
  if (f === -Infinity) return '-.inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant, e] = Math.abs(f).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const exp = Number(e);
  const sign = f < 0 ? '-' : '';
  // Go decides by the exponent alone when the precision is the shortest: %e below 1e-4 and from 1e6 on.
  if (exp < -4 || exp >= 6) {
    // %e: d.ddde±XX (at least two exponent digits)
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ee = Math.abs(exp).toString().padStart(2, '0');
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${ee}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

// ---- key order ----

const isLetter = (ch: string) => /\p{L}/u.test(ch);
const isDigit = (ch: string) => /\p{Nd}/u.test(ch);

/** go-yaml v2's order of string map keys. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = an * 10n + BigInt(ar[ai]!.codePointAt(0)! - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = bn * 10n + BigInt(br[bi]!.codePointAt(0)! - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}

// ---- scalar analysis (which styles the emitter allows) ----

interface Analysis {
  multiline: boolean;
  flowPlain: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

const isBreak = (ch: string) => ch === '\n' || ch === '\r' || ch === '\u0085' || ch === '\u2028' || ch === '\u2029';
const isBlank = (ch: string | undefined) => ch === ' ' || ch === '\t';
function isPrintable(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  if (cp === 0x0a || (cp >= 0x20 && cp <= 0x7e)) return true;
  if (cp >= 0xa0 && cp <= 0xd7ff) return true;
  if (cp >= 0xe000 && cp <= 0xfffd) return cp !== 0xfeff;
  return false;
}

function analyze(value: string): Analysis {
  if (value === '') return { multiline: false, flowPlain: false, blockPlain: true, singleQuoted: true, block: false };
  const chars = [...value];
  let blockInd = false;
  let flowInd = false;
  if (value.startsWith('---') || value.startsWith('...')) {
    blockInd = true;
    flowInd = true;
  }
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWs = true;
  let prevSpace = false;
  let prevBreak = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const next = chars[i + 1];
    const followedByWs = next === undefined || isBlank(next) || isBreak(next);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) {
        flowInd = true;
        blockInd = true;
      } else if (ch === '?' || ch === ':') {
        flowInd = true;
        if (followedByWs) blockInd = true;
      } else if (ch === '-' && followedByWs) {
        flowInd = true;
        blockInd = true;
      }
    } else if (',?[]{}'.includes(ch)) {
      flowInd = true;
    } else if (ch === ':') {
      flowInd = true;
      if (followedByWs) blockInd = true;
    } else if (ch === '#' && precededByWs) {
      flowInd = true;
      blockInd = true;
    }
    if (!isPrintable(ch)) special = true;
    if (ch === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreak(ch)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWs = isBlank(ch) || isBreak(ch);
  }
  const a: Analysis = { multiline: lineBreaks, flowPlain: true, blockPlain: true, singleQuoted: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.flowPlain = a.blockPlain = false;
  if (trailingSpace) a.block = false;
  if (breakSpace) a.flowPlain = a.blockPlain = a.singleQuoted = false;
  if (spaceBreak || special) a.flowPlain = a.blockPlain = a.singleQuoted = a.block = false;
  if (lineBreaks) a.flowPlain = a.blockPlain = false;
  if (flowInd) a.flowPlain = false;
  if (blockInd) a.blockPlain = false;
  return a;
}

// ---- the emitter ----

type Style = 'plain' | 'single' | 'double' | 'literal';

class Emitter {
  out = '';
  column = 0;
  indent = -1;
  whitespace = true;
  indention = true;
  private readonly indents: number[] = [];

  put(s: string): void {
    this.out += s;
    this.column += [...s].length;
  }

  putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  indicator(s: string, needWs: boolean, isWs: boolean, isIndention: boolean): void {
    if (needWs && !this.whitespace) this.put(' ');
    this.put(s);
    this.whitespace = isWs;
    this.indention = this.indention && isIndention;
  }

  increaseIndent(indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  popIndent(): void {
    this.indent = this.indents.pop()!;
  }

  plain(value: string, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    let spaces = false;
    let breaks = false;
    const chars = [...value];
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i]!;
      if (ch === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && chars[i + 1] !== ' ') this.writeIndent();
        else this.put(ch);
        spaces = true;
      } else if (isBreak(ch)) {
        if (!breaks && ch === '\n') this.putBreak();
        this.writeBreak(ch);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(ch);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private writeBreak(ch: string): void {
    if (ch === '\n') this.putBreak();
    else {
      this.out += ch;
      this.column = 0;
    }
  }

  single(value: string, allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    const chars = [...value];
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i]!;
      if (ch === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1 && chars[i + 1] !== ' ') this.writeIndent();
        else this.put(ch);
        spaces = true;
      } else if (isBreak(ch)) {
        if (!breaks && ch === '\n') this.putBreak();
        this.writeBreak(ch);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (ch === "'") this.put("'");
        this.put(ch);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  double(value: string, allowBreaks: boolean): void {
    const ESC: Record<number, string> = {
      0: '0',
      7: 'a',
      8: 'b',
      9: 't',
      10: 'n',
      11: 'v',
      12: 'f',
      13: 'r',
      27: 'e',
      34: '"',
      92: '\\',
      133: 'N',
      160: '_',
      8232: 'L',
      8233: 'P',
    };
    let spaces = false;
    this.indicator('"', true, false, false);
    const chars = [...value];
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i]!;
      const cp = ch.codePointAt(0)!;
      if (!isPrintable(ch) || cp === 0xfeff || isBreak(ch) || ch === '"' || ch === '\\') {
        this.put('\\');
        const e = ESC[cp];
        if (e !== undefined) this.put(e);
        else if (cp <= 0xff) this.put(`x${cp.toString(16).toUpperCase().padStart(2, '0')}`);
        else if (cp <= 0xffff) this.put(`u${cp.toString(16).toUpperCase().padStart(4, '0')}`);
        else this.put(`U${cp.toString(16).toUpperCase().padStart(8, '0')}`);
        spaces = false;
      } else if (ch === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
          this.writeIndent();
          if (chars[i + 1] === ' ') this.put('\\');
        } else this.put(ch);
        spaces = true;
      } else {
        this.put(ch);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  literal(value: string): void {
    this.indicator('|', true, false, false);
    const chars = [...value];
    if (chars[0] === ' ' || isBreak(chars[0] ?? '')) this.indicator(String(BEST_INDENT), false, false, false);
    let chomp = '';
    const last = chars.length - 1;
    if (chars.length === 0 || !isBreak(chars[last]!)) chomp = '-';
    else if (last === 0 || isBreak(chars[last - 1]!)) chomp = '+';
    if (chomp) this.indicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const ch of chars) {
      if (isBreak(ch)) {
        this.writeBreak(ch);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(ch);
        this.indention = false;
        breaks = false;
      }
    }
  }

  scalar(text: string, wanted: Style, simpleKey: boolean): void {
    const a = analyze(text);
    let style = wanted;
    if (simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if (!a.blockPlain) style = 'single';
      if (text === '' && simpleKey) style = 'single';
    }
    if (style === 'single' && !a.singleQuoted) style = 'double';
    if (style === 'literal' && (!a.block || simpleKey)) style = 'double';
    const allowBreaks = !simpleKey;
    // A scalar's own lines (folds, a literal's body) sit one step in from where it starts.
    this.indents.push(this.indent);
    this.indent = this.indent < 0 ? BEST_INDENT : this.indent + BEST_INDENT;
    if (style === 'plain') this.plain(text, allowBreaks);
    else if (style === 'single') this.single(text, allowBreaks);
    else if (style === 'double') this.double(text, allowBreaks);
    else this.literal(text);
    this.popIndent();
  }
}

function scalarOf(v: Value): { text: string; style: Style } {
  if (v === null) return { text: 'null', style: 'plain' };
  if (typeof v === 'boolean') return { text: v ? 'true' : 'false', style: 'plain' };
  if (typeof v === 'bigint') return { text: v.toString(), style: 'plain' };
  if (typeof v === 'number')
    return { text: Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : goFloat(v), style: 'plain' };
  const s = v as string;
  if (s.includes('\n')) return { text: s, style: 'literal' };
  return { text: s, style: resolvesToString(s) && !isBase60Float(s) ? 'plain' : 'double' };
}

const isEmptyCollection = (v: Value) =>
  (Array.isArray(v) && v.length === 0) || (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

/** Longest simple key go-yaml writes as `key:` (a longer one would need the `? key` form). */
const MAX_SIMPLE_KEY = 128;

function node(e: Emitter, v: Value, ctx: { mapping: boolean; simpleKey?: boolean }): void {
  if (Array.isArray(v)) {
    if (v.length === 0) {
      e.indicator('[', true, true, false);
      e.indicator(']', false, false, false);
      return;
    }
    e.increaseIndent(ctx.mapping && !e.indention);
    for (const item of v) {
      e.writeIndent();
      e.indicator('-', true, false, true);
      node(e, item, { mapping: false });
    }
    e.popIndent();
    return;
  }
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort((a, b) => (yamlKeyLess(a, b) ? -1 : yamlKeyLess(b, a) ? 1 : 0));
    if (keys.length === 0) {
      e.indicator('{', true, true, false);
      e.indicator('}', false, false, false);
      return;
    }
    e.increaseIndent(false);
    for (const k of keys) {
      e.writeIndent();
      if (Buffer.byteLength(k) > MAX_SIMPLE_KEY || /[\n\r\u0085\u2028\u2029]/.test(k))
        throw new Error(`the mapping key ${JSON.stringify(k.slice(0, 40))} needs go-yaml's complex key form, which is not written here`);
      const key = scalarOf(k);
      e.scalar(key.text, key.style === 'literal' ? 'double' : key.style, true);
      e.indicator(':', false, false, false);
      const child = v[k]!;
      node(e, child, { mapping: true });
    }
    e.popIndent();
    return;
  }
  const s = scalarOf(v);
  e.scalar(s.text, s.style, ctx.simpleKey ?? false);
}

/** The YAML text of `value` (a value decoded from JSON), ending in a newline. */
export function marshalYamlV2(value: unknown): string {
  const e = new Emitter();
  const v = value as Value;
  if (isEmptyCollection(v) || (v !== null && typeof v === 'object')) node(e, v, { mapping: false });
  else {
    const s = scalarOf(v);
    e.scalar(s.text, s.style, false);
  }
  if (e.column > 0 || e.out === '') e.putBreak();
  return e.out;
}
