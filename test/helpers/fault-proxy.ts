/**
 * An HTTP reverse proxy on 127.0.0.1 in front of a real server (the registry) that injects faults on
 * chosen requests and records every request: status answers (5xx, 429 with Retry-After), connections
 * dropped after N body bytes, flipped bytes, redirects, or a whole answer of the test's making.
 *
 * The Host header is passed through, so the registry builds upload Locations that point at the proxy.
 */
import {
  request as httpRequest,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export type FaultAction =
  /** Answer with this status (and headers/body) instead of forwarding. */
  | { status: number; headers?: Record<string, string>; body?: string }
  /** Forward, but cut the connection after this many body bytes. */
  | { dropAfter: number }
  /** Forward, with the byte at this body offset XORed with 0xff. */
  | { flipAt: number }
  /** Answer 307 to the URL the function returns. */
  | { redirect: (req: IncomingMessage) => string }
  /** Answer entirely as the test wants. */
  | { respond: (req: IncomingMessage, res: ServerResponse) => void | Promise<void> };

export interface FaultRule {
  /** Matched against the path and query. */
  path: RegExp;
  method?: string;
  /** How many matching requests get the fault (default 1; Infinity for all). */
  times?: number;
  /** Skip this many matching requests first (default 0). */
  skip?: number;
  action: FaultAction;
}

export interface ProxyRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  status: number;
  /** Body bytes sent to the client. */
  bytes: number;
  /** Which fault was applied, if any. */
  fault?: string;
  /** When the request arrived (performance.now(), ms): waits between requests can be asserted. */
  at: number;
}

export interface FaultProxy {
  url: string;
  host: string;
  requests: ProxyRequest[];
  rules: FaultRule[];
  /** Add a rule; returns the proxy for chaining. */
  fault(rule: FaultRule): FaultProxy;
  clear(): void;
  /** Requests matching a method and path pattern. */
  matching(method: string, path: RegExp): ProxyRequest[];
  close(): Promise<void>;
}

interface LiveRule extends FaultRule {
  seen: number;
  used: number;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade'];

export interface FaultProxyOptions {
  /** Serve HTTPS with this certificate and key (PEM) instead of plain HTTP. */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

export async function startFaultProxy(upstream: string, options: FaultProxyOptions = {}): Promise<FaultProxy> {
  const up = new URL(upstream);
  const requests: ProxyRequest[] = [];
  const rules: LiveRule[] = [];
  const sockets = new Set<Socket>();

  const pick = (req: IncomingMessage): LiveRule | undefined => {
    for (const r of rules) {
      if (r.method && r.method !== req.method) continue;
      if (!r.path.test(req.url ?? '/')) continue;
      r.seen++;
      if (r.seen <= (r.skip ?? 0)) continue;
      if (r.used >= (r.times ?? 1)) continue;
      r.used++;
      return r;
    }
    return undefined;
  };

  const handler: RequestListener = async (req, res) => {
    const entry: ProxyRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      status: 0,
      bytes: 0,
      at: performance.now(),
    };
    requests.push(entry);
    const rule = pick(req);
    const action = rule?.action;
    if (action && 'status' in action) {
      entry.fault = `status ${action.status}`;
      entry.status = action.status;
      req.resume();
      const body = action.body ?? '';
      entry.bytes = Buffer.byteLength(body);
      res.writeHead(action.status, { 'content-length': String(entry.bytes), ...action.headers }).end(body);
      return;
    }
    if (action && 'redirect' in action) {
      entry.fault = 'redirect';
      entry.status = 307;
      req.resume();
      res.writeHead(307, { location: action.redirect(req), 'content-length': '0' }).end();
      return;
    }
    if (action && 'respond' in action) {
      entry.fault = 'respond';
      res.on('finish', () => {
        entry.status = res.statusCode;
      });
      await action.respond(req, res);
      return;
    }
    const headers = { ...req.headers, ...(options.tls ? { 'x-forwarded-proto': 'https' } : {}) };
    const upReq = httpRequest({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers }, (upRes) => {
      entry.status = upRes.statusCode ?? 0;
      const outHeaders: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(upRes.headers)) if (v !== undefined && !HOP_BY_HOP.includes(k)) outHeaders[k] = v;
      res.writeHead(upRes.statusCode ?? 502, outHeaders);
      let offset = 0;
      const dropAfter = action && 'dropAfter' in action ? action.dropAfter : undefined;
      const flipAt = action && 'flipAt' in action ? action.flipAt : undefined;
      if (dropAfter !== undefined) entry.fault = `drop after ${dropAfter}`;
      if (dropAfter === 0) {
        upRes.destroy();
        res.flushHeaders();
        setImmediate(() => res.socket?.destroy());
        return;
      }
      if (flipAt !== undefined) entry.fault = `flip at ${flipAt}`;
      upRes.on('data', (chunk: Buffer) => {
        if (dropAfter !== undefined) {
          const room = dropAfter - offset;
          if (room <= 0) return;
          if (chunk.length >= room) {
            offset += room;
            entry.bytes += room;
            upRes.destroy();
            res.write(chunk.subarray(0, room), () => res.socket?.destroy());
            return;
          }
        }
        if (flipAt !== undefined && flipAt >= offset && flipAt < offset + chunk.length) {
          chunk = Buffer.from(chunk);
          chunk[flipAt - offset] = chunk[flipAt - offset]! ^ 0xff;
        }
        offset += chunk.length;
        entry.bytes += chunk.length;
        if (!res.write(chunk)) {
          upRes.pause();
          res.once('drain', () => upRes.resume());
        }
      });
      upRes.on('end', () => {
        if (dropAfter === undefined || offset < dropAfter) res.end();
      });
      upRes.on('error', () => res.destroy());
    });
    upReq.on('error', () => {
      entry.status = 502;
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upReq);
  };
  const server: Server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handler) : createServer(handler);
  server.on(options.tls ? 'secureConnection' : 'connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const proxy: FaultProxy = {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    rules,
    fault(rule) {
      rules.push({ ...rule, seen: 0, used: 0 });
      return proxy;
    },
    clear() {
      rules.length = 0;
      requests.length = 0;
    },
    matching(method, path) {
      return requests.filter((r) => r.method === method && path.test(r.url));
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
  return proxy;
}
