/**
 * A registry whose /v2/ is anonymous (the real registry, open, behind the fault proxy) redirects blobs to a
 * CDN of someone else's choosing. The CDN answers 401 with a Bearer challenge whose realm is a third host.
 * The registry's credentials (from the auth file) must never reach the third host, no token it hands out may
 * be sent to the registry, and errors must not print a presigned URL's signature.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { openRemote, type RemoteOptions } from '../../src/registry/remote.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { authFileFor, printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { makeImage, pushImage, type TestImage } from './fixtures.js';

interface Seen {
  url: string;
  authorization: string | undefined;
}

interface Recorder {
  url: string;
  seen: Seen[];
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
}

/** A small server on 127.0.0.1 that records each request (and its Authorization) and answers as `handle` says. */
async function recorder(): Promise<Recorder> {
  const seen: Seen[] = [];
  const r = {
    url: '',
    seen,
    handle: (_req: IncomingMessage, res: ServerResponse) => void res.writeHead(404).end(),
    close: () => Promise.resolve(),
  } as Recorder;
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    r.handle(req, res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () =>
    new Promise<void>((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    });
  return r;
}

let reg: TestRegistry;
let proxy: FaultProxy;
let cdn: Recorder;
let tokens: Recorder;
let dir: string;
let authFile: string;
let image: TestImage;
let ref: string;
const SECRET = 's3cr3t-PAS';
const RETRY = { retries: 1, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 5_000 };

printLogsOnFailure(() => reg);

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  proxy = await startFaultProxy(reg.url);
  cdn = await recorder();
  tokens = await recorder();
  tokens.handle = (_req, res) =>
    void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: 'cdn-token' }));
  dir = await mkdtemp(join(tmpdir(), 'osimage-cdn-'));
  authFile = join(dir, 'auth.json');
  await writeFile(authFile, authFileFor(proxy.host, 'bob', SECRET));
  image = await makeImage({ noise: 3000 });
  ref = `${proxy.host}/ocp/release:4.16.0`;
  await pushImage(ref, image, { insecure: true, env: {} });
});
afterAll(async () => {
  await cdn?.close();
  await tokens?.close();
  await proxy?.close();
  await reg?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  proxy.clear();
  cdn.seen.length = 0;
  tokens.seen.length = 0;
});

const opts = (): RemoteOptions => ({ insecure: true, retry: RETRY, env: { REGISTRY_AUTH_FILE: authFile }, home: dir });
const challenge = () => `Bearer realm="${tokens.url}/token",service="cdn"`;

describe('a challenge from another origin than the registry', () => {
  test('hostile CDN: a 401 from the blob redirect target never gets the registry credentials, nor its token the registry', async () => {
    const layer = image.layers[0]!;
    proxy.fault({
      method: 'GET',
      path: /\/blobs\/sha256:/,
      times: Infinity,
      action: { redirect: () => `${cdn.url}/cdn/${layer.desc.digest}` },
    });
    cdn.handle = (_req, res) => void res.writeHead(401, { 'www-authenticate': challenge(), 'content-length': '0' }).end();
    const src = await openRemote(ref, opts());
    await src.manifest();
    const err = await src.blob(layer.desc).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // The third host was never asked for a token (so never saw the Basic credentials) ...
    expect(tokens.seen).toEqual([]);
    // ... the CDN never saw any Authorization, and the registry was never sent a token.
    expect(cdn.seen.length).toBeGreaterThan(0);
    expect(cdn.seen.map((s) => s.authorization)).toEqual(cdn.seen.map(() => undefined));
    expect(proxy.requests.filter((r) => /^Bearer/i.test(String(r.headers.authorization ?? '')))).toEqual([]);
    // The error says who answered 401: the CDN, not the registry.
    expect(err?.message).toMatch(new RegExp(`${cdn.url}/cdn/${layer.desc.digest}.*401 Unauthorized`));
    expect(err?.message).not.toContain(SECRET);
  });

  test('hostile CDN: a redirected /v2/ ping whose target challenges is not taken for the registry', async () => {
    proxy.fault({ method: 'GET', path: /^\/v2\/$/, action: { redirect: () => `${cdn.url}/v2/` } });
    cdn.handle = (_req, res) => void res.writeHead(401, { 'www-authenticate': challenge(), 'content-length': '0' }).end();
    const src = await openRemote(ref, opts());
    const m = await src.manifest();
    expect(m.digest).toBe(image.manifest.desc.digest);
    expect(tokens.seen).toEqual([]);
    expect(proxy.requests.filter((r) => r.headers.authorization !== undefined)).toEqual([]);
  });
});

describe('presigned URLs in errors', () => {
  test('the query of a redirected blob URL (X-Amz-Signature) is not printed in errors', async () => {
    const layer = image.layers[0]!;
    const signature = 'abcdef0123456789SIGNATURE';
    const presigned = `${cdn.url}/bucket/${layer.desc.digest.slice(7)}?X-Amz-Credential=AKIAEXAMPLE&X-Amz-Signature=${signature}`;
    proxy.fault({ method: 'GET', path: /\/blobs\/sha256:/, times: Infinity, action: { redirect: () => presigned } });
    cdn.handle = (_req, res) => void res.writeHead(403, { 'content-type': 'text/plain' }).end('Request has expired');
    const src = await openRemote(ref, opts());
    const err = await src.blob(layer.desc).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(cdn.seen[0]?.url).toContain(signature);
    expect(err?.message).toMatch(/403 Forbidden/);
    expect(err?.message).toContain(`${cdn.url}/bucket/`);
    expect(err?.message).not.toContain(signature);
    expect(err?.message).not.toContain('AKIAEXAMPLE');
  });
});
