/**
 * The lines `-v 6` and `-v 8` add for each HTTP exchange (src/verbosity.ts has the levels):
 *
 *   debug: http: GET https://quay.io/v2/ 401 Unauthorized in 84 ms
 *   debug: http: > Authorization: Bearer ***          (level 8: what was sent)
 *   debug: http: < Www-Authenticate: Bearer realm=…   (level 8: what came back)
 *
 * URLs go through redactUrl (no userinfo, query values masked: a presigned URL's signature is a secret).
 * Credentials in headers are masked; the scheme of an Authorization stays, so a log still says Basic or Bearer.
 * Loaded only when the run's level asks for these lines.
 */
import { describe } from '../errors.js';
import { HEADERS_LEVEL, HTTP_LEVEL, debugLog, logs } from '../verbosity.js';
import { redactUrl } from './redact.js';
import { statusText } from './status.js';
import type { Headers } from './types.js';

const MASK = '***';
/** Whose whole value is a credential. */
const SECRET_HEADERS = new Set(['cookie', 'set-cookie', 'x-registry-auth', 'x-amz-security-token']);
/** `<scheme> <credential>`: the scheme is shown. */
const SCHEMED_HEADERS = new Set(['authorization', 'proxy-authorization']);
/** A header whose name says it carries a secret, whatever server invented it. */
const SECRET_NAME = /token|secret|password|passwd|api-?key|credential|signature|session/i;

/** `content-type` → `Content-Type`, as the header is usually written. */
const display = (name: string) => name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

/** A Location, absolute (redactUrl) or relative to the request (`/path?X-Amz-Signature=…`: the query masked alike). */
function redactLocation(value: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return redactUrl(value);
  const base = 'http://relative';
  return redactUrl(`${base}${value.startsWith('/') ? '' : '/'}${value}`).slice(base.length + (value.startsWith('/') ? 0 : 1));
}

/** A header's value as it may be logged. */
export function redactHeader(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (SCHEMED_HEADERS.has(lower)) {
    const space = value.indexOf(' ');
    return space > 0 ? `${value.slice(0, space)} ${MASK}` : MASK;
  }
  if (SECRET_HEADERS.has(lower) || (lower !== 'www-authenticate' && SECRET_NAME.test(lower))) return MASK;
  if (lower === 'location' || lower === 'content-location') return redactLocation(value);
  return value;
}

function headerLines(mark: '>' | '<', headers: Headers | Record<string, string>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers).sort(([a], [b]) => a.localeCompare(b))) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.push(`http: ${mark} ${display(name)}: ${redactHeader(name, v)}`);
  }
  return out;
}

export interface Exchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  ms: number;
  /** The answer, when one came. */
  status?: number;
  responseHeaders?: Headers;
  /** Why no answer came. */
  error?: unknown;
}

/** Log one exchange: its line, and at level 8 its headers. */
export function logExchange(x: Exchange): void {
  const ms = Math.round(x.ms);
  const outcome =
    x.status !== undefined ? `${statusText(x.status)} in ${ms} ms` : `failed in ${ms} ms: ${describe(x.error).replace(/\s*\n\s*/g, ' ')}`;
  debugLog(HTTP_LEVEL, `http: ${x.method} ${redactUrl(x.url)} ${outcome}`);
  if (!logs(HEADERS_LEVEL)) return;
  for (const line of headerLines('>', x.requestHeaders)) debugLog(HEADERS_LEVEL, line);
  if (x.responseHeaders) for (const line of headerLines('<', x.responseHeaders)) debugLog(HEADERS_LEVEL, line);
}
