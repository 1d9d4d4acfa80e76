import { readFileSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import { EnvHttpProxyAgent } from './undici.js';
import { OsimageError, describe } from '../errors.js';
import { onShutdown } from '../lifecycle.js';

export interface TlsOptions {
  /** Skip TLS verification (and, for registries, allow plain HTTP). */
  insecure?: boolean;
  /** A PEM file with extra certificate authorities. */
  caFile?: string;
}

const CONNECT_TIMEOUT_MS = 15_000;
const HEADERS_TIMEOUT_MS = 60_000;
const BODY_TIMEOUT_MS = 60_000;

const cache = new Map<string, Dispatcher>();

/**
 * The process's dispatcher: keep-alive, bounded connections per origin, connect/headers/body
 * timeouts, and HTTP(S)_PROXY / NO_PROXY from the environment. One per TLS setting.
 */
export function dispatcher(tls: TlsOptions = {}): Dispatcher {
  const key = `${tls.insecure ? 1 : 0}:${tls.caFile ?? ''}`;
  let d = cache.get(key);
  if (!d) {
    let ca: string | undefined;
    if (tls.caFile) {
      try {
        ca = readFileSync(tls.caFile, 'utf8');
      } catch (err) {
        throw new OsimageError(`cannot read certificate authority ${tls.caFile}: ${describe(err)}`);
      }
    }
    d = new EnvHttpProxyAgent({
      connections: 8,
      keepAliveTimeout: 10_000,
      connectTimeout: CONNECT_TIMEOUT_MS,
      headersTimeout: HEADERS_TIMEOUT_MS,
      bodyTimeout: BODY_TIMEOUT_MS,
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
