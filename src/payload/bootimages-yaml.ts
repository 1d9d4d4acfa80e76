/**
 * The coreos-bootimages ConfigMap as YAML text, byte for byte as the installer's generator writes it: it
 * marshals a `corev1.ConfigMap` with sigs.k8s.io/yaml, which encodes to JSON and converts that to YAML with
 * go-yaml v2. So every mapping's keys are sorted, `"true"` is quoted (it would read as a boolean), and each
 * `data` value takes the style go-yaml v2 picks for it:
 *
 * - a value with line breaks (indented JSON): a literal block, `|` when it ends in one newline, `|-` when it
 *   ends in none, its lines indented four spaces;
 * - a one-line value that cannot be plain (compact JSON starts with `{`): single-quoted, `'` doubled, and
 *   folded where the line has passed 80 columns at a single space, the rest indented four spaces.
 *
 * Values go-yaml would double-quote (characters it does not count printable: tabs, DEL, C1 controls, U+FEFF,
 * U+FFFE/U+FFFF and everything past U+FFFF; trailing spaces on a line) are refused rather than guessed.
 */
import { OsimageError } from '../errors.js';

/** go-yaml v2's preferred line width: a single-quoted scalar folds at the first space past it. */
const BEST_WIDTH = 80;
/** A `data` value's lines sit one level below `data:`'s keys. */
const VALUE_INDENT = '    ';

export interface ConfigMapYaml {
  /** `data` as [key, value] pairs; written in sorted order. */
  data: Array<[string, string]>;
  annotations: Record<string, string>;
  name: string;
  namespace: string;
  /**
   * `creationTimestamp: null`: what encoding a `corev1.ConfigMap` wrote until the installer's k8s libraries
   * gained `omitzero` for it (vendored 2025-11).
   */
  creationTimestamp: boolean;
}

/** A character go-yaml v2 does not write inside a literal or single-quoted scalar (its is_printable is false). */
function unprintable(cp: number): boolean {
  if (cp === 0x0a) return false;
  if (cp >= 0x20 && cp <= 0x7e) return false;
  // U+2028 and U+2029 are line breaks to YAML; Go's JSON escapes them, so they reach here only by mistake.
  if (cp >= 0xa0 && cp <= 0xd7ff) return cp === 0x2028 || cp === 0x2029;
  if (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff) return false;
  return true;
}

function refuse(key: string, why: string): never {
  throw new OsimageError(
    `coreos-bootimages data.${key}: ${why}, which the installer's YAML writer would put in a double-quoted scalar; osimage does not write that form`,
    { code: 'invalid-input' },
  );
}

function checkPrintable(key: string, value: string): void {
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (unprintable(cp)) refuse(key, `it holds U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
  }
}

/** `key: |…` and the value's lines. */
function literal(key: string, value: string): string {
  if (/ \n/.test(value) || value.endsWith(' ')) refuse(key, 'a line ends in a space');
  if (/^[ \n]/.test(value)) refuse(key, 'it starts with a space or a line break');
  const body = value.endsWith('\n') ? value.slice(0, -1) : value;
  if (body.endsWith('\n')) refuse(key, 'it ends in more than one line break');
  const chomp = value.endsWith('\n') ? '' : '-';
  const lines = body.split('\n').map((l) => (l === '' ? '' : VALUE_INDENT + l));
  return `  ${key}: |${chomp}\n${lines.join('\n')}\n`;
}

/** `key: '…'`, folded as go-yaml v2 folds it: at a lone space once the column is past the width. */
function singleQuoted(key: string, value: string): string {
  const chars = [...value];
  let out = `  ${key}: '`;
  let column = out.length;
  let spaces = false;
  chars.forEach((ch, i) => {
    if (ch === ' ') {
      if (!spaces && column > BEST_WIDTH && i > 0 && i < chars.length - 1 && chars[i + 1] !== ' ') {
        out += `\n${VALUE_INDENT}`;
        column = VALUE_INDENT.length;
      } else {
        out += ' ';
        column++;
      }
      spaces = true;
      return;
    }
    out += ch === "'" ? "''" : ch;
    column += ch === "'" ? 2 : 1;
    spaces = false;
  });
  return `${out}'\n`;
}

/** One `data` entry. Only the two forms JSON text can take are written (see the module comment). */
function dataEntry(key: string, value: string): string {
  checkPrintable(key, value);
  if (value.includes('\n')) return literal(key, value);
  if (/^[{[]/.test(value)) return singleQuoted(key, value);
  // A plain value (releaseVersion): safe only when it is a word YAML reads back as the same string.
  if (/^[0-9A-Za-z][0-9A-Za-z._/-]*$/.test(value) && !/^[0-9._-]+$/.test(value)) return `  ${key}: ${value}\n`;
  return refuse(key, `${JSON.stringify(value)} is neither JSON nor a plain word`);
}

const byKey = <T>(entries: Array<[string, T]>) => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** A plain annotation key and its value, `"true"` quoted as go-yaml quotes a string that reads as a boolean. */
function annotation(key: string, value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(key) || !/^(true|false)$/.test(value)) {
    throw new OsimageError(`coreos-bootimages annotation ${key}: ${value}: not a form osimage writes`);
  }
  return `    ${key}: "${value}"\n`;
}

export function configMapYaml(cm: ConfigMapYaml): string {
  const data = byKey(cm.data)
    .map(([k, v]) => dataEntry(k, v))
    .join('');
  const annotations = byKey(Object.entries(cm.annotations))
    .map(([k, v]) => annotation(k, v))
    .join('');
  return [
    'apiVersion: v1\n',
    `data:\n${data}`,
    'kind: ConfigMap\n',
    'metadata:\n',
    // ObjectMeta's annotations are omitempty.
    annotations === '' ? '' : `  annotations:\n${annotations}`,
    cm.creationTimestamp ? '  creationTimestamp: null\n' : '',
    `  name: ${cm.name}\n`,
    `  namespace: ${cm.namespace}\n`,
  ].join('');
}
