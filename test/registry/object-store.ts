/**
 * A stand-in for the object storage a registry redirects blob downloads to (S3, a CDN): another
 * origin on 127.0.0.1 serving single-use presigned URLs. Like S3 it refuses a request that carries
 * an Authorization header (400), and like an expired signature it refuses a URL used twice (403).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ObjectStoreRequest {
  url: string;
  authorization: string | undefined;
  range: string | undefined;
  status: number;
}

export interface ObjectStore {
  url: string;
  requests: ObjectStoreRequest[];
  /** A fresh single-use URL for a blob. */
  presign(digest: string): string;
  /** Cut the next download after this many bytes. */
  dropNextAfter: number | undefined;
  close(): Promise<void>;
}

export async function startObjectStore(fetchBlob: (digest: string) => Promise<Buffer>): Promise<ObjectStore> {
  const requests: ObjectStoreRequest[] = [];
  const valid = new Set<string>();
  let n = 0;
  const server: Server = createServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const entry: ObjectStoreRequest = { url: req.url ?? '', authorization: req.headers.authorization, range: req.headers.range, status: 0 };
    requests.push(entry);
    const end = (status: number, text: string) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    };
    if (req.headers.authorization) return end(400, 'Only one auth mechanism allowed');
    const m = /^\/presigned\/(sha256:[a-f0-9]{64})$/.exec(u.pathname);
    const sig = u.searchParams.get('sig') ?? '';
    if (!m) return end(404, 'no such object');
    if (!valid.delete(sig)) return end(403, 'Request has expired');
    const bytes = await fetchBlob(m[1]!);
    let start = 0;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range) start = Number(range[1]);
    const body = bytes.subarray(start);
    entry.status = range ? 206 : 200;
    res.writeHead(entry.status, {
      'content-length': String(body.length),
      'content-type': 'application/octet-stream',
      ...(range ? { 'content-range': `bytes ${start}-${bytes.length - 1}/${bytes.length}` } : {}),
    });
    const drop = store.dropNextAfter;
    if (drop !== undefined) {
      store.dropNextAfter = undefined;
      res.write(body.subarray(0, drop), () => res.socket?.destroy());
      return;
    }
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const store: ObjectStore = {
    url,
    requests,
    dropNextAfter: undefined,
    presign(digest) {
      const sig = `s${++n}`;
      valid.add(sig);
      return `${url}/presigned/${digest}?sig=${sig}`;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return store;
}
