/**
 * One HTTP exchange through undici, following redirects by the one policy (redirect.ts). Loaded only
 * when an http(s) URL is fetched: importing this module loads undici.
 */
import { FetchError, describe } from '../errors.js';
import { dispatcher, type TlsOptions } from './dispatcher.js';
import { basicHeader, withDefaultHeaders } from './headers.js';
import { redactUrl, splitUserinfo } from './redact.js';
import { nextHop, redirectLocation, type Hop } from './redirect.js';
import { TransientError, isTransientNetworkError } from './retry.js';
import type { Response, ResponseBody, SendOptions } from './types.js';
import { request } from './undici.js';
import { HTTP_LEVEL, logs } from '../verbosity.js';

/** Log one exchange at -v 6 (and its headers at -v 8); the module that formats it loads only then. */
async function log(exchange: import('./log.js').Exchange): Promise<void> {
  (await import('./log.js')).logExchange(exchange);
}

/**
 * Send one request and follow its redirects. Credentials (Authorization, Cookie) never follow a redirect
 * to another origin; https never redirects down to http unless `tls.insecure`. Network failures that are
 * worth a retry become TransientError.
 */
export async function send(url: string, opts: SendOptions = {}, tls: TlsOptions = {}): Promise<Response> {
  let hop: Hop = { ...withUserinfo(url, withDefaultHeaders(opts.headers)), method: opts.method ?? 'GET', body: opts.body ?? undefined };
  const policy = { maxRedirects: opts.maxRedirects ?? 5, allowDowngrade: tls.insecure === true };
  const pool = dispatcher(tls);
  for (let count = 0; ; count++) {
    let res: Awaited<ReturnType<typeof request>>;
    const logging = logs(HTTP_LEVEL);
    const started = logging ? performance.now() : 0;
    const exchange = () => ({ method: hop.method, url: hop.url, requestHeaders: hop.headers, ms: performance.now() - started });
    try {
      res = await request(hop.url, { method: hop.method, headers: hop.headers, body: hop.body, dispatcher: pool, signal: opts.signal });
    } catch (err) {
      if (logging) await log({ ...exchange(), error: err });
      const msg = `request to ${redactUrl(hop.url)} failed: ${describe(err)}`;
      // No answer came: code 'network' (the kind of failure is in the cause's code, network.ts).
      if (isTransientNetworkError(err)) throw new TransientError(msg, hop.url, undefined, undefined, err, 'network');
      throw new FetchError(msg, hop.url, undefined, err, 'network');
    }
    if (logging) await log({ ...exchange(), status: res.statusCode, responseHeaders: res.headers });
    const location = redirectLocation(res.statusCode, res.headers);
    if (location === undefined || policy.maxRedirects === 0) {
      return { status: res.statusCode, headers: res.headers, body: res.body as ResponseBody, url: hop.url };
    }
    await res.body.dump().catch(() => undefined);
    hop = nextHop(hop, res.statusCode, location, count, policy, opts.what);
  }
}

/**
 * A URL with userinfo (`http://bob:pw@host/…`, as a release browser's base URL may be given): the request goes
 * to the URL without it, with the credential as Basic Authorization (unless the caller sent one); like any
 * Authorization, it is dropped when a redirect leaves the origin.
 */
function withUserinfo(url: string, headers: Record<string, string>): { url: string; headers: Record<string, string> } {
  const split = splitUserinfo(url);
  if (split.username === undefined) return { url, headers };
  if (Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) return { url: split.url, headers };
  return { url: split.url, headers: { ...headers, authorization: basicHeader(split.username, split.password ?? '') } };
}
