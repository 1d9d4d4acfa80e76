/**
 * `-o jsonpath=TEMPLATE` and `-o jsonpath-as-json=TEMPLATE`: kubectl's JSONPath templates run over decoded JSON,
 * printed as oc 4.13 prints them (k8s.io/client-go/util/jsonpath with AllowMissingKeys(true), under
 * k8s.io/cli-runtime's JSONPathPrinter): strings raw, numbers as Go's `%v` of a float64 (`6.7939151e+07`),
 * objects and arrays as compact JSON with sorted keys, null as `<nil>`, the results of one `{…}` separated by a
 * space, a missing key as nothing. One difference: Go visits a map's values (`.*`, `..`) in random order; here they
 * come in the object's order. The parser is jsonpath-parse.ts.
 */
import { goPrint } from './fmt.js';
import { goJson, goMapOrder } from './json.js';
import { GoInt, goTypeName, isGoMap } from './value.js';
import { type JsonPathNode, type ListNode, parseJsonPath, type SliceParam as P } from './jsonpath-parse.js';

export { JsonPathSyntaxError, parseJsonPath } from './jsonpath-parse.js';

/** A template that fails on this data (client-go's message: `array index out of bounds: index 5, length 2`). */
export class JsonPathExecError extends Error {}

const fail = (message: string): never => {
  throw new JsonPathExecError(message);
};

/** A value as the Go code sees it: decoded JSON, a GoInt, or `undefined` for Go's invalid reflect.Value. */
type Value = unknown;

const isNil = (v: Value) => v === null || v === undefined;

/** The children Go's reflection walks for `*` and `..`: map values, array elements, a string's bytes. */
function children(v: Value): Value[] {
  if (isGoMap(v)) return Object.values(v);
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return [...Buffer.from(v, 'utf8')].map((b) => new GoInt(b));
  return [];
}

type Kind = 'bool' | 'int' | 'float' | 'string';

function basicKind(v: Value): Kind {
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof GoInt) return 'int';
  if (typeof v === 'number') return 'float';
  if (typeof v === 'string') return 'string';
  return fail('invalid type for comparison');
}

const raw = (v: Value) => (v instanceof GoInt ? v.value : (v as number | string | boolean));

function equal(a: Value, b: Value): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) fail('incompatible types for comparison');
  return raw(a) === raw(b);
}

function less(a: Value, b: Value): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) fail('incompatible types for comparison');
  if (k1 === 'bool') fail('invalid type for comparison');
  return raw(a) < raw(b);
}

function compare(op: string, a: Value, b: Value): boolean {
  switch (op) {
    case '==':
      return equal(a, b);
    case '!=':
      return !equal(a, b);
    case '<':
      return less(a, b);
    case '<=':
      return less(a, b) || equal(a, b);
    case '>':
      return !(less(a, b) || equal(a, b));
    case '>=':
      return !less(a, b);
    default:
      return fail(`unrecognized filter operator ${op}`);
  }
}

class Executor {
  private beginRange = 0;
  private inRange = 0;
  private endRange = 0;
  private lastEnd = -1;
  constructor(
    private readonly nodes: JsonPathNode[],
    private readonly allowMissingKeys: boolean,
  ) {}

  /** client-go's FindResults, with node positions in place of pointers to nodes. */
  findResults(data: Value, from: number): Value[][] {
    const cur = [data];
    const full: Value[][] = [];
    for (let i = from; i < this.nodes.length; i++) {
      const results = this.walk(cur, this.nodes[i]!);
      if (this.endRange > 0 && this.endRange <= this.inRange) {
        this.endRange--;
        this.lastEnd = i;
        break;
      }
      if (this.beginRange > 0) {
        this.beginRange--;
        this.inRange++;
        if (results.length > 0) for (const v of results) full.push(...this.findResults(v, i + 1));
        else this.findResults(undefined, i + 1);
        this.inRange--;
        for (let k = i + 1; k < this.nodes.length; k++) {
          if (k === this.lastEnd) {
            i = k;
            break;
          }
        }
        continue;
      }
      full.push(results);
    }
    return full;
  }

  private walk(input: Value[], node: JsonPathNode): Value[] {
    switch (node.t) {
      case 'list':
        return this.evalList(input, node);
      case 'text':
        return [node.text];
      case 'field':
        return this.evalField(input, node.name);
      case 'array':
        return this.evalArray(input, node.params);
      case 'filter':
        return this.evalFilter(input, node);
      case 'int':
        return input.map(() => new GoInt(node.value));
      case 'float':
      case 'bool':
        return input.map(() => node.value);
      case 'wildcard':
        return input.flatMap((v) => (isNil(v) ? [] : children(v)));
      case 'recursive':
        return this.evalRecursive(input);
      case 'union':
        return node.lists.flatMap((l) => this.evalList(input, l));
      case 'ident':
        return this.evalIdentifier(input, node.name);
    }
  }

  private evalList(input: Value[], list: ListNode): Value[] {
    let cur = input;
    for (const n of list.nodes) cur = this.walk(cur, n);
    return cur;
  }

