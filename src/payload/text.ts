/**
 * Editing manifest files (YAML or JSON) while keeping every byte that is not being changed:
 * comments, key order, quoting, indentation. Values are located with the `yaml` package's
 * document nodes (which carry source ranges, for JSON too) and spliced into the original text;
 * only when the shape gives nowhere to splice (a missing parent, a flow or block-scalar node)
 * is the document re-serialised, keeping comments (YAML) or the detected indentation (JSON).
 * Every edit is checked by parsing the result and comparing it with the intended value.
 */
import { isDeepStrictEqual } from 'node:util';
import { type Document, isMap, isScalar, isSeq, parseAllDocuments, Scalar, type Node, type YAMLSeq } from 'yaml';
import { lineAt, parseYamlDocuments, yamlValue } from '../files/yaml.js';
import { PayloadError } from './errors.js';
import { appendToFlowOrNew, insertAt, yamlScalar, type InsertContext } from './text-insert.js';

export { yamlScalar };

export type Format = 'yaml' | 'json';
export type Path = Array<string | number>;

/** One parsed manifest file: its text, format, value, and the node tree with source ranges. */
export interface ManifestText {
  file: string;
  text: string;
  format: Format;
  value: unknown;
  /** Undefined when the yaml parser could not read a JSON file (then edits re-serialise). */
  doc: Document.Parsed | undefined;
  /** Which document of a multi-document YAML file this is (0-based, counting non-empty ones); undefined: the only one. */
  document?: number;
}

export { lineAt };

