import { PIN_VARS, findMisspeltPins, type PinVar } from '../rhcos/settings.js';
import { PinScriptError, UnsafeValueError } from './errors.js';
import { decodeValue, encodeValue, type ValueContext } from './shell.js';

/**
 * Reading and editing the RHCOS pins of a shell script (hack/release.sh) without touching any other
 * byte. Pins are assignments at the start of a line (after indentation) in one of these forms:
 *
 *   VAR=v            export VAR=v             (v bare, '…' or "…")
 *   VAR="${VAR:-v}"  export VAR="${VAR:-v}"   (also unquoted ${…}, and the ops -, :=, =)
 *   : "${VAR:=v}"                             (also unquoted, and =)
 *
 * Lines inside here-documents, multi-line strings and continuation lines are never taken for pins.
 */

export type Quote = 'none' | 'single' | 'double';

/** One assignment of a variable found in the script. */
export interface Assignment {
  name: string;
  /** 1-based line number. */
  line: number;
  /** 0-based index into the script's lines. */
  index: number;
  exported: boolean;
  /** `value`: VAR=v; `param`: VAR=${VAR:-v}; `colon`: : ${VAR:=v}. */
  shape: 'value' | 'param' | 'colon';
  /** Quoting of the value (shape value) or around ${…} (param, colon). */
  outer: Quote;
  /** Quoting of the default word inside ${…}. */
  inner: Quote;
  /** The ${…} operator: `:-`, `-`, `:=`, `=`. */
  op: string;
  /** The variable named inside ${…} (should be `name`). */
  paramName: string | undefined;
  /** Offset of the assignment (NAME, or `${` for the colon form) in the line. */
  at: number;
  /** Offsets (in the line's text) of the replaceable value, inside any quotes. */
  start: number;
  end: number;
  /** The assignment as written, for messages. */
  raw: string;
  /** The value the shell assigns when the variable is not already set; undefined when not a fixed string. */
  value: string | undefined;
  /** Why osimage cannot read or edit this assignment. */
  problem: string | undefined;
}

export interface ScriptLine {
  text: string;
  /** `\n`, `\r\n`, or '' for a last line without a newline. */
  eol: string;
}

export interface ParsedScript {
  lines: ScriptLine[];
  /** Line end for lines osimage adds: the file's first line end, else `\n`. */
  eol: string;
  assignments: Assignment[];
  /** Every variable name assigned anywhere in the code (not in comments), with its first line. */
  assignedNames: Map<string, number>;
  /** Assignments at a command position, recognised as pins or not (see unmanagedPins). */
  commandAssignments: CommandAssignment[];
  /** Index of the `# BEGIN osimage pins` / `# END osimage pins` lines, when present. */
  block: { begin: number; end: number } | undefined;
}

export const BLOCK_BEGIN = '# BEGIN osimage pins (written by `osimage pin`; edit the values with it)';
export const BLOCK_END = '# END osimage pins';
const BEGIN_RE = /^\s*#\s*BEGIN osimage pins\b/;
const END_RE = /^\s*#\s*END osimage pins\b/;

const NAME_EQ = /^([A-Za-z_][A-Za-z0-9_]*)=/;
const isBlank = (c: string | undefined) => c === ' ' || c === '\t';
/** Characters that end an unquoted word. */
const isTerminator = (c: string | undefined) => c === undefined || /[\s;&|<>()]/.test(c);

export function splitLines(text: string): ScriptLine[] {
  if (text === '') return [];
  const parts = text.split('\n');
  const last = parts.pop()!;
  const lines = parts.map((p) => (p.endsWith('\r') ? { text: p.slice(0, -1), eol: '\r\n' } : { text: p, eol: '\n' }));
  if (last !== '') lines.push({ text: last, eol: '' });
  return lines;
}

export function joinLines(lines: ScriptLine[]): string {
  return lines.map((l) => l.text + l.eol).join('');
}

interface ValueWord {
  end: number;
  shape: 'value' | 'param';
  outer: Quote;
  inner: Quote;
  op: string;
  paramName: string | undefined;
  start: number;
  stop: number;
  value: string | undefined;
  problem: string | undefined;
}

