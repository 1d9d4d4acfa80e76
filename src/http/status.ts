import { FetchError } from '../errors.js';
import { lazyRequire } from '../lazy.js';
import { redactUrl } from './redact.js';
import { TransientError, isRetryableStatus, parseRetryAfter } from './retry.js';
import type { Response } from './types.js';

// node:http loads Node's whole HTTP stack; only an error message needs its status texts.
const http = lazyRequire<typeof import('node:http')>('node:http');

/** `404 Not Found` */
export function statusText(status: number): string {
  const text = http().STATUS_CODES[status];
  return text ? `${status} ${text}` : String(status);
}

/**
 * Throw for anything but 2xx, after draining the body: `incorrect HTTP response (404 Not Found) from <url>`.
 * 429 and 5xx become TransientError (honouring Retry-After) so the caller's retry loop tries again.
 */
export async function expectOk(res: Response, what = ''): Promise<Response> {
  if (res.status >= 200 && res.status < 300) return res;
  await res.body.dump().catch(() => undefined);
  const msg = `incorrect HTTP response (${statusText(res.status)}) from ${redactUrl(res.url)}${what ? ` (${what})` : ''}`;
  throw retryableOr(res, msg);
}

/** A TransientError (with the server's Retry-After) for 429/5xx, else a FetchError; the body is the caller's. */
export function retryableOr(res: Response, message: string): FetchError {
  if (isRetryableStatus(res.status)) return new TransientError(message, res.url, res.status, parseRetryAfter(res.headers['retry-after']));
  return new FetchError(message, res.url, res.status);
}
