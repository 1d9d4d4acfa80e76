/**
 * One retry loop owns a request and the read of its body: a manifest or blob whose requests alternate between
 * a 503 and a body cut short is tried at most 1 + retries times in all. (Two nested loops, one around the
 * request and one around the body read, multiplied them: 13 requests for a policy of 3.)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, test } from 'vitest';
import { OsimageError } from '../../src/errors.js';
import { openRemote, type RemoteOptions } from '../../src/registry/remote.js';
import type { FaultProxy } from '../helpers/fault-proxy.js';
import { readAll, type TestImage, useProxiedImage } from './fixtures.js';

let proxy: FaultProxy;
let image: TestImage;
let ref: string;
const RETRY = { retries: 3, baseDelayMs: 1, maxDelayMs: 4, maxRetryAfterMs: 5_000 };
const opts = (extra: RemoteOptions = {}): RemoteOptions => ({ insecure: true, retry: RETRY, env: {}, ...extra });

useProxiedImage(8192, (s) => {
  ({ proxy, image, ref } = s);
});

const blobPath = (digest: string) => new RegExp(`/v2/ocp/release/blobs/${digest}$`);
const manifestPath = /\/v2\/ocp\/release\/manifests\/4\.16\.0$/;

/**
 * Every fourth request (the first included) answers 200 (206 to a Range) and cuts the body after 10 bytes; the
 * others answer 503. Through nested loops each cut body gets a fresh set of request retries.
 */
function cutThen503s(bytes: Buffer, contentType?: string) {
  let n = 0;
  return (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    if (n++ % 4 !== 0) {
      res.writeHead(503, { 'content-length': '0' }).end();
      return;
    }
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    res.writeHead(m ? 206 : 200, {
      'content-length': String(bytes.length - start),
      ...(contentType ? { 'content-type': contentType } : {}),
      ...(m ? { 'content-range': `bytes ${start}-${bytes.length - 1}/${bytes.length}` } : {}),
    });
    res.write(bytes.subarray(start, start + 10), () => res.socket?.destroy());
  };
}

describe('one retry loop around request and body', () => {
  test('a manifest whose requests fail by turns (503, cut body) is requested 1 + retries times', async () => {
    const { bytes, desc } = image.manifest;
    proxy.fault({ path: manifestPath, times: Infinity, action: { respond: cutThen503s(bytes, desc.mediaType) } });
    await expect((await openRemote(ref, opts())).manifest()).rejects.toThrow(OsimageError);
    expect(proxy.matching('GET', manifestPath)).toHaveLength(1 + RETRY.retries);
  });

  test('a blob whose requests fail by turns (cut body, 503) is requested 1 + retries times, resumes included', async () => {
    const layer = image.layers[0]!;
    const path = blobPath(layer.desc.digest);
    proxy.fault({ path, times: Infinity, action: { respond: cutThen503s(layer.bytes) } });
    const src = await openRemote(ref, opts());
    await expect(src.blob(layer.desc).then(readAll)).rejects.toThrow(OsimageError);
    const gets = proxy.matching('GET', path);
    expect(gets).toHaveLength(1 + RETRY.retries);
    // The first request reads from the start; the cut at byte 10 is resumed from there (after a 503 in between).
    expect(gets[0]!.headers.range).toBeUndefined();
    expect(gets.slice(1).every((g) => g.headers.range === 'bytes=10-')).toBe(true);
  });

  test('a blob cut once is resumed and read whole within the same loop', async () => {
    const layer = image.layers[0]!;
    const path = blobPath(layer.desc.digest);
    proxy.fault({ path, action: { dropAfter: 100 } });
    proxy.fault({ path, times: 2, action: { status: 503 } });
    const got = await readAll(await (await openRemote(ref, opts())).blob(layer.desc));
    expect(got.equals(layer.bytes)).toBe(true);
    expect(proxy.matching('GET', path)).toHaveLength(4);
  });
});
