/**
 * Against the real distribution registry without auth, through the fault proxy: push and pull,
 * negotiation, verification, retries and resumed blobs.
 */
import { describe, expect, test } from 'vitest';
import { OsimageError, type Warning } from '../../src/errors.js';
import { openPushTarget } from '../../src/registry/push.js';
import { RegistryError } from '../../src/registry/errors.js';
import { MANIFEST_ACCEPT, openRemote, type RemoteOptions } from '../../src/registry/remote.js';
import { MAX_MANIFEST_BYTES, MEDIA_TYPES, isIndex, type ImageIndex } from '../../src/registry/types.js';
import { sha256Digest } from '../../src/oci/digest.js';
import type { FaultProxy } from '../helpers/fault-proxy.js';
import { makeImage, pushImage, pushIndex, readAll, type TestImage, useProxiedImage } from './fixtures.js';

let proxy: FaultProxy;
let image: TestImage;
let ref: string;
/** One Retry-After second, less the millisecond or two a timer may fire early. */
const RETRY_AFTER_SLACK = 990;
const RETRY = { retries: 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 5_000 };
const opts = (extra: RemoteOptions = {}): RemoteOptions => ({ insecure: true, retry: RETRY, env: {}, ...extra });

useProxiedImage(8192, (s) => {
  ({ proxy, image, ref } = s);
});

const blobPath = (digest: string) => new RegExp(`/v2/ocp/release/blobs/${digest}$`);
const manifestPath = (id: string) => new RegExp(`/v2/ocp/release/manifests/${id.replace('.', '\\.')}$`);

