import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { fetchJson } from '../../src/http/fetch.js';
import { httpClient } from '../../src/http/client.js';
import { parseRetryAfter, type RetryPolicy } from '../../src/http/retry.js';
import { dispatcher } from '../../src/http/dispatcher.js';
import { osimage } from '../helpers/cli.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/browser', import.meta.url));
const fast: RetryPolicy = { retries: 3, baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 5_000 };
let server: FileServer;

beforeAll(async () => {
  server = await serveFolder(FIXTURES);
});
afterAll(async () => server.close());

/** A fault that answers the first `times` requests for `path` with `status`. */
function failTimes(path: string, times: number, status: number, headers: Record<string, string> = {}) {
  let n = 0;
  server.faults.push((req, res) => {
    if (req.url !== path || n >= times) return false;
    n++;
    res.writeHead(status, headers).end('busy');
    return true;
  });
}

function count(path: string, since: number): number {
  return server.requests.slice(since).filter((p) => p === path).length;
}

describe('retries', () => {
  it('retries 5xx and succeeds', async () => {
    server.faults.length = 0;
    const before = server.requests.length;
    failTimes('/maipo/builds.json', 2, 502);
    const doc = (await fetchJson(`${server.url}/maipo/builds.json`, { retry: fast })) as { builds: string[] };
    expect(doc.builds[0]).toBe('47.246');
    expect(count('/maipo/builds.json', before)).toBe(3);
  });

  it('honours Retry-After on 429: the retry comes after the wait the server asked for', async () => {
    server.faults.length = 0;
    const before = server.requests.length;
    const at: number[] = [];
    server.faults.push((req) => {
      if (req.url === '/maipo/builds.json') at.push(performance.now());
      return false;
    });
    failTimes('/maipo/builds.json', 1, 429, { 'retry-after': '1' });
    await fetchJson(`${server.url}/maipo/builds.json`, { retry: fast });
    expect(count('/maipo/builds.json', before)).toBe(2);
    // The policy's own backoff is 1-5 ms: only Retry-After explains a second's gap (less a timer's early millisecond).
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(990);
  });

  it('fails at once when Retry-After is longer than we wait', async () => {
    server.faults.length = 0;
    const before = server.requests.length;
    failTimes('/maipo/builds.json', 1, 503, { 'retry-after': '3600' });
    await expect(fetchJson(`${server.url}/maipo/builds.json`, { retry: fast })).rejects.toThrow(
      /503 Service Unavailable.*retry after 3600s/,
    );
    expect(count('/maipo/builds.json', before)).toBe(1);
  });

  it('gives up after the policy and reports the last status', async () => {
    server.faults.length = 0;
    const before = server.requests.length;
    failTimes('/maipo/builds.json', 10, 500);
    await expect(fetchJson(`${server.url}/maipo/builds.json`, { retry: fast })).rejects.toThrow(
      `incorrect HTTP response (500 Internal Server Error) from ${server.url}/maipo/builds.json`,
    );
    expect(count('/maipo/builds.json', before)).toBe(4);
  });

  it('never retries other 4xx', async () => {
    server.faults.length = 0;
    const before = server.requests.length;
    failTimes('/maipo/builds.json', 1, 403);
    await expect(fetchJson(`${server.url}/maipo/builds.json`, { retry: fast })).rejects.toThrow(/403 Forbidden/);
    expect(count('/maipo/builds.json', before)).toBe(1);
  });

  it('retries a connection reset mid-body', async () => {
    server.faults.length = 0;
    const before = server.requests.length;
    let n = 0;
    server.faults.push((req, res) => {
      if (req.url !== '/maipo/builds.json' || n++ > 0) return false;
      res.writeHead(200, { 'content-length': '1000' });
      res.write('{"builds": [');
      setTimeout(() => res.socket?.destroy(), 10);
      return true;
    });
    const doc = (await fetchJson(`${server.url}/maipo/builds.json`, { retry: fast })) as { builds: string[] };
    expect(doc.builds).toHaveLength(3);
    expect(count('/maipo/builds.json', before)).toBe(2);
  });

  it('parses Retry-After in seconds and as an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('redirects', () => {
  let other: Server;
  let seen: Record<string, string | undefined> = {};
  beforeAll(async () => {
    other = createServer((req, res) => {
      seen = { authorization: req.headers.authorization, path: req.url, agent: req.headers['user-agent'] };
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => other.close(() => r())));

  it('follows a redirect to another origin without the Authorization header, with the User-Agent', async () => {
    server.faults.length = 0;
    const port = (other.address() as AddressInfo).port;
    server.faults.push((req, res) => {
      if (req.url !== '/redirect') return false;
      res.writeHead(307, { location: `http://localhost:${port}/elsewhere` }).end();
      return true;
    });
    const res = await httpClient().send(`${server.url}/redirect`, { headers: { authorization: 'Bearer secret' } });
    expect(res.status).toBe(200);
    await res.body.dump();
    expect(seen).toEqual({ authorization: undefined, path: '/elsewhere', agent: expect.stringMatching(/^osimage\/\d+\.\d+\.\d+/) });
    expect(res.url).toBe(`http://localhost:${port}/elsewhere`);
  });
});

describe('proxies from the environment', () => {
  let proxy: Server;
  const proxied: string[] = [];
  beforeAll(async () => {
    // A forward proxy for plain HTTP: absolute-form request lines, passed on.
    proxy = createServer((req, res) => {
      proxied.push(req.url ?? '');
      const target = new URL(req.url ?? '');
      const up = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.writeHead(502).end());
      req.pipe(up);
    });
    // undici tunnels through CONNECT, as most clients do with a proxy.
    proxy.on('connect', (req, client, head) => {
      proxied.push(`CONNECT ${req.url}`);
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  });
  afterAll(
    () =>
      new Promise<void>((r) => {
        proxy.closeAllConnections();
        proxy.close(() => r());
      }),
  );

  // In-process: the proxy settings come from the run's environment (env()), not the process's.
  const proxyEnv = (port: number, noProxy: string) => ({
    HTTP_PROXY: `http://127.0.0.1:${port}`,
    NO_PROXY: noProxy,
    http_proxy: undefined,
    https_proxy: undefined,
    HTTPS_PROXY: undefined,
    no_proxy: undefined,
  });
  it('sends requests through HTTP_PROXY, and not for hosts in NO_PROXY', async () => {
    server.faults.length = 0;
    const port = (proxy.address() as AddressInfo).port;
    const via = await osimage(['resolve', '--base-url', server.url, '--channel', 'maipo', '-o', 'json'], { env: proxyEnv(port, '') });
    expect(via.exitCode).toBe(0);
    const host = new URL(server.url).host;
    expect(proxied.some((p) => p === `CONNECT ${host}` || p === `${server.url}/maipo/builds.json`)).toBe(true);
    const n = proxied.length;
    const direct = await osimage(['resolve', '--base-url', server.url, '--channel', 'maipo', '-o', 'json'], {
      env: proxyEnv(port, '127.0.0.1'),
    });
    expect(direct.exitCode).toBe(0);
    expect(proxied.length).toBe(n);
  });
});

describe('dispatcher', () => {
  it('a missing certificate authority file is said as any missing file of ours', () => {
    expect(() => dispatcher({ caFile: '/nonexistent/osimage-ca.pem' })).toThrow(/^\/nonexistent\/osimage-ca\.pem: no such file$/);
  });
});
