/**
 * `-o go-template=…` (and `template=`, `go-template-file=`, `templatefile=`): Go's text/template run over decoded
 * JSON as oc 4.13's GoTemplatePrinter runs it: integers decode as int64 (`{{.config.size}}` → `67939151`), other
 * numbers as float64, maps print as `map[DisplayName:… Version:…]` with sorted keys, a missing key prints
 * `<no value>` (missingkey=default, oc's --allow-missing-template-keys=true). The parser is template-parse.ts;
 * Go's fmt is fmt.ts.
 */
import { goPrint, sprint, sprintf, sprintln } from './fmt.js';
import { type Arg, type Cmd, type ControlNode, type Pipe, type TemplateNode, argString, parseGoTemplate } from './template-parse.js';
import { GoFloat, GoInt, goTypeName, isGoInt, isGoMap, sortedKeys } from './value.js';

export { GoTemplateSyntaxError, parseGoTemplate } from './template-parse.js';

/** A template that fails on this data; the message is Go's (`template: output:1:9: executing "output" at <.a.x>: …`). */
export class GoTemplateExecError extends Error {}

const INTS = { ints: true } as const;
/** Go's invalid reflect.Value (a missing key) is `undefined`; a JSON null (a nil interface{}) is `null`. */
type Value = unknown;
const MISSING = Symbol('missing');
type Final = Value | typeof MISSING;

class Break {}
class Continue {}
class Fail extends Error {}

const fail = (message: string): never => {
  throw new Fail(message);
};

/** Go's truth of a value: false for zero values, empty strings and collections, nil and missing values. */
function truth(v: Value): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof GoInt || v instanceof GoFloat) return v.value !== 0;
  return Object.keys(v as object).length > 0;
}

/** What evalPipeline hands on: a nil interface becomes Go's invalid value. */
const dig = (v: Value): Value => (v === null ? undefined : v);

type Kind = 'bool' | 'int' | 'float' | 'string' | 'invalid';
function basicKind(v: Value): Kind {
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof GoInt || (typeof v === 'number' && isGoInt(v))) return 'int';
  if (typeof v === 'number' || v instanceof GoFloat) return 'float';
  if (typeof v === 'string') return 'string';
  return 'invalid';
}
const num = (v: Value) => (v instanceof GoInt || v instanceof GoFloat ? v.value : (v as number | string | boolean));

function eq(a: Value, ...rest: Value[]): boolean {
  a = dig(a);
  if (a !== undefined && typeof a === 'object' && !(a instanceof GoInt) && !(a instanceof GoFloat)) fail('invalid type for comparison');
  if (rest.length === 0) fail('missing argument for comparison');
  const k1 = basicKind(a);
  for (let b of rest) {
    b = dig(b);
    const k2 = basicKind(b);
    if (k1 !== k2) {
      if (a !== undefined && b !== undefined) fail('incompatible types for comparison');
      continue;
    }
    if (k1 === 'invalid') {
      if (isGoMap(b) || Array.isArray(b)) fail('invalid type for comparison');
      return true;
    }
    if (num(a) === num(b)) return true;
  }
  return false;
}

function lt(a: Value, b: Value): boolean {
  a = dig(a);
  b = dig(b);
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 === 'invalid' || k2 === 'invalid') fail('invalid type for comparison');
  if (k1 !== k2) fail('incompatible types for comparison');
  if (k1 === 'bool') fail('invalid type for comparison');
  return num(a) < num(b);
}

function length(v: Value): GoInt {
  if (v === null || v === undefined) return fail('len of nil pointer');
  if (typeof v === 'string') return new GoInt(Buffer.byteLength(v));
  if (Array.isArray(v)) return new GoInt(v.length);
  if (isGoMap(v)) return new GoInt(Object.keys(v).length);
  return fail(`len of type ${goTypeName(v, INTS)}`);
}

