import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { env } from '../context.js';
import { readError } from '../files/read.js';
import { lazyRequire } from '../lazy.js';
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
/** node:tls, for Node's built-in CA list: only a run with SSL_CERT_DIR needs it (plain-http runs never load it). */
const nodeTls = lazyRequire<typeof import('node:tls')>('node:tls');

/** The proxy settings of the current run (`env()`), lower case first as curl and undici read them; '' is none. */
export function proxySettings(vars: NodeJS.ProcessEnv = env()): { httpProxy: string; httpsProxy: string; noProxy: string } {
  return {
    httpProxy: vars.http_proxy ?? vars.HTTP_PROXY ?? '',
    // '' here: undici sends https through the HTTP proxy, as it does when HTTPS_PROXY is unset.
    httpsProxy: vars.https_proxy ?? vars.HTTPS_PROXY ?? '',
    noProxy: vars.no_proxy ?? vars.NO_PROXY ?? '',
  };
}

/** PEM text of a file, or undefined when it cannot be read (Go skips such a file too). */
function readPem(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The certificate authorities to trust, or undefined for Node's built-in list. Go, and so oc, reads its CAs from
 * the system, where `SSL_CERT_FILE` names the bundle to use instead and `SSL_CERT_DIR` (folders, `:`-separated)
 * adds every file in them: scripts point oc at a private registry's CA that way, so both are honoured here, with
 * the same meaning (SSL_CERT_DIR alone adds to the built-in list). The system's own bundle is not read when they
 * are unset: parsing it costs ~50 ms a run. `--certificate-authority` adds its file to what is trusted otherwise
 * (as containers/image adds a registry's certs.d to the system's): a mirror behind a private CA commonly sends its
 * blobs to an object store with a public certificate, which must still be trusted.
 */
function trustedCas(caFile: string | undefined, vars: NodeJS.ProcessEnv): string[] | undefined {
  const out: string[] = [];
  const file = vars.SSL_CERT_FILE ? readPem(vars.SSL_CERT_FILE) : undefined;
  if (file !== undefined) out.push(file);
  for (const dir of (vars.SSL_CERT_DIR ?? '').split(':').filter(Boolean)) {
    let names: string[] = [];
    try {
      names = readdirSync(dir).sort();
    } catch {}
    for (const name of names) {
      const pem = readPem(join(dir, name));
      if (pem?.includes('-----BEGIN CERTIFICATE-----')) out.push(pem);
    }
  }
  const adding = out.length > 0 || Boolean(caFile);
  if (file === undefined && adding) out.unshift(...nodeTls().rootCertificates);
  // An explicit list replaces what Node trusts, NODE_EXTRA_CA_CERTS included: keep that file's CAs in it.
  const extra = adding && vars.NODE_EXTRA_CA_CERTS ? readPem(vars.NODE_EXTRA_CA_CERTS) : undefined;
  if (extra !== undefined) out.push(extra);
  if (caFile) {
    try {
      out.push(readFileSync(caFile, 'utf8'));
    } catch (err) {
      throw readError(caFile, err);
    }
  }
  return out.length > 0 ? out : undefined;
}

/**
 * The process's dispatcher: keep-alive, bounded connections per origin, connect/headers/body
 * timeouts, HTTP(S)_PROXY / NO_PROXY from the run's environment (given to undici explicitly, so it never
 * reads process.env), and the CAs trustedCas() finds. One per TLS and proxy setting.
 */
export function dispatcher(tls: TlsOptions = {}): Dispatcher {
  const vars = env();
  const proxies = proxySettings(vars);
  const trust = [tls.caFile ?? '', vars.SSL_CERT_FILE ?? '', vars.SSL_CERT_DIR ?? '', vars.NODE_EXTRA_CA_CERTS ?? ''];
  const key = JSON.stringify([tls.insecure ? 1 : 0, ...trust, proxies.httpProxy, proxies.httpsProxy, proxies.noProxy]);
  let d = cache.get(key);
  if (!d) {
    const ca = tls.insecure && !tls.caFile ? undefined : trustedCas(tls.caFile, vars);
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
