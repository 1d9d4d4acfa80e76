/**
 * The few Go library behaviours Ignition's validation leans on: package path's Clean, Join, IsAbs and Ext,
 * net/url's idea of a URL that does not parse and of its scheme, and the shape checks of a data: URL and of a
 * base64 payload. Local to ignition/ so that the folder stays self-contained.
 */

/** path.Clean: the shortest equivalent slash-separated path. */
export function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const body = out.join('/');
  return rooted ? `/${body}` : body === '' ? '.' : body;
}

/** path.Join: the non-empty elements joined by "/" and cleaned; "" when all are empty. */
export function joinPath(...parts: string[]): string {
  const kept = parts.filter((x) => x !== '');
  return kept.length === 0 ? '' : cleanPath(kept.join('/'));
}

export const isAbsPath = (p: string): boolean => p.startsWith('/');

/** path.Ext: the suffix from the last dot of the last element, or "". */
export function extOf(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i);
  return '';
}

/** A URL split as net/url.Parse splits it, or undefined when Parse would return an error. */
export interface GoUrl {
  /** Lower-cased, "" when there is none. */
  scheme: string;
  /** What follows `scheme:` when it does not start with "/" (data:, arn:). */
  opaque: string;
  /** The raw query, after "?". */
  query: string;
}

const hex = /^[0-9A-Fa-f]{2}$/;

/** Whether every "%" in s starts a two-digit hex escape. */
function escapesOk(s: string): boolean {
  for (let i = s.indexOf('%'); i >= 0; i = s.indexOf('%', i + 1)) if (!hex.test(s.slice(i + 1, i + 3))) return false;
  return true;
}

/**
 * net/url.Parse, as far as its failures and the parts Ignition reads go: control characters, a ":" before any
 * scheme letter, a bad %-escape in the path or fragment, a non-numeric port.
 */
export function parseUrl(s: string): GoUrl | undefined {
  // Parse refuses control characters anywhere.
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || c === 0x7f) return undefined;
  }
  let rest = s;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  if (!escapesOk(fragment)) return undefined;
  let scheme = '';
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return undefined; // "missing protocol scheme"
      scheme = rest.slice(0, i).toLowerCase();
      rest = rest.slice(i + 1);
    }
    break;
  }
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (scheme !== '' && !rest.startsWith('/')) return { scheme, opaque: rest, query };
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/\//);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, 2 + end);
    const host = authority.slice(authority.lastIndexOf('@') + 1);
    const port = host.startsWith('[')
      ? host.slice(host.indexOf(']') + 1)
      : host.slice(host.indexOf(':') >= 0 ? host.indexOf(':') : host.length);
    if (port !== '' && !/^:[0-9]*$/.test(port)) return undefined;
    rest = end < 0 ? '' : rest.slice(2 + end);
  }
  if (!escapesOk(rest)) return undefined;
  return { scheme, opaque: '', query };
}

/** Whether net/url's Query() holds `name` with an empty first value. */
export function queryValueEmpty(query: string, name: string): boolean {
  for (const part of query.split(/[&;]/)) {
    const eq = part.indexOf('=');
    const k = eq < 0 ? part : part.slice(0, eq);
    if (k === name) return eq < 0 || part.slice(eq + 1) === '';
  }
  return false;
}

/** Whether `name` appears in the query at all. */
export const queryHas = (query: string, name: string): boolean =>
  query.split(/[&;]/).some((part) => (part.indexOf('=') < 0 ? part : part.slice(0, part.indexOf('='))) === name);

/**
 * The shape checks github.com/vincent-petithory/dataurl makes of a data: URL (a comma after the optional media
 * type and parameters, a base64 payload that decodes), with its messages where it has them. Returns the error
 * text, or undefined when the URL decodes.
 */
export function dataUrlError(s: string): string | undefined {
  if (!s.startsWith('data:')) return 'missing data prefix';
  const comma = s.indexOf(',');
  if (comma < 0) return 'missing comma before data';
  const params = s.slice(5, comma).split(';');
  const base64 = params.length > 1 && params[params.length - 1] === 'base64';
  if (!base64) return undefined;
  return base64Error(s.slice(comma + 1));
}

/** encoding/base64 StdEncoding's complaint about s, or undefined when it decodes. */
export function base64Error(s: string): string | undefined {
  const data = s.replace(/[\r\n]/g, '');
  const bad = data.search(/[^A-Za-z0-9+/=]/);
  const at = (n: number) => `illegal base64 data at input byte ${n}`;
  if (bad >= 0) return at(bad);
  const pad = data.indexOf('=');
  if (pad >= 0) {
    const tail = data.slice(pad);
    if (!/^={1,2}$/.test(tail) || data.length % 4 !== 0 || pad % 4 < 2) return at(pad);
    return undefined;
  }
  // An unfinished last quantum is reported where it starts.
  if (data.length % 4 !== 0) return at(data.length - (data.length % 4));
  return undefined;
}
