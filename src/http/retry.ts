import { type ErrorCode, FetchError } from '../errors.js';
import { env as runEnv } from '../context.js';

/** How often and how patiently to retry. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest Retry-After we wait for; a longer one fails at once. */
  maxRetryAfterMs: number;
}

export function defaultRetryPolicy(env: NodeJS.ProcessEnv = runEnv()): RetryPolicy {
  const raw = env.OSIMAGE_HTTP_RETRIES;
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return {
    retries: Number.isInteger(n) && n >= 0 && n <= 20 ? n : 4,
    baseDelayMs: 250,
    maxDelayMs: 8_000,
    maxRetryAfterMs: 60_000,
  };
}

/** A failure worth another try: 429, 5xx, a reset or a timeout. */
export class TransientError extends FetchError {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, url: string, status?: number, retryAfterMs?: number, cause?: unknown, code?: ErrorCode) {
    super(message, url, status, cause, code);
    this.name = 'TransientError';
    this.retryAfterMs = retryAfterMs;
  }
}

const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

export function isTransientNetworkError(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return typeof code === 'string' && TRANSIENT_CODES.has(code);
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** Parse Retry-After (delta-seconds or an HTTP date) into milliseconds from now. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Run `attempt` until it succeeds, throws a non-transient error, or the policy runs out.
 * Backoff doubles with jitter; a server's Retry-After replaces the backoff.
 */
export async function withRetries<T>(attempt: (n: number) => Promise<T>, policy: RetryPolicy = defaultRetryPolicy()): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (!(err instanceof TransientError) || n >= policy.retries) throw err;
      let delay: number;
      if (err.retryAfterMs !== undefined) {
        if (err.retryAfterMs > policy.maxRetryAfterMs) {
          throw new FetchError(
            `${err.message}; the server asked to retry after ${Math.ceil(err.retryAfterMs / 1000)}s, longer than ${policy.maxRetryAfterMs / 1000}s`,
            err.url,
            err.status,
          );
        }
        delay = err.retryAfterMs;
      } else {
        const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** n);
        delay = exp / 2 + Math.random() * (exp / 2);
      }
      await sleep(delay);
    }
  }
}
