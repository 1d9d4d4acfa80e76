/**
 * osimage's one HTTP client: the release browser (src/rhcos) and the registry (src/registry) speak
 * through this module only. Behind it: one pool per TLS setting (keep-alive, timeouts, proxies from
 * the environment), one redirect policy, default headers, capped reads, retries that honour
 * Retry-After. The library that does the work (undici) is loaded on the first http(s) request, so
 * importing this module costs nothing and a file:// release browser never loads it. Re-exports only: each
 * part lives in a module of its own (the client itself in http-client.ts).
 */
export { discard, readCapped } from './body.js';
export { fetchBytes, fetchJson, MAX_DOCUMENT_BYTES, type FetchOptions } from './fetch.js';
export {
  RetryLoop,
  TransientError,
  defaultRetryPolicy,
  isRetryableStatus,
  isTransientNetworkError,
  parseRetryAfter,
  withRetries,
} from './retry.js';
export type { RetryPolicy } from './retry.js';
export { expectOk, retryableOr, statusText } from './status.js';
export type { TlsOptions } from './dispatcher.js';
export type { Headers, Method, RequestBody, Response, ResponseBody, SendOptions } from './types.js';
export { type HttpClient, httpClient, isResumableBodyError } from './http-client.js';
