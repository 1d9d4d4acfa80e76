/**
 * The ping under --insecure sends the plain http ping alongside the https one, and the outcome is the
 * sequential one: an https answer wins even when http answered first, and the early http ping is only the first
 * of the http attempts (retried as before when https could not connect). A scripted client stands in for the
 * network, so the order of answers is chosen by the test.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { FetchError } from '../../src/errors.js';
import type { HttpClient, Response, ResponseBody, SendOptions } from '../../src/http/client.js';
import { TransientError } from '../../src/http/retry.js';
import { ping } from '../../src/registry/ping.js';

const RETRY = { retries: 2, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 1_000 };

function answer(url: string, status: number, headers: Record<string, string> = {}): Response {
  const body = new PassThrough() as unknown as ResponseBody;
  body.dump = async () => undefined;
  (body as unknown as PassThrough).end();
  return { status, headers, body, url };
}

const refused = (url: string) => new FetchError(`request to ${url} failed: connect ECONNREFUSED`, url, undefined, undefined, 'network');

/** A client whose answers are scripted per scheme; it records every send and whether its signal was aborted. */
function scripted(script: Record<'https' | 'http', (url: string, n: number) => Promise<Response>>) {
  const sent: Array<{ url: string; signal?: AbortSignal }> = [];
  const counts = { https: 0, http: 0 };
  const client: HttpClient = {
    tls: { insecure: true },
    send(url: string, opts: SendOptions = {}) {
      sent.push({ url, ...(opts.signal ? { signal: opts.signal } : {}) });
      const scheme = url.startsWith('https:') ? 'https' : 'http';
      return script[scheme](url, counts[scheme]++);
    },
  };
  return { client, sent, counts };
}

const later = <T>(ms: number, f: () => T) => new Promise<T>((r) => setTimeout(() => r(f()), ms));

describe('ping under --insecure', () => {
  test('https wins when it answers, even after plain http answered; the http ping is aborted or ignored', async () => {
    const { client, sent } = scripted({
      https: (url) => later(30, () => answer(url, 401, { 'www-authenticate': 'Basic realm="r"' })),
      http: async (url) => answer(url, 200),
    });
    const p = await ping({ registry: 'r.example', apiHost: 'r.example', insecure: true, client, retry: RETRY });
    expect(p).toMatchObject({ base: 'https://r.example', status: 401, wwwAuthenticate: 'Basic realm="r"' });
    // Both were sent at once: http did not wait for https to fail.
    expect(sent.map((s) => s.url).sort()).toEqual(['http://r.example/v2/', 'https://r.example/v2/']);
  });

  test('an http ping still under way when https answers is aborted', async () => {
    const { client, sent } = scripted({
      https: async (url) => answer(url, 200),
      http: () => new Promise<Response>(() => undefined),
    });
    await expect(ping({ registry: 'r.example', apiHost: 'r.example', insecure: true, client, retry: RETRY })).resolves.toMatchObject({
      base: 'https://r.example',
    });
    const httpSignal = sent.find((s) => s.url.startsWith('http:'))?.signal;
    expect(httpSignal?.aborted).toBe(true);
  });

  test('https cannot connect: the early http answer is used, with no second http request', async () => {
    const { client, counts } = scripted({
      https: (url) => later(10, () => refused(url)).then((err) => Promise.reject(err)),
      http: async (url) => answer(url, 200),
    });
    const p = await ping({ registry: 'r.example', apiHost: 'r.example', insecure: true, client, retry: RETRY });
    expect(p).toMatchObject({ base: 'http://r.example', status: 200 });
    expect(counts).toEqual({ https: 1, http: 1 });
  });

  test('the early http ping counts as the first http attempt: retries + 1 answers of 503 in all, then the error', async () => {
    const { client, counts } = scripted({
      https: async (url) => {
        throw refused(url);
      },
      http: async (url, n) => (n < 3 ? answer(url, 503) : answer(url, 200)),
    });
    await expect(ping({ registry: 'r.example', apiHost: 'r.example', insecure: true, client, retry: RETRY })).rejects.toThrow(
      '503 Service Unavailable',
    );
    // 1 early + 2 retries = retries + 1 attempts, as the sequential ping made.
    expect(counts).toEqual({ https: 1, http: 3 });
  });

  test('an https answer that is an error is final: http is not used', async () => {
    const { client } = scripted({
      https: async (url) => answer(url, 404),
      http: async (url) => answer(url, 200),
    });
    await expect(ping({ registry: 'r.example', apiHost: 'r.example', insecure: true, client, retry: RETRY })).rejects.toThrow(
      'r.example does not look like a registry: https://r.example/v2/ answered 404 Not Found',
    );
  });

  test('without --insecure nothing is sent over plain http', async () => {
    const { client, counts } = scripted({
      https: async (url) => {
        throw new TransientError(`request to ${url} failed: connect ECONNREFUSED`, url, undefined, undefined, undefined, 'network');
      },
      http: async (url) => answer(url, 200),
    });
    await expect(ping({ registry: 'r.example', apiHost: 'r.example', client, retry: RETRY })).rejects.toThrow();
    expect(counts.http).toBe(0);
  });
});
