import { readFileSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import { env } from '../context.js';
import { readError } from '../files/read.js';
import { onShutdown } from '../lifecycle.js';
import { EnvHttpProxyAgent } from './undici.js';

export interface TlsOptions {
  /** Skip TLS verification (and, for registries, allow plain HTTP). */
  insecure?: boolean;
  /** A PEM file with extra certificate authorities. */
  caFile?: string;
}

const CONNECT_TIMEOUT_MS = 15_000;
const HEADERS_TIMEOUT_MS = 60_000;
const BODY_TIMEOUT_MS = 60_000;
/** Node's default (`http.maxHeaderSize`), given so that undici need not load node:http to ask for it. */
const MAX_HEADER_BYTES = 16 * 1024;

const cache = new Map<string, Dispatcher>();

/** The proxy settings of the current run (`env()`), lower case first as curl and undici read them; '' is none. */
export function proxySettings(vars: NodeJS.ProcessEnv = env()): { httpProxy: string; httpsProxy: string; noProxy: string } {
  return {
    httpProxy: vars.http_proxy ?? vars.HTTP_PROXY ?? '',
    // '' here: undici sends https through the HTTP proxy, as it does when HTTPS_PROXY is unset.
    httpsProxy: vars.https_proxy ?? vars.HTTPS_PROXY ?? '',
    noProxy: vars.no_proxy ?? vars.NO_PROXY ?? '',
  };
}

/**
 * The process's dispatcher: keep-alive, bounded connections per origin, connect/headers/body
 * timeouts, and HTTP(S)_PROXY / NO_PROXY from the run's environment (given to undici explicitly, so it never
 * reads process.env). One per TLS and proxy setting.
 */
export function dispatcher(tls: TlsOptions = {}): Dispatcher {
  const proxies = proxySettings();
  const key = JSON.stringify([tls.insecure ? 1 : 0, tls.caFile ?? '', proxies.httpProxy, proxies.httpsProxy, proxies.noProxy]);
  let d = cache.get(key);
  if (!d) {
    let ca: string | undefined;
    if (tls.caFile) {
      try {
        ca = readFileSync(tls.caFile, 'utf8');
      } catch (err) {
        throw readError(tls.caFile, err);
      }
    }
    d = new EnvHttpProxyAgent({
      ...proxies,
      connections: 8,
      keepAliveTimeout: 10_000,
      connectTimeout: CONNECT_TIMEOUT_MS,
      headersTimeout: HEADERS_TIMEOUT_MS,
      bodyTimeout: BODY_TIMEOUT_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
      connect: { rejectUnauthorized: !tls.insecure, ...(ca ? { ca } : {}) },
    });
    cache.set(key, d);
    if (cache.size === 1) onShutdown(closeDispatchers);
  }
  return d;
}

/** Close every dispatcher so the process can exit without waiting for keep-alive sockets. */
export async function closeDispatchers(): Promise<void> {
  const all = [...cache.values()];
  cache.clear();
  await Promise.allSettled(all.map((d) => d.close()));
}
