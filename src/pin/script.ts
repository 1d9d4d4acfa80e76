import { PIN_VARS, findMisspeltPins, pinNames, type PinVar } from '../rhcos/settings.js';
import { PinScriptError, UnsafeValueError } from './errors.js';
import { decodeValue, encodeValue, tokenize, type Token, type ValueContext, type WordToken } from './shell.js';

/**
 * Reading and editing the RHCOS pins of a shell script (hack/release.sh) without touching any other
 * byte. Pins are assignments at the start of a line (after indentation) in one of these forms:
 *
 *   VAR=v            export VAR=v             (v bare, '…' or "…")
 *   VAR="${VAR:-v}"  export VAR="${VAR:-v}"   (also unquoted ${…}, and the ops -, :=, =)
 *   : "${VAR:=v}"                             (also unquoted, and =)
 *
 * Lines inside here-documents, multi-line strings and continuation lines are never taken for pins. The
 * script is read once, by the tokenizer in shell.ts; this module gives its words their meaning as pins.
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

/** Parse the value word of an assignment: from i (after `NAME=`) to the end of its word, as the tokenizer found it. */
function parseValueWord(text: string, i: number, word: WordToken): ValueWord {
  const wordEnd = word.end;
  const plain = (over: Partial<ValueWord>): ValueWord => ({
    end: wordEnd,
    shape: 'value',
    outer: 'none',
    inner: 'none',
    op: '',
    paramName: undefined,
    start: i,
    stop: wordEnd,
    value: '',
    problem: undefined,
    ...over,
  });
  if (i >= wordEnd) return plain({ stop: i });
  if (word.open) {
    return text[i] === "'" || text[i] === '"'
      ? plain({ stop: i, value: undefined, problem: 'the quote is not closed on this line' })
      : plain({ value: undefined, problem: 'the value is not a fixed string' });
  }
  const c = text[i];
  let w: ValueWord;
  if (c === "'") {
    const close = text.indexOf("'", i + 1);
    w = plain({ end: close + 1, outer: 'single', start: i + 1, stop: close, value: text.slice(i + 1, close) });
  } else if (c === '"') {
    const p = text.startsWith('"${', i) ? parseParam(text, i + 1) : undefined;
    if (p && text[p.end] === '"') {
      w = { ...p, end: p.end + 1, shape: 'param', outer: 'double' };
    } else {
      const d = scanDouble(text, i + 1);
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
    const raw = text.slice(i, wordEnd);
    if (/[$`'"]/.test(raw.replace(/\\./g, ''))) return plain({ value: undefined, problem: 'the value is not a fixed string' });
    return plain({ value: decodeValue(raw, 'bare') });
  }
  if (w.end !== wordEnd) return { ...w, end: wordEnd, value: undefined, problem: 'the value joins several quoted or unquoted parts' };
  return w;
}

function contextOf(a: Pick<Assignment, 'shape' | 'outer'>): ValueContext {
  if (a.shape !== 'value') return 'param';
  return a.outer === 'none' ? 'bare' : a.outer;
}

/** A pin assignment found on a line, with the word it came from. */
type Found = Assignment & { word: WordToken | undefined };

/** After the assignments, what may follow for them to assign in this shell (not a prefix, not a subshell). */
function endsCommand(t: Token | undefined): boolean {
  if (!t || t.kind === 'comment') return true;
  if (t.kind === 'op') return t.text.startsWith(';') || t.text === '&&' || t.text === '||';
  return t.text.startsWith('}') || /^(then|fi|do|done)\b/.test(t.text);
}

/** The pin assignments at the start of a fresh line's tokens. Prefix assignments of a command are not pins. */
function pinsOfLine(text: string, tokens: Token[], index: number): Found[] {
  const found: Found[] = [];
  const make = (name: string, shape: Assignment['shape'], exported: boolean, from: number, w: ValueWord, word?: WordToken): Found => ({
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
    word,
  });
  const words = (k: number): WordToken | undefined => (tokens[k]?.kind === 'word' ? (tokens[k] as WordToken) : undefined);

  if (words(0)?.text === ':') {
    // : "${VAR:=v}" ["${OTHER:=w}" ...]
    for (let k = 1; words(k); k++) {
      const t = words(k)!;
      const quoted = text[t.start] === '"';
      const p = !t.open && text.startsWith(quoted ? '"${' : '${', t.start) ? parseParam(text, t.start + (quoted ? 1 : 0)) : undefined;
      const end = p ? p.end + (quoted ? 1 : 0) : -1;
      if (p && (p.op === ':=' || p.op === '=') && (!quoted || text[p.end] === '"') && end === t.end) {
        found.push(make(p.paramName!, 'colon', false, t.start, { ...p, end, shape: 'param', outer: quoted ? 'double' : 'none' }));
      }
    }
    return found;
  }

  let k = 0;
  const exported = words(0)?.text === 'export';
  if (exported) k++;
  for (let t = words(k); t; t = words(++k)) {
    const m = NAME_EQ.exec(t.text);
    if (m) {
      const w = parseValueWord(text, t.start + m[0].length, t);
      found.push(make(m[1]!, w.shape, exported, t.start, w, t));
    } else if (!(exported && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.text))) break; // export NAME (no value) is skipped
  }
  return endsCommand(tokens[k]) ? found : [];
}

export function parseScript(text: string): ParsedScript {
  const lines = splitLines(text);
  const eol = lines[0]?.eol || '\n';
  const assignments: Assignment[] = [];
  const assignedNames = new Map<string, number>();
  const commandAssignments: CommandAssignment[] = [];
  let begin: number | undefined;
  let end: number | undefined;
  tokenize(lines.map((l) => l.text)).forEach((tl, index) => {
    const line = lines[index]!;
    const pinWords = new Set<WordToken>();
    if (tl.fresh) {
      if (BEGIN_RE.test(line.text) && begin === undefined) begin = index;
      if (END_RE.test(line.text) && begin !== undefined && end === undefined) end = index;
      for (const { word, ...a } of pinsOfLine(line.text, tl.tokens, index)) {
        assignments.push(a);
        if (word) pinWords.add(word);
      }
    }
    for (const t of tl.tokens) {
      if (t.kind !== 'word' || t.continued) continue;
      const m = NAME_EQ.exec(t.text);
      if (!m) continue;
      if (!assignedNames.has(m[1]!)) assignedNames.set(m[1]!, index + 1);
      if (t.command || t.declaration) commandAssignments.push({ name: m[1]!, line: index + 1, index, at: t.start, pin: pinWords.has(t) });
    }
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

/** An assignment at a command position (where the shell really assigns). */
export interface CommandAssignment {
  name: string;
  line: number;
  index: number;
  /** Offset of NAME in the line. */
  at: number;
  /** Read as a pin (an assignment osimage edits). */
  pin: boolean;
}

/**
 * Assignments of a pin variable at a command position that are not pins osimage can edit: a prefix
 * for one command (`VAR=v make`), one after another command on the line (`if x; then VAR=v; fi`), or
 * with readonly/declare/local. Editing the others (or adding a block) would leave these in force.
 */
export function unmanagedPins(parsed: ParsedScript, name: string): CommandAssignment[] {
  return parsed.commandAssignments.filter((c) => c.name === name && !c.pin);
}

const FORMS_HINT = 'put it on a line of its own as VAR=v, export VAR=v, VAR="${VAR:-v}" or : "${VAR:=v}"';

function assertManaged(parsed: ParsedScript, file: string, name: string, verb: string): void {
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
 * environment). Assignments osimage cannot read, and assignments that disagree, are errors. With `stream`
 * the pins are that OS stream's variables (`RHCOS_RHEL_10_BUILD_NAME`, …), still keyed by the default names.
 */
export function readPins(parsed: ParsedScript, file: string, stream?: string): ScriptPins {
  const pins: ScriptPins = {};
  const names = pinNames(stream);
  for (const role of PIN_VARS) {
    const name = names[role];
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
    pins[role] = { value: first.value!, line: first.line };
  }
  return pins;
}

export interface MisspeltPin {
  name: string;
  line: number;
  suggestion: string;
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
  /** Variables (their real names) whose existing assignments got a new value. */
  edited: string[];
  /** Variables (their real names) that were absent and were added in the marked block. */
  added: string[];
}

/**
 * Set the three pins in the script text: existing assignments are edited in place (form, quoting and
 * every other byte kept); absent ones are added in one marked block after the shebang and leading comments,
 * written in the form of the script's first pin of the stream (else of any pin, else `export VAR="${VAR:-v}"`).
 * With `stream` the pins are that OS stream's variables; `values` stay keyed by the default names.
 */
export function editPins(text: string, values: PinValues, file: string, stream?: string): ScriptEdit {
  const parsed = parseScript(text);
  const lines = parsed.lines.map((l) => ({ ...l }));
  const names = pinNames(stream);
  const edited: string[] = [];
  const added: string[] = [];
  const replacements = new Map<number, Array<{ start: number; stop: number; text: string }>>();
  let template: Template | undefined;
  for (const role of PIN_VARS) {
    const name = names[role];
    assertManaged(parsed, file, name, 'edit');
    for (const a of parsed.assignments.filter((x) => x.name === name)) {
      if (a.problem) throw new PinScriptError(file, a.line, `cannot edit ${name}: ${a.problem}: ${a.raw}`);
      template ??= a;
      const enc = encodeOrThrow(file, a.line, name, values[role], contextOf(a));
      if (a.value !== values[role] && !edited.includes(name)) edited.push(name);
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

  const missing = PIN_VARS.filter((role) => !parsed.assignments.some((a) => a.name === names[role]));
  if (missing.length > 0) {
    const eol = parsed.eol;
    const defaults = Object.values(pinNames());
    template ??= parsed.assignments.find((a) => defaults.includes(a.name) && !a.problem);
    const form = template ?? DEFAULT_TEMPLATE;
    const newLines = missing.map((role) => ({ text: renderAssignment(file, names[role], values[role], form), eol }));
    added.push(...missing.map((role) => names[role]));
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
export function newScript(values: PinValues, file: string, stream?: string): string {
  const head = '#!/usr/bin/env bash\n# RHCOS pins for this release, written by `osimage pin`; check them with `osimage pin --check`.\n';
  return editPins(head, values, file, stream).text;
}
