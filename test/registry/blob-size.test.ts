/**
 * A registry (the real one, open, behind the fault proxy) that streams a blob past its descriptor's size,
 * or endlessly, is read no further than size + 1 chunk; a descriptor with a negative or fractional size is
 * refused. The proxy's endless body is bounded (it stops on its own after BOUND bytes), so a regression
 * fails the test instead of hanging it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, test } from 'vitest';
import { openRemote, type RemoteOptions } from '../../src/registry/remote.js';
import { MEDIA_TYPES } from '../../src/registry/types.js';
import type { FaultProxy } from '../helpers/fault-proxy.js';
import { readAll, type TestImage, useProxiedImage } from './fixtures.js';

let proxy: FaultProxy;
let image: TestImage;
let ref: string;
const RETRY = { retries: 1, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 5_000 };
const opts = (): RemoteOptions => ({ insecure: true, retry: RETRY, env: {} });
/** The "endless" body stops here: far more than any socket buffer, little enough to finish quickly. */
const BOUND = 256 * 1024 * 1024;

useProxiedImage(200, (s) => {
  ({ proxy, image, ref } = s);
});

/** Answer 200 with a chunked body of zeros that goes on until the client hangs up (or BOUND); report bytes written. */
function endless(sent: { bytes: number; closedByClient: boolean }) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024);
    res.on('close', () => {
      if (!res.writableFinished) sent.closedByClient = true;
    });
    while (sent.bytes < BOUND && !res.destroyed) {
      sent.bytes += chunk.length;
      if (res.write(chunk)) continue;
      await new Promise<void>((ok) => {
        res.once('drain', ok);
        res.once('close', ok);
      });
    }
    if (!res.destroyed) res.end();
  };
}

describe('blob size bounds', () => {
  test('an endless blob body is stopped just past the descriptor size, with an error naming the digest and registry', async () => {
    const layer = image.layers[0]!;
    const sent = { bytes: 0, closedByClient: false };
    proxy.fault({ method: 'GET', path: new RegExp(`/blobs/${layer.desc.digest}$`), action: { respond: endless(sent) } });
    const src = await openRemote(ref, opts());
    const err = await src
      .blob(layer.desc)
      .then(readAll)
      .then(
        () => undefined,
        (e: unknown) => e as Error & { code?: string },
      );
    expect(err?.message).toContain(`blob ${layer.desc.digest}`);
    expect(err?.message).toContain(`registry ${proxy.host} sent more than the ${layer.desc.size} bytes`);
    expect(err?.code).toBe('size-mismatch');
    // The client hung up long before the bound: it read about one chunk past the size, plus socket buffers.
    await new Promise((ok) => setTimeout(ok, 50));
    expect(sent.closedByClient).toBe(true);
    expect(sent.bytes).toBeLessThan(32 * 1024 * 1024);
  }, 20_000);

  test('a descriptor with a negative size is refused when read, naming the manifest', async () => {
    const src = await openRemote(ref, opts());
    const layer = image.layers[0]!;
    await expect(src.blob({ ...layer.desc, size: -1 })).rejects.toThrow(`blob ${layer.desc.digest} of ${proxy.host}/ocp/release`);
    const manifest = JSON.parse(image.manifest.bytes.toString()) as { layers: Array<{ size: number }> };
    for (const bad of [-1, 1.5]) {
      manifest.layers[0]!.size = bad;
      const body = JSON.stringify(manifest);
      proxy.fault({
        method: 'GET',
        path: /\/manifests\/bad$/,
        action: { status: 200, headers: { 'content-type': MEDIA_TYPES.ociManifest }, body },
      });
      const bad1 = await openRemote(`${proxy.host}/ocp/release:bad`, opts());
      await expect(bad1.manifest()).rejects.toThrow(
        `manifest ${proxy.host}/ocp/release:bad: layers[0] (${layer.desc.digest}) has size ${bad}, not a whole number of bytes`,
      );
    }
  });
});
