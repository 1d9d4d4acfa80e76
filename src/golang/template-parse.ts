/**
 * The lexer and parser of Go's text/template (Go 1.19, what oc 4.13 runs `-o go-template` with), written from its
 * documented grammar and behaviour: `{{.a.b}}`, `{{- x -}}` trim markers, `{{/* comments *\/}}`, pipelines, `$x :=`
 * and `$i, $v :=`, parenthesized pipelines, if / else if / else, range (with break / continue) and with. The error
 * texts are Go's (`template: output:1: unclosed action`). Named templates (define, template, block) are refused
 * with a message naming what is supported. Execution is template.ts.
 */
import { goRuneName as runeName, goUnquote } from './value.js';

/** Functions a template may call: Go's builtins that make sense over JSON, and kubectl's exists / base64decode. */
export const TEMPLATE_FUNCTIONS = [
  'and',
  'or',
  'not',
  'len',
  'index',
  'print',
  'printf',
  'println',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'html',
  'urlquery',
  'exists',
  'base64decode',
] as const;

/** Go builtins osimage does not implement (they have no use over JSON data, or need named templates). */
const UNSUPPORTED_FUNCTIONS = ['call', 'js'];
const UNSUPPORTED_KEYWORDS = ['define', 'template', 'block'];

export const SUPPORTED_SUMMARY =
  'osimage supports fields, variables, pipelines, if/else, range (break, continue), with, comments, trim markers and the functions ' +
  TEMPLATE_FUNCTIONS.join(', ');

export type Arg =
  | { t: 'field'; pos: number; ident: string[] }
  | { t: 'var'; pos: number; ident: string[] }
  | { t: 'chain'; pos: number; node: Arg; fields: string[] }
  | { t: 'ident'; pos: number; name: string }
  | { t: 'dot'; pos: number }
  | { t: 'nil'; pos: number }
  | { t: 'bool'; pos: number; value: boolean }
  | { t: 'number'; pos: number; text: string; value: number; isFloat: boolean }
  | { t: 'string'; pos: number; quoted: string; text: string }
  | Pipe;

export interface Cmd {
  t: 'cmd';
  pos: number;
  args: Arg[];
}

export interface Pipe {
  t: 'pipe';
  pos: number;
  isAssign: boolean;
  decl: string[];
  cmds: Cmd[];
}

export type TemplateNode =
  | { t: 'text'; text: string }
  | { t: 'action'; pos: number; pipe: Pipe }
  | ControlNode
  | { t: 'break' | 'continue'; pos: number };

export interface ControlNode {
  t: 'if' | 'range' | 'with';
  pos: number;
  pipe: Pipe;
  list: TemplateNode[];
  elseList?: TemplateNode[];
}

/** A template that does not parse; the message is Go's (`template: output:1: unexpected EOF`). */
export class GoTemplateSyntaxError extends Error {}

type TokType =
  | 'text'
  | 'left'
  | 'right'
  | 'space'
  | 'field'
  | 'var'
  | 'dot'
  | 'ident'
  | 'keyword'
  | 'bool'
  | 'number'
  | 'char'
  | 'charConst'
  | 'string'
  | 'rawString'
  | 'pipe'
  | 'lparen'
  | 'rparen'
  | 'assign'
  | 'declare'
  | 'eof'
  | 'error';

interface Token {
  typ: TokType;
  val: string;
  pos: number;
  line: number;
}

const KEYWORDS = new Set(['if', 'else', 'end', 'range', 'with', 'define', 'template', 'block', 'break', 'continue', 'nil']);
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isAlphaNumeric = (c: string | undefined) => c !== undefined && c !== '' && (c === '_' || /^[\p{L}\p{Nd}]$/u.test(c));
const hasLeftTrim = (s: string) => s.length >= 2 && s[0] === '-' && isSpace(s[1]);
const hasRightTrim = (s: string) => s.length >= 2 && isSpace(s[0]) && s[1] === '-';