/** Skip to the end of a (composite) word naively: the next unquoted blank or terminator. */
function skipWord(text: string, i: number): number {
  let q: string | null = null;
  while (i < text.length) {
    const c = text[i]!;
    if (q) {
      if (c === '\\' && q === '"') i++;
      else if (c === q) q = null;
    } else if (c === '\\') i++;
    else if (c === "'" || c === '"') q = c;
    else if (isTerminator(c)) break;
    i++;
  }
  return Math.min(i, text.length);
}

/** Scan a "…" body from after the opening quote: the index of the closing quote (or -1) and whether it expands. */
function scanDouble(text: string, i: number): { close: number; expands: boolean } {
  let expands = false;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\') i += 2;
    else if (c === '"') return { close: i, expands };
    else {
      if (c === '$' || c === '`') expands = true;
      i++;
    }
  }
  return { close: -1, expands };
}

/** Parse `${NAME<op>word}` at i (text[i] === '$'); returns undefined when it is not that shape. */
function parseParam(text: string, i: number): Omit<ValueWord, 'shape' | 'outer'> | undefined {
  const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(:-|-|:=|=)/.exec(text.slice(i));
  if (!m) return undefined;
  const paramName = m[1]!;
  const op = m[2]!;
  let j = i + m[0].length;
  let inner: Quote = 'none';
  let start = j;
  let stop: number;
  let value: string | undefined;
  let problem: string | undefined;
  const c = text[j];
  if (c === '"') {
    inner = 'double';
    start = j + 1;
    const d = scanDouble(text, start);
    if (d.close < 0) return undefined;
    stop = d.close;
    j = d.close + 1;
    if (d.expands) problem = 'the default expands something (not a fixed string)';
    value = decodeValue(text.slice(start, stop), 'double');
  } else if (c === "'") {
    inner = 'single';
    start = j + 1;
    const close = text.indexOf("'", start);
    if (close < 0) return undefined;
    stop = close;
    j = close + 1;
    value = text.slice(start, stop);
  } else {
    const close = text.indexOf('}', j);
    if (close < 0) return undefined;
    stop = close;
    j = close;
    const word = text.slice(start, stop);
    if (/[$`\\{"']/.test(word)) problem = 'the default is not a plain word';
    value = word;
  }
  if (text[j] !== '}') return undefined;
  return { end: j + 1, inner, op, paramName, start, stop, value: problem ? undefined : value, problem };
}

/** Parse the value word of an assignment starting at i. */
function parseValueWord(text: string, i: number): ValueWord {
  const plain = (over: Partial<ValueWord>): ValueWord => ({
    end: i,
    shape: 'value',
    outer: 'none',
    inner: 'none',
    op: '',
    paramName: undefined,
    start: i,
    stop: i,
    value: '',
    problem: undefined,
    ...over,
  });
  const c = text[i];
  let w: ValueWord;
  if (isTerminator(c)) return plain({});
  if (c === "'") {
    const close = text.indexOf("'", i + 1);
    if (close < 0) return plain({ end: text.length, value: undefined, problem: 'the quote is not closed on this line' });
    w = plain({ end: close + 1, outer: 'single', start: i + 1, stop: close, value: text.slice(i + 1, close) });
  } else if (c === '"') {
    const p = text.startsWith('"${', i) ? parseParam(text, i + 1) : undefined;
    if (p && text[p.end] === '"') {
      w = { ...p, end: p.end + 1, shape: 'param', outer: 'double' };
    } else {
      const d = scanDouble(text, i + 1);
      if (d.close < 0) return plain({ end: text.length, value: undefined, problem: 'the quote is not closed on this line' });
      w = plain({
        end: d.close + 1,
        outer: 'double',
        start: i + 1,
        stop: d.close,
        value: d.expands ? undefined : decodeValue(text.slice(i + 1, d.close), 'double'),
        problem: d.expands ? 'the value expands something (not a fixed string)' : undefined,
      });
    }
  } else if (text.startsWith('${', i) && parseParam(text, i)) {
    w = { ...parseParam(text, i)!, shape: 'param', outer: 'none' };
  } else {
    let j = i;
    let composite = false;
    while (j < text.length && !isTerminator(text[j])) {
      const ch = text[j]!;
      if (ch === '\\') j += 2;
      else if (ch === '$' || ch === '`' || ch === "'" || ch === '"') {
        composite = true;
        break;
      } else j++;
    }
    if (composite) {
      const end = skipWord(text, i);
      return plain({ end, stop: end, value: undefined, problem: 'the value is not a fixed string' });
    }
    j = Math.min(j, text.length);
    return plain({ end: j, stop: j, value: decodeValue(text.slice(i, j), 'bare') });
  }
  if (!isTerminator(text[w.end])) {
    const end = skipWord(text, w.end);
    return { ...w, end, value: undefined, problem: 'the value joins several quoted or unquoted parts' };
  }
  return w;
}

