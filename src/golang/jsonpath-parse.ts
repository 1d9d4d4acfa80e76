/**
 * The parser of kubectl's JSONPath template dialect (`{.a.b}`, `{range .x[*]}…{end}`, `[?(@.k=="v")]`, `{"\n"}`),
 * written from the behaviour of k8s.io/client-go/util/jsonpath (parser.go) that oc 4.13 uses: the same node
 * tree, the same quirks (a quoted key with a dot is two fields; `[]` is `[0]`) and the same error texts.
 * Evaluation is jsonpath.ts.
 */
import { goRuneName as runeName, goUnquote } from './value.js';

export interface SliceParam {
  known: boolean;
  value: number;
  derived: boolean;
}

export type JsonPathNode =
  | ListNode
  | { t: 'text'; text: string }
  | { t: 'field'; name: string }
  | { t: 'ident'; name: string }
  | { t: 'array'; params: [SliceParam, SliceParam, SliceParam] }
  | { t: 'filter'; left: ListNode; right: ListNode; op: string }
  | { t: 'int'; value: number }
  | { t: 'float'; value: number }
  | { t: 'bool'; value: boolean }
  | { t: 'wildcard' }
  | { t: 'recursive' }
  | { t: 'union'; lists: ListNode[] };

export interface ListNode {
  t: 'list';
  nodes: JsonPathNode[];
}

/** A template that does not parse; the message is client-go's (`unclosed action`). */
export class JsonPathSyntaxError extends Error {}

const EOF = '';
const isEndOfLine = (r: string) => r === '\r' || r === '\n';
const isTerminator = (r: string) => r === ' ' || r === '\t' || isEndOfLine(r) || [EOF, '.', ',', '[', ']', '$', '@', '{', '}'].includes(r);
const isAlphaNumeric = (r: string) => r !== EOF && (r === '_' || /^[\p{L}\p{Nd}]$/u.test(r));
const isDigit = (r: string) => r !== EOF && /^\p{Nd}$/u.test(r);

const fail = (message: string): never => {
  throw new JsonPathSyntaxError(message);
};

