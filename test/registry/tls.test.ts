/**
 * HTTPS by default: a registry behind TLS with a self-signed certificate is refused unless its CA is
 * given (--certificate-authority) or verification is off (--insecure); plain HTTP needs --insecure;
 * a blob redirect from https to http is refused.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { io, withIo } from '../../src/context.js';
import { hintFor } from '../../src/output/hints.js';
import { openRemote, type RemoteOptions } from '../../src/registry/remote.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { selfSignedCert } from '../helpers/tls.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { makeImage, pushImage, readAll, type TestImage } from './fixtures.js';
import { startObjectStore, type ObjectStore } from './object-store.js';

let reg: TestRegistry;
let tlsProxy: FaultProxy;
let store: ObjectStore;
let dir: string;
let caFile: string;
let image: TestImage;
let ref: string;
const RETRY = { retries: 1, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 5_000 };
const opts = (extra: RemoteOptions = {}): RemoteOptions => ({ retry: RETRY, env: {}, home: dir, ...extra });

printLogsOnFailure(() => reg);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-tls-'));
  const tls = await selfSignedCert(dir);
  caFile = tls.certFile;
  reg = await startRegistry({ mode: 'open' });
  tlsProxy = await startFaultProxy(reg.url, { tls: { cert: tls.cert, key: tls.key } });
  store = await startObjectStore(async (digest) => Buffer.from(await (await fetch(`${reg.url}/v2/tls/img/blobs/${digest}`)).arrayBuffer()));
  image = await makeImage({ noise: 1000 });
  ref = `${tlsProxy.host}/tls/img:v1`;
  await pushImage(ref, image, { caFile, env: {} });
});
afterAll(async () => {
  await store?.close();
  await tlsProxy?.close();
  await reg?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});
beforeEach(() => tlsProxy.clear());

describe('TLS', () => {
  test('an untrusted certificate is refused, naming the registry and suggesting the flags', async () => {
    const err = (await (await openRemote(ref, opts())).manifest().catch((e: unknown) => e)) as Error;
    // oc's words (Go's crypto/x509): `unable to read image REF: Get "URL": x509: certificate signed by unknown authority`
    expect(err.message).toBe(
      `unable to read image ${ref}: Get "https://${tlsProxy.host}/v2/": x509: certificate signed by unknown authority`,
    );
    // The flags are the CLI's one hint (src/output/hints.ts), not part of the message.
    expect(hintFor(err)).toContain('--certificate-authority');
    expect(hintFor(err)).toContain('--insecure');
    expect(tlsProxy.requests).toHaveLength(0);
  });

  test('--certificate-authority trusts it; blobs verify', async () => {
    const src = await openRemote(ref, opts({ caFile }));
    const m = await src.manifest();
    expect(m.digest).toBe(image.manifest.desc.digest);
    expect((await readAll(await src.blob(image.layers[0]!.desc))).equals(image.layers[0]!.bytes)).toBe(true);
    expect(tlsProxy.requests[0]!.url).toBe('/v2/');
  });

  test('--certificate-authority adds to what is trusted: a blob sent to a host with another CA still verifies', async () => {
    // The object store behind TLS with a CA of its own, which the run already trusts (NODE_EXTRA_CA_CERTS stands for
    // Node's built-in list, which no local server can be signed by); the registry's CA comes with --certificate-authority.
    const other = await mkdtemp(join(dir, 'store-ca-'));
    const storeTls = await selfSignedCert(other);
    const front = await startFaultProxy(store.url, { tls: { cert: storeTls.cert, key: storeTls.key } });
    try {
      const layer = image.layers[0]!;
      tlsProxy.fault({
        path: new RegExp(`/blobs/${layer.desc.digest}$`),
        action: { redirect: () => store.presign(layer.desc.digest).replace(store.url, front.url) },
      });
      // The run's environment (as main gives it to a command), which the HTTP client reads its CAs with.
      const run = { ...io(), env: { NODE_EXTRA_CA_CERTS: storeTls.certFile } };
      const bytes = await withIo(run, async () => readAll(await (await openRemote(ref, opts({ caFile }))).blob(layer.desc)));
      expect(bytes.equals(layer.bytes)).toBe(true);
      expect(front.requests.map((r) => r.url)).toEqual([expect.stringMatching(/^\/presigned\/sha256:/)]);
    } finally {
      await front.close();
      // The other tests count the store's requests from none.
      store.requests.length = 0;
    }
  });

  test('--insecure skips verification and stays on https when the registry speaks it', async () => {
    const m = await (await openRemote(ref, opts({ insecure: true }))).manifest();
    expect(m.digest).toBe(image.manifest.desc.digest);
    expect(tlsProxy.requests.length).toBeGreaterThan(0);
  });

  test('a blob redirect from https to plain http is refused', async () => {
    const layer = image.layers[0]!;
    tlsProxy.fault({ path: new RegExp(`/blobs/${layer.desc.digest}$`), action: { redirect: () => store.presign(layer.desc.digest) } });
    const src = await openRemote(ref, opts({ caFile }));
    await expect(src.blob(layer.desc)).rejects.toThrow(/refusing redirect from https to plain http/);
    expect(store.requests).toHaveLength(0);
  });

  test('a token realm over plain http is refused unless --insecure', async () => {
    const tokenReg = await startRegistry({ mode: 'token' });
    const front = await startFaultProxy(tokenReg.url, { tls: { cert: await readFile(caFile), key: await readFile(join(dir, 'tls.key')) } });
    try {
      const r = `${front.host}/some/repo:v1`;
      await expect((await openRemote(r, opts({ caFile }))).manifest()).rejects.toThrow(
        /token realm http:\/\/127\.0\.0\.1:\d+\/token that is not https/,
      );
      expect(tokenReg.token!.requests).toHaveLength(0);
      // with --insecure the realm is accepted (and the repository simply does not exist)
      await expect((await openRemote(r, opts({ insecure: true }))).manifest()).rejects.toThrow(/not found/);
      expect(tokenReg.token!.requests).toHaveLength(1);
    } finally {
      await front.close();
      await tokenReg.stop();
    }
  });

  test('a plain-HTTP registry needs --insecure', async () => {
    const err = (await (await openRemote(`${reg.host}/tls/img:v1`, opts())).manifest().catch((e: unknown) => e)) as Error;
    // oc: `unable to read image 127.0.0.1:5077/foo:bar: Get "https://127.0.0.1:5077/v2/": http: server gave HTTP response to HTTPS client`
    expect(err.message).toBe(
      `unable to read image ${reg.host}/tls/img:v1: Get "https://${reg.host}/v2/": http: server gave HTTP response to HTTPS client`,
    );
    expect(hintFor(err)).toContain('--insecure');
    const m = await (await openRemote(`${reg.host}/tls/img:v1`, opts({ insecure: true }))).manifest();
    expect(m.digest).toBe(image.manifest.desc.digest);
  });
});
