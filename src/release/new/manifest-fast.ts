/**
 * Quick yeses for the common manifest, JSON or YAML. For YAML: is the first YAML document of TEXT, read line by line, a block mapping
 * whose top-level `kind` and `apiVersion` are non-empty strings? It understands only a plain subset of YAML (block
 * maps and lists, one-line plain, quoted and flow scalars, `|`/`>` block scalars, comments) and answers `false`
 * for anything else (anchors, tags, tabs, multi-line scalars, odd characters, a key that may not be a string).
 * `false` means "ask the full parser", never "invalid": the caller then parses the document properly, so this
 * may only ever say yes to what the full parser accepts with the same `kind` and `apiVersion`.
 */

/** Characters the subset allows: printable ASCII, line ends, and the BMP above U+00A0 (no BOM, no surrogates). */
const UNUSUAL = /[^\n\r\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]|\r(?!\n)/;
/** The same inside a block scalar's text, where a tab is text too. */
const UNUSUAL_IN_BLOCK = /[^\t\n\r\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]|\r(?!\n)/;
/** A document marker at the start of a line: `---` or `...`, then a space or the line's end. */
const MARKER = /^(?:---|\.\.\.)(?:[ \r]|$)/;
/** A plain key or flow item: safe characters only, so it is a string in every YAML schema. */
const PLAIN_KEY = /^[A-Za-z0-9_./][A-Za-z0-9_./-]*/;
const FLOW_PLAIN = /^[A-Za-z0-9_./][A-Za-z0-9_./=+@~-]*/;
/** Words some YAML schemas read as null or booleans (YAML 1.1 as go-yaml v2 does: yes, on, y…). */
const NOT_STRING = /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N)$/;
/** A top-level `kind`/`apiVersion` plain value that is a string in every schema. */
const STRING_WORD = /^[A-Za-z][A-Za-z0-9._/-]*$/;
/** What a block-scalar header may say: `|` or `>`, with a chomping indicator. */
const BLOCK_HEADER = /^[|>][+-]?$/;
const DOUBLE_ESCAPES = new Set(['\\', '"', 'n', 't', 'r']);
const MAX_FLOW_DEPTH = 32;

interface Frame {
  indent: number;
  kind: 'map' | 'seq';
  /** A list written at its key's own indent (`key:` then `- item` below it). */
  compact: boolean;
}

/**
 * Where a quoted scalar whose body starts at `from` ends (the index after its closing quote `q`); -1 when the line
 * ends first, -2 at an escape the subset does not read.
 */
function closeQuote(s: string, from: number, q: string): number {
  for (let j = from; j < s.length; j++) {
    const c = s[j];
    if (q === "'" && c === "'") {
      if (s[j + 1] === "'") j++;
      else return j + 1;
    } else if (q === '"' && c === '\\') {
      if (!DOUBLE_ESCAPES.has(s[j + 1] ?? '')) return -2;
      j++;
    } else if (q === '"' && c === '"') return j + 1;
  }
  return -1;
}

/** Where a one-line quoted scalar starting at `i` ends (the index after its closing quote), or -1. */
function quoted(s: string, i: number): number {
  return Math.max(-1, closeQuote(s, i + 1, s[i]!));
}

const skipSpaces = (s: string, i: number): number => {
  while (s[i] === ' ') i++;
  return i;
};

/** Where a one-line flow collection (`[a, "b"]`, `{cpu: 10m}`) starting at `i` ends, or -1. */
function flow(s: string, i: number, depth = 0): number {
  if (depth > MAX_FLOW_DEPTH) return -1;
  const close = s[i] === '[' ? ']' : '}';
  const isMap = close === '}';
  i = skipSpaces(s, i + 1);
  if (s[i] === close) return i + 1;
  for (;;) {
    if (isMap) {
      const k = flowScalar(s, i, true);
      if (k < 0 || s[k] !== ':' || s[k + 1] !== ' ') return -1;
      i = skipSpaces(s, k + 1);
    }
    i = flowValue(s, i, depth);
    if (i < 0) return -1;
    i = skipSpaces(s, i);
    if (s[i] === close) return i + 1;
    if (s[i] !== ',') return -1;
    i = skipSpaces(s, i + 1);
    if (s[i] === close) return -1; // a trailing comma: valid YAML, but rare enough to leave to the parser
  }
}

function flowScalar(s: string, i: number, key: boolean): number {
  if (s[i] === '"' || s[i] === "'") return quoted(s, i);
  const m = FLOW_PLAIN.exec(s.slice(i, i + 256));
  if (!m || m[0].length === 256 || (key && NOT_STRING.test(m[0]))) return -1;
  return i + m[0].length;
}