/** JSON when the first non-blank character opens an object or array; YAML otherwise. */
export function detectFormat(text: string): Format {
  return /^\s*[{[]/.test(text) ? 'json' : 'yaml';
}

/**
 * Parse one document (YAML or JSON). Errors name the file and, where the parser says, the line. With
 * `document`, a multi-document YAML file is read and that document (0-based, counting non-empty ones) is the
 * one edits address; its node ranges are offsets into the whole text, so edits splice the file in place.
 */
export function parseManifestText(text: string, file: string, document?: number): ManifestText {
  const format = detectFormat(text);
  if (format === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      const m = /position (\d+)/.exec((err as Error).message);
      const msg = (err as Error).message.replace(/\s*\(line \d+ column \d+\)$/, '');
      throw new PayloadError(`invalid JSON: ${msg}`, { file, ...(m ? { line: lineAt(text, Number(m[1])) } : {}) });
    }
    const doc = parseAllDocuments(text, { keepSourceTokens: true });
    const single = Array.isArray(doc) && doc.length === 1 && doc[0]!.errors.length === 0 ? doc[0] : undefined;
    return { file, text, format, value, doc: single };
  }
  const docs = parseYamlDocuments(text, file);
  if (docs.length === 0) return { file, text, format, value: null, doc: undefined };
  const real = docs.filter(hasContent);
  if (document !== undefined) {
    const doc = real[document];
    if (!doc) throw new PayloadError(`holds no YAML document ${document + 1}`, { file });
    return { file, text, format, value: yamlValue(doc, text, file), doc, document };
  }
  if (real.length > 1) throw new PayloadError(`holds ${real.length} YAML documents; expected one`, { file });
  const doc = real[0] ?? docs[0];
  return { file, text, format, value: doc ? yamlValue(doc, text, file) : null, doc };
}

/**
 * A document that holds something: a stream ending in `---`, or `--- ~`, has an empty document whose contents is
 * a null scalar (oc's YAML reader takes the first document and never sees it).
 */
function hasContent(d: Document.Parsed): boolean {
  return d.contents !== null && !(isScalar(d.contents) && d.contents.value === null);
}

/** Every document of a manifest file: a JSON file is one; a YAML file one per non-empty document. */
export function parseManifestDocuments(text: string, file: string): unknown[] {
  if (detectFormat(text) === 'json') return [parseManifestText(text, file).value];
  return parseYamlDocuments(text, file)
    .filter(hasContent)
    .map((d) => yamlValue(d, text, file));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A deep copy of `value` with `path` set to `v` (parents created as maps). */
export function withValueAt(value: unknown, path: Path, v: unknown): unknown {
  const root = structuredClone(value ?? {}) as Record<string | number, unknown>;
  let cur: Record<string | number, unknown> = root;
  path.forEach((key, i) => {
    if (i === path.length - 1) cur[key] = v;
    else {
      if (!isRecord(cur[key]) && !Array.isArray(cur[key])) cur[key] = {};
      cur = cur[key] as Record<string | number, unknown>;
    }
  });
  return root;
}

/** Indentation and final newline of a JSON text, so a re-serialisation looks the same. */
export function jsonLayout(text: string): { indent: string; trailingNewline: boolean } {
  const m = /\n([ \t]+)\S/.exec(text);
  return { indent: m ? m[1]! : text.trim().includes('\n') ? '  ' : '', trailingNewline: text.endsWith('\n') };
}

export function stringifyJson(value: unknown, layout: { indent: string; trailingNewline: boolean }): string {
  const body = layout.indent === '' ? JSON.stringify(value) : JSON.stringify(value, null, layout.indent);
  return layout.trailingNewline ? `${body}\n` : body;
}

function check(m: ManifestText, text: string, expected: unknown): string {
  const after = parseManifestText(text, m.file, m.document);
  if (!isDeepStrictEqual(after.value, expected)) {
    throw new PayloadError('internal error: the edited file would not read back as intended; nothing was written', { file: m.file });
  }
  return text;
}

/** What the insertion helpers need of a parsed manifest. */
function insertContext(m: ManifestText): InsertContext {
  return { text: m.text, doc: m.doc, json: m.format === 'json', unit: jsonLayout(m.text).indent };
}

/** A JSON file the yaml parser could not read: written anew by JSON.stringify (which never folds), its indentation kept. */
function rewriteJson(m: ManifestText, expected: unknown): string {
  return check(m, stringifyJson(expected, jsonLayout(m.text)), expected);
}

/**
 * Set a string at `path`. An existing scalar is replaced in place (its quoting style kept; a block scalar
 * becomes a double-quoted one); missing keys are added as new lines beside their siblings. No other byte
 * changes. Returns the new text (equal to the old when unchanged).
 */
export function setStringAt(m: ManifestText, path: Path, v: string): string {
  const expected = withValueAt(m.value, path, v);
  if (isDeepStrictEqual(expected, m.value)) return m.text;
  if (m.format === 'json' && !m.doc) return rewriteJson(m, expected);
  const node = m.doc?.getIn(path, true) as Node | undefined;
  if (node && !(isScalar(node) && node.value === null) && node.range) {
    const [start, end] = node.range;
    const block = !isScalar(node) || node.type === Scalar.BLOCK_FOLDED || node.type === Scalar.BLOCK_LITERAL;
    const lit = m.format === 'json' || block ? JSON.stringify(v) : yamlScalar(v, node.type);
    // A block node's text ends with its line break; the quoted value that replaces it keeps one.
    const tail = block && m.text[end - 1] === '\n' ? '\n' : '';
    return check(m, m.text.slice(0, start) + lit + tail + m.text.slice(end), expected);
  }
  return check(m, insertAt(insertContext(m), path, v, m.file), expected);
}

/**
 * Append a map to the sequence at `path`. In a YAML block sequence the new item is inserted as text
 * after the last item, indented like the items before it; in a flow sequence or JSON array it is added
 * before the closing bracket; a missing list is created. Every other byte stays.
 */
export function appendToSeq(
  m: ManifestText,
  path: Path,
  item: Record<string, unknown>,
  yamlItemText: (ctx: { dash: string; pad: string; step: string }) => string,
): string {
  const current = path.reduce<unknown>(
    (v, k) => (isRecord(v) || Array.isArray(v) ? (v as Record<string | number, unknown>)[k] : undefined),
    m.value,
  );
  const list = Array.isArray(current) ? [...current, item] : [item];
  const expected = withValueAt(m.value, path, list);
  const node = m.doc?.getIn(path, true) as Node | undefined;
  if (m.format === 'yaml' && node && isSeq(node) && !(node as YAMLSeq).flow && node.items.length > 0) {
    const items = node.items as Node[];
    const first = items[0]!;
    const last = items[items.length - 1]!;
    if (first.range && last.range) {
      const text = m.text;
      const lineStart = text.lastIndexOf('\n', first.range[0] - 1) + 1;
      const prefix = text.slice(lineStart, first.range[0]);
      const dashMatch = /^(\s*-\s+)$/.exec(prefix);
      if (dashMatch) {
        const pad = ' '.repeat(prefix.length);
        let step = '  ';
        if (isMap(first)) {
          const nested = first.items.find((p) => isMap(p.value) && (p.value as { items: unknown[] }).items.length > 0);
          const keyNode = nested?.key as Node | undefined;
          const inner = nested ? ((nested.value as { items: Array<{ key: Node }> }).items[0]!.key as Node) : undefined;
          if (keyNode?.range && inner?.range) {
            const col = (off: number) => off - (text.lastIndexOf('\n', off - 1) + 1);
            const s = col(inner.range[0]) - col(keyNode.range[0]);
            if (s > 0) step = ' '.repeat(s);
          }
        }
        let at = last.range[2];
        let lead = '';
        if (text[at - 1] !== '\n') {
          // the last item ends the file without a newline, or the range stops before one
          const nl = text.indexOf('\n', at);
          if (nl >= 0) at = nl + 1;
          else lead = '\n';
        }
        const eol = text.includes('\r\n') ? '\r\n' : '\n';
        const piece = (lead + yamlItemText({ dash: dashMatch[1]!, pad, step })).replace(/\n/g, eol);
        return check(m, text.slice(0, at) + piece + text.slice(at), expected);
      }
    }
  }
  if (m.format === 'json' && !m.doc) return rewriteJson(m, expected);
  return check(m, appendToFlowOrNew(insertContext(m), node, path, item as never, m.file), expected);
}
