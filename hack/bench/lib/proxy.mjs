/**
 * A counting HTTP reverse proxy on 127.0.0.1 in front of the registry (the idea of test/helpers/fault-proxy.ts,
 * without the faults): every request is recorded with the response body bytes sent to the client, so a run
 * through it says exactly what a client fetched. The Host header is passed through, so the registry's
 * Location headers point back at the proxy.
 */
import { createServer, request as httpRequest } from 'node:http';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade']);

export async function startCountingProxy(upstream) {
  const up = new URL(upstream);
  const requests = [];
  const sockets = new Set();
  const server = createServer((req, res) => {
    const entry = { method: req.method, url: req.url, status: 0, bytes: 0 };
    requests.push(entry);
    const upReq = httpRequest({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
      entry.status = upRes.statusCode ?? 0;
      const headers = {};
      for (const [k, v] of Object.entries(upRes.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
      res.writeHead(upRes.statusCode ?? 502, headers);
      upRes.on('data', (chunk) => {
        entry.bytes += chunk.length;
        if (!res.write(chunk)) {
          upRes.pause();
          res.once('drain', () => upRes.resume());
        }
      });
      upRes.on('end', () => res.end());
      upRes.on('error', () => res.destroy());
      // A client that stops reading early (closes the connection) must not leave the upstream answer hanging.
      res.on('close', () => upRes.destroy());
    });
    upReq.on('error', () => {
      entry.status = 502;
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upReq);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    reset() {
      requests.length = 0;
    },
    /** Body bytes of successful GETs (what was fetched), and the request count. */
    totals() {
      const gets = requests.filter((r) => r.method === 'GET');
      return { bytes: gets.reduce((n, r) => n + r.bytes, 0), requests: requests.length, gets: gets.length };
    },
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
