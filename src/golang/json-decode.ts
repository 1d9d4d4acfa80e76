/**
 * The errors Go's `json.Unmarshal` (Go 1.19, as oc 4.13 is built) gives for a text and a target type, in Go's
 * words, for flags oc reads as JSON (`release new --metadata`): oc users see these texts and match them.
 *
 * Go first scans the whole text (its scanner's state machine: `invalid character 'x' looking for beginning of
 * value`, `unexpected end of JSON input`, …), then decodes it, keeping the first type mismatch in document order
 * (`json: cannot unmarshal array into Go value of type release.CincinnatiMetadata`, `json: cannot unmarshal
 * number into Go struct field CincinnatiMetadata.version of type string`). Object keys match struct fields as Go
 * matches them: exactly, else ignoring ASCII case. Pure: imports nothing.
 */

/** A Go type, as far as the decoder's errors need it. */
export type GoType =
  | { kind: 'string' }
  | { kind: 'bool' }
  | { kind: 'number'; name: string }
  | { kind: 'interface' }
  | { kind: 'slice'; elem: GoType }
  | { kind: 'map'; elem: GoType }
  | { kind: 'struct'; name: string; pkg: string; fields: Record<string, GoType> };

/** `reflect.Type.String()`. */
export function goTypeString(t: GoType): string {
  switch (t.kind) {
    case 'string':
      return 'string';
    case 'bool':
      return 'bool';
    case 'number':
      return t.name;
    case 'interface':
      return 'interface {}';
    case 'slice':
      return `[]${goTypeString(t.elem)}`;
    case 'map':
      return `map[string]${goTypeString(t.elem)}`;
    case 'struct':
      return `${t.pkg}.${t.name}`;
  }
}

// --- the scanner ------------------------------------------------------------------------------------------

/** strconv.Quote's view of one byte taken as a rune (U+0000–U+00FF), as Go's quoteChar prints it. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v', 92: '\\\\' };
  if (named[c] !== undefined) return `'${named[c]}'`;
  const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
  if (c < 0x20 || c === 0x7f) return `'\\x${hex(c, 2)}'`;
  // Latin-1 runes strconv.IsPrint refuses: the C1 controls, no-break space and soft hyphen.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u${hex(c, 4)}'`;
  return `'${String.fromCharCode(c)}'`;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

type Step = (c: number) => void;

/** Go's checkValid: the syntax error of `data`, or undefined when it is one JSON value. */
export function goJsonSyntaxError(data: Uint8Array | string): string | undefined {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  // The parse stack: 'k' an object key is next/being read, 'v' an object value, 'a' an array element.
  const stack: Array<'k' | 'v' | 'a'> = [];
  let error: string | undefined;
  let endTop = false;
  let step: Step;
  const fail = (c: number, context: string) => {
    error = `invalid character ${quoteChar(c)} ${context}`;
    step = () => {};
  };
  const literal = (rest: string, word: string, then: Step): Step => {
    let i = 0;
    const next: Step = (c) => {
      if (c === rest.charCodeAt(i)) {
        i++;
        if (i === rest.length) step = then;
      } else fail(c, `in literal ${word} (expecting ${quoteChar(rest.charCodeAt(i))})`);
    };
    return next;
  };
  const endValue: Step = (c) => {
    const top = stack[stack.length - 1];
    if (top === undefined) {
      endTop = true;
      step = endTopState;
      endTopState(c);
      return;
    }
    if (isSpace(c)) {
      step = endValue;
      return;
    }
    if (top === 'k') {
      if (c === 0x3a) {
        stack[stack.length - 1] = 'v';
        step = beginValue;
        return;
      }
      fail(c, 'after object key');
      return;
    }
    if (top === 'v') {
      if (c === 0x2c) {
        stack[stack.length - 1] = 'k';
        step = beginString;
        return;
      }
      if (c === 0x7d) {
        stack.pop();
        step = endValue;
        if (stack.length === 0) endTop = true;
        return;
      }
      fail(c, 'after object key:value pair');
      return;
    }
    if (c === 0x2c) {
      step = beginValue;
      return;
    }
    if (c === 0x5d) {
      stack.pop();
      step = endValue;
      if (stack.length === 0) endTop = true;
      return;
    }
    fail(c, 'after array element');
  };
  const endTopState: Step = (c) => {
    if (!isSpace(c)) fail(c, 'after top-level value');
  };
  const inString: Step = (c) => {
    if (c === 0x22) step = endValue;
    else if (c === 0x5c) step = inStringEsc;
    else if (c < 0x20) fail(c, 'in string literal');
  };
  const inStringEsc: Step = (c) => {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c))) step = inString;
    else if (c === 0x75) step = escU(4);
    else fail(c, 'in string escape code');
  };
  const escU =
    (left: number): Step =>
    (c) => {
      if (!isHex(c)) fail(c, 'in \\u hexadecimal character escape');
      else step = left === 1 ? inString : escU(left - 1);
    };
  const neg: Step = (c) => {
    if (c === 0x30) step = zero;
    else if (c >= 0x31 && c <= 0x39) step = one;
    else fail(c, 'in numeric literal');
  };
  const one: Step = (c) => {
    if (isDigit(c)) return;
    zero(c);
  };
  const zero: Step = (c) => {
    if (c === 0x2e) step = dot;
    else if (c === 0x65 || c === 0x45) step = exp;
    else endValue(c);
  };
  const dot: Step = (c) => {
    if (isDigit(c)) step = dot0;
    else fail(c, 'after decimal point in numeric literal');
  };
  const dot0: Step = (c) => {
    if (isDigit(c)) return;
    if (c === 0x65 || c === 0x45) step = exp;
    else endValue(c);
  };
  const exp: Step = (c) => {
    if (c === 0x2b || c === 0x2d) step = expSign;
    else expSign(c);
  };
  const expSign: Step = (c) => {
    if (isDigit(c)) step = exp0;
    else fail(c, 'in exponent of numeric literal');
  };
  const exp0: Step = (c) => {
    if (!isDigit(c)) endValue(c);
  };
  const beginValue: Step = (c) => {
    if (isSpace(c)) return;
    switch (c) {
      case 0x7b:
        stack.push('k');
        step = beginStringOrEmpty;
        return;
      case 0x5b:
        stack.push('a');
        step = beginValueOrEmpty;
        return;
      case 0x22:
        step = inString;
        return;
      case 0x2d:
        step = neg;
        return;
      case 0x30:
        step = zero;
        return;
      case 0x74:
        step = literal('rue', 'true', endValue);
        return;
      case 0x66:
        step = literal('alse', 'false', endValue);
        return;
      case 0x6e:
        step = literal('ull', 'null', endValue);
        return;
    }
    if (c >= 0x31 && c <= 0x39) step = one;
    else fail(c, 'looking for beginning of value');
  };
  const beginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x5d) {
      stack.pop();
      step = endValue;
      if (stack.length === 0) endTop = true;
      return;
    }
    beginValue(c);
  };
  const beginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x7d) {
      stack.pop();
      step = endValue;
      if (stack.length === 0) endTop = true;
      return;
    }
    beginString(c);
  };
  const beginString: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x22) step = inString;
    else fail(c, 'looking for beginning of object key string');
  };
  step = beginValue;
  for (const c of bytes) {
    step(c);
    if (error !== undefined) return error;
  }
  // Go's eof(): one more space, which ends a number or reveals an unfinished literal.
  if (endTop) return undefined;
  step(0x20);
  if (error !== undefined) return error;
  return endTop ? undefined : 'unexpected end of JSON input';
}

