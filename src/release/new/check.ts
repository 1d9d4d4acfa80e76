import { Composer, type Document, Parser } from 'yaml';
import { describe, OsimageError } from '../../errors.js';
import { lineAt, yamlValue } from '../../files/yaml.js';
import { quickJsonCheck, quickManifestCheck } from './manifest-fast.js';

/**
 * The check `oc adm release new` makes of every `.yaml`/`.yml`/`.json` manifest, and only that: oc reads the
 * FIRST document of the file (later ones are never parsed) and wants a mapping with non-empty string `kind` and
 * `apiVersion`. Its words: `FILE: invalid YAML/JSON: …`, `FILE: not a valid YAML/JSON object, got: …` (an
 * empty file or document, a list, a scalar) and `FILE: manifests must contain Kubernetes API objects with 'kind'
 * and 'apiVersion' set`. A mapping key given twice is accepted, the last one counting, as go-yaml v2 does.
 * Stricter checks belong to `payload check`.
 *
 * Most manifests are answered without the full YAML parser (which keeps every node and range, and costs
 * milliseconds a file): JSON by JSON.parse (by a scan past 1 MiB), plain YAML by a line scan; anything
 * else, and every refusal, goes through the full parser, so the fast paths only ever say yes.
 */
export function checkManifest(label: string, text: string): void {
  if (quickJsonCheck(text) || quickManifestCheck(text)) return;
  const size = firstDocumentSize(text);
  if (size > MAX_FULL_PARSE) {
    throw new OsimageError(
      `${label}: cannot check this manifest: its first document is ${mib(size)} of YAML that osimage reads only with its full parser, which it gives at most ${mib(MAX_FULL_PARSE)} (it needs some 300 bytes of memory a byte); --skip-manifest-check leaves the check out`,
      { code: 'invalid-input' },
    );
  }
  const value = firstDocumentValue(label, text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    // oc quotes the file's first 30 bytes; one line here, so as JSON.
    const head = text.length > 30 ? `${text.slice(0, 30)}...` : text;
    throw new OsimageError(`${label}: not a valid YAML/JSON object, got: ${JSON.stringify(head)}`, { code: 'invalid-input' });
  }
  const obj = value as Record<string, unknown>;
  for (const field of ['kind', 'apiVersion']) {
    const v = obj[field];
    if (typeof v === 'string' && v !== '') continue;
    const what = v === undefined ? 'missing' : v === '' ? 'empty' : `${JSON.stringify(v)?.slice(0, 40)}, not a string`;
    throw new OsimageError(
      `${label}: manifests must contain Kubernetes API objects with 'kind' and 'apiVersion' set: ${field} is ${what}`,
      {
        code: 'invalid-input',
      },
    );
  }
}

/**
 * The most YAML the full parser is given: the `yaml` package keeps a node, with its range, for every value, some
 * 150 to 300 bytes of memory for each byte of text, so this keeps a check under 300 MB. The quick paths read
 * documents of any size (a manifest is at most 16 MiB); only one they cannot read and larger than this is refused.
 */
const MAX_FULL_PARSE = 512 * 1024;

const mib = (n: number) => (n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`);

/** Whether the text before `end` is only blank lines and comments. */
function onlyComments(text: string, end: number): boolean {
  for (let pos = 0; pos < end; ) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0 || nl > end) nl = end;
    const l = text.slice(pos, nl).trim();
    if (l !== '' && !l.startsWith('#')) return false;
    pos = nl + 1;
  }
  return true;
}

/** How long the first document is: up to the first `---` or `...` line after it starts (or the end of the text). */
function firstDocumentSize(text: string): number {
  const marker = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;
  let start = 0;
  for (let m = marker.exec(text); m; m = marker.exec(text)) {
    // A `---` with only comments before it opens the first document; the next marker ends it.
    if (start === 0 && m[0] === '---' && onlyComments(text, m.index)) {
      start = m.index + 3;
      continue;
    }
    return m.index - start;
  }
  return text.length - start;
}

/** The value of the first document only (null when there is none), parsed as `yaml` reads YAML 1.2. */
function firstDocumentValue(label: string, text: string): unknown {
  let doc: Document.Parsed | undefined;
  try {
    // The documents are composed lazily: stopping after the first leaves the rest of the file unparsed.
    for (const d of new Composer({ prettyErrors: false, keepSourceTokens: true, uniqueKeys: false }).compose(new Parser().parse(text))) {
      doc = d;
      break;
    }
  } catch (err) {
    const msg = describe(err);
    throw invalid(label, undefined, /Maximum call stack/.test(msg) ? 'nested too deeply to read' : msg.split('\n')[0]!);
  }
  if (!doc) return null;
  const e = doc.errors[0];
  if (e) throw invalid(label, lineAt(text, e.pos[0]), e.message.split('\n')[0]!);
  return yamlValue(doc, text, label) ?? null;
}

/** oc's `FILE: invalid YAML/JSON: line N: why`. */
function invalid(label: string, line: number | undefined, why: string): OsimageError {
  return new OsimageError(`${label}: invalid YAML/JSON: ${line === undefined ? '' : `line ${line}: `}${why}`, { code: 'invalid-input' });
}