function index(item: Value, ...indexes: Value[]): Value {
  item = dig(item);
  if (item === undefined) fail('index of untyped nil');
  for (let ix of indexes) {
    ix = dig(ix);
    if (item === null) fail('index of nil pointer');
    if (Array.isArray(item) || typeof item === 'string') {
      const k = basicKind(ix);
      if (ix === undefined) fail('cannot index slice/array with nil');
      if (k !== 'int') fail(`cannot index slice/array with type ${goTypeName(ix, INTS)}`);
      const x = num(ix) as number;
      const len = typeof item === 'string' ? Buffer.byteLength(item) : item.length;
      if (x < 0 || x >= len) fail(`index out of range: ${x}`);
      item = typeof item === 'string' ? new GoInt(Buffer.from(item)[x]!) : item[x];
    } else if (isGoMap(item)) {
      if (ix === undefined) fail('value is nil; should be of type string');
      if (typeof ix !== 'string') fail(`value has type ${goTypeName(ix, INTS)}; should be string`);
      item = Object.hasOwn(item, ix as string) ? item[ix as string] : null;
    } else fail(`can't index item of type ${goTypeName(item, INTS)}`);
  }
  return item;
}

/** kubectl's `exists`: would `index` with these arguments find a non-nil value? */
function exists(item: Value, ...indexes: Value[]): boolean {
  let v = item;
  for (const ix of indexes) {
    if (v === null || v === undefined) return false;
    if (Array.isArray(v) || typeof v === 'string') {
      if (basicKind(ix) !== 'int') return false;
      const x = num(ix) as number;
      const len = typeof v === 'string' ? Buffer.byteLength(v) : v.length;
      if (x < 0 || x >= len) return false;
      v = typeof v === 'string' ? new GoInt(Buffer.from(v)[x]!) : v[x];
    } else if (isGoMap(v)) {
      if (typeof ix !== 'string') return false;
      v = Object.hasOwn(v, ix) ? v[ix] : null;
    } else return false;
  }
  return v !== null && v !== undefined;
}

function base64decode(v: Value): string {
  const s = v as string;
  if (!/^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s)) {
    const bad = [...s].findIndex((c, i) => !/[A-Za-z0-9+/=]/.test(c) || (c === '=' && i < s.length - 2));
    fail(`base64 decode failed: illegal base64 data at input byte ${bad >= 0 ? bad : s.length - (s.length % 4)}`);
  }
  return Buffer.from(s, 'base64').toString('utf8');
}

/** The text of the arguments as html / urlquery take it: one string as is, else fmt.Sprint. */
const argText = (args: Value[]): string => (args.length === 1 && typeof args[0] === 'string' ? args[0] : sprint(args));