  private evalIdentifier(input: Value[], name: string): Value[] {
    if (name === 'range') {
      this.beginRange++;
      return input;
    }
    if (name === 'end') {
      if (this.inRange > 0) this.endRange++;
      else fail('not in range, nothing to end');
      return [];
    }
    return fail(`unrecognized identifier ${name}`);
  }

  private evalField(input: Value[], name: string): Value[] {
    const results: Value[] = [];
    for (const v of input) if (isGoMap(v) && Object.hasOwn(v, name)) results.push(v[name]);
    if (results.length === 0 && input.length > 0 && !this.allowMissingKeys) fail(`${name} is not found`);
    return results;
  }

  private evalArray(input: Value[], node: readonly [P, P, P]): Value[] {
    const result: Value[] = [];
    for (const v of input) {
      if (isNil(v)) continue;
      if (!Array.isArray(v)) fail(`${goTypeName(v)} is not array or slice`);
      const arr = v as Value[];
      const len = arr.length;
      const [p0, p1, p2] = node.map((p) => ({ ...p })) as [P, P, P];
      if (!p0.known) p0.value = 0;
      if (p0.value < 0) p0.value += len;
      if (!p1.known) p1.value = len;
      if (p1.value < 0 || (p1.value === 0 && p1.derived)) p1.value += len;
      if (p1.value === p0.value) return result;
      if (p0.value >= len || p0.value < 0) fail(`array index out of bounds: index ${p0.value}, length ${len}`);
      if (p1.value > len || p1.value < 0) fail(`array index out of bounds: index ${p1.value - 1}, length ${len}`);
      if (p0.value > p1.value) fail(`starting index ${p0.value} is greater than ending index ${p1.value}`);
      let step = 1;
      if (p2.known) {
        if (p2.value <= 0) fail('step must be > 0');
        step = p2.value;
      }
      for (let i = p0.value; i < p1.value; i += step) result.push(arr[i]);
    }
    return result;
  }

  private evalFilter(input: Value[], node: { left: ListNode; right: ListNode; op: string }): Value[] {
    const results: Value[] = [];
    for (const v of input) {
      if (!Array.isArray(v)) fail(`${goPrint(v)} is not array or slice and cannot be filtered`);
      for (const item of v as Value[]) {
        if (node.op === 'exists') {
          let lefts: Value[] = [];
          try {
            lefts = this.evalList([item], node.left);
          } catch (err) {
            if (!(err instanceof JsonPathExecError)) throw err;
          }
          if (lefts.length > 0) results.push(item);
          continue;
        }
        const lefts = this.evalList([item], node.left);
        if (lefts.length === 0) continue;
        if (lefts.length > 1) fail('can only compare one element at a time');
        const rights = this.evalList([item], node.right);
        if (rights.length === 0) continue;
        if (rights.length > 1) fail('can only compare one element at a time');
        if (compare(node.op, lefts[0], rights[0])) results.push(item);
      }
    }
    return results;
  }

  private evalRecursive(input: Value[]): Value[] {
    const result: Value[] = [];
    for (const v of input) {
      if (isNil(v)) continue;
      const c = children(v);
      if (c.length === 0) continue;
      result.push(v, ...this.evalRecursive(c));
    }
    return result;
  }
}

/** One `{…}`'s results as PrintResults writes them. */
function printResults(results: Value[], asJson: boolean): string {
  if (asJson) return `${goJson(goMapOrder(results.map((r) => (r instanceof GoInt ? r.value : r))), '    ')}\n`;
  return results
    .map((r) => {
      if (Array.isArray(r) || isGoMap(r)) return goJson(goMapOrder(r), null);
      return r === undefined ? '<no value>' : goPrint(r);
    })
    .join(' ');
}

export interface JsonPathOptions {
  /** `-o jsonpath-as-json`: each `{…}`'s results as a JSON array indented by 4 spaces. */
  asJson?: boolean;
  /** oc's default (--allow-missing-template-keys=true): a missing key yields nothing instead of `KEY is not found`. */
  allowMissingKeys?: boolean;
  /** Where each result's text goes once every result is found; the return value is then empty. */
  sink?: (chunk: string) => void;
}

/** Run a parsed template over decoded JSON; throws JsonPathExecError. Nothing is returned unless all of it ran. */
export function executeJsonPath(template: ListNode, data: unknown, o: JsonPathOptions = {}): string {
  const ex = new Executor(template.nodes, o.allowMissingKeys ?? true);
  // Every result is found before anything is printed (an error prints nothing, as kubectl); then each is printed
  // on its own, handed to the sink when there is one, so the whole output is never one string.
  const results = ex.findResults(data, 0);
  if (!o.sink) return results.map((r) => printResults(r, o.asJson === true)).join('');
  for (const r of results) o.sink(printResults(r, o.asJson === true));
  return '';
}

/** Parse and run in one go (tests, and callers that have not checked the template before). */
export function jsonPath(template: string, data: unknown, o: JsonPathOptions = {}): string {
  return executeJsonPath(parseJsonPath(template), data, o);
}