function contextOf(a: Pick<Assignment, 'shape' | 'outer'>): ValueContext {
  if (a.shape !== 'value') return 'param';
  return a.outer === 'none' ? 'bare' : a.outer;
}

/** Assignments at a command start (after indentation). Prefix assignments of a command are not pins. */
function parseCommandStart(text: string, index: number): Assignment[] {
  let i = 0;
  while (isBlank(text[i])) i++;
  const found: Assignment[] = [];
  const make = (name: string, shape: Assignment['shape'], exported: boolean, from: number, w: ValueWord): Assignment => ({
    name,
    line: index + 1,
    index,
    exported,
    shape,
    outer: w.outer,
    inner: w.inner,
    op: w.op,
    paramName: w.paramName,
    start: w.start,
    end: w.stop,
    at: from,
    raw: text.slice(from, w.end),
    value: w.value,
    problem: w.problem ?? (shape !== 'value' && w.paramName !== name ? `it defaults from \${${w.paramName}}, not \${${name}}` : undefined),
  });

  if (text[i] === ':' && isTerminator(text[i + 1])) {
    // : "${VAR:=v}" ["${OTHER:=w}" ...]
    let j = i + 1;
    for (;;) {
      while (isBlank(text[j])) j++;
      if (j >= text.length || text[j] === '#' || text[j] === ';' || text[j] === '&' || text[j] === '|') break;
      const quoted = text[j] === '"';
      const p = text.startsWith(quoted ? '"${' : '${', j) ? parseParam(text, quoted ? j + 1 : j) : undefined;
      if (p && (p.op === ':=' || p.op === '=') && (!quoted || text[p.end] === '"') && isTerminator(text[p.end + (quoted ? 1 : 0)])) {
        const end = p.end + (quoted ? 1 : 0);
        found.push(make(p.paramName!, 'colon', false, j, { ...p, end, shape: 'param', outer: quoted ? 'double' : 'none' }));
        j = end;
      } else {
        const k = skipWord(text, j);
        if (k === j) break;
        j = k;
      }
    }
    return found;
  }

  let exported = false;
  if (text.startsWith('export', i) && isBlank(text[i + 6])) {
    exported = true;
    i += 6;
    while (isBlank(text[i])) i++;
  }
  for (;;) {
    const m = NAME_EQ.exec(text.slice(i));
    if (m) {
      const w = parseValueWord(text, i + m[0].length);
      found.push(make(m[1]!, w.shape, exported, i, w));
      i = w.end;
    } else if (exported && /^[A-Za-z_][A-Za-z0-9_]*/.test(text.slice(i))) {
      i += /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))![0].length; // export NAME (no value)
    } else break;
    const before = i;
    while (isBlank(text[i])) i++;
    if (i === before && i < text.length && !isTerminator(text[i])) break;
  }
  const rest = text.slice(i);
  // `VAR=v cmd`: only cmd sees VAR; `VAR=v &` / `VAR=v | cmd` assign in a subshell.
  const ends = rest === '' || /^(#|;|&&|\|\||\}|$)/.test(rest) || /^(then|fi|do|done)\b/.test(rest);
  if (!ends) return [];
  return found;
}

