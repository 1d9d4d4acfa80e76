/**
 * Against the real registry with token auth (a token server the test runs): anonymous tokens,
 * tokens with Basic credentials, identity (refresh) tokens, caching per scope, insufficient_scope.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { openPushTarget } from '../../src/registry/push.js';
import { openRemote, type RemoteOptions } from '../../src/registry/remote.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { authFileFor, printLogsOnFailure, startRegistry, type TestRegistry, type TokenServer } from '../helpers/registry.js';
import { makeImage, pushImage, readAll, type TestImage } from './fixtures.js';

let reg: TestRegistry;
let token: TokenServer;
let proxy: FaultProxy;
let dir: string;
let aliceFile: string;
let image: TestImage;
let ref: string;
const RETRY = { retries: 2, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 5_000 };

printLogsOnFailure(() => reg);

beforeAll(async () => {
  reg = await startRegistry({ mode: 'token', users: { alice: 'wonderland' } });
  token = reg.token!;
  proxy = await startFaultProxy(reg.url);
  dir = await mkdtemp(join(tmpdir(), 'osimage-token-'));
  aliceFile = join(dir, 'alice.json');
  await writeFile(aliceFile, authFileFor(proxy.host, 'alice', 'wonderland'));
  image = await makeImage({ noise: 3000 });
  ref = `${proxy.host}/ocp/release:4.16.0`;
  await pushImage(ref, image, { insecure: true, env: {}, registryConfig: aliceFile });
});
afterAll(async () => {
  await proxy?.close();
  await reg?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  proxy.clear();
  token.requests.length = 0;
  token.expiresIn = 300;
});

const opts = (extra: RemoteOptions = {}): RemoteOptions => ({ insecure: true, retry: RETRY, env: {}, home: dir, ...extra });

describe('Bearer tokens', () => {
  test('anonymous pull: one token request (no Authorization, pull scope), every registry request uses it', async () => {
    const src = await openRemote(ref, opts());
    const m = await src.manifest();
    await src.manifestByDigest(m.digest);
    expect((await readAll(await src.blob(image.config.desc))).equals(image.config.bytes)).toBe(true);
    expect((await readAll(await src.blob(image.layers[0]!.desc))).equals(image.layers[0]!.bytes)).toBe(true);
    expect(token.requests).toHaveLength(1);
    const t = token.requests[0]!;
    expect(t.method).toBe('GET');
    expect(t.authorization).toBeUndefined();
    expect(t.scopes).toEqual(['repository:ocp/release:pull']);
    expect(t.service).toBe(token.service);
    const [ping, ...rest] = proxy.requests;
    expect(ping!.headers.authorization).toBeUndefined();
    expect(rest).toHaveLength(4);
    const bearer = rest[0]!.headers.authorization;
    expect(bearer).toMatch(/^Bearer ey/);
    for (const r of rest) expect(r.headers.authorization).toBe(bearer);
  });

  test('concurrent first requests share one ping and one token request', async () => {
    const src = await openRemote(ref, opts());
    const [m, config, layer] = await Promise.all([
      src.manifest(),
      src.blob(image.config.desc).then(readAll),
      src.blob(image.layers[0]!.desc).then(readAll),
    ]);
    expect(m.digest).toBe(image.manifest.desc.digest);
    expect(config.equals(image.config.bytes)).toBe(true);
    expect(layer.equals(image.layers[0]!.bytes)).toBe(true);
    expect(token.requests).toHaveLength(1);
    expect(proxy.matching('GET', /^\/v2\/$/)).toHaveLength(1);
  });

  test('expires_in below a minute: still no new token for the next requests', async () => {
    token.expiresIn = 1;
    const src = await openRemote(ref, opts());
    await src.manifest();
    await readAll(await src.blob(image.config.desc));
    await src.manifest();
    expect(token.requests).toHaveLength(1);
  });

  test('push with Basic credentials: one token per scope set, asked with Basic auth; a mount adds the source scope', async () => {
    const img = await makeImage({ noise: 500 });
    const target = `${proxy.host}/team/app:v1`;
    await pushImage(target, img, { insecure: true, env: {}, registryConfig: aliceFile });
    expect(token.requests).toHaveLength(1);
    expect(token.requests[0]!.authorization).toBe(`Basic ${Buffer.from('alice:wonderland').toString('base64')}`);
    expect(token.requests[0]!.account).toBe('alice');
    expect(token.requests[0]!.scopes).toEqual(['repository:team/app:pull,push']);

    token.requests.length = 0;
    const dest = await openPushTarget(`${proxy.host}/team/copy:v1`, { insecure: true, env: {}, registryConfig: aliceFile });
    expect(await dest.pushBlob(img.layers[0]!.desc, img.layers[0]!.bytes, { mountFrom: 'team/app' })).toBe('mounted');
    expect(await dest.pushBlob(img.config.desc, img.config.bytes, { mountFrom: 'team/app' })).toBe('mounted');
    expect(token.requests.map((t) => t.scopes)).toEqual([
      ['repository:team/copy:pull,push'],
      ['repository:team/copy:pull,push', 'repository:team/app:pull'],
    ]);
  });

  test('an identity token is exchanged with a form POST grant_type=refresh_token', async () => {
    token.refreshTokens.set('rt-alice-1', 'alice');
    const file = join(dir, 'identity.json');
    await writeFile(
      file,
      JSON.stringify({ auths: { [proxy.host]: { auth: Buffer.from('<token>:').toString('base64'), identitytoken: 'rt-alice-1' } } }),
    );
    const img = await makeImage({ noise: 200 });
    const digest = await pushImage(`${proxy.host}/idtok/img:v1`, img, { insecure: true, env: {}, registryConfig: file });
    expect(token.requests).toHaveLength(1);
    const t = token.requests[0]!;
    expect(t.method).toBe('POST');
    expect(t.grantType).toBe('refresh_token');
    expect(t.account).toBe('refresh:alice');
    expect(t.service).toBe(token.service);
    expect(t.scopes).toEqual(['repository:idtok/img:pull,push']);
    expect((await (await openRemote(`${proxy.host}/idtok/img:v1`, opts({ registryConfig: file }))).manifest()).digest).toBe(digest);
  });

  test('a registrytoken from the auth file is used as the bearer token as is', async () => {
    const res = await fetch(`${token.realm}?service=${token.service}&scope=repository:ocp/release:pull`);
    const { token: jwt } = (await res.json()) as { token: string };
    token.requests.length = 0;
    const file = join(dir, 'registrytoken.json');
    await writeFile(file, JSON.stringify({ auths: { [proxy.host]: { registrytoken: jwt } } }));
    await (await openRemote(ref, opts({ registryConfig: file }))).manifest();
    expect(token.requests).toHaveLength(0);
    expect(proxy.requests.at(-1)!.headers.authorization).toBe(`Bearer ${jwt}`);
  });

  test('a wrong password: the token server refuses, one request, the error names host, user and file', async () => {
    const wrong = join(dir, 'wrong.json');
    await writeFile(wrong, authFileFor(proxy.host, 'alice', 'nope'));
    const err = (await (await openRemote(ref, opts({ registryConfig: wrong }))).manifest().catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(new RegExp(`authentication to ${proxy.host} failed as alice: token server .* answered 401 Unauthorized`));
    expect(err.message).toContain(wrong);
    expect(token.requests).toHaveLength(1);
  });
});

describe('insufficient_scope', () => {
  test('a 401 asking for more scope: one new token with the merged scopes, then success', async () => {
    const challenge = `Bearer realm="${token.realm}",service="${token.service}",scope="repository:ocp/release:pull repository:extra/repo:pull",error="insufficient_scope"`;
    proxy.fault({ path: /\/manifests\/4\.16\.0$/, action: { status: 401, headers: { 'www-authenticate': challenge } } });
    const m = await (await openRemote(ref, opts())).manifest();
    expect(m.digest).toBe(image.manifest.desc.digest);
    expect(token.requests.map((t) => t.scopes)).toEqual([
      ['repository:ocp/release:pull'],
      ['repository:ocp/release:pull', 'repository:extra/repo:pull'],
    ]);
  });

  test('the registry keeps refusing (anonymous push): one re-token, then an error, no loop', async () => {
    const dest = await openPushTarget(`${proxy.host}/anon/push:v1`, { insecure: true, env: {}, retry: RETRY });
    const img = await makeImage({ noise: 100 });
    const err = (await dest.pushBlob(img.config.desc, img.config.bytes).catch((e: unknown) => e)) as Error;
    // The registry's error, as oc's client words it.
    expect(err.message).toMatch(/: unauthorized: authentication required$/);
    expect(token.requests).toHaveLength(2);
    expect(proxy.matching('POST', /\/v2\/anon\/push\/blobs\/uploads\//)).toHaveLength(2);
  });
});