function flowValue(s: string, i: number, depth: number): number {
  if (s[i] === '[' || s[i] === '{') return flow(s, i, depth + 1);
  return flowScalar(s, i, false);
}

/** After a complete value ending at `i`: only spaces and a comment may follow. */
const endsClean = (s: string, i: number): boolean => {
  const j = skipSpaces(s, i);
  return j === s.length || (s[j] === '#' && j > i);
};

/** The string a one-line scalar value stands for, `undefined` when it is not surely a string (or not one line). */
function scalarString(v: string): string | undefined {
  if (v.startsWith('"') || v.startsWith("'")) {
    const end = quoted(v, 0);
    if (end < 0 || !endsClean(v, end)) return undefined;
    const body = v.slice(1, end - 1);
    return v[0] === "'" ? body.replaceAll("''", "'") : body.includes('\\') ? undefined : body;
  }
  const plain = stripComment(v);
  return STRING_WORD.test(plain) && !NOT_STRING.test(plain) ? plain : undefined;
}

/** A plain value without its trailing comment (` #…`) and spaces. */
function stripComment(v: string): string {
  const hash = v.indexOf(' #');
  return (hash < 0 ? v : v.slice(0, hash)).trimEnd();
}

/**
 * How a value (after `key: ` or `- `) the subset reads goes on: `done` on this line, `plain` (a plain scalar, which
 * more indented lines may continue), or a quote left open (`"`, `'`) that later lines close; undefined when the
 * subset does not read it.
 */
function valueKind(v: string): 'done' | 'plain' | '"' | "'" | undefined {
  const c = v[0];
  if (c === '"' || c === "'") {
    const end = closeQuote(v, 1, c);
    if (end === -1) return c;
    return end > 0 && endsClean(v, end) ? 'done' : undefined;
  }
  if (c === '[' || c === '{') {
    const end = flow(v, 0);
    return end > 0 && endsClean(v, end) ? 'done' : undefined;
  }
  // Plain: no indicator first (a `-` only before a non-space), no `: ` (a nested map), no `:` at the end.
  if ('?:,]}#&*!|>%@`'.includes(c ?? '') || (c === '-' && (v.length === 1 || v[1] === ' '))) return undefined;
  const plain = stripComment(v);
  if (plain.includes(': ') || plain.endsWith(':')) return undefined;
  // After a comment the scalar cannot go on.
  return plain.length < v.trimEnd().length ? 'done' : 'plain';
}