function html(args: Value[]): string {
  const map: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&#39;', '"': '&#34;', '\0': '\uFFFD' };
  return argText(args).replace(/[<>&'"\0]/g, (c) => map[c]!);
}

function urlquery(args: Value[]): string {
  return [...Buffer.from(argText(args), 'utf8')]
    .map((b) => {
      const c = String.fromCharCode(b);
      if (/[A-Za-z0-9\-_.~]/.test(c)) return c;
      return c === ' ' ? '+' : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** Fixed arity of the builtins that have one (Go: `wrong number of args for len: want 1 got 2`). */
const ARITY: Record<string, [number, boolean]> = {
  not: [1, false],
  len: [1, false],
  index: [1, true],
  printf: [1, true],
  eq: [1, true],
  ne: [2, false],
  lt: [2, false],
  le: [2, false],
  gt: [2, false],
  ge: [2, false],
  exists: [1, true],
  base64decode: [1, false],
  and: [1, true],
  or: [1, true],
};

function callBuiltin(name: string, args: Value[]): Value {
  switch (name) {
    case 'not':
      return !truth(args[0]);
    case 'len':
      return length(args[0]);
    case 'index':
      return index(args[0], ...args.slice(1));
    case 'print':
      return sprint(args);
    case 'println':
      return sprintln(args);
    case 'printf':
      if (typeof args[0] !== 'string') fail(`wrong type for value; expected string; got ${goTypeName(args[0], INTS)}`);
      return sprintf(args[0] as string, args.slice(1));
    case 'eq':
      return eq(args[0], ...args.slice(1));
    case 'ne':
      return !eq(args[0], args[1]);
    case 'lt':
      return lt(args[0], args[1]);
    case 'le':
      return lt(args[0], args[1]) || eq(args[0], args[1]);
    case 'gt':
      return !(lt(args[0], args[1]) || eq(args[0], args[1]));
    case 'ge':
      return !lt(args[0], args[1]);
    case 'exists':
      return exists(args[0], ...args.slice(1));
    case 'base64decode':
      return base64decode(args[0]);
    case 'html':
      return html(args);
    case 'urlquery':
      return urlquery(args);
    default:
      return fail(`"${name}" is not a defined function`);
  }
}

interface Located {
  pos: number;
  text: string;
}

/** Output is handed to the sink in pieces of about this size, so a template that prints gigabytes holds little. */
const FLUSH_AT = 64 * 1024;

class State {
  out = '';
  private vars: { name: string; value: Value }[];
  private node: Located | undefined;
  constructor(
    private readonly source: string,
    root: Value,
    private readonly missingKeyError: boolean,
    private readonly sink?: (chunk: string) => void,
  ) {
    this.vars = [{ name: '$', value: root }];
  }

  private emit(text: string): void {
    this.out += text;
    if (this.sink && this.out.length >= FLUSH_AT) this.flush();
  }

  /** Hand what was printed to the sink (when there is one). */
  flush(): void {
    if (this.sink && this.out !== '') {
      this.sink(this.out);
      this.out = '';
    }
  }

  /** Go's errorf: where in the template, and the node being run. */
  error(message: string): GoTemplateExecError {
    if (!this.node) return new GoTemplateExecError(`template: output: ${message}`);
    const before = this.source.slice(0, this.node.pos);
    const nl = before.lastIndexOf('\n');
    const line = 1 + (before.match(/\n/g)?.length ?? 0);
    const col = nl < 0 ? this.node.pos : this.node.pos - (nl + 1);
    return new GoTemplateExecError(`template: output:${line}:${col}: executing "output" at <${this.node.text}>: ${message}`);
  }

  private at(pos: number, text: string): void {
    this.node = { pos, text };
  }

  walkList(dot: Value, list: TemplateNode[]): void {
    for (const n of list) this.walk(dot, n);
  }

  private walk(dot: Value, node: TemplateNode): void {
    switch (node.t) {
      case 'text':
        this.emit(node.text);
        return;
      case 'action': {
        const v = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.emit(v === undefined ? '<no value>' : goPrint(v, INTS));
        return;
      }
      case 'break':
        throw new Break();
      case 'continue':
        throw new Continue();
      case 'if':
      case 'with': {
        const mark = this.vars.length;
        const v = this.evalPipeline(dot, node.pipe);
        if (truth(v)) this.walkList(node.t === 'with' ? v : dot, node.list);
        else if (node.elseList) this.walkList(dot, node.elseList);
        this.vars.length = mark;
        return;
      }
      case 'range':
        this.walkRange(dot, node);
    }
  }

  private walkRange(dot: Value, node: ControlNode): void {
    const outer = this.vars.length;
    try {
      const val = this.evalPipeline(dot, node.pipe);
      const mark = this.vars.length;
      const one = (key: Value, elem: Value) => {
        const decl = node.pipe.decl.length;
        if (decl > 0) this.vars[this.vars.length - 1]!.value = elem;
        if (decl > 1) this.vars[this.vars.length - 2]!.value = key;
        try {
          this.walkList(elem, node.list);
        } catch (e) {
          if (!(e instanceof Continue)) throw e;
        } finally {
          this.vars.length = mark;
        }
      };
      let entries: [Value, Value][] = [];
      if (Array.isArray(val)) entries = val.map((e, i) => [new GoInt(i), e]);
      else if (isGoMap(val)) entries = sortedKeys(val).map((k) => [k, val[k]]);
      else if (val !== undefined) throw this.error(`range can't iterate over ${goPrint(val, INTS)}`);
      for (const [k, e] of entries) one(k, e);
      if (entries.length === 0 && node.elseList) this.walkList(dot, node.elseList);
    } catch (e) {
      if (!(e instanceof Break)) throw e;
    } finally {
      this.vars.length = outer;
    }
  }

  private evalPipeline(dot: Value, pipe: Pipe): Value {
    this.at(pipe.pos, argString(pipe));
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) value = dig(this.evalCommand(dot, cmd, value));
    const v = value === MISSING ? undefined : value;
    for (const name of pipe.decl) {
      if (pipe.isAssign) {
        const slot = [...this.vars].reverse().find((x) => x.name === name);
        if (slot) slot.value = v;
      } else this.vars.push({ name, value: v });
    }
    return v;
  }

  private notAFunction(args: Arg[], final: Final): void {
    if (args.length > 1 || final !== MISSING) throw this.error(`can't give argument to non-function ${argString(args[0]!)}`);
  }

  private evalCommand(dot: Value, cmd: Cmd, final: Final): Value {
    const first = cmd.args[0]!;
    const hasArgs = cmd.args.length > 1 || final !== MISSING;
    switch (first.t) {
      case 'field':
        this.at(first.pos, argString(first));
        return this.fieldChain(dot, first.ident, hasArgs);
      case 'chain': {
        const base = first.node.t === 'pipe' ? this.evalPipeline(dot, first.node) : this.evalArg(dot, first.node);
        this.at(first.pos, argString(first));
        return this.fieldChain(base, first.fields, hasArgs);
      }
      case 'ident':
        return this.evalFunction(dot, cmd, first, cmd.args.slice(1), final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case 'var': {
        this.at(first.pos, argString(first));
        const value = this.varValue(first.ident[0]!);
        if (first.ident.length === 1) {
          this.notAFunction(cmd.args, final);
          return value;
        }
        return this.fieldChain(value, first.ident.slice(1), hasArgs);
      }
    }
    this.at(first.pos, argString(first));
    this.notAFunction(cmd.args, final);
    if (first.t === 'nil') throw this.error('nil is not a command');
    return this.constant(dot, first);
  }

  private constant(dot: Value, a: Arg): Value {
    switch (a.t) {
      case 'bool':
        return a.value;
      case 'dot':
        return dot;
      case 'number':
        return a.isFloat ? new GoFloat(a.value) : new GoInt(a.value);
      case 'string':
        return a.text;
      default:
        throw this.error(`can't evaluate command ${JSON.stringify(argString(a))}`);
    }
  }

  private varValue(name: string): Value {
    const slot = [...this.vars].reverse().find((x) => x.name === name);
    if (!slot) throw this.error(`undefined variable: ${name}`);
    return slot.value;
  }

  private fieldChain(receiver: Value, ident: string[], hasArgs: boolean): Value {
    let v = receiver;
    ident.forEach((name, i) => {
      v = this.field(v, name, hasArgs && i === ident.length - 1);
    });
    return v;
  }

  private field(receiver: Value, name: string, hasArgs: boolean): Value {
    if (receiver === undefined) {
      if (this.missingKeyError) throw this.error(`nil data; no entry for key ${JSON.stringify(name)}`);
      return undefined;
    }
    if (receiver === null) throw this.error(`nil pointer evaluating interface {}.${name}`);
    if (isGoMap(receiver)) {
      if (hasArgs) throw this.error(`${name} is not a method but has arguments`);
      if (Object.hasOwn(receiver, name)) return receiver[name];
      if (this.missingKeyError) throw this.error(`map has no entry for key ${JSON.stringify(name)}`);
      return undefined;
    }
    throw this.error(`can't evaluate field ${name} in type interface {}`);
  }

  /** An argument of a function (Go's evalArg for an interface{} parameter: a missing value becomes nil). */
  private evalArg(dot: Value, a: Arg): Value {
    this.at(a.pos, argString(a));
    switch (a.t) {
      case 'field':
        return this.fieldChain(dot, a.ident, false);
      case 'var': {
        const value = this.varValue(a.ident[0]!);
        return a.ident.length === 1 ? value : this.fieldChain(value, a.ident.slice(1), false);
      }
      case 'pipe':
        return this.evalPipeline(dot, a);
      case 'ident':
        return this.evalFunction(dot, a, a, [], MISSING);
      case 'chain': {
        const base = a.node.t === 'pipe' ? this.evalPipeline(dot, a.node) : this.evalArg(dot, a.node);
        this.at(a.pos, argString(a));
        return this.fieldChain(base, a.fields, false);
      }
      case 'nil':
        throw this.error('cannot assign nil to reflect.Value');
      default:
        return this.constant(dot, a);
    }
  }

  private evalFunction(dot: Value, cmd: Cmd | Arg, ident: Extract<Arg, { t: 'ident' }>, argNodes: Arg[], final: Final): Value {
    this.at(ident.pos, ident.name);
    const name = ident.name;
    const n = argNodes.length + (final === MISSING ? 0 : 1);
    const [want, variadic] = ARITY[name] ?? [0, true];
    if (variadic ? n < want : n !== want)
      throw this.error(`wrong number of args for ${name}: want ${variadic ? 'at least ' : ''}${want} got ${n}`);
    const finalArg = () => (final === MISSING ? [] : [final === undefined ? null : final]);
    if (name === 'and' || name === 'or') {
      let v: Value;
      const all = [...argNodes.map((a) => () => this.evalArg(dot, a)), ...finalArg().map((f) => () => f)];
      for (const get of all) {
        v = get();
        if (truth(v) === (name === 'or')) return v;
      }
      return v;
    }
    const args = [...argNodes.map((a) => this.evalArg(dot, a)), ...finalArg()].map((v) => (v === undefined ? null : v));
    const where = 'pos' in cmd ? cmd : ident;
    try {
      return callBuiltin(name, args);
    } catch (e) {
      if (!(e instanceof Fail)) throw e;
      this.at(where.pos, argString(where));
      throw this.error(`error calling ${name}: ${e.message}`);
    }
  }
}

export interface GoTemplateOptions {
  /** missingkey=error (oc's --allow-missing-template-keys=false) instead of printing `<no value>`. */
  missingKeyError?: boolean;
  /** Where output goes as it is printed (as Go's template writes to its writer); `out` is then what is left. */
  sink?: (chunk: string) => void;
}

/**
 * Run a parsed template over decoded JSON. On failure, the error carries what was printed so far (oc prints it,
 * and its debugging text, to stdout before the error).
 */
export function executeGoTemplate(
  source: string,
  template: TemplateNode[],
  data: unknown,
  o: GoTemplateOptions = {},
): { out: string; error?: GoTemplateExecError } {
  const s = new State(source, data, o.missingKeyError === true, o.sink);
  try {
    s.walkList(data, template);
    s.flush();
    return { out: s.out };
  } catch (e) {
    if (!(e instanceof GoTemplateExecError) && !(e instanceof Fail)) throw e;
    s.flush();
    return { out: s.out, error: e instanceof Fail ? s.error(e.message) : e };
  }
}

/** Parse and run in one go (tests). */
export function goTemplate(source: string, data: unknown, o: GoTemplateOptions = {}): string {
  const r = executeGoTemplate(source, parseGoTemplate(source), data, o);
  if (r.error) throw r.error;
  return r.out;
}
