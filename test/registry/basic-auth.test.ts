/**
 * Against the real registry with htpasswd Basic auth: credentials from auth files, failures that name
 * the host and user, and blob redirects to another origin that must not receive Authorization.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { httpClient, readCapped } from '../../src/http/client.js';
import { hintFor } from '../../src/output/hints.js';
import { UnauthorizedError } from '../../src/registry/errors.js';
import { openPushTarget } from '../../src/registry/push.js';
import { openRemote, type RemoteOptions } from '../../src/registry/remote.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { authFileFor, printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { makeImage, pushImage, readAll, type TestImage } from './fixtures.js';
import { startObjectStore, type ObjectStore } from './object-store.js';

let reg: TestRegistry;
let proxy: FaultProxy;
let store: ObjectStore;
let dir: string;
let authFile: string;
let image: TestImage;
let ref: string;
const RETRY = { retries: 2, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 5_000 };
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

printLogsOnFailure(() => reg);

beforeAll(async () => {
  reg = await startRegistry({ mode: 'htpasswd', users: { alice: 'wonderland', bob: 'p:x' } });
  proxy = await startFaultProxy(reg.url);
  store = await startObjectStore(async (digest) => {
    const res = await fetch(`${reg.url}/v2/ocp/release/blobs/${digest}`, { headers: { authorization: basic('alice', 'wonderland') } });
    return Buffer.from(await res.arrayBuffer());
  });
  dir = await mkdtemp(join(tmpdir(), 'osimage-basic-'));
  authFile = join(dir, 'auth.json');
  await writeFile(authFile, authFileFor(proxy.host, 'bob', 'p:x'));
  image = await makeImage({ noise: 6000 });
  ref = `${proxy.host}/ocp/release:4.16.0`;
  await pushImage(ref, image, { insecure: true, env: { REGISTRY_AUTH_FILE: authFile } });
});
afterAll(async () => {
  await store?.close();
  await proxy?.close();
  await reg?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  proxy.clear();
  store.requests.length = 0;
  store.dropNextAfter = undefined;
});

const opts = (extra: RemoteOptions = {}): RemoteOptions => ({
  insecure: true,
  retry: RETRY,
  env: { REGISTRY_AUTH_FILE: authFile },
  home: dir,
  ...extra,
});
const blobPath = (digest: string) => new RegExp(`/v2/ocp/release/blobs/${digest}$`);

describe('Basic auth', () => {
  test('credentials from REGISTRY_AUTH_FILE: every request after the ping carries Basic user:pass (the password holds a colon)', async () => {
    const src = await openRemote(ref, opts());
    const m = await src.manifest();
    expect(m.digest).toBe(image.manifest.desc.digest);
    expect((await readAll(await src.blob(image.config.desc))).equals(image.config.bytes)).toBe(true);
    const [ping, ...rest] = proxy.requests;
    expect(ping!.url).toBe('/v2/');
    expect(ping!.headers.authorization).toBeUndefined();
    expect(rest.length).toBeGreaterThanOrEqual(2);
    for (const r of rest) expect(r.headers.authorization).toBe(basic('bob', 'p:x'));
  });

  test('--registry-config beats REGISTRY_AUTH_FILE', async () => {
    const other = join(dir, 'alice.json');
    await writeFile(other, authFileFor(proxy.host, 'alice', 'wonderland'));
    await (await openRemote(ref, opts({ registryConfig: other }))).manifest();
    expect(proxy.requests.at(-1)!.headers.authorization).toBe(basic('alice', 'wonderland'));
  });

  test("a wrong password: oc's words; the hint names the host, user and file; at most two requests", async () => {
    const wrong = join(dir, 'wrong.json');
    await writeFile(wrong, authFileFor(proxy.host, 'bob', 'nope'));
    const err = (await (await openRemote(ref, opts({ registryConfig: wrong }))).manifest().catch((e: unknown) => e)) as Error;
    expect(err.message).toBe(`unable to read image ${ref}: unauthorized: authentication required`);
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(hintFor(err)).toBe(`${proxy.host} refused the credentials of bob from ${wrong}: check the user and password (or token) there`);
    expect(proxy.requests.length).toBeLessThanOrEqual(2);
  });

  test("no credentials: oc's words (naming the HEAD oc's client makes for a tag, GET for a digest), and a hint", async () => {
    const err = (await (await openRemote(ref, opts({ env: {} }))).manifest().catch((e: unknown) => e)) as Error;
    expect(err.message).toBe(
      `unable to read image ${ref}: Head "http://${proxy.host}/v2/ocp/release/manifests/4.16.0": no basic auth credentials`,
    );
    expect(hintFor(err)).toMatch(new RegExp(`^no credentials for ${proxy.host} were found: give an auth file .* with -a FILE`));
    const byDigest = `${proxy.host}/ocp/release@${image.manifest.desc.digest}`;
    const err2 = (await (await openRemote(byDigest, opts({ env: {} }))).manifest().catch((e: unknown) => e)) as Error;
    expect(err2.message).toBe(
      `unable to read image ${byDigest}: Get "http://${proxy.host}/v2/ocp/release/manifests/${image.manifest.desc.digest}": no basic auth credentials`,
    );
  });
});

describe('blob redirects to object storage', () => {
  test('the redirected request carries no Authorization; the blob is verified', async () => {
    const layer = image.layers[0]!;
    proxy.fault({ path: blobPath(layer.desc.digest), method: 'GET', action: { redirect: () => store.presign(layer.desc.digest) } });
    const src = await openRemote(ref, opts());
    expect((await readAll(await src.blob(layer.desc))).equals(layer.bytes)).toBe(true);
    // the registry got credentials (so the test can fail); the other origin did not
    expect(proxy.matching('GET', blobPath(layer.desc.digest))[0]!.headers.authorization).toBe(basic('bob', 'p:x'));
    expect(store.requests).toHaveLength(1);
    expect(store.requests[0]!.authorization).toBeUndefined();
    expect(store.requests[0]!.status).toBe(200);
  });

  test('a drop at object storage resumes from the registry URL (a fresh presigned URL), with Range', async () => {
    const layer = image.layers[0]!;
    const cut = Math.floor(layer.desc.size * 0.6);
    store.dropNextAfter = cut;
    proxy.fault({
      path: blobPath(layer.desc.digest),
      method: 'GET',
      times: Infinity,
      action: { redirect: () => store.presign(layer.desc.digest) },
    });
    const src = await openRemote(ref, opts());
    expect((await readAll(await src.blob(layer.desc))).equals(layer.bytes)).toBe(true);
    const gets = proxy.matching('GET', blobPath(layer.desc.digest));
    expect(gets).toHaveLength(2);
    expect(gets[1]!.headers.range).toBe(`bytes=${cut}-`);
    expect(store.requests.map((r) => [r.status, r.range ?? null])).toEqual([
      [200, null],
      [206, `bytes=${cut}-`],
    ]);
    expect(store.requests[0]!.url).not.toBe(store.requests[1]!.url);
    expect(store.requests.every((r) => r.authorization === undefined)).toBe(true);
  });

  test('a redirect to a link-local address is refused without a request', async () => {
    const layer = image.layers[0]!;
    proxy.fault({ path: blobPath(layer.desc.digest), action: { redirect: () => 'http://169.254.169.254/latest/meta-data/' } });
    const src = await openRemote(ref, opts());
    await expect(src.blob(layer.desc)).rejects.toThrow(/refusing redirect to link-local address 169\.254\.169\.254/);
  });

  test('more than 10 redirects is an error', async () => {
    const layer = image.layers[0]!;
    proxy.fault({ path: blobPath(layer.desc.digest), times: Infinity, action: { redirect: (req) => `${proxy.url}${req.url}` } });
    const src = await openRemote(ref, opts());
    await expect(src.blob(layer.desc)).rejects.toThrow(/too many redirects/);
    expect(proxy.matching('GET', blobPath(layer.desc.digest))).toHaveLength(11);
  });

  test('an upload Location on another origin gets no Authorization', async () => {
    const img = await makeImage({ noise: 50 });
    proxy.fault({
      path: /\/v2\/ocp\/elsewhere\/blobs\/uploads\/$/,
      method: 'POST',
      action: { respond: (_req, res) => void res.writeHead(202, { location: `${store.url}/uploads/abc`, 'content-length': '0' }).end() },
    });
    const dest = await openPushTarget(`${proxy.host}/ocp/elsewhere:v1`, {
      insecure: true,
      env: { REGISTRY_AUTH_FILE: authFile },
      retry: RETRY,
    });
    await expect(dest.pushBlob(img.config.desc, img.config.bytes)).rejects.toThrow(
      /404 Not Found from http:\/\/127\.0\.0\.1:\d+\/uploads\/abc/,
    );
    expect(proxy.matching('POST', /\/blobs\/uploads\/$/)[0]!.headers.authorization).toBe(basic('bob', 'p:x'));
    expect(store.requests).toHaveLength(1);
    expect(store.requests[0]!.authorization).toBeUndefined();
  });

  test('the src/http client also drops Authorization when a redirect changes origin', async () => {
    const layer = image.layers[0]!;
    proxy.fault({ path: blobPath(layer.desc.digest), action: { redirect: () => store.presign(layer.desc.digest) } });
    const res = await httpClient().send(`${proxy.url}/v2/ocp/release/blobs/${layer.desc.digest}`, {
      headers: { authorization: basic('bob', 'p:x') },
    });
    expect(res.status).toBe(200);
    expect((await readCapped(res, 1 << 20)).equals(layer.bytes)).toBe(true);
    expect(store.requests[0]!.authorization).toBeUndefined();
    expect(proxy.requests[0]!.headers.authorization).toBe(basic('bob', 'p:x'));
  });
});
