/**
 * Reading YAML files users give (manifests, image-references, machine configs): one place that turns the
 * `yaml` package's documents into values, so every failure names FILE:LINE. That covers the parser's errors and
 * the ones it only finds while building the value: an alias without an anchor, an alias inside its own anchor
 * (a cycle), a merge key (`<<`, YAML 1.1) over something not a map, and a document that expands aliases too
 * often (the "billion laughs": refused after {@link MAX_ALIAS_COUNT} expansions, in milliseconds).
 */
import { type Alias, type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node, type Pair, parseAllDocuments, visit } from 'yaml';
import { OsimageError, describe } from '../errors.js';

/** The `yaml` package's own default, spelled out: a document may expand aliases this often, and no more. */
export const MAX_ALIAS_COUNT = 100;

/** 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** `FILE:LINE: invalid YAML: why` (`FILE: …` when no offset is known). */
export function yamlError(file: string, text: string, offset: number | undefined, why: string, cause?: unknown): OsimageError {
  const where = offset === undefined ? file : `${file}:${lineAt(text, offset)}`;
  return new OsimageError(`${where}: invalid YAML: ${why}`, { code: 'invalid-input', cause });
}

const isMergeKey = (node: unknown): node is Pair<Node, Node | null> => isPair(node) && isScalar(node.key) && node.key.value === '<<';

/** Where an alias or merge key starts. */
function offsetOf(node: Alias | Pair<Node, Node | null>): number | undefined {
  return isPair(node) ? node.key.range?.[0] : node.range?.[0];
}

/** The first alias or merge key in document order for which `test` gives a reason, with that reason. */
function findAlias(doc: Document.Parsed, test: (node: Alias | Pair<Node, Node | null>) => string | undefined) {
  let found: { offset: number | undefined; why: string } | undefined;
  visit(doc, (_key, node) => {
    if (!isAlias(node) && !isMergeKey(node)) return undefined;
    const why = test(node);
    if (why === undefined) return undefined;
    found = { offset: offsetOf(node), why };
    return visit.BREAK;
  });
  return found;
}

/** An alias with no anchor before it, or inside the very node it refers to (whose value would be a cycle). */
function danglingOrCyclic(doc: Document.Parsed, node: Alias | Pair<Node, Node | null>): string | undefined {
  if (!isAlias(node)) return undefined;
  const target = node.resolve(doc);
  if (!target) return `alias *${node.source} has no anchor &${node.source} before it`;
  const [t, n] = [target.range, node.range];
  if (t && n && t[0] <= n[0] && n[1] <= t[1]) return `alias *${node.source} is inside the node it refers to (a cycle)`;
  return undefined;
}

/** Whether a merge key's value is what YAML 1.1 allows there: a map, or a list of maps (aliases followed). */
function mergesMaps(doc: Document.Parsed, value: unknown): boolean {
  const target = (v: unknown) => (isAlias(v) ? v.resolve(doc) : v);
  const v = target(value);
  return isMap(v) || (isSeq(v) && v.items.every((item) => isMap(target(item))));
}

/** Words for what the `yaml` package threw while building a value. */
function reason(err: unknown): string {
  const msg = describe(err);
  if (/Excessive alias count/.test(msg))
    return `aliases expand more than ${MAX_ALIAS_COUNT} times (refused as a resource exhaustion attack)`;
  if (/Merge sources/.test(msg)) return 'a merge key (<<) must refer to a map or a list of maps';
  if (/Maximum call stack size exceeded/.test(msg)) return 'nested too deeply to read';
  return msg.split('\n')[0]!;
}

/** The value of one parsed document; any failure is {@link yamlError} at the alias or merge key that caused it. */
export function yamlValue(doc: Document.Parsed, text: string, file: string): unknown {
  let bad: ReturnType<typeof findAlias>;
  try {
    bad = findAlias(doc, (node) => danglingOrCyclic(doc, node));
  } catch (err) {
    throw yamlError(file, text, undefined, reason(err), err);
  }
  if (bad) throw yamlError(file, text, bad.offset, bad.why);
  // A collection used as a map key (`image: {{.ReleaseImage}}`, a Go template) is stringified; the `yaml` package
  // would say so with process.emitWarning, which Node prints as `(node:PID) Warning: …` outside our output.
  doc.options.logLevel = 'error';
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    // Only now (the value could not be built) convert aliases and merge keys one by one to find the one at fault;
    // failing that (many small expansions add up), the first alias.
    const why = reason(err);
    const at =
      findAlias(doc, (node) => {
        if (isPair(node)) return mergesMaps(doc, node.value) ? undefined : why;
        try {
          node.toJS(doc, { maxAliasCount: MAX_ALIAS_COUNT });
          return undefined;
        } catch {
          return why;
        }
      }) ?? findAlias(doc, () => why);
    throw yamlError(file, text, at?.offset, why, err);
  }
}

/** Every document of a YAML text, parsed (source ranges kept) and checked: the first parse error is FILE:LINE. */
export function parseYamlDocuments(
  text: string,
  file: string,
  /** Parser options beside the defaults (e.g. `version: '1.1'` to read values as go-yaml v2 reads them). */
  options: Parameters<typeof parseAllDocuments>[1] = {},
): Document.Parsed[] {
  const parse = () => parseAllDocuments(text, { ...options, keepSourceTokens: true, prettyErrors: false });
  let docs: ReturnType<typeof parse>;
  try {
    docs = parse();
  } catch (err) {
    throw yamlError(file, text, undefined, reason(err), err);
  }
  if (!Array.isArray(docs)) return [];
  for (const d of docs) {
    const e = d.errors[0];
    if (e) throw yamlError(file, text, e.pos[0], reason(e), e);
  }
  return docs;
}
