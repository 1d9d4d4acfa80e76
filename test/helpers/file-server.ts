import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';

/** A hook that may answer a request itself (return true) before the file is served. */
export type Fault = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

export interface FileServer {
  url: string;
  /** Every request path seen, in order. */
  requests: string[];
  /** Faults run in order before serving; tests push and clear them. */
  faults: Fault[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (port 0) serving a folder, as a release browser does; HTTPS with
 * `tls`. Faults let a test answer with 404/503/429, bad bodies, redirects or dropped connections.
 */
export async function serveFolder(
  root: string,
  options: { tls?: { cert: string | Buffer; key: string | Buffer } } = {},
): Promise<FileServer> {
  const requests: string[] = [];
  const faults: Fault[] = [];
  const handler: RequestListener = async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    for (const f of faults) if (await f(req, res)) return;
    const file = normalize(join(root, path));
    if (!file.startsWith(normalize(root) + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const st = await stat(file);
      if (!st.isFile()) throw new Error('not a file');
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': st.size });
      createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, handler) : createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    faults,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
