/**
 * URLs as they may be printed: a password in the userinfo (`http://bob:pw@host`) and the values of the
 * query (a presigned URL's `X-Amz-Signature=…`) are secrets, so messages and output show `bob:***@` and
 * `?X-Amz-Signature=***`. Requests still use the URL as given; only what is printed goes through here.
 */

const MASK = '***';

/** scheme://, userinfo@, the rest up to the query, ?query, #fragment */
const PARTS = /^([a-z][a-z0-9+.-]*:\/\/)(?:([^/?#]*)@)?([^?#]*)(\?[^#]*)?(#.*)?$/i;

/**
 * The URL for messages and output: a userinfo password (or a lone userinfo, often a token) and the values of
 * the query masked; everything else exactly as given.
 */
export function redactUrl(url: string): string {
  const m = PARTS.exec(url);
  if (!m) return url;
  const [, scheme, userinfo, rest, query = '', fragment = ''] = m;
  let out = scheme!;
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(':');
    out += colon >= 0 ? `${userinfo.slice(0, colon)}:${MASK}@` : `${MASK}@`;
  }
  out += rest;
  if (query.length > 1) {
    out += `?${query
      .slice(1)
      .split('&')
      .map((p) => (p.includes('=') ? `${p.slice(0, p.indexOf('='))}=${MASK}` : p))
      .join('&')}`;
  } else out += query;
  return out + fragment;
}

/** The URL without its userinfo, and the Basic credential the userinfo carried (decoded), if any. */
export function splitUserinfo(url: string): { url: string; username?: string; password?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { url };
  }
  if (!u.username && !u.password) return { url };
  const username = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  u.username = '';
  u.password = '';
  return { url: u.toString(), username, password };
}

/**
 * The URL with its userinfo (`bob:pw@`) taken out and every other character as written: what may be written
 * where others read it (a pin committed to git, `-o env`). Credentials for a release browser come from
 * ~/.netrc instead (netrc.ts).
 */
export function withoutUserinfo(url: string): string {
  const m = PARTS.exec(url);
  return m?.[2] === undefined ? url : `${m[1]}${m[3]}${m[4] ?? ''}${m[5] ?? ''}`;
}

/** Whether the URL carries userinfo (a user, a password or a token). */
export const hasUserinfo = (url: string): boolean => withoutUserinfo(url) !== url;