/** A line that goes on a multi-line plain scalar: plain text that cannot be read as anything else. */
const PLAIN_GOES_ON = /^[A-Za-z0-9_./(][^#]*$/;

/**
 * `true` when the first YAML document of `text` is surely a mapping with non-empty string `kind` and `apiVersion`
 * at its top; `false` when that is not sure (then the full parser must decide).
 */
export function quickManifestCheck(text: string): boolean {
  // Only the first document is read, line by line, so a big file costs no more than its first document.
  let pos = 0;
  const nextLine = (): string | undefined => {
    if (pos > text.length) return undefined;
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    const l = text.slice(pos, end);
    pos = end + 1;
    return l.endsWith('\r') ? l.slice(0, -1) : l;
  };
  // Before the document: blank lines, comments, one `---` (with at most a comment after it).
  let line = nextLine();
  for (; line !== undefined; line = nextLine()) {
    const l = line.replace(/ +$/, '');
    if (l === '' || l.startsWith('#')) continue;
    if (l === '---' || l.startsWith('--- #')) line = nextLine();
    break;
  }
  const stack: Frame[] = [];
  /** After `key:` or `-` with nothing behind: the indent a nested block must pass (a list may match a key's). */
  let pending: { indent: number; fromKey: boolean } | undefined;
  /** Inside a block scalar: lines indented past `parent` belong to it. */
  let block: { parent: number; indent: number } | undefined;
  /** After a plain scalar or an open quote: lines indented past `parent` go on it. */
  let goesOn: { parent: number; kind: 'plain' | '"' | "'" } | undefined;
  /** A value that may go on below the line at `parent`. */
  const follow = (kind: ReturnType<typeof valueKind>, parent: number): boolean => {
    if (kind === undefined) return false;
    goesOn = kind === 'done' ? undefined : { parent, kind };
    return true;
  };
  const top: Record<string, string | null> = {};
  for (; line !== undefined; line = nextLine()) {
    if (MARKER.test(line)) break;
    // Indentation is spaces only (a tab or a no-break space there is no indentation to YAML).
    let indent = 0;
    while (line.charCodeAt(indent) === 32) indent++;
    const content = line.slice(indent);
    const inBlock = block !== undefined && indent > block.parent && (block.indent < 0 || indent >= block.indent);
    if ((inBlock ? UNUSUAL_IN_BLOCK : UNUSUAL).test(line)) return false;
    if (block) {
      if (content === '') {
        if (block.indent < 0 && indent > 0) return false; // leading spaces-only lines: leave the rules to the parser
        continue;
      }
      if (block.indent < 0 && indent > block.parent) block.indent = indent;
      if (block.indent >= 0 && indent >= block.indent) continue;
      if (indent > block.parent) return false; // less indented than its first line, yet inside: an error
      block = undefined;
    }
    if (goesOn) {
      if (content === '') continue;
      if (goesOn.kind !== 'plain') {
        // An open quote: every line up to the closing one is its text, and must be indented past its parent.
        if (indent <= goesOn.parent) return false;
        const end = closeQuote(content, 0, goesOn.kind);
        if (end === -2 || (end > 0 && !endsClean(content, end))) return false;
        if (end > 0) goesOn = undefined;
        continue;
      }
      if (indent > goesOn.parent) {
        if (!PLAIN_GOES_ON.test(content) || content.includes(': ') || content.trimEnd().endsWith(':')) return false;
        continue;
      }
      goesOn = undefined;
    }
    if (content === '' || content.startsWith('#')) continue;
    const dash = content === '-' || content.startsWith('- ');
    if (pending) {
      const opens = indent > pending.indent || (pending.fromKey && indent === pending.indent && dash);
      if (opens) {
        stack.push({ indent, kind: dash ? 'seq' : 'map', compact: indent === pending.indent });
      }
      pending = undefined;
    }
    if (stack.length === 0) {
      if (indent !== 0 || dash) return false; // a top-level list or an indented top: not the usual manifest
      stack.push({ indent: 0, kind: 'map', compact: false });
    }
    let f = stack[stack.length - 1]!;
    while (f.indent > indent || (f.indent === indent && f.kind === 'seq' && f.compact && !dash)) {
      stack.pop();
      f = stack[stack.length - 1]!;
      if (!f) return false;
    }
    if (f.indent !== indent || (f.kind === 'seq') !== dash) return false;
    // One line may open several nodes: `- - key: value`.
    let col = indent;
    let rest = content;
    for (;;) {
      if (rest === '-' || rest.startsWith('- ')) {
        if (stack[stack.length - 1]!.indent !== col) stack.push({ indent: col, kind: 'seq', compact: false });
        const after = skipSpaces(rest, 1);
        if (after >= rest.length || rest[after] === '#') {
          pending = { indent: col, fromKey: false };
          break;
        }
        col += after;
        rest = rest.slice(after);
        if (rest.startsWith('-') && !(rest === '-' || rest.startsWith('- '))) {
          if (!follow(valueKind(rest), col - after)) return false;
          break;
        }
        if (rest === '-' || rest.startsWith('- ')) continue;
        if (!/^(?:[A-Za-z0-9_./-]+|"[^"\\]*"|'[^']*'):(?: |$)/.test(rest)) {
          if (BLOCK_HEADER.test(stripComment(rest))) {
            block = { parent: col - after, indent: -1 };
            break;
          }
          if (!follow(valueKind(rest), col - after)) return false;
          break;
        }
        stack.push({ indent: col, kind: 'map', compact: false });
        continue;
      }
      // `key: value` or `key:` at `col`.
      let k: number;
      let key: string;
      if (rest[0] === '"' || rest[0] === "'") {
        k = quoted(rest, 0);
        if (k < 0 || rest.slice(1, k - 1).includes('\\')) return false;
        key = rest.slice(1, k - 1);
      } else {
        const m = PLAIN_KEY.exec(rest);
        if (!m || NOT_STRING.test(m[0])) return false;
        k = m[0].length;
        key = m[0];
      }
      if (rest[k] !== ':' || (k + 1 < rest.length && rest[k + 1] !== ' ')) return false;
      const v = rest.slice(skipSpaces(rest, k + 1));
      const atTop = stack.length === 1 && col === 0;
      if (v === '' || v.startsWith('#')) {
        if (atTop) top[key] = null;
        pending = { indent: col, fromKey: true };
      } else if (BLOCK_HEADER.test(stripComment(v))) {
        if (atTop) top[key] = null;
        block = { parent: col, indent: -1 };
      } else {
        if (!follow(valueKind(v), col)) return false;
        if (atTop) top[key] = scalarString(v) ?? null; // a plain word that goes on below is still a string
      }
      break;
    }
  }
  // A quote still open at a document marker or at the end is an error.
  if (goesOn && goesOn.kind !== 'plain') return false;
  return !!top.kind && !!top.apiVersion;
}

/** Characters YAML does not allow raw (controls, DEL, C1 but NEL, BOM inside, lone surrogates are left aside). */
const NOT_YAML_TEXT = /[^\t\n\r\x20-\x7e\u0085\u00a0-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;
/** JSON escapes some YAML parsers refuse (`\/`, surrogate pairs): such a file takes the full parser. */
const RISKY_ESCAPE = /\\\/|\\u[dD][89abAB]/;
/** Past this size JSON is scanned, not parsed: JSON.parse's objects take up to 30 times the text. */
const PARSE_JSON_UP_TO = 1024 * 1024;
const MAX_JSON_DEPTH = 1000;

const nonEmpty = (v: unknown) => typeof v === 'string' && v !== '';

/**
 * `true` when the text is JSON (its first non-space character `{`) whose object has non-empty string `kind` and
 * `apiVersion`: JSON.parse up to 1 MiB, a scan that builds nothing past it.
 */
export function quickJsonCheck(text: string): boolean {
  if (!/^\s*\{/.test(text.slice(0, 64)) || NOT_YAML_TEXT.test(text) || RISKY_ESCAPE.test(text)) return false;
  if (text.length > PARSE_JSON_UP_TO) return scanJson(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  const obj = value as Record<string, unknown>;
  return nonEmpty(obj.kind) && nonEmpty(obj.apiVersion);
}

const isJsonSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;
const skipJsonSpace = (t: string, i: number) => {
  while (isJsonSpace(t.charCodeAt(i))) i++;
  return i;
};
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** Where a JSON string starting at `i` (its quote) ends, the index after the closing quote; -1 if it is not one. */
function jsonString(t: string, i: number): number {
  for (let j = i + 1; j < t.length; j++) {
    const c = t.charCodeAt(j);
    if (c === 34) return j + 1;
    if (c < 32) return -1;
    if (c === 92) {
      const e = t[j + 1] ?? '';
      if ('"\\/bfnrt'.includes(e) && e !== '') j++;
      else if (e === 'u' && HEX4.test(t.slice(j + 2, j + 6))) j += 5;
      else return -1;
    }
  }
  return -1;
}

/** Whether the text is one valid JSON object with non-empty string `kind` and `apiVersion`, building no value. */
function scanJson(t: string): boolean {
  const stack: number[] = []; // the open brackets: 123 `{`, 91 `[`
  const top = new Map<string, unknown>(); // the top-level members that are strings (others: null)
  let key: string | undefined; // the top-level member whose value comes next
  /** A member's key and colon at `i`; the index of its value, or -1. */
  const member = (i: number): number => {
    if (t.charCodeAt(i) !== 34) return -1;
    const end = jsonString(t, i);
    if (end < 0) return -1;
    if (stack.length === 1) key = JSON.parse(t.slice(i, end)) as string;
    const colon = skipJsonSpace(t, end);
    return t.charCodeAt(colon) === 58 ? skipJsonSpace(t, colon + 1) : -1;
  };
  let i = skipJsonSpace(t, 0);
  for (;;) {
    // A value at i.
    const c = t.charCodeAt(i);
    const k = key;
    key = undefined;
    if (k !== undefined) top.set(k, null);
    if (c === 123 || c === 91) {
      if (stack.length >= MAX_JSON_DEPTH) return false;
      stack.push(c);
      i = skipJsonSpace(t, i + 1);
      if (t.charCodeAt(i) !== (c === 123 ? 125 : 93)) {
        if (c === 123) i = member(i);
        if (i < 0) return false;
        continue;
      }
      stack.pop();
      i++;
    } else if (c === 34) {
      const end = jsonString(t, i);
      if (end < 0) return false;
      if (k !== undefined) top.set(k, JSON.parse(t.slice(i, end)));
      i = end;
    } else if (t.startsWith('true', i) || t.startsWith('null', i)) i += 4;
    else if (t.startsWith('false', i)) i += 5;
    else {
      JSON_NUMBER.lastIndex = i;
      if (!JSON_NUMBER.test(t)) return false;
      i = JSON_NUMBER.lastIndex;
    }
    if (stack.length === 0 && c !== 123) return false; // the text is no object
    // After a value: a comma and the next one, or closing brackets.
    for (;;) {
      i = skipJsonSpace(t, i);
      const open = stack[stack.length - 1];
      if (open === undefined) return i === t.length && nonEmpty(top.get('kind')) && nonEmpty(top.get('apiVersion'));
      const d = t.charCodeAt(i);
      if (d === 44) {
        i = skipJsonSpace(t, i + 1);
        if (open === 123) i = member(i);
        if (i < 0) return false;
        break;
      }
      if (d !== (open === 123 ? 125 : 93)) return false;
      stack.pop();
      i++;
    }
  }
}