/** Go's lexer: the whole input as tokens, ending with `eof` or one `error` token. */
function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  let start = 0;
  let parenDepth = 0;
  const lineAt = (p: number) => 1 + (input.slice(0, p).match(/\n/g)?.length ?? 0);
  const emit = (typ: TokType, val = input.slice(start, pos)) => {
    tokens.push({ typ, val, pos: start, line: lineAt(start) });
    start = pos;
  };
  const error = (message: string) => {
    tokens.push({ typ: 'error', val: message, pos: start, line: lineAt(start) });
    return tokens;
  };
  const atTerminator = () => {
    const c = input[pos];
    return c === undefined || isSpace(c) || '.,|:)('.includes(c) || input.startsWith('}}', pos);
  };
  const atRightDelim = (): [boolean, boolean] => {
    if (hasRightTrim(input.slice(pos)) && input.startsWith('}}', pos + 2)) return [true, true];
    return [input.startsWith('}}', pos), false];
  };
  const runeAt = (p: number) => (p < input.length ? String.fromCodePoint(input.codePointAt(p)!) : '');
  /** Past a "…" or '…' whose opening quote was read; false when it is not closed on its line. */
  const scanQuoted = (quote: string): boolean => {
    for (;;) {
      const c = runeAt(pos);
      pos += c.length;
      if (c === '\\') {
        const e = runeAt(pos);
        pos += e.length;
        if (e === '' || e === '\n') return false;
      } else if (c === '' || c === '\n') return false;
      else if (c === quote) return true;
    }
  };

  text: for (;;) {
    const x = input.indexOf('{{', pos);
    if (x < 0) {
      pos = input.length;
      if (pos > start) emit('text');
      emit('eof', '');
      return tokens;
    }
    pos = x;
    const trim = hasLeftTrim(input.slice(pos + 2)) ? /[ \t\r\n]*$/.exec(input.slice(start, pos))![0].length : 0;
    pos -= trim;
    if (pos > start) emit('text');
    pos += trim;
    start = pos;
    // left delimiter
    pos += 2;
    const afterMarker = hasLeftTrim(input.slice(pos)) ? 2 : 0;
    if (input.startsWith('/*', pos + afterMarker)) {
      pos += afterMarker;
      start = pos;
      const close = input.indexOf('*/', pos + 2);
      if (close < 0) return error('unclosed comment');
      pos = close + 2;
      const [delim, trimSpace] = atRightDelim();
      if (!delim) return error('comment ends before closing delimiter');
      pos += (trimSpace ? 2 : 0) + 2;
      if (trimSpace) pos += /^[ \t\r\n]*/.exec(input.slice(pos))![0].length;
      start = pos;
      continue;
    }
    emit('left');
    pos += afterMarker;
    start = pos;
    parenDepth = 0;
    for (;;) {
      const [delim, trimSpace] = atRightDelim();
      if (delim) {
        if (parenDepth !== 0) return error('unclosed left paren');
        if (trimSpace) {
          pos += 2;
          start = pos;
        }
        pos += 2;
        emit('right');
        if (trimSpace) {
          pos += /^[ \t\r\n]*/.exec(input.slice(pos))![0].length;
          start = pos;
        }
        continue text;
      }
      const r = runeAt(pos);
      pos += r.length;
      if (r === '') return error('unclosed action');
      if (isSpace(r)) {
        pos -= 1;
        let n = 0;
        while (isSpace(input[pos])) {
          pos++;
          n++;
        }
        if (hasRightTrim(input.slice(pos - 1)) && input.startsWith('}}', pos + 1)) {
          pos -= 1;
          if (n === 1) continue;
        }
        emit('space');
      } else if (r === '=') emit('assign');
      else if (r === ':') {
        if (input[pos] !== '=') return error('expected :=');
        pos++;
        emit('declare');
      } else if (r === '|') emit('pipe');
      else if (r === '"') {
        if (!scanQuoted('"')) return error('unterminated quoted string');
        emit('string');
      } else if (r === '`') {
        const close = input.indexOf('`', pos);
        if (close < 0) return error('unterminated raw quoted string');
        pos = close + 1;
        emit('rawString');
      } else if (r === "'") {
        if (!scanQuoted("'")) return error('unterminated character constant');
        emit('charConst');
      } else if (r === '$' || (r === '.' && !/[0-9]/.test(input[pos] ?? ''))) {
        if (atTerminator()) emit(r === '$' ? 'var' : 'dot');
        else {
          while (isAlphaNumeric(runeAt(pos))) pos += runeAt(pos).length;
          if (!atTerminator()) return error(`bad character ${runeName(runeAt(pos))}`);
          emit(r === '$' ? 'var' : 'field');
        }
      } else if (r === '.' || r === '+' || r === '-' || /[0-9]/.test(r)) {
        pos -= 1;
        const m =
          /^[+-]?(0[xX][0-9a-fA-F_]*(\.[0-9a-fA-F_]*)?([pP][+-]?[0-9_]+)?|0[oO][0-7_]*|0[bB][01_]*|[0-9_]*(\.[0-9_]*)?([eE][+-]?[0-9_]*)?)i?/.exec(
            input.slice(pos),
          )!;
        pos += m[0].length;
        if (isAlphaNumeric(runeAt(pos)) || input[pos] === '+' || input[pos] === '-') {
          pos += runeAt(pos).length;
          return error(`bad number syntax: ${JSON.stringify(input.slice(start, pos))}`);
        }
        emit('number');
      } else if (isAlphaNumeric(r)) {
        while (isAlphaNumeric(runeAt(pos))) pos += runeAt(pos).length;
        const word = input.slice(start, pos);
        if (!atTerminator()) return error(`bad character ${runeName(runeAt(pos))}`);
        emit(KEYWORDS.has(word) ? 'keyword' : word === 'true' || word === 'false' ? 'bool' : 'ident');
      } else if (r === '(') {
        emit('lparen');
        parenDepth++;
      } else if (r === ')') {
        emit('rparen');
        parenDepth--;
        if (parenDepth < 0) return error(`unexpected right paren ${runeName(r)}`);
      } else if (r.codePointAt(0)! <= 0x7e && r >= ' ') emit('char');
      else return error(`unrecognized character in action: ${runeName(r)}`);
    }
  }
}