interface LexState {
  quote: "'" | '"' | null;
  continued: boolean;
  pending: Array<{ delim: string; strip: boolean }>;
  heredoc: { delim: string; strip: boolean } | undefined;
}

/** An assignment at a command position (where the shell really assigns), found by the lexer. */
export interface CommandAssignment {
  name: string;
  line: number;
  index: number;
  /** Offset of NAME in the line. */
  at: number;
}

/** Words after which the next word is still at a command position. */
const KEYWORDS = new Set(['then', 'do', 'else', 'elif', 'if', 'while', 'until', '!', '{', '}', 'time']);
/** Builtins whose NAME=value arguments are assignments. */
const DECLARATIONS = new Set(['export', 'readonly', 'declare', 'typeset', 'local']);

/**
 * Follow quotes, comments, continuation lines and here-documents through one line. Collects every
 * `NAME=` at a word start (for misspelling checks) and, separately, those at a command position.
 */
function lexLine(text: string, index: number, st: LexState, names: Map<string, number>, cmd: CommandAssignment[]): void {
  let i = 0;
  let wordStart = !st.quote;
  let atCommand = !st.quote && !st.continued;
  let declArgs = false;
  st.continued = false;
  while (i < text.length) {
    const c = text[i]!;
    if (st.quote === "'") {
      if (c === "'") st.quote = null;
      i++;
      continue;
    }
    if (st.quote === '"') {
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === '"') st.quote = null;
      i++;
      continue;
    }
    if (c === '#' && wordStart) break;
    if (/[\s;&|()]/.test(c)) {
      if (/[;&|()]/.test(c)) {
        atCommand = true;
        declArgs = false;
      }
      wordStart = true;
      i++;
      continue;
    }
    if (wordStart) {
      const m = NAME_EQ.exec(text.slice(i));
      if (m) {
        if (!names.has(m[1]!)) names.set(m[1]!, index + 1);
        if (atCommand || declArgs) cmd.push({ name: m[1]!, line: index + 1, index, at: i });
      } else if (atCommand) {
        const word = /^[^\s;&|()]*/.exec(text.slice(i))![0];
        if (DECLARATIONS.has(word)) declArgs = true;
        if (!KEYWORDS.has(word)) atCommand = false;
      }
    }
    if (c === '\\') {
      if (i + 1 >= text.length) st.continued = true;
      i += 2;
      wordStart = false;
      continue;
    }
    if (c === "'" || c === '"') {
      st.quote = c;
      i++;
      wordStart = false;
      continue;
    }
    if (text.startsWith('<<', i) && text[i + 2] !== '<') {
      let j = i + 2;
      const strip = text[j] === '-';
      if (strip) j++;
      while (isBlank(text[j])) j++;
      const m = /^(?:'([^']*)'|"([^"]*)"|((?:\\.|[^\s;&|<>()])+))/.exec(text.slice(j));
      if (m) {
        const delim = m[1] ?? m[2] ?? m[3]!.replace(/\\(.)/g, '$1').replace(/["']/g, '');
        st.pending.push({ delim, strip });
        i = j + m[0].length;
        wordStart = false;
        continue;
      }
    }
    wordStart = false;
    i++;
  }
}

export function parseScript(text: string): ParsedScript {
  const lines = splitLines(text);
  const eol = lines[0]?.eol || '\n';
  const assignments: Assignment[] = [];
  const assignedNames = new Map<string, number>();
  const commandAssignments: CommandAssignment[] = [];
  const st: LexState = { quote: null, continued: false, pending: [], heredoc: undefined };
  let begin: number | undefined;
  let end: number | undefined;
  lines.forEach((line, index) => {
    if (st.heredoc) {
      const body = st.heredoc.strip ? line.text.replace(/^\t+/, '') : line.text;
      if (body === st.heredoc.delim) st.heredoc = st.pending.shift();
      return;
    }
    const atCommand = !st.quote && !st.continued;
    if (atCommand) {
      if (BEGIN_RE.test(line.text) && begin === undefined) begin = index;
      if (END_RE.test(line.text) && begin !== undefined && end === undefined) end = index;
      assignments.push(...parseCommandStart(line.text, index));
    }
    lexLine(line.text, index, st, assignedNames, commandAssignments);
    if (!st.quote && !st.continued && st.pending.length > 0) st.heredoc = st.pending.shift();
  });
  return {
    lines,
    eol,
    assignments,
    assignedNames,
    commandAssignments,
    block: begin !== undefined && end !== undefined ? { begin, end } : undefined,
  };
}

