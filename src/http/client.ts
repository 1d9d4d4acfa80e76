/**
 * osimage's one HTTP client: the release browser (src/rhcos) and the registry (src/registry) speak
 * through this module only. Behind it: one pool per TLS setting (keep-alive, timeouts, proxies from
 * the environment), one redirect policy, default headers, capped reads, retries that honour
 * Retry-After. The library that does the work (undici) is loaded on the first http(s) request, so
 * importing this module costs nothing and a file:// release browser never loads it.
 */
import type { TlsOptions } from './dispatcher.js';
import type { Response, SendOptions } from './types.js';

export { discard, readCapped } from './body.js';
export { fetchBytes, fetchJson, MAX_DOCUMENT_BYTES, type FetchOptions } from './fetch.js';
export { TransientError, defaultRetryPolicy, isRetryableStatus, isTransientNetworkError, parseRetryAfter, withRetries } from './retry.js';
export type { RetryPolicy } from './retry.js';
export { expectOk, retryableOr, statusText } from './status.js';
export type { TlsOptions } from './dispatcher.js';
export type { Headers, Method, RequestBody, Response, ResponseBody, SendOptions } from './types.js';

export interface HttpClient {
  readonly tls: Readonly<TlsOptions>;
  /** One exchange, following redirects (SendOptions.maxRedirects) by the one redirect policy. */
  send(url: string, opts?: SendOptions): Promise<Response>;
}

/** A client for a TLS setting: `insecure` skips verification and lets https redirect to http. */
export function httpClient(tls: TlsOptions = {}): HttpClient {
  const settings = { ...tls };
  return {
    tls: settings,
    async send(url, opts = {}) {
      const { send } = await import('./request.js');
      return send(url, opts, settings);
    },
  };
}

/** Body errors after which a download can resume with a Range request (besides the transient ones). */
const RESUMABLE_CODES = new Set(['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'ECONNABORTED']);

export function isResumableBodyError(err: unknown): boolean {
  return RESUMABLE_CODES.has((err as { code?: string } | null)?.code ?? '');
}