/** Go's item.String() in parse errors. */
function tokenString(t: Token): string {
  if (t.typ === 'eof') return 'EOF';
  if (t.typ === 'error') return t.val;
  if (t.typ === 'keyword') return `<${t.val}>`;
  const q = JSON.stringify(t.val);
  return t.val.length > 10 ? `${JSON.stringify(t.val.slice(0, 10))}...` : q;
}

/** A string token's text (`…` raw; "…" and '…' as strconv.Unquote reads them). */
function unquote(s: string): string | undefined {
  return s.startsWith('`') ? s.slice(1, -1) : goUnquote(s);
}

type End = { t: 'end' | 'else'; pos: number; elseIf: boolean };

class Parser {
  private i = 0;
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  private actionLine = 0;
  private lastLine = 1;
  constructor(
    private readonly tokens: Token[],
    private readonly name: string,
  ) {}

  private fail(message: string): never {
    throw new GoTemplateSyntaxError(`template: ${this.name}:${this.lastLine}: ${message}`);
  }
  private next(): Token {
    const t = this.tokens[Math.min(this.i, this.tokens.length - 1)]!;
    this.i++;
    this.lastLine = t.line;
    return t;
  }
  private backup(n = 1): void {
    this.i -= n;
  }
  private peek(): Token {
    return this.tokens[Math.min(this.i, this.tokens.length - 1)]!;
  }
  private nextNonSpace(): Token {
    let t = this.next();
    while (t.typ === 'space') t = this.next();
    return t;
  }
  private peekNonSpace(): Token {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }
  private unexpected(t: Token, context: string): never {
    if (t.typ === 'error') {
      let extra = '';
      if (this.actionLine !== 0 && this.actionLine !== t.line) {
        extra = ` in action started at ${this.name}:${this.actionLine}`;
        if (t.val.endsWith(' action')) extra = extra.slice(' in action'.length);
      }
      this.fail(`${t.val}${extra}`);
    }
    return this.fail(`unexpected ${tokenString(t)} in ${context}`);
  }

  parse(): TemplateNode[] {
    const root: TemplateNode[] = [];
    while (this.peek().typ !== 'eof') {
      const n = this.textOrAction();
      if ('elseIf' in n) this.fail(`unexpected {{${n.t}}}`);
      if (n) root.push(n as TemplateNode);
    }
    return root;
  }

  private itemList(): [TemplateNode[], End] {
    const list: TemplateNode[] = [];
    while (this.peekNonSpace().typ !== 'eof') {
      const n = this.textOrAction();
      if ('elseIf' in n) return [list, n as End];
      list.push(n as TemplateNode);
    }
    return this.fail('unexpected EOF');
  }

  private textOrAction(): TemplateNode | End {
    const t = this.nextNonSpace();
    if (t.typ === 'text') return { t: 'text', text: t.val };
    if (t.typ === 'left') {
      this.actionLine = t.line;
      try {
        return this.action();
      } finally {
        this.actionLine = 0;
      }
    }
    return this.unexpected(t, 'input');
  }

