import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import { request } from './undici.js';
import { FetchError, describe } from '../errors.js';
import { dispatcher } from './dispatcher.js';
import { TransientError, isRetryableStatus, isTransientNetworkError, parseRetryAfter } from './retry.js';

export interface SendOptions {
  method?: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: Dispatcher.DispatchOptions['body'];
  /** Redirects to follow; 0 returns the 3xx response. */
  maxRedirects?: number;
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
  /** The URL that answered, after redirects. */
  url: string;
}

/** `404 Not Found` */
export function statusText(status: number): string {
  const text = STATUS_CODES[status];
  return text ? `${status} ${text}` : String(status);
}

const SENSITIVE = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * One HTTP exchange, following redirects. Credentials (Authorization, Cookie) never follow a
 * redirect to another origin. Network failures that are worth a retry become TransientError.
 */
export async function send(url: string, opts: SendOptions = {}): Promise<Response> {
  let current = url;
  let headers = { ...(opts.headers ?? {}) };
  let method = opts.method ?? 'GET';
  let body = opts.body;
  const maxRedirects = opts.maxRedirects ?? 5;
  for (let hop = 0; ; hop++) {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(current, {
        method,
        headers,
        body,
        dispatcher: opts.dispatcher ?? dispatcher(),
        signal: opts.signal,
      });
    } catch (err) {
      const msg = `request to ${current} failed: ${describe(err)}`;
      if (isTransientNetworkError(err)) throw new TransientError(msg, current, undefined, undefined, err);
      throw new FetchError(msg, current, undefined, err);
    }
    const location = res.headers.location;
    if (res.statusCode >= 300 && res.statusCode < 400 && location && hop < maxRedirects) {
      await res.body.dump();
      const next = new URL(Array.isArray(location) ? location[0]! : location, current);
      if (next.origin !== new URL(current).origin) {
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !SENSITIVE.includes(k.toLowerCase())));
      }
      if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      current = next.toString();
      continue;
    }
    return { status: res.statusCode, headers: res.headers, body: res.body, url: current };
  }
}

/**
 * Throw for anything but 2xx, after draining the body: `incorrect HTTP response (404 Not Found) from <url>`.
 * 429 and 5xx become TransientError (honouring Retry-After) so the caller's retry loop tries again.
 */
export async function expectOk(res: Response, what = ''): Promise<Response> {
  if (res.status >= 200 && res.status < 300) return res;
  await res.body.dump().catch(() => undefined);
  const msg = `incorrect HTTP response (${statusText(res.status)}) from ${res.url}${what ? ` (${what})` : ''}`;
  if (isRetryableStatus(res.status)) {
    throw new TransientError(msg, res.url, res.status, parseRetryAfter(res.headers['retry-after']));
  }
  throw new FetchError(msg, res.url, res.status);
}
