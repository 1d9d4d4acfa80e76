/**
 * Go's fmt.Sprint, Sprintln and Sprintf over the values a go-template sees (decoded JSON with int64 integers,
 * template int constants as GoInt): the `print`, `println` and `printf` template functions as oc runs them.
 * The common verbs (%v %s %d %q %t %f %e %g %x %X %o %b %c %%), flags (- + 0 space #), width and precision, and
 * Go's complaints in the output (`%!d(string=x)`, `%!v(MISSING)`, `%!(EXTRA int=1)`).
 */
import {
  GoFloat,
  GoInt,
  type GoPrintOptions,
  formatGoFloat,
  gLayout,
  goExpSuffix,
  goKind,
  goQuote,
  goTypeName,
  sortedKeys,
} from './value.js';

/** The go-template printer's numbers: whole numbers are int64. */
const TEMPLATE: GoPrintOptions = { ints: true };

const intValue = (v: unknown): bigint => (v instanceof GoInt ? BigInt(v.value) : BigInt(v as number));

interface Spec {
  minus: boolean;
  plus: boolean;
  zero: boolean;
  space: boolean;
  sharp: boolean;
  width?: number;
  prec?: number;
}

const NO_SPEC: Spec = { minus: false, plus: false, zero: false, space: false, sharp: false };

function pad(s: string, spec: Spec, numeric = false): string {
  const width = spec.width ?? 0;
  const len = [...s].length;
  if (len >= width) return s;
  if (spec.minus) return s + ' '.repeat(width - len);
  if (spec.zero) {
    const sign = numeric && /^[+\- ]/.test(s) ? s[0]! : '';
    return sign + '0'.repeat(width - len) + s.slice(sign.length);
  }
  return ' '.repeat(width - len) + s;
}

function signed(s: string, negative: boolean, spec: Spec): string {
  if (negative) return `-${s}`;
  return spec.plus ? `+${s}` : spec.space ? ` ${s}` : s;
}

function badVerb(verb: string, v: unknown, o: GoPrintOptions = TEMPLATE): string {
  if (v === null || v === undefined) return `%!${verb}(<nil>)`;
  return `%!${verb}(${goTypeName(v, o)}=${formatValue(v, 'v', NO_SPEC, o)})`;
}

/** An integer as a character (`%c`): Go writes U+FFFD for what is not a Unicode code point. */
const rune = (n: bigint): string =>
  n < 0n || n > 0x10ffffn || (n >= 0xd800n && n <= 0xdfffn) ? '\uFFFD' : String.fromCodePoint(Number(n));

/** fmt's parsenum: a width or precision over 10^6 (read digit by digit) is no number, and the verb is lost: `%!(NOVERB)`. */
const tooLarge = (digits: string) => {
  let num = 0;
  for (const d of digits) {
    if (num > 1e6) return true;
    num = num * 10 + Number(d);
  }
  return false;
};

function formatInt(v: unknown, verb: string, spec: Spec): string {
  const n = intValue(v);
  const neg = n < 0n;
  const abs = neg ? -n : n;
  let digits: string;
  switch (verb) {
    case 'v':
    case 'd':
      digits = abs.toString(10);
      break;
    case 'b':
      digits = abs.toString(2);
      break;
    case 'o':
      digits = (spec.sharp ? '0' : '') + abs.toString(8);
      break;
    case 'x':
      digits = (spec.sharp ? '0x' : '') + abs.toString(16);
      break;
    case 'X':
      digits = (spec.sharp ? '0X' : '') + abs.toString(16).toUpperCase();
      break;
    case 'c':
      return pad(rune(n), spec);
    case 'q':
      return pad(`'${rune(n)}'`, spec);
    default:
      return badVerb(verb, v);
  }
  if (spec.prec !== undefined) digits = digits.padStart(spec.prec, '0');
  return pad(signed(digits, neg, spec), spec, true);
}

/** A finite a >= 0 exactly as int / 10^scale (every float64 has a finite decimal expansion). */
function exactDecimal(a: number): { int: bigint; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, a);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = biased === 0 ? frac : frac | (1n << 52n);
  const e = (biased === 0 ? 1 : biased) - 1075;
  return e >= 0 ? { int: mant << BigInt(e), scale: 0 } : { int: mant * 5n ** BigInt(-e), scale: -e };
}

/** a rounded to `places` decimal places (negative: tens, hundreds…), ties to even as Go's strconv: a / 10^-places. */
function roundTo(a: number, places: number): bigint {
  const { int, scale } = exactDecimal(a);
  if (places >= scale) return int * 10n ** BigInt(places - scale);
  const div = 10n ** BigInt(scale - places);
  const q = int / div;
  const r2 = (int % div) * 2n;
  return r2 > div || (r2 === div && q % 2n === 1n) ? q + 1n : q;
}