/** Go's strconv.Atoi: an int64 or undefined. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? Number(n) : undefined;
}

class Parser {
  private pos = 0;
  private start = 0;
  private width = 0;
  readonly root: ListNode = { t: 'list', nodes: [] };
  constructor(private readonly input: string) {}

  parse(): ListNode {
    this.parseText();
    return this.root;
  }

  private consumeText(): string {
    const v = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return v;
  }
  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const r = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.width = r.length;
    this.pos += this.width;
    return r;
  }
  private peek(): string {
    const r = this.next();
    this.backup();
    return r;
  }
  private backup(): void {
    this.pos -= this.width;
  }
  private rest(): string {
    return this.input.slice(this.pos);
  }

  /** Text up to each `{`, then the action; until the end of the input. */
  private parseText(): void {
    for (;;) {
      if (this.rest().startsWith('{')) {
        if (this.pos > this.start) this.root.nodes.push({ t: 'text', text: this.consumeText() });
        this.pos += 1;
        this.consumeText();
        const list: ListNode = { t: 'list', nodes: [] };
        this.root.nodes.push(list);
        this.parseInsideAction(list);
        continue;
      }
      if (this.next() === EOF) break;
    }
    if (this.pos > this.start) this.root.nodes.push({ t: 'text', text: this.consumeText() });
  }

  /** The inside of one `{…}`, up to and including its `}`. */
  private parseInsideAction(cur: ListNode): void {
    for (;;) {
      const rest = this.rest();
      if (rest.startsWith('}')) {
        this.pos += 1;
        this.consumeText();
        return;
      }
      if (rest.startsWith('[?(')) {
        this.parseFilter(cur);
        continue;
      }
      if (rest.startsWith('..')) {
        this.parseRecursive(cur);
        continue;
      }
      const r = this.next();
      if (r === EOF || isEndOfLine(r)) fail('unclosed action');
      else if (r === ' ' || r === '@' || r === '$') this.consumeText();
      else if (r === '[') this.parseArray(cur);
      else if (r === '"' || r === "'") this.parseQuote(cur, r);
      else if (r === '.') this.parseField(cur);
      else if (r === '+' || r === '-' || isDigit(r)) {
        this.backup();
        this.parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.backup();
        this.parseIdentifier(cur);
      } else fail(`unrecognized character in action: ${runeName(r)}`);
    }
  }

  private parseIdentifier(cur: ListNode): void {
    while (!isTerminator(this.next()));
    this.backup();
    const value = this.consumeText();
    cur.nodes.push(value === 'true' || value === 'false' ? { t: 'bool', value: value === 'true' } : { t: 'ident', name: value });
  }

  private parseRecursive(cur: ListNode): void {
    if (cur.nodes.at(-1)?.t === 'recursive') fail('invalid multiple recursive descent');
    this.pos += 2;
    this.consumeText();
    cur.nodes.push({ t: 'recursive' });
    if (isAlphaNumeric(this.peek())) this.parseField(cur);
  }

  private parseNumber(cur: ListNode): void {
    const r = this.peek();
    if (r === '+' || r === '-') this.next();
    for (;;) {
      const c = this.next();
      if (c !== '.' && !isDigit(c)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    const i = atoi(value);
    if (i !== undefined) cur.nodes.push({ t: 'int', value: i });
    else if (/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(value)) cur.nodes.push({ t: 'float', value: Number(value) });
    else fail(`cannot parse number ${value}`);
  }

  private parseArray(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') fail('unterminated array');
      if (r === ']') break;
    }
    let text = this.consumeText().slice(1, -1);
    if (text === '*') text = ':';
    const parts = text.split(',');
    if (parts.length > 1) {
      cur.nodes.push({ t: 'union', lists: parts.map((s) => parseAction(`[${s.replace(/^ +| +$/g, '')}]`)) });
      return;
    }
    const key = /^'([^']*)'$/.exec(text);
    if (key) {
      cur.nodes.push(...parseAction(`.${key[1]}`).nodes);
      return;
    }
    const m = /^(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?$/.exec(text);
    if (!m) fail(`invalid array index ${text}`);
    const values = [m![1] ?? '', m![2] ?? '', m![3] ?? ''];
    const params: SliceParam[] = [];
    for (let i = 0; i < 3; i++) {
      let v = values[i]!;
      if (v !== '') {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === '') params.push({ known: false, value: 0, derived: false });
        else {
          const n = atoi(v);
          if (n === undefined) fail(`array index ${v} is not a number`);
          params.push({ known: true, value: n!, derived: false });
        }
      } else if (i === 1) params.push({ known: true, value: params[0]!.value + 1, derived: true });
      else params.push({ known: false, value: 0, derived: false });
    }
    cur.nodes.push({ t: 'array', params: params as [SliceParam, SliceParam, SliceParam] });
  }

  private parseFilter(cur: ListNode): void {
    this.pos += 3;
    this.consumeText();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') fail('unterminated filter');
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && r === pair) end = true;
      } else if (r === ')' && begin === end) break;
    }
    if (this.next() !== ']') fail('unclosed array expect ]');
    const text = this.consumeText().slice(0, -2);
    const m = /^([^!<>=]+)([!<>=]+)(.+?)$/s.exec(text);
    if (!m) cur.nodes.push({ t: 'filter', left: parseAction(text), right: { t: 'list', nodes: [] }, op: 'exists' });
    else cur.nodes.push({ t: 'filter', left: parseAction(m[1]!), right: parseAction(m[3]!), op: m[2]! });
  }

  private parseQuote(cur: ListNode, quote: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') fail('unterminated quoted string');
      if (r === quote && this.input[this.pos - 2] !== '\\') break;
    }
    const value = this.consumeText();
    const s = goUnquote(value);
    if (s === undefined) fail(`unquote string ${value} error invalid syntax`);
    cur.nodes.push({ t: 'text', text: s! });
  }

  private parseField(cur: ListNode): void {
    this.consumeText();
    for (;;) {
      const r = this.next();
      if (r === '\\') this.next();
      else if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    cur.nodes.push(value === '*' ? { t: 'wildcard' } : { t: 'field', name: value.replaceAll('\\', '') });
  }
}

/** `{text}` parsed on its own, its one list (filters, unions and quoted keys are parsed so). */
function parseAction(text: string): ListNode {
  return new Parser(`{${text}}`).parse().nodes[0] as ListNode;
}

/** Parse a JSONPath template; throws JsonPathSyntaxError with client-go's message. */
export function parseJsonPath(template: string): ListNode {
  return new Parser(template).parse();
}