describe('push then pull', () => {
  test('manifest by tag and by digest, blobs byte-identical, progress reported', async () => {
    const progress: number[] = [];
    const src = await openRemote(ref, opts({ onProgress: (_d, done) => progress.push(done) }));
    expect(src.name).toBe(ref);
    const m = await src.manifest();
    expect(m.digest).toBe(image.manifest.desc.digest);
    expect(m.mediaType).toBe(MEDIA_TYPES.ociManifest);
    expect(m.bytes.equals(image.manifest.bytes)).toBe(true);
    expect(isIndex(m.parsed)).toBe(false);
    const again = await src.manifestByDigest(m.digest);
    expect(again.bytes.equals(m.bytes)).toBe(true);
    for (const b of [image.config, ...image.layers]) {
      expect((await readAll(await src.blob(b.desc))).equals(b.bytes)).toBe(true);
    }
    expect(progress.at(-1)).toBe(image.layers[0]!.desc.size);
    expect(src.pullspecFor(m.digest)).toBe(`${proxy.host}/ocp/release@${m.digest}`);
    // the full Accept list, and never schema1
    const accept = String(proxy.matching('GET', manifestPath('4.16.0'))[0]!.headers.accept);
    expect(accept).toBe(MANIFEST_ACCEPT);
    for (const t of [MEDIA_TYPES.ociIndex, MEDIA_TYPES.ociManifest, MEDIA_TYPES.dockerList, MEDIA_TYPES.dockerManifest])
      expect(accept).toContain(t);
    expect(accept).not.toContain(MEDIA_TYPES.dockerSchema1);
    expect(accept).not.toContain(MEDIA_TYPES.dockerSchema1Signed);
    await src.close();
  });

  test('chunked upload, existence check, and cross-repository mount with upload fallback', async () => {
    const img = await makeImage({ noise: 5000 });
    const digest = await pushImage(`${proxy.host}/chunked/img:v1`, img, { insecure: true, env: {}, chunkSize: 1024 });
    expect(proxy.matching('PATCH', /\/v2\/chunked\/img\/blobs\/uploads\//).length).toBeGreaterThan(3);
    const src = await openRemote(`${proxy.host}/chunked/img@${digest}`, opts());
    const m = await src.manifest();
    expect(m.digest).toBe(digest);
    expect((await readAll(await src.blob(img.layers[0]!.desc))).equals(img.layers[0]!.bytes)).toBe(true);

    const dest = await openPushTarget(`${proxy.host}/mounted/img:v1`, { insecure: true, env: {} });
    const layer = img.layers[0]!;
    expect(await dest.hasBlob(layer.desc.digest)).toBe(false);
    expect(await dest.pushBlob(layer.desc, layer.bytes, { mountFrom: 'chunked/img' })).toBe('mounted');
    expect(await dest.hasBlob(layer.desc.digest)).toBe(true);
    expect(await dest.pushBlob(layer.desc, layer.bytes)).toBe('exists');
    // a source repository without the blob: the registry answers 202 and we upload instead
    const other = await makeImage({ noise: 100 });
    expect(await dest.pushBlob(other.config.desc, other.config.bytes, { mountFrom: 'nowhere/repo' })).toBe('uploaded');
    expect(proxy.matching('POST', /mount=.*from=nowhere%2Frepo/)).toHaveLength(1);
    expect(await dest.hasBlob(other.config.desc.digest)).toBe(true);
  });

  test('multi-arch index: the index, then each child by digest', async () => {
    const amd = await makeImage({ platform: { os: 'linux', architecture: 'amd64' }, noise: 300 });
    const arm = await makeImage({ platform: { os: 'linux', architecture: 'arm64', variant: 'v8' }, noise: 300 });
    const { index, digests } = await pushIndex(`${proxy.host}/multi/arch:latest`, [amd, arm], { insecure: true, env: {} });
    const src = await openRemote(`${proxy.host}/multi/arch`, opts());
    const m = await src.manifest();
    expect(m.mediaType).toBe(MEDIA_TYPES.ociIndex);
    expect(m.digest).toBe(index.desc.digest);
    expect(isIndex(m.parsed)).toBe(true);
    const children = (m.parsed as ImageIndex).manifests;
    expect(children.map((c) => c.platform?.architecture)).toEqual(['amd64', 'arm64']);
    for (const [i, child] of children.entries()) {
      const cm = await src.manifestByDigest(child.digest);
      expect(cm.digest).toBe(digests[i]);
      expect(cm.mediaType).toBe(MEDIA_TYPES.ociManifest);
    }
  });

  test('a missing tag: one request, oc-style "not found" naming the image', async () => {
    const src = await openRemote(`${proxy.host}/ocp/release:nope`, opts());
    const err = (await src.manifest().catch((e: unknown) => e)) as RegistryError;
    expect(err).toBeInstanceOf(RegistryError);
    expect(err.code).toBe('not-found');
    // oc's words: the image named once, then the registry's error as Go's errcode words it.
    // oc adm release info --insecure REGISTRY/ocp/release:4.99.99 → error: image "…" not found: manifest unknown: manifest unknown
    expect(err.message).toBe(`image "${proxy.host}/ocp/release:nope" not found: manifest unknown: manifest unknown`);
    expect(err.detail).toMatch(/^MANIFEST_UNKNOWN/);
    expect(proxy.matching('GET', manifestPath('nope'))).toHaveLength(1);
  });
});

describe('manifest negotiation', () => {
  const schema1 = JSON.stringify({ schemaVersion: 1, name: 'ocp/release', tag: 'old', architecture: 'amd64', fsLayers: [], history: [] });

  test('schema1 is refused with a clear "unsupported" error', async () => {
    proxy.fault({
      path: manifestPath('old'),
      action: { respond: (_req, res) => void res.writeHead(200, { 'content-type': MEDIA_TYPES.dockerSchema1Signed }).end(schema1) },
    });
    const src = await openRemote(`${proxy.host}/ocp/release:old`, opts());
    await expect(src.manifest()).rejects.toThrow(/schema1 is unsupported/);
    // and when labelled application/json, by its schemaVersion
    proxy.fault({
      path: manifestPath('old'),
      action: { respond: (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(schema1) },
    });
    await expect(src.manifest()).rejects.toThrow(/schema1 is unsupported/);
  });

  test('a registry that would send schema1 unless asked for v2 types never sends it to us', async () => {
    proxy.fault({
      path: manifestPath('negotiated'),
      action: {
        respond: (req, res) => {
          const accept = String(req.headers.accept ?? '');
          if (accept.includes(MEDIA_TYPES.ociManifest)) {
            res.writeHead(200, { 'content-type': MEDIA_TYPES.ociManifest }).end(image.manifest.bytes);
          } else {
            res.writeHead(200, { 'content-type': MEDIA_TYPES.dockerSchema1Signed }).end(schema1);
          }
        },
      },
    });
    const m = await (await openRemote(`${proxy.host}/ocp/release:negotiated`, opts())).manifest();
    expect(m.mediaType).toBe(MEDIA_TYPES.ociManifest);
  });

  test('Content-Type parameters are ignored; a body mediaType that contradicts it is rejected', async () => {
    proxy.fault({
      path: manifestPath('charset'),
      action: {
        respond: (_req, res) =>
          void res.writeHead(200, { 'content-type': `${MEDIA_TYPES.ociManifest}; charset=utf-8` }).end(image.manifest.bytes),
      },
    });
    const m = await (await openRemote(`${proxy.host}/ocp/release:charset`, opts())).manifest();
    expect(m.mediaType).toBe(MEDIA_TYPES.ociManifest);
    proxy.fault({
      path: manifestPath('liar'),
      action: { respond: (_req, res) => void res.writeHead(200, { 'content-type': MEDIA_TYPES.dockerManifest }).end(image.manifest.bytes) },
    });
    await expect((await openRemote(`${proxy.host}/ocp/release:liar`, opts())).manifest()).rejects.toThrow(
      /Content-Type .*v2\+json but the manifest says mediaType .*oci/,
    );
  });

  test('Warning: 299 headers reach onWarning, each distinct text once', async () => {
    const respond = (_req: unknown, res: import('node:http').ServerResponse) =>
      void res
        .writeHead(200, { 'content-type': MEDIA_TYPES.ociManifest, warning: '299 - "this repository is deprecated"' })
        .end(image.manifest.bytes);
    proxy.fault({ path: manifestPath('warned'), times: 2, action: { respond } });
    const warnings: string[] = [];
    const src = await openRemote(`${proxy.host}/ocp/release:warned`, opts({ onWarning: (w) => warnings.push(w.message) }));
    await src.manifest();
    await src.manifest();
    expect(warnings).toEqual([`registry ${proxy.host}: this repository is deprecated`]);
  });

  test('a manifest over the size cap is refused', async () => {
    const big = Buffer.alloc(MAX_MANIFEST_BYTES + 10, 0x20);
    proxy.fault({
      path: manifestPath('big'),
      action: { respond: (_req, res) => void res.writeHead(200, { 'content-type': MEDIA_TYPES.ociManifest }).end(big) },
    });
    await expect((await openRemote(`${proxy.host}/ocp/release:big`, opts())).manifest()).rejects.toThrow(/(larger|more) than the 4194304/);
  });
});

describe('verification', () => {
  test('a manifest fetched by digest whose bytes hash differently: an error naming both digests', async () => {
    const digest = image.manifest.desc.digest;
    proxy.fault({ path: manifestPath(digest), action: { flipAt: 10 } });
    const src = await openRemote(`${proxy.host}/ocp/release@${digest}`, opts());
    const err = (await src.manifest().catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(OsimageError);
    expect(err.message).toContain(digest);
    const flipped = Buffer.from(image.manifest.bytes);
    flipped[10] = flipped[10]! ^ 0xff;
    expect(err.message).toContain(sha256Digest(flipped));
    // the registry's own Docker-Content-Digest header claimed the right digest
    expect(proxy.matching('GET', manifestPath(digest))).toHaveLength(1);
  });

  test('by tag, the body is checked against Docker-Content-Digest; --skip-verification makes it a warning', async () => {
    // a byte inside the config's media type: still a well-formed manifest (a flipped digest no longer is), but not the one pushed
    const at = image.manifest.bytes.indexOf(image.config.desc.mediaType) + 20;
    proxy.fault({ path: manifestPath('4.16.0'), action: { flipAt: at } });
    await expect((await openRemote(ref, opts())).manifest()).rejects.toThrow(
      new RegExp(`expected ${image.manifest.desc.digest}, got sha256:`),
    );
    proxy.fault({ path: manifestPath('4.16.0'), action: { flipAt: at } });
    const warnings: string[] = [];
    const m = await (await openRemote(ref, opts({ skipVerification: true, onWarning: (w) => warnings.push(w.message) }))).manifest();
    expect(m.digest).not.toBe(image.manifest.desc.digest);
    expect(warnings.join('\n')).toMatch(/digest mismatch.*--skip-verification/);
  });

  test('a blob with one flipped byte fails at its end naming both digests; skip-verification warns', async () => {
    const layer = image.layers[0]!;
    proxy.fault({ path: blobPath(layer.desc.digest), action: { flipAt: 100 } });
    const src = await openRemote(ref, opts());
    const err = (await readAll(await src.blob(layer.desc)).catch((e: unknown) => e)) as Error & { code?: string };
    expect(err.message).toContain(layer.desc.digest);
    expect(err.code).toBe('digest-mismatch');
    const bad = Buffer.from(layer.bytes);
    bad[100] = bad[100]! ^ 0xff;
    expect(err.message).toContain(sha256Digest(bad));

    proxy.fault({ path: blobPath(layer.desc.digest), action: { flipAt: 100 } });
    const warnings: Warning[] = [];
    const lenient = await openRemote(ref, opts({ skipVerification: true, onWarning: (w) => warnings.push(w) }));
    expect((await readAll(await lenient.blob(layer.desc))).equals(bad)).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.code).toBe('digest-mismatch');
    expect(warnings[0]!.message).toContain(layer.desc.digest);
  });

  test('Content-Length different from the descriptor size fails before reading', async () => {
    const layer = image.layers[0]!;
    const src = await openRemote(ref, opts());
    await expect(src.blob({ ...layer.desc, size: layer.desc.size + 1 })).rejects.toThrow(/Content-Length \d+ but the descriptor says/);
  });
});

describe('retries and resume', () => {
  test('503, 503, 200 → success after three requests', async () => {
    proxy.fault({ path: manifestPath('4.16.0'), times: 2, action: { status: 503 } });
    const m = await (await openRemote(ref, opts())).manifest();
    expect(m.digest).toBe(image.manifest.desc.digest);
    expect(proxy.matching('GET', manifestPath('4.16.0')).map((r) => r.status)).toEqual([503, 503, 200]);
  });

  test('a 503 on the ping is retried too (after the https attempt fell back to http)', async () => {
    proxy.fault({ path: /^\/v2\/$/, action: { status: 503 } });
    await (await openRemote(ref, opts())).manifest();
    expect(proxy.matching('GET', /^\/v2\/$/).map((r) => r.status)).toEqual([503, 200]);
  });

  test('a connection reset before the answer is retried', async () => {
    proxy.fault({ path: manifestPath('4.16.0'), action: { respond: (req) => void req.socket.destroy() } });
    const m = await (await openRemote(ref, opts())).manifest();
    expect(m.digest).toBe(image.manifest.desc.digest);
    expect(proxy.matching('GET', manifestPath('4.16.0'))).toHaveLength(2);
  });

  test('429 with Retry-After is retried after the wait it asks for; a Retry-After beyond the limit fails at once, naming the wait', async () => {
    proxy.fault({ path: manifestPath('4.16.0'), action: { status: 429, headers: { 'retry-after': '1' } } });
    await (await openRemote(ref, opts())).manifest();
    const tries = proxy.matching('GET', manifestPath('4.16.0'));
    expect(tries.map((r) => r.status)).toEqual([429, 200]);
    // The policy's own backoff is 5-20 ms: only the server's Retry-After explains a second's gap.
    // (Timers may fire a millisecond early, hence the small slack.)
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(RETRY_AFTER_SLACK);

    proxy.clear();
    proxy.fault({ path: manifestPath('4.16.0'), action: { status: 429, headers: { 'retry-after': '120' } } });
    await expect((await openRemote(ref, opts())).manifest()).rejects.toThrow(/retry after 120s/);
    expect(proxy.matching('GET', manifestPath('4.16.0'))).toHaveLength(1);
  });

  test('403 DENIED: one request, oc-style "does not exist or you don\'t have permission"', async () => {
    const body = JSON.stringify({ errors: [{ code: 'DENIED', message: 'requested access to the resource is denied' }] });
    proxy.fault({ path: manifestPath('4.16.0'), action: { status: 403, headers: { 'content-type': 'application/json' }, body } });
    await expect((await openRemote(ref, opts())).manifest()).rejects.toThrow(
      new RegExp(`image "${ref}" does not exist or you don't have permission to access the repository`),
    );
    expect(proxy.matching('GET', manifestPath('4.16.0'))).toHaveLength(1);
  });

  test('401 for a repository the ping let through: one retry with the challenge, then "no basic auth credentials"', async () => {
    proxy.fault({ path: manifestPath('4.16.0'), times: 2, action: { status: 401, headers: { 'www-authenticate': 'Basic realm="r"' } } });
    await expect((await openRemote(ref, opts())).manifest()).rejects.toThrow(
      new RegExp(`^unable to read image ${ref}: Head "http://${proxy.host}/v2/\\S+/manifests/4.16.0": no basic auth credentials$`),
    );
    expect(proxy.matching('GET', manifestPath('4.16.0'))).toHaveLength(2);
  });

  test('Retry-After as an HTTP date (here in the past) is honoured as "now"', async () => {
    proxy.fault({
      path: manifestPath('4.16.0'),
      action: { status: 429, headers: { 'retry-after': new Date(Date.now() - 60_000).toUTCString() } },
    });
    await (await openRemote(ref, opts())).manifest();
    expect(proxy.matching('GET', manifestPath('4.16.0')).map((r) => r.status)).toEqual([429, 200]);
  });

  test('a malformed WWW-Authenticate on the ping is an error naming the header, not a crash', async () => {
    proxy.fault({ path: /^\/v2\/$/, action: { status: 401, headers: { 'www-authenticate': 'Bearer realm="x' } } });
    await expect((await openRemote(ref, opts())).manifest()).rejects.toThrow(/cannot parse WWW-Authenticate header .*unterminated/);
  });

  test('retries stop after the policy: 1 + retries requests, the error names URL and status', async () => {
    proxy.fault({ path: manifestPath('4.16.0'), times: Infinity, action: { status: 502 } });
    await expect((await openRemote(ref, opts())).manifest()).rejects.toThrow(
      /502 Bad Gateway from http:\/\/127\.0\.0\.1:\d+\/v2\/ocp\/release\/manifests\/4\.16\.0/,
    );
    expect(proxy.matching('GET', manifestPath('4.16.0'))).toHaveLength(1 + RETRY.retries);
  });

  test('a blob dropped at 60% resumes with Range from the registry URL and verifies the whole', async () => {
    const layer = image.layers[0]!;
    const cut = Math.floor(layer.desc.size * 0.6);
    proxy.fault({ path: blobPath(layer.desc.digest), action: { dropAfter: cut } });
    const src = await openRemote(ref, opts());
    const got = await readAll(await src.blob(layer.desc));
    expect(got.equals(layer.bytes)).toBe(true);
    const gets = proxy.matching('GET', blobPath(layer.desc.digest));
    expect(gets).toHaveLength(2);
    expect(gets[0]!.headers.range).toBeUndefined();
    expect(gets[1]!.headers.range).toBe(`bytes=${cut}-`);
    expect(gets[1]!.status).toBe(206);
  });

  test('a resumed blob that comes back whole (200 to Range) fails cleanly, never concatenated', async () => {
    const layer = image.layers[0]!;
    proxy.fault({ path: blobPath(layer.desc.digest), action: { dropAfter: 1000 } });
    proxy.fault({
      path: blobPath(layer.desc.digest),
      action: { respond: (_req, res) => void res.writeHead(200, { 'content-length': String(layer.bytes.length) }).end(layer.bytes) },
    });
    const src = await openRemote(ref, opts());
    await expect(readAll(await src.blob(layer.desc))).rejects.toThrow(/cannot resume at byte 1000: .* answered 200 OK to a Range request/);
  });

  test('a blob that keeps dropping gives up after the policy', async () => {
    const layer = image.layers[0]!;
    proxy.fault({ path: blobPath(layer.desc.digest), times: Infinity, action: { dropAfter: 0 } });
    const src = await openRemote(ref, opts());
    await expect(src.blob(layer.desc).then(readAll)).rejects.toThrow(OsimageError);
  });
});
