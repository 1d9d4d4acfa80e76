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
 * One retry loop's state: the failed attempts so far under one policy, one predicate (a TransientError is
 * worth another try) and one backoff. A caller whose attempt has several steps (a request, then its body read,
 * then a resumed read) passes the same loop to each, so retries are counted once, never multiplied.
 */
export class RetryLoop {
  readonly policy: RetryPolicy;
  private failures = 0;

  constructor(policy: RetryPolicy = defaultRetryPolicy()) {
    this.policy = policy;
  }

  /** Retries made so far. */
  get retried(): number {
    return this.failures;
  }

  /** True when the policy has no retry left. */
  get spent(): boolean {
    return this.failures >= this.policy.retries;
  }

  /**
   * After a failed attempt: throw `err` when it is not worth another try or the policy is spent, else wait
   * (backoff doubling with jitter; a server's Retry-After replaces it) and count the retry.
   */
  async failed(err: unknown): Promise<void> {
    const n = this.failures;
    if (!(err instanceof TransientError) || this.spent) throw err;
    let delay: number;
    if (err.retryAfterMs !== undefined) {
      if (err.retryAfterMs > this.policy.maxRetryAfterMs) {
        throw new FetchError(
          `${err.message}; the server asked to retry after ${Math.ceil(err.retryAfterMs / 1000)}s, longer than ${this.policy.maxRetryAfterMs / 1000}s`,
          err.url,
          err.status,
        );
      }
      delay = err.retryAfterMs;
    } else {
      const exp = Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** n);
      delay = exp / 2 + Math.random() * (exp / 2);
    }
    this.failures++;
    await sleep(delay);
  }
}

/**
 * Run `attempt` until it succeeds, throws a non-transient error, or the policy runs out. `loop` may be a
 * caller's RetryLoop, whose retries this call shares.
 */
export async function withRetries<T>(attempt: (n: number) => Promise<T>, loop: RetryPolicy | RetryLoop = defaultRetryPolicy()): Promise<T> {
  const retries = loop instanceof RetryLoop ? loop : new RetryLoop(loop);
  for (;;) {
    try {
      return await attempt(retries.retried);
    } catch (err) {
      await retries.failed(err);
    }
  }
}