  private action(): TemplateNode | End {
    const t = this.nextNonSpace();
    if (t.typ === 'keyword') {
      switch (t.val) {
        case 'if':
        case 'range':
        case 'with':
          return this.control(t.val, t.pos);
        case 'else': {
          const p = this.peekNonSpace();
          if (p.typ === 'keyword' && p.val === 'if') return { t: 'else', pos: p.pos, elseIf: true };
          this.expect('right', 'else');
          return { t: 'else', pos: t.pos, elseIf: false };
        }
        case 'end':
          this.expect('right', 'end');
          return { t: 'end', pos: t.pos, elseIf: false };
        case 'break':
        case 'continue': {
          const r = this.nextNonSpace();
          if (r.typ !== 'right') this.unexpected(r, `{{${t.val}}}`);
          if (this.rangeDepth === 0) this.fail(`{{${t.val}}} outside {{range}}`);
          return { t: t.val, pos: t.pos };
        }
        default:
          if (UNSUPPORTED_KEYWORDS.includes(t.val)) this.fail(`{{${t.val}}} is not supported: ${SUPPORTED_SUMMARY}`);
      }
    }
    this.backup();
    const p = this.peek();
    return { t: 'action', pos: p.pos, pipe: this.pipeline('command', 'right') };
  }

  private expect(typ: TokType, context: string): Token {
    const t = this.nextNonSpace();
    if (t.typ !== typ) this.unexpected(t, context);
    return t;
  }

  private control(context: 'if' | 'range' | 'with', pos: number): TemplateNode {
    const mark = this.vars.length;
    try {
      const pipe = this.pipeline(context, 'right');
      if (context === 'range') this.rangeDepth++;
      const [list, end] = this.itemList();
      let next = end;
      if (context === 'range') this.rangeDepth--;
      let elseList: TemplateNode[] | undefined;
      if (next.t === 'else') {
        if (context === 'if' && next.elseIf) {
          this.next(); // the `if`
          elseList = [this.control('if', next.pos)];
        } else {
          [elseList, next] = this.itemList();
          if (next.t !== 'end') this.fail(`expected end; found {{${next.t}}}`);
        }
      }
      return { t: context, pos, pipe, list, ...(elseList ? { elseList } : {}) };
    } finally {
      this.vars.length = mark;
    }
  }