/**
 * Assignments of a pin variable at a command position that are not pins osimage can edit: a prefix
 * for one command (`VAR=v make`), one after another command on the line (`if x; then VAR=v; fi`), or
 * with readonly/declare/local. Editing the others (or adding a block) would leave these in force.
 */
export function unmanagedPins(parsed: ParsedScript, name: PinVar): CommandAssignment[] {
  return parsed.commandAssignments.filter(
    (c) => c.name === name && !parsed.assignments.some((a) => a.name === name && a.index === c.index && a.at === c.at),
  );
}

const FORMS_HINT = 'put it on a line of its own as VAR=v, export VAR=v, VAR="${VAR:-v}" or : "${VAR:=v}"';

function assertManaged(parsed: ParsedScript, file: string, name: PinVar, verb: string): void {
  const u = unmanagedPins(parsed, name)[0];
  if (u) {
    throw new PinScriptError(
      file,
      u.line,
      `cannot ${verb} ${name}: it is assigned here only for one command, after another command on the line, or in a declaration osimage does not edit; ${FORMS_HINT}`,
    );
  }
}

/** A pin as the script states it. */
export interface PinValue {
  value: string;
  line: number;
}
export type ScriptPins = Partial<Record<PinVar, PinValue>>;

/**
 * The three pins as the script assigns them (when the variable is not already set in the
 * environment). Assignments osimage cannot read, and assignments that disagree, are errors.
 */
export function readPins(parsed: ParsedScript, file: string): ScriptPins {
  const pins: ScriptPins = {};
  for (const name of PIN_VARS) {
    assertManaged(parsed, file, name, 'read');
    const all = parsed.assignments.filter((a) => a.name === name);
    for (const a of all) {
      if (a.problem || a.value === undefined) {
        throw new PinScriptError(file, a.line, `cannot read ${name}: ${a.problem ?? 'not a fixed string'}: ${a.raw}`);
      }
    }
    const first = all[0];
    if (!first) continue;
    const other = all.find((a) => a.value !== first.value);
    if (other) {
      throw new PinScriptError(
        file,
        other.line,
        `${name} is assigned ${JSON.stringify(other.value)} here but ${JSON.stringify(first.value)} on line ${first.line}; make them agree`,
      );
    }
    pins[name] = { value: first.value!, line: first.line };
  }
  return pins;
}

export interface MisspeltPin {
  name: string;
  line: number;
  suggestion: PinVar;
}

/** Variables the script assigns (or a pin defaults from) that look like misspelt or outdated pins. */
export function misspeltPins(parsed: ParsedScript): MisspeltPin[] {
  const names = new Map(parsed.assignedNames);
  for (const a of parsed.assignments) {
    if (a.paramName && !names.has(a.paramName)) names.set(a.paramName, a.line);
  }
  return findMisspeltPins(names.keys()).map((m) => ({ name: m.name, suggestion: m.suggestion, line: names.get(m.name)! }));
}

/** How an added pin is written: like the script's first pin, else `export VAR="${VAR:-v}"`. */
type Template = Pick<Assignment, 'exported' | 'shape' | 'outer' | 'inner' | 'op'>;
const DEFAULT_TEMPLATE: Template = { exported: true, shape: 'param', outer: 'double', inner: 'none', op: ':-' };

const QUOTE_CHAR: Record<Quote, string> = { none: '', single: "'", double: '"' };

