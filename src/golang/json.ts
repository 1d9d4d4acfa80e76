/**
 * JSON text as Go's encoding/json writes it (`json.MarshalIndent(v, "", "  ")`, Go 1.19 as oc 4.13 is built),
 * for the bytes oc users compare: `release info -o json` and the payload files `release new` writes.
 *
 * Differences from JSON.stringify: `<`, `>` and `&` are written `\u003c`, `\u003e`, `\u0026`; U+2028 and
 * U+2029 `\u2028`, `\u2029`; control characters other than `\n`, `\r`, `\t` as `\u00XX` (lowercase hex, so
 * `\b` is `\u0008`); a lone surrogate (bytes that were not UTF-8) as `\ufffd`. Keys keep the order of the
 * object given: callers build Go structs' field order themselves and sort Go maps with {@link goMapOrder}
 * (an object with integer-like keys, which JavaScript always lists first, can only be a map: it is sorted here).
 * Numbers print as JavaScript prints them, which is Go's float64 format for every value JSON.parse returns
 * (exponents from 1e21 and below 1e-6, `1e+21`, `1e-7`).
 */

const HEX = '0123456789abcdef';
const INDEX_KEY = /^(?:0|[1-9]\d*)$/;

function escapeChar(c: number): string {
  return `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
}

/** Characters goString writes otherwise than as themselves (surrogates are checked for pairing). */
const SPECIAL = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;

/** A string literal as Go writes it (HTML-safe escaping on). */
export function goString(s: string): string {
  // Nearly every string of a release (names, pull specs, digests) has nothing to escape.
  if (!SPECIAL.test(s)) return `"${s}"`;
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let rep: string | undefined;
    if (c < 0x20) rep = c === 0x0a ? '\\n' : c === 0x0d ? '\\r' : c === 0x09 ? '\\t' : escapeChar(c);
    else if (c === 0x22) rep = '\\"';
    else if (c === 0x5c) rep = '\\\\';
    else if (c === 0x3c || c === 0x3e || c === 0x26) rep = escapeChar(c);
    else if (c === 0x2028 || c === 0x2029) rep = c === 0x2028 ? '\\u2028' : '\\u2029';
    else if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      rep = '\\ufffd';
    }
    if (rep === undefined) continue;
    out += s.slice(start, i) + rep;
    start = i + 1;
  }
  return `${out + s.slice(start)}"`;
}

/**
 * `value` as Go's json.MarshalIndent(value, "", indent) writes it (no final newline); with `indent` null, as
 * json.Marshal writes it (compact: the jsonpath printer's objects).
 */
export function goJson(value: unknown, indent: string | null = '  '): string {
  // One string grown in place (V8 joins the pieces lazily): a release's ImageStream is thousands of values, and
  // an array and a join per object cost more than the text.
  let out = '';
  const comma = indent === null ? ',' : ',\n';
  const colon = indent === null ? ':' : ': ';
  /** `n` members between brackets (`[]`/`{}` when none), each on a line of its own when indenting. */
  const members = (open: string, close: string, n: number, pad: string, member: (i: number, inner: string) => void): void => {
    if (n === 0) {
      out += open + close;
      return;
    }
    const inner = indent === null ? '' : pad + indent;
    out += indent === null ? open : `${open}\n`;
    for (let i = 0; i < n; i++) {
      if (i > 0) out += comma;
      out += inner;
      member(i, inner);
    }
    out += indent === null ? close : `\n${pad}${close}`;
  };
  const write = (v: unknown, pad: string): void => {
    if (v === null || v === undefined) out += 'null';
    else if (typeof v === 'string') out += goString(v);
    else if (typeof v === 'number') out += Number.isFinite(v) ? String(v) : 'null';
    else if (typeof v === 'boolean') out += v ? 'true' : 'false';
    else if (Array.isArray(v)) members('[', ']', v.length, pad, (i, inner) => write(v[i], inner));
    else {
      const o = v as Record<string, unknown>;
      let keys = Object.keys(o).filter((k) => o[k] !== undefined);
      // JavaScript lists integer-like keys first whatever the insertion order; only a map has such keys.
      if (keys.some((k) => INDEX_KEY.test(k))) keys = keys.sort(goKeyCompare);
      members('{', '}', keys.length, pad, (i, inner) => {
        out += goString(keys[i]!) + colon;
        write(o[keys[i]!], inner);
      });
    }
  };
  write(value, '');
  return out;
}

/** Go's order of map keys (sort.Strings: by UTF-8 bytes, i.e. by code point). */
export function goKeyCompare(a: string, b: string): number {
  // UTF-16 order is code point order (UTF-8's) unless a surrogate meets a character from U+E000 up.
  if (!HIGH.test(a) && !HIGH.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

const HIGH = /[\ud800-\uffff]/;

/**
 * A copy of a decoded JSON value as a Go map[string]interface{} holds it: every object's keys in Go's map
 * order (recursively), so that {@link goJson} writes what Go would.
 */
export function goMapOrder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(goMapOrder);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // defineProperty: a `__proto__` key from an image's JSON is a key like any other, never the copy's prototype.
  for (const k of Object.keys(o).sort(goKeyCompare))
    Object.defineProperty(out, k, { value: goMapOrder(o[k]), enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * The member encoding/json decodes into a struct field named `name`: keys match it ignoring case (Go takes
 * `Labels` for `labels`), and of several the last one wins, as each overwrites the field.
 */
export function goField(o: Record<string, unknown>, name: string): unknown {
  const lower = name.toLowerCase();
  let found: unknown;
  // Only a key of the field name's length can match it (field names are ASCII, and what lowercases to ASCII keeps
  // its length): most keys are passed over without a lowercased copy.
  for (const k of Object.keys(o)) if (k === name || (k.length === name.length && k.toLowerCase() === lower)) found = o[k];
  return found;
}

/** {@link goField} decoded into a Go `string` field: `""` when absent or not a string. */
export function goStringField(o: Record<string, unknown>, name: string): string {
  const v = goField(o, name);
  return typeof v === 'string' ? v : '';
}
