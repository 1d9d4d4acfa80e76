import { goKeyCompare } from './json.js';

/**
 * Decoded JSON printed the way Go prints it, for the `-o jsonpath` and `-o go-template` printers that must match
 * oc byte for byte: a float64's `%v`, `%#v` (the jsonpath error dump), strconv.Quote and Unquote, `%#U`, type
 * names. Go 1.19, what oc 4.13 is built with. encoding/json's text is json.ts; fmt's verbs, fmt.ts.
 *
 * Numbers: encoding/json decodes every JSON number into a float64 (the jsonpath printer), while the go-template
 * printer decodes integers into int64 (k8s.io/apimachinery's json). `ints: true` prints whole numbers as int64.
 */

export interface GoPrintOptions {
  /** Whole numbers (below 2^63) are int64, as the go-template printer decodes them; else every number is a float64. */
  ints?: boolean;
}

/** True when a number decoded by the go-template printer is an int64 rather than a float64. */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63;
}

/** The shortest decimal digits and the exponent of a finite, non-zero |n|: 1234.5 → ['12345', 3]. */
function shortestDigits(n: number): [string, number] {
  const [mant, exp] = Math.abs(n).toExponential().split('e') as [string, string];
  return [mant.replace('.', ''), Number(exp)];
}

/** Go's exponent suffix: `e+06`, `e-07`. */
export const goExpSuffix = (exp: number): string => `e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;

/**
 * `%g`'s layout of significant `digits` (no trailing zeros) with decimal exponent `exp`: exponent form when
 * exp < -4 || exp >= eprec, else plain decimal. Shared by `%v` (shortest digits, eprec 6) and `%.Ng` (fmt.ts).
 */
export function gLayout(digits: string, exp: number, eprec: number): string {
  if (exp < -4 || exp >= eprec) return `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}${goExpSuffix(exp)}`;
  if (exp < 0) return `0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return frac ? `${whole}.${frac}` : whole;
}

/** A float64 as Go's `%v` prints it: `%g` with the shortest digits, exponent form when exp < -4 || exp >= 6. */
export function formatGoFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [digits, exp] = shortestDigits(n);
  return (n < 0 ? '-' : '') + gLayout(digits, exp, 6);
}

/** Map keys in the order Go sorts them (by bytes). */
export function sortedKeys(o: object): string[] {
  return Object.keys(o).sort(goKeyCompare);
}

/** An int (not a float64) in a template: jsonpath's integer literals and indexes, which Go keeps apart from JSON numbers. */
export class GoInt {
  constructor(readonly value: number) {}
}

/** A float64 constant of a Go template (`{{1.0}}`), which a whole JS number cannot tell from an int64. */
export class GoFloat {
  constructor(readonly value: number) {}
}

/** A decoded JSON object (Go's map[string]interface {}): not null, a list, nor a boxed template number. */
export const isGoMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoInt) && !(v instanceof GoFloat);

export type GoKind = 'nil' | 'bool' | 'int' | 'float' | 'string' | 'slice' | 'map';

/** The kind of Go value a decoded JSON value (or a template constant) is. */
export function goKind(v: unknown, o: GoPrintOptions = {}): GoKind {
  if (v === null || v === undefined) return 'nil';
  if (v instanceof GoInt) return 'int';
  if (v instanceof GoFloat) return 'float';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return o.ints && isGoInt(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'string';
  return Array.isArray(v) ? 'slice' : 'map';
}

const TYPE_NAMES: Record<GoKind, string> = {
  nil: 'interface {}',
  bool: 'bool',
  int: 'int64',
  float: 'float64',
  string: 'string',
  slice: '[]interface {}',
  map: 'map[string]interface {}',
};

/** The Go type name fmt and reflect print for a decoded JSON value (a template's int constant is an `int`). */
export function goTypeName(v: unknown, o: GoPrintOptions = {}): string {
  return v instanceof GoInt ? 'int' : TYPE_NAMES[goKind(v, o)];
}

const isPrint = (c: string) => c === ' ' || !/[\p{C}\p{Z}]/u.test(c);

/** strconv.Quote. */
export function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    if (c === '"' || c === '\\') out += `\\${c}`;
    else if (isPrint(c) && !(cp >= 0xd800 && cp <= 0xdfff)) out += c;
    else if (c === '\x07') out += '\\a';
    else if (c === '\b') out += '\\b';
    else if (c === '\f') out += '\\f';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (c === '\v') out += '\\v';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd';
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** `%#v` of a decoded JSON value (float64 numbers): `map[string]interface {}{"a":[]interface {}{"x"}, "b":interface {}(nil)}`. */
export function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return formatGoFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof GoInt) return String(v.value);
  if (v instanceof GoFloat) return formatGoFloat(v.value);
  if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSyntax(x)).join(', ')}}`;
  const m = v as Record<string, unknown>;
  const body = sortedKeys(m)
    .map((k) => `${goQuote(k)}:${goSyntax(m[k])}`)
    .join(', ');
  return `map[string]interface {}{${body}}`;
}

/** Go's `%#U`: `U+0023 '#'` (the character only when it is printable). */
export function goRuneName(r: string): string {
  const hex = `U+${r.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return isPrint(r) ? `${hex} '${r}'` : hex;
}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/**
 * strconv.Unquote of a "…" or '…' string (client-go's UnquoteExtend: jsonpath takes '…' as a string too; Go
 * templates take it as one character); undefined for invalid syntax.
 */
export function goUnquote(s: string): string | undefined {
  const quote = s[0];
  if (s.length < 2 || quote !== s.at(-1) || (quote !== '"' && quote !== "'")) return undefined;
  let rest = s.slice(1, -1);
  if (!rest.includes('\\') && !rest.includes(quote)) return rest;
  let out = '';
  while (rest.length > 0) {
    const c = rest[0]!;
    if (c === quote) return undefined;
    if (c !== '\\') {
      const r = String.fromCodePoint(rest.codePointAt(0)!);
      out += r;
      rest = rest.slice(r.length);
      continue;
    }
    if (rest.length <= 1) return undefined;
    const e = rest[1]!;
    rest = rest.slice(2);
    if (e in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[e];
    else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = rest.slice(0, n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) return undefined;
      const v = Number.parseInt(hex, 16);
      if (e !== 'x' && (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))) return undefined;
      out += String.fromCodePoint(v);
      rest = rest.slice(n);
    } else if (e >= '0' && e <= '7') {
      const oct = e + rest.slice(0, 2);
      if (!/^[0-7]{3}$/.test(oct) || Number.parseInt(oct, 8) > 255) return undefined;
      out += String.fromCodePoint(Number.parseInt(oct, 8));
      rest = rest.slice(2);
    } else if ((e === "'" || e === '"') && e === quote) out += e;
    else return undefined;
  }
  return out;
}
