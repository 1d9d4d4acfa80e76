/**
 * The one redirect policy, for the release browser and the registry alike: only http(s), never from
 * https down to plain http (unless the client is insecure), never to a link-local or cloud metadata address,
 * credentials never to another origin, a bounded number of hops.
 */
import { FetchError } from '../errors.js';
import { forbiddenRedirectTarget } from './address.js';
import { withoutSensitive } from './headers.js';
import { redactUrl } from './redact.js';
import type { Headers, Method, RequestBody } from './types.js';

export interface RedirectPolicy {
  /** Hops to follow; 0 returns the 3xx response to the caller. */
  maxRedirects: number;
  /** Allow https -> http (an insecure client, as for --insecure registries). */
  allowDowngrade: boolean;
}

/** One request as it travels along redirects. */
export interface Hop {
  url: string;
  method: Method;
  headers: Record<string, string>;
  body: RequestBody | undefined;
}

/** The Location of a response that is a redirect to follow (not 304), else undefined. */
export function redirectLocation(status: number, headers: Headers): string | undefined {
  if (status < 300 || status >= 400 || status === 304) return undefined;
  const l = headers.location;
  return Array.isArray(l) ? l[0] : l;
}

/**
 * The next hop after `status` with `location` from `hop`, or an error naming both URLs. `count` is the
 * number of redirects followed so far.
 */
export function nextHop(hop: Hop, status: number, location: string, count: number, policy: RedirectPolicy, what = ''): Hop {
  const about = what ? ` for ${what}` : '';
  const from = redactUrl(hop.url);
  if (count >= policy.maxRedirects) {
    throw new FetchError(`too many redirects (more than ${policy.maxRedirects}) fetching ${what || from}`, hop.url, status);
  }
  const prev = new URL(hop.url);
  let next: URL;
  try {
    next = new URL(location, prev);
  } catch {
    throw new FetchError(`${from} redirected to an invalid URL "${location}"${about}`, hop.url, status);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new FetchError(`refusing redirect to ${next.protocol} URL from ${from}${about}`, hop.url, status);
  }
  if (prev.protocol === 'https:' && next.protocol === 'http:' && !policy.allowDowngrade) {
    throw new FetchError(
      `refusing redirect from https to plain http: ${from} redirected to ${redactUrl(next.toString())}${about}`,
      hop.url,
      status,
    );
  }
  const forbidden = forbiddenRedirectTarget(next.hostname);
  if (forbidden) {
    throw new FetchError(`refusing redirect to ${forbidden} address ${next.host} from ${from}${about}`, hop.url, status);
  }
  const headers = next.origin === prev.origin ? hop.headers : withoutSensitive(hop.headers);
  // 303, and 301/302 after a POST, turn into a GET without a body (as browsers and curl do).
  if (status === 303 || ((status === 301 || status === 302) && hop.method === 'POST')) {
    return { url: next.toString(), method: 'GET', headers, body: undefined };
  }
  return { url: next.toString(), method: hop.method, headers, body: hop.body };
}