// --- decoding into a type -----------------------------------------------------------------------------------

type Node =
  | { t: 'string'; v: string }
  | { t: 'number' }
  | { t: 'bool' }
  | { t: 'null' }
  | { t: 'array'; items: Node[] }
  | { t: 'object'; entries: Array<[string, Node]> };

/** A tree of a text the scanner accepted, object entries in order (duplicates kept, as Go visits them). */
function tree(text: string): Node {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): Node => {
    ws();
    const c = text[i]!;
    if (c === '{') {
      i++;
      const entries: Array<[string, Node]> = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { t: 'object', entries };
      }
      for (;;) {
        ws();
        const k = str();
        ws();
        i++; // ':'
        entries.push([k, value()]);
        ws();
        if (text[i++] === '}') return { t: 'object', entries };
      }
    }
    if (c === '[') {
      i++;
      const items: Node[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { t: 'array', items };
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i++] === ']') return { t: 'array', items };
      }
    }
    if (c === '"') return { t: 'string', v: str() };
    if (c === 't' || c === 'f') {
      i += c === 't' ? 4 : 5;
      return { t: 'bool' };
    }
    if (c === 'n') {
      i += 4;
      return { t: 'null' };
    }
    while (i < text.length && /[-+0-9.eE]/.test(text[i]!)) i++;
    return { t: 'number' };
  };
  return value();
}

/** Go's field lookup: the exact key, else the first field equal to it under case folding. */
function field(fields: Record<string, GoType>, key: string): [string, GoType] | undefined {
  if (Object.hasOwn(fields, key)) return [key, fields[key]!];
  const lower = key.toLowerCase();
  const hit = Object.keys(fields).find((f) => f.toLowerCase() === lower);
  return hit === undefined ? undefined : [hit, fields[hit]!];
}

/**
 * The error `json.Unmarshal(text, &v)` returns for a `v` of type `type`, in Go's words; undefined when it would
 * succeed.
 */
export function goUnmarshalError(text: string, type: GoType): string | undefined {
  const syntax = goJsonSyntaxError(text);
  if (syntax !== undefined) return syntax;
  let first: string | undefined;
  // The struct whose field is being decoded, and the path of fields to it (Go's errorContext).
  const visit = (node: Node, t: GoType, context: { struct: string; path: string[] } | undefined): void => {
    if (first !== undefined || node.t === 'null') return;
    const mismatch = () => {
      const into =
        context === undefined
          ? `Go value of type ${goTypeString(t)}`
          : `Go struct field ${context.struct}.${context.path.join('.')} of type ${goTypeString(t)}`;
      first = `json: cannot unmarshal ${node.t} into ${into}`;
    };
    switch (t.kind) {
      case 'interface':
        return;
      case 'string':
      case 'bool':
      case 'number':
        if (node.t !== t.kind) mismatch();
        return;
      case 'slice':
        if (node.t !== 'array') {
          mismatch();
          return;
        }
        for (const item of node.items) visit(item, t.elem, context);
        return;
      case 'map':
        if (node.t !== 'object') {
          mismatch();
          return;
        }
        for (const [, v] of node.entries) visit(v, t.elem, context);
        return;
      case 'struct':
        if (node.t !== 'object') {
          mismatch();
          return;
        }
        for (const [k, v] of node.entries) {
          const f = field(t.fields, k);
          if (f) visit(v, f[1], { struct: t.name, path: [...(context?.path ?? []), f[0]] });
        }
        return;
    }
  };
  visit(tree(text), type, undefined);
  return first;
}
