/**
 * The parts of undici osimage uses: the proxy-aware agent and the request API. The package's index also
 * loads fetch, WebSocket, EventSource, the cache and the mocks, which doubles the import time of every
 * command that makes a request (measured in hack/bench: ~120 ms for the index, ~55 ms for these parts).
 * Same library, same version; types come from the package itself.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

export const EnvHttpProxyAgent = require('undici/lib/dispatcher/env-http-proxy-agent.js') as typeof Undici.EnvHttpProxyAgent;

const api = require('undici/lib/api/index.js') as Record<string, unknown>;
// As undici's index does: every dispatcher gets request/stream/connect/… (the proxy agent tunnels with connect).
Object.assign((require('undici/lib/dispatcher/dispatcher.js') as { prototype: object }).prototype, api);

export type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  method?: Undici.Dispatcher.HttpMethod;
  dispatcher: Undici.Dispatcher;
};

/** `undici.request(url, opts)` with an explicit dispatcher. */
export function request(url: string, opts: RequestOptions): Promise<Undici.Dispatcher.ResponseData> {
  const u = new URL(url);
  const { dispatcher, ...rest } = opts;
  return dispatcher.request({
    ...rest,
    origin: u.origin,
    path: `${u.pathname}${u.search}`,
    method: opts.method ?? 'GET',
  });
}