  private pipeline(context: string, end: TokType): Pipe {
    const first = this.peekNonSpace();
    const pipe: Pipe = { t: 'pipe', pos: first.pos, isAssign: false, decl: [], cmds: [] };
    for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== 'var') break;
      const before = this.i;
      this.nextNonSpace();
      const next = this.peekNonSpace();
      if (next.typ === 'assign' || next.typ === 'declare') {
        pipe.isAssign = next.typ === 'assign';
        this.nextNonSpace();
        pipe.decl.push(v.val);
        this.vars.push(v.val);
        break;
      }
      if (next.typ === 'char' && next.val === ',') {
        this.nextNonSpace();
        pipe.decl.push(v.val);
        this.vars.push(v.val);
        if (context === 'range' && pipe.decl.length < 2) {
          const p = this.peekNonSpace();
          if (p.typ === 'var' || p.typ === 'right' || p.typ === 'rparen') continue;
          this.fail('range can only initialize variables');
        }
        this.fail(`too many declarations in ${context}`);
      }
      this.i = before;
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      if (t.typ === end) {
        if (pipe.cmds.length === 0) this.fail(`missing value for ${context}`);
        pipe.cmds.slice(1).forEach((c, i) => {
          if (['bool', 'dot', 'nil', 'number', 'string'].includes(c.args[0]!.t))
            this.fail(`non executable command in pipeline stage ${i + 2}`);
        });
        return pipe;
      }
      if (
        ['bool', 'charConst', 'dot', 'field', 'ident', 'number', 'rawString', 'string', 'var', 'lparen'].includes(t.typ) ||
        (t.typ === 'keyword' && t.val === 'nil')
      ) {
        this.backup();
        pipe.cmds.push(this.command());
      } else this.unexpected(t, context);
    }
  }

  private command(): Cmd {
    const cmd: Cmd = { t: 'cmd', pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const t = this.next();
      if (t.typ === 'space') continue;
      if (t.typ === 'right' || t.typ === 'rparen') this.backup();
      else if (t.typ !== 'pipe') this.unexpected(t, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.fail('empty command');
    return cmd;
  }

  private operand(): Arg | undefined {
    const node = this.term();
    if (!node) return undefined;
    if (this.peek().typ !== 'field') return node;
    const pos = this.peek().pos;
    const fields: string[] = [];
    while (this.peek().typ === 'field') fields.push(this.next().val.slice(1));
    if (node.t === 'field') return { t: 'field', pos, ident: [...node.ident, ...fields] };
    if (node.t === 'var') return { t: 'var', pos, ident: [...node.ident, ...fields] };
    if (['bool', 'string', 'number', 'nil', 'dot'].includes(node.t))
      this.fail(`unexpected . after term ${JSON.stringify(argString(node))}`);
    return { t: 'chain', pos, node, fields };
  }

  private term(): Arg | undefined {
    const t = this.nextNonSpace();
    switch (t.typ) {
      case 'ident':
        if (UNSUPPORTED_FUNCTIONS.includes(t.val)) this.fail(`function ${JSON.stringify(t.val)} is not supported: ${SUPPORTED_SUMMARY}`);
        if (!(TEMPLATE_FUNCTIONS as readonly string[]).includes(t.val)) this.fail(`function ${JSON.stringify(t.val)} not defined`);
        return { t: 'ident', pos: t.pos, name: t.val };
      case 'dot':
        return { t: 'dot', pos: t.pos };
      case 'keyword':
        if (t.val === 'nil') return { t: 'nil', pos: t.pos };
        break;
      case 'var': {
        const ident = t.val.split('.');
        if (!this.vars.includes(ident[0]!)) this.fail(`undefined variable ${JSON.stringify(ident[0])}`);
        return { t: 'var', pos: t.pos, ident };
      }
      case 'field':
        return { t: 'field', pos: t.pos, ident: [t.val.slice(1)] };
      case 'bool':
        return { t: 'bool', pos: t.pos, value: t.val === 'true' };
      case 'number':
      case 'charConst':
        return this.number(t);
      case 'lparen':
        return this.pipeline('parenthesized pipeline', 'rparen');
      case 'string':
      case 'rawString': {
        const s = unquote(t.val);
        if (s === undefined) this.fail('invalid syntax');
        return { t: 'string', pos: t.pos, quoted: t.val, text: s! };
      }
    }
    this.backup();
    return undefined;
  }

  private number(t: Token): Arg {
    if (t.typ === 'charConst') {
      const s = unquote(t.val);
      if (s === undefined || [...s].length !== 1) this.fail(`malformed character constant: ${t.val}`);
      return { t: 'number', pos: t.pos, text: t.val, value: s!.codePointAt(0)!, isFloat: false };
    }
    const clean = t.val.replaceAll('_', '');
    if (clean.endsWith('i')) this.fail(`complex numbers are not supported: ${SUPPORTED_SUMMARY}`);
    const isFloat = /^[+-]?[0-9]/.test(clean) && !/^[+-]?0[xXoObB]/.test(clean) && /[.eE]/.test(clean);
    const value = /^[+-]?0[xXoObB]/.test(clean) ? Number(clean.replace(/^([+-]?)0[oO]/, '$10o')) : Number(clean);
    if (Number.isNaN(value)) this.fail(`illegal number syntax: ${JSON.stringify(t.val)}`);
    return { t: 'number', pos: t.pos, text: t.val, value, isFloat };
  }
}

/** A node as Go's String() writes it, for `at <…>` in execution errors. */
export function argString(a: Arg | Cmd): string {
  switch (a.t) {
    case 'field':
      return a.ident.map((f) => `.${f}`).join('');
    case 'var':
      return a.ident.join('.');
    case 'chain':
      return `${a.node.t === 'pipe' ? `(${argString(a.node)})` : argString(a.node)}${a.fields.map((f) => `.${f}`).join('')}`;
    case 'ident':
      return a.name;
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return String(a.value);
    case 'number':
      return a.text;
    case 'string':
      return a.quoted;
    case 'cmd':
      return a.args.map((x) => (x.t === 'pipe' ? `(${argString(x)})` : argString(x))).join(' ');
    case 'pipe': {
      const decl = a.decl.length > 0 ? `${a.decl.join(', ')} ${a.isAssign ? '=' : ':='} ` : '';
      return decl + a.cmds.map(argString).join(' | ');
    }
  }
}

/** Parse a Go template named `name` (oc's printer names it `output`); throws GoTemplateSyntaxError. */
export function parseGoTemplate(text: string, name = 'output'): TemplateNode[] {
  try {
    return new Parser(lex(text), name).parse();
  } catch (err) {
    // The parser recurses per nesting level: a template nested thousands deep (Go allows 10,000) runs out of
    // stack before Go's own limit would refuse it; it is refused in Go's words, as one line.
    if (err instanceof RangeError) throw new GoTemplateSyntaxError(`template: ${name}:1: max expression depth exceeded`);
    throw err;
  }
}
