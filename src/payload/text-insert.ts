/**
 * Adding what a manifest lacks (a key, a chain of keys, a list item) as new text spliced into the old, so no
 * byte of what was already there changes: no line is folded, re-quoted or moved. Re-serialising a document
 * instead (the `yaml` package's `toString()`) folds long double-quoted values at 80 columns with `\`, and a
 * folded pull spec is no longer the text oc substitutes, so the payload would ship two different images.
 *
 * New text follows its neighbours: a block map gets lines at its keys' column (nested levels one indentation
 * step deeper, the step the file already uses), a flow map or JSON object gets `"key": value` members on their
 * own lines when the members already sit on their own lines, a key whose value is null gets a block beneath it.
 */
import { type Document, isMap, isScalar, isSeq, type Node, type Pair, Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import { PayloadError } from './errors.js';

type Path = Array<string | number>;
type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A YAML scalar for `value` in the given quoting style (plain only when it reads back as the same string). */
export function yamlScalar(value: string, style: Scalar.Type | undefined): string {
  if (style === Scalar.QUOTE_SINGLE) return `'${value.replace(/'/g, "''")}'`;
  if (
    style === Scalar.PLAIN &&
    value !== '' &&
    /^[^\s'"#&*!|>%@`{}[\],?:-][^\s#]*$/.test(value) &&
    !/: |:$/.test(value) &&
    !/^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|[-+]?(?:\.?\d[\d_.:eE+-]*|\.inf|\.Inf|\.INF|\.nan|\.NaN|\.NAN)|0x[0-9a-fA-F_]+|0o?[0-7_]+)$/.test(
      value,
    )
  ) {
    return value;
  }
  return JSON.stringify(value);
}

const lineStartOf = (text: string, off: number) => text.lastIndexOf('\n', off - 1) + 1;
const columnOf = (text: string, off: number) => off - lineStartOf(text, off);
const leadOf = (text: string, off: number) => /^[ \t]*/.exec(text.slice(lineStartOf(text, off)))![0];

/** The file's indentation step: the first block map nested in a block map says it; two spaces otherwise. */
function indentStep(doc: Document.Parsed, text: string): string {
  const seen: Node[] = [doc.contents as Node];
  while (seen.length > 0) {
    const n = seen.shift();
    if (isMap(n) && !n.flow) {
      for (const p of n.items as Pair<Node, Node>[]) {
        const v = p.value;
        if (isMap(v) && !v.flow && v.items.length > 0 && p.key?.range) {
          const inner = (v.items[0] as Pair<Node, Node>).key;
          const step = inner?.range ? columnOf(text, inner.range[0]) - columnOf(text, p.key.range[0]) : 0;
          if (step > 0) return ' '.repeat(step);
        }
        if (v) seen.push(v);
      }
    } else if (isSeq(n)) for (const i of n.items as Node[]) seen.push(i);
  }
  return '  ';
}

/** The quoting style of the last string scalar directly in a map, so a new value looks like its siblings. */
function siblingStyle(map: YAMLMap | undefined): Scalar.Type {
  const items = (map?.items ?? []) as Pair<Node, Node>[];
  for (let i = items.length - 1; i >= 0; i--) {
    const v = items[i]!.value;
    if (isScalar(v) && typeof v.value === 'string' && v.type && v.type !== Scalar.BLOCK_FOLDED && v.type !== Scalar.BLOCK_LITERAL) {
      return v.type;
    }
  }
  return Scalar.PLAIN;
}

/** Block YAML lines for `key: value` at `indent`: maps nested a `step` deeper, lists of maps with `- `. */
function blockLines(key: string, value: Json, indent: string, step: string, style: Scalar.Type): string[] {
  const k = yamlScalar(key, Scalar.PLAIN);
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return [`${indent}${k}: {}`];
    return [`${indent}${k}:`, ...entries.flatMap(([ck, cv]) => blockLines(ck, cv, indent + step, step, style))];
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}${k}: []`];
    return [`${indent}${k}:`, ...value.flatMap((item) => seqItemLines(item, indent, step, style))];
  }
  return [`${indent}${k}: ${scalarText(value, style)}`];
}

/** A block sequence item at `indent` (the dash at the indentation of the key that holds the list). */
export function seqItemLines(item: Json, indent: string, step: string, style: Scalar.Type): string[] {
  const dash = `${indent}- `;
  const pad = ' '.repeat(dash.length);
  if (isRecord(item) && Object.keys(item).length > 0) {
    const lines = Object.entries(item).flatMap(([ck, cv]) => blockLines(ck, cv, pad, step, style));
    return [dash + lines[0]!.slice(pad.length), ...lines.slice(1)];
  }
  return [`${dash}${Array.isArray(item) || isRecord(item) ? JSON.stringify(item) : scalarText(item, style)}`];
}

const scalarText = (v: Json, style: Scalar.Type) => (typeof v === 'string' ? yamlScalar(v, style) : JSON.stringify(v));

/** `{rest[0]: {rest[1]: … value}}` */
function nest(rest: string[], value: Json): Json {
  return rest.reduceRight<Json>((acc, k) => ({ [k]: acc }), value);
}

/** Where a new line can go after `node`: after the newline that ends it (a leading newline when the file has none). */
function afterLine(text: string, end: number): { at: number; lead: string } {
  if (text[end - 1] === '\n') return { at: end, lead: '' };
  const nl = text.indexOf('\n', end);
  return nl >= 0 ? { at: nl + 1, lead: '' } : { at: text.length, lead: '\n' };
}

const eolOf = (text: string) => (text.includes('\r\n') ? '\r\n' : '\n');

/** JSON text of `value` laid out for a member at `indent` (pretty with `unit`, or compact when unit is ''). */
function jsonText(value: Json, indent: string, unit: string): string {
  if (unit === '') return JSON.stringify(value);
  return JSON.stringify(value, null, unit).replace(/\n/g, `\n${indent}`);
}

/** A member (`"k": v`) or item added to a flow collection (a JSON object or array, or a YAML flow map/seq). */
function intoFlow(text: string, node: YAMLMap | YAMLSeq, member: string, unit: string): string {
  const [start, end] = node.range!;
  const close = end - 1;
  if (text[close] !== (isMap(node) ? '}' : ']')) throw new Error('no closing bracket');
  const items = node.items as Array<Pair<Node, Node> | Node>;
  const multiline = text.slice(start, close).includes('\n');
  if (items.length === 0) {
    if (!multiline && unit === '') return `${text.slice(0, close)}${member}${text.slice(close)}`;
    const outer = leadOf(text, start);
    const eol = eolOf(text);
    const inner = outer + (unit || '  ');
    const body = member.replace(/\n/g, `${eol}${inner}`);
    return `${text.slice(0, start + 1)}${eol}${inner}${body}${eol}${outer}${text.slice(close)}`;
  }
  const last = items[items.length - 1]!;
  const lastNode = (isMap(node) ? ((last as Pair<Node, Node>).value ?? (last as Pair<Node, Node>).key) : last) as Node;
  const firstNode = (isMap(node) ? (items[0] as Pair<Node, Node>).key : items[0]) as Node;
  if (!lastNode?.range || !firstNode?.range) throw new Error('no source range');
  const at = lastNode.range[1];
  if (multiline) {
    const inner = leadOf(text, firstNode.range[0]);
    const eol = eolOf(text);
    return `${text.slice(0, at)},${eol}${inner}${member.replace(/\n/g, `${eol}${inner}`)}${text.slice(at)}`;
  }
  return `${text.slice(0, at)}, ${member}${text.slice(at)}`;
}

/**
 * An insertion osimage could not make although the file may well be right: it edits only by adding text, and this
 * shape gave it no place to. Says what and why, so nobody goes looking for a fault in the file.
 */
function cannotAdd(what: string, why: string, file: string): PayloadError {
  return new PayloadError(
    `osimage cannot add ${what} here: ${why} (it only adds text, never rewrites lines it did not write); add it by hand and run again`,
    { file },
  );
}

/** What a node is, in words: `a list`, `a string`, `a number`. */
function kindOf(n: unknown): string {
  if (isSeq(n)) return 'a list';
  if (isScalar(n)) return n.value === null ? 'null' : `a ${typeof n.value === 'object' ? 'value' : typeof n.value}`;
  return 'another kind of node';
}

export interface InsertContext {
  text: string;
  doc: Document.Parsed | undefined;
  json: boolean;
  /** The JSON indentation unit ('' for one-line JSON). */
  unit: string;
}

/**
 * The text with `value` set at `path`, where the path's last key (and maybe some parents) does not exist yet,
 * or holds null. Throws a PayloadError when the shape gives no place to add it as text.
 */
export function insertAt(c: InsertContext, path: Path, value: Json, file: string): string {
  const { text, doc } = c;
  const fail = (why: string) => cannotAdd(path.join('.'), why, file);
  /** The file is not the shape the path needs: the file's to change, not osimage's. */
  const notAMap = (at: number, n: unknown) =>
    new PayloadError(`cannot add ${path.join('.')}: ${path.slice(0, at).join('.') || 'the document'} is ${kindOf(n)}, not a map`, { file });
  if (!doc || doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    // An empty document (or only comments): the new keys are the whole content.
    if (c.json) throw new PayloadError(`cannot add ${path.join('.')}: the file holds no JSON object to add it to`, { file });
    const [first, ...rest] = path.map(String);
    const lines = blockLines(first!, nest(rest, value), '', '  ', Scalar.PLAIN);
    const body = lines.join(eolOf(text)) + eolOf(text);
    return text === '' || text.endsWith('\n') ? text + body : `${text}${eolOf(text)}${body}`;
  }
  // Walk down to the deepest node that exists.
  let node = doc.contents as Node;
  let i = 0;
  let holder: Pair<Node, Node> | undefined;
  for (; i < path.length; i++) {
    const key = path[i]!;
    if (isMap(node)) {
      const pair = (node.items as Pair<Node, Node>[]).find((p) => (isScalar(p.key) ? p.key.value : p.key) === key);
      if (!pair) break;
      if (pair.value === null || (isScalar(pair.value) && pair.value.value === null)) {
        holder = pair;
        break;
      }
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number') {
      if (node.items[key] === undefined) break;
      node = node.items[key] as Node;
    } else throw notAMap(i, node);
  }
  const rest = path.slice(i + 1).map(String);
  const missingItem = path.slice(i).findIndex((k) => typeof k === 'number');
  if (missingItem >= 0) {
    throw fail(
      `${path.slice(0, i + missingItem).join('.') || 'the document'} has no item ${path[i + missingItem]}, and osimage adds map keys, not list items`,
    );
  }
  const key = String(path[i]);
  const inner: Json = nest(rest, value);
  if (!isMap(node)) throw notAMap(i, node);
  const style = siblingStyle(node);
  const eol = eolOf(text);

  if (holder) {
    // `key:` with nothing (or null, ~) after it: the value takes its place.
    const v = holder.value as Node | null;
    const k = holder.key;
    if (!k?.range) throw fail(`the parser gave no position for ${path.slice(0, i + 1).join('.')}`);
    if (v && isScalar(v) && v.range && v.range[1] > v.range[0]) {
      const lit = c.json || node.flow ? JSON.stringify(inner) : undefined;
      if (lit !== undefined) return `${text.slice(0, v.range[0])}${lit}${text.slice(v.range[1])}`;
    }
    if (c.json || node.flow)
      throw fail(`${path.slice(0, i + 1).join('.')} is an empty value inside a flow map, which osimage does not fill`);
    if (!isRecord(inner) && !Array.isArray(inner)) {
      // A single value takes the place of the written null, or goes right after the colon.
      const lit = scalarText(inner, style);
      if (v && isScalar(v) && v.range && v.range[1] > v.range[0]) return `${text.slice(0, v.range[0])}${lit}${text.slice(v.range[1])}`;
      const colon = text.indexOf(':', k.range[1]);
      if (colon < 0 || text.slice(k.range[1], colon).trim() !== '') throw fail(`it found no colon after the key ${key}`);
      return `${text.slice(0, colon + 1)} ${lit}${text.slice(colon + 1)}`;
    }
    const indent = ' '.repeat(columnOf(text, k.range[0]));
    const step = indentStep(doc, text);
    const under = indent + step;
    const lines = isRecord(inner)
      ? Object.entries(inner).flatMap(([ck, cv]) => blockLines(ck, cv, under, step, style))
      : Array.isArray(inner)
        ? inner.flatMap((it) => seqItemLines(it, indent, step, style))
        : undefined;
    if (!lines) throw fail(`${path.slice(0, i + 1).join('.')} holds null`);
    // Drop a written `null`/`~` so the key reads as the map that follows.
    const cut = v && isScalar(v) && v.range ? [v.range[0], v.range[1]] : [k.range[2], k.range[2]];
    const literal = cut[1]! > cut[0]!;
    const before = literal ? text.slice(0, cut[0]).replace(/[ \t]+$/, '') : text.slice(0, cut[0]);
    const after = literal ? text.slice(cut[1]).replace(/^[ \t]+(?=\r?\n|$)/, '') : text.slice(cut[1]);
    const nl = after.indexOf('\n');
    const sameLine = nl >= 0 ? after.slice(0, nl) : after;
    const tail = nl >= 0 ? after.slice(nl + 1) : '';
    const lineEnd = sameLine.replace(/\r$/, '');
    return `${before}${lineEnd}${eol}${lines.join(eol)}${eol}${tail}`;
  }

  if (node.flow || c.json) {
    try {
      const member = c.json
        ? `${JSON.stringify(key)}: ${jsonText(inner, '', c.unit)}`
        : `${yamlScalar(key, Scalar.PLAIN)}: ${JSON.stringify(inner)}`;
      return intoFlow(text, node, member, c.json ? c.unit : '');
    } catch (err) {
      throw fail(
        `it found no place in the flow map ${path.slice(0, i).join('.') || 'the document'} to add a member (${(err as Error).message})`,
      );
    }
  }
  const items = node.items as Pair<Node, Node>[];
  const firstKey = items[0]?.key;
  const last = items[items.length - 1];
  const lastEnd = last?.value?.range?.[2] ?? last?.key?.range?.[2];
  if (!firstKey?.range || lastEnd === undefined)
    throw fail(`the parser gave no position for ${path.slice(0, i).join('.') || 'the document'}`);
  const indent = ' '.repeat(columnOf(text, firstKey.range[0]));
  const lines = blockLines(key, inner, indent, indentStep(doc, text), style);
  const { at, lead } = afterLine(text, lastEnd);
  return `${text.slice(0, at)}${lead}${lines.join(eol)}${eol}${text.slice(at)}`;
}

/**
 * The text with `item` appended to the flow sequence (a JSON array, or YAML `[…]`) at `node`, or, when the list
 * is missing or null, with the list created holding it. Block sequences are the caller's (their item text is
 * laid out like the items before it).
 */
export function appendToFlowOrNew(c: InsertContext, node: Node | undefined, path: Path, item: Json, file: string): string {
  if (node && isSeq(node)) {
    try {
      return intoFlow(c.text, node, c.json ? jsonText(item, '', c.unit) : JSON.stringify(item), c.json ? c.unit : '');
    } catch (err) {
      throw cannotAdd(`an item to ${path.join('.')}`, `it found no place in the list to add it (${(err as Error).message})`, file);
    }
  }
  return insertAt(c, path, [item], file);
}