/** `%.Nf` of a >= 0. */
function fixed(a: number, places: number): string {
  const digits = roundTo(a, places)
    .toString()
    .padStart(places + 1, '0');
  return places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

/** a >= 0 with `prec` digits after the first: [mantissa digits, exponent]. */
function exponential(a: number, prec: number): [string, number] {
  if (a === 0) return ['0'.repeat(prec + 1), 0];
  const { int, scale } = exactDecimal(a);
  let exp = int.toString().length - 1 - scale;
  let digits = roundTo(a, prec - exp).toString();
  if (digits.length > prec + 1) {
    digits = digits.slice(0, prec + 1);
    exp++;
  }
  return [digits, exp];
}

function formatFloat(x: number, verb: string, spec: Spec): string {
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let s: string;
  switch (verb) {
    case 'v':
    case 'g':
    case 'G':
      s = spec.prec === undefined ? formatGoFloat(a) : gPrec(a, spec.prec);
      if (verb === 'G') s = s.toUpperCase();
      break;
    case 'f':
    case 'F':
      s = fixed(a, spec.prec ?? 6);
      break;
    case 'e':
    case 'E': {
      const [digits, exp] = exponential(a, spec.prec ?? 6);
      s = `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}${goExpSuffix(exp)}`;
      if (verb === 'E') s = s.toUpperCase();
      break;
    }
    default:
      return badVerb(verb, new GoFloat(x));
  }
  return pad(signed(s, neg, spec), spec, true);
}

/** `%.Ng`: N significant digits, exponent form when exp < -4 || exp >= N, trailing zeros dropped. */
function gPrec(a: number, prec: number): string {
  const p = prec === 0 ? 1 : prec;
  const [digits, exp] = exponential(a, p - 1);
  if (a === 0) return '0';
  return gLayout(digits.replace(/0+$/, ''), exp, p);
}

function formatString(s: string, verb: string, spec: Spec): string {
  const cut = spec.prec !== undefined ? [...s].slice(0, spec.prec).join('') : s;
  switch (verb) {
    case 'v':
    case 's':
      return pad(cut, spec);
    case 'q':
      return pad(goQuote(cut), spec);
    case 'x':
    case 'X': {
      const hex = Buffer.from(cut, 'utf8').toString('hex');
      return pad(verb === 'X' ? hex.toUpperCase() : hex, spec);
    }
    default:
      return badVerb(verb, s);
  }
}

/** One argument formatted with one verb, as fmt's printArg / printValue do. */
function formatValue(v: unknown, verb: string, spec: Spec, o: GoPrintOptions = TEMPLATE): string {
  switch (goKind(v, o)) {
    case 'nil':
      return verb === 'v' ? pad('<nil>', spec) : badVerb(verb, v);
    case 'bool':
      return verb === 'v' || verb === 't' ? pad(String(v), spec) : badVerb(verb, v);
    case 'int':
      return formatInt(v, verb, spec);
    case 'float':
      return formatFloat(v instanceof GoFloat ? v.value : (v as number), verb, spec);
    case 'string':
      return formatString(v as string, verb, spec);
    case 'slice':
      return `[${(v as unknown[]).map((x) => formatValue(x, verb, spec, o)).join(' ')}]`;
    case 'map': {
      const m = v as Record<string, unknown>;
      const keys = sortedKeys(m);
      return `map[${keys.map((k) => `${formatValue(k, verb, spec, o)}:${formatValue(m[k], verb, spec, o)}`).join(' ')}]`;
    }
  }
}

/** fmt.Sprintf. */
export function sprintf(format: string, args: readonly unknown[]): string {
  let out = '';
  let argNum = 0;
  let i = 0;
  while (i < format.length) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const spec: Spec = { ...NO_SPEC };
    for (; i < format.length; i++) {
      const c = format[i];
      if (c === '-') spec.minus = true;
      else if (c === '+') spec.plus = true;
      else if (c === '0') spec.zero = !spec.minus;
      else if (c === ' ') spec.space = true;
      else if (c === '#') spec.sharp = true;
      else break;
    }
    const width = /^[0-9]+/.exec(format.slice(i));
    if (width && tooLarge(width[0])) {
      out += '%!(NOVERB)';
      break;
    }
    if (width) {
      spec.width = Number(width[0]);
      i += width[0].length;
    }
    if (format[i] === '.') {
      i++;
      const prec = /^[0-9]*/.exec(format.slice(i))![0];
      if (tooLarge(prec)) {
        out += '%!(NOVERB)';
        break;
      }
      spec.prec = Number(prec || '0');
      i += prec.length;
    }
    if (i >= format.length) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += formatValue(args[argNum++], verb, spec);
  }
  if (argNum < args.length) {
    const extra = args
      .slice(argNum)
      .map((a) => (a === null || a === undefined ? '<nil>' : `${goTypeName(a, TEMPLATE)}=${formatValue(a, 'v', NO_SPEC)}`));
    out += `%!(EXTRA ${extra.join(', ')})`;
  }
  return out;
}

/** fmt.Sprint: operands separated by a space when neither side is a string. */
export function sprint(args: readonly unknown[]): string {
  let out = '';
  args.forEach((a, n) => {
    const isString = typeof a === 'string';
    if (n > 0 && !isString && typeof args[n - 1] !== 'string') out += ' ';
    out += formatValue(a, 'v', NO_SPEC);
  });
  return out;
}

/** fmt.Sprintln: operands always separated by a space, then a newline. */
export function sprintln(args: readonly unknown[]): string {
  return `${args.map((a) => formatValue(a, 'v', NO_SPEC)).join(' ')}\n`;
}

/** fmt.Fprint / `%v` of one decoded JSON value: `map[a:1 b:[x y]]`, `<nil>`; numbers are float64 unless `ints`. */
export function goPrint(v: unknown, o: GoPrintOptions = {}): string {
  return formatValue(v, 'v', NO_SPEC, o);
}
