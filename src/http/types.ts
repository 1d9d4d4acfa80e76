/**
 * The shapes of osimage's HTTP client, free of the library behind it: callers see these types only,
 * so the implementation (undici today) can change without touching them.
 */
import type { Readable } from 'node:stream';

export type Method = 'GET' | 'HEAD' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

/** A request body: bytes, text, or a stream (a stream cannot be replayed on a retry or a redirect). */
export type RequestBody = string | Buffer | Uint8Array | Readable | null;

/** A response body: a byte stream that must be consumed, dumped or destroyed. */
export interface ResponseBody extends Readable {
  /** Read and throw away the rest of the body, so the connection can be reused. */
  dump(): Promise<void>;
}

export type Headers = Record<string, string | string[] | undefined>;

export interface Response {
  status: number;
  headers: Headers;
  body: ResponseBody;
  /** The URL that answered, after redirects. */
  url: string;
}

export interface SendOptions {
  method?: Method;
  headers?: Record<string, string>;
  body?: RequestBody;
  /** Redirects to follow (default 5); 0 returns the 3xx response itself. */
  maxRedirects?: number;
  signal?: AbortSignal;
  /** What is being fetched, for messages: `manifest quay.io/x/y:tag`. */
  what?: string;
}