function encodeOrThrow(file: string, line: number | undefined, name: string, value: string, ctx: ValueContext): string {
  const e = encodeValue(value, ctx);
  if (!e.ok) throw new UnsafeValueError(file, line, `refusing to write ${name}=${JSON.stringify(value)}: ${e.why}`);
  return e.text;
}

function renderAssignment(file: string, name: string, value: string, t: Template): string {
  const v = encodeOrThrow(file, undefined, name, value, contextOf(t));
  if (t.shape === 'value') return `${t.exported ? 'export ' : ''}${name}=${QUOTE_CHAR[t.outer]}${v}${QUOTE_CHAR[t.outer]}`;
  const o = QUOTE_CHAR[t.outer];
  const iq = QUOTE_CHAR[t.inner];
  const param = `${o}\${${name}${t.op}${iq}${v}${iq}}${o}`;
  return t.shape === 'colon' ? `: ${param}` : `${t.exported ? 'export ' : ''}${name}=${param}`;
}

export type PinValues = Record<PinVar, string>;

export interface ScriptEdit {
  text: string;
  changed: boolean;
  /** Variables whose existing assignments got a new value. */
  edited: PinVar[];
  /** Variables that were absent and were added in the marked block. */
  added: PinVar[];
}

/**
 * Set the three pins in the script text: existing assignments are edited in place (form, quoting and
 * every other byte kept); absent ones are added in one marked block after the shebang and leading comments.
 */
export function editPins(text: string, values: PinValues, file: string): ScriptEdit {
  const parsed = parseScript(text);
  const lines = parsed.lines.map((l) => ({ ...l }));
  const edited: PinVar[] = [];
  const added: PinVar[] = [];
  const replacements = new Map<number, Array<{ start: number; stop: number; text: string }>>();
  let template: Template | undefined;
  for (const name of PIN_VARS) {
    assertManaged(parsed, file, name, 'edit');
    for (const a of parsed.assignments.filter((x) => x.name === name)) {
      if (a.problem) throw new PinScriptError(file, a.line, `cannot edit ${name}: ${a.problem}: ${a.raw}`);
      template ??= a;
      const enc = encodeOrThrow(file, a.line, name, values[name], contextOf(a));
      if (a.value !== values[name] && !edited.includes(name)) edited.push(name);
      const list = replacements.get(a.index) ?? [];
      list.push({ start: a.start, stop: a.end, text: enc });
      replacements.set(a.index, list);
    }
  }
  for (const [index, list] of replacements) {
    let t = lines[index]!.text;
    for (const r of list.sort((x, y) => y.start - x.start)) t = t.slice(0, r.start) + r.text + t.slice(r.stop);
    lines[index]!.text = t;
  }

  const missing = PIN_VARS.filter((n) => !parsed.assignments.some((a) => a.name === n));
  if (missing.length > 0) {
    const eol = parsed.eol;
    const newLines = missing.map((n) => ({ text: renderAssignment(file, n, values[n], template ?? DEFAULT_TEMPLATE), eol }));
    added.push(...missing);
    if (parsed.block) {
      lines.splice(parsed.block.end, 0, ...newLines);
    } else {
      let at = 0;
      while (at < lines.length && lines[at]!.text.startsWith('#')) at++;
      if (at > 0 && lines[at - 1]!.eol === '') lines[at - 1]!.eol = eol;
      const block = [{ text: BLOCK_BEGIN, eol }, ...newLines, { text: BLOCK_END, eol }];
      if (at > 0) block.unshift({ text: '', eol });
      const next = lines[at];
      if (next && next.text.trim() !== '') block.push({ text: '', eol });
      lines.splice(at, 0, ...block);
    }
  }
  const out = joinLines(lines);
  return { text: out, changed: out !== text, edited, added };
}

/** The minimal script `pin` creates when FILE does not exist: shebang, a comment, the pins. */
export function newScript(values: PinValues, file: string): string {
  const head = '#!/usr/bin/env bash\n# RHCOS pins for this release, written by `osimage pin`; check them with `osimage pin --check`.\n';
  return editPins(head, values, file).text;
}
