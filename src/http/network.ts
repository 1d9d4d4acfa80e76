/**
 * What kind of network failure an error is, read from the codes Node and undici give (never from the
 * message): a request that got no answer (FetchError code 'network') carries the socket's error as cause.
 */
import { readFileSync } from 'node:fs';
import { describe } from '../errors.js';

export type NetworkFailure = 'no-such-host' | 'refused' | 'reset' | 'timeout' | 'untrusted-certificate' | 'tls';

const KINDS: Record<string, NetworkFailure> = {
  ENOTFOUND: 'no-such-host',
  EAI_AGAIN: 'no-such-host',
  EAI_NONAME: 'no-such-host',
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  UND_ERR_SOCKET: 'reset',
  UND_ERR_CLOSED: 'reset',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  EHOSTUNREACH: 'timeout',
  ENETUNREACH: 'timeout',
  // OpenSSL's verification failures: nobody we trust signed the certificate.
  DEPTH_ZERO_SELF_SIGNED_CERT: 'untrusted-certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'untrusted-certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted-certificate',
  UNABLE_TO_GET_ISSUER_CERT: 'untrusted-certificate',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'untrusted-certificate',
  // Any other TLS failure (a server that speaks plain HTTP, a name that does not match, an expired certificate).
  EPROTO: 'tls',
  ERR_SSL_WRONG_VERSION_NUMBER: 'tls',
  ERR_TLS_CERT_ALTNAME_INVALID: 'tls',
  CERT_HAS_EXPIRED: 'tls',
};

/** The kind of network failure behind `err` (looked for along its `cause` chain), or undefined. */
export function networkFailure(err: unknown): NetworkFailure | undefined {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && Object.hasOwn(KINDS, code)) return KINDS[code];
  }
  return undefined;
}

/** The resolver Go names in `lookup HOST on NS:53: no such host`: the first nameserver of /etc/resolv.conf. */
function resolver(): string | undefined {
  try {
    const ns = /^\s*nameserver\s+(\S+)/m.exec(readFileSync('/etc/resolv.conf', 'utf8'))?.[1];
    return ns === undefined ? undefined : `${hostPort(ns)}:53`;
  } catch {
    return undefined;
  }
}

const hostPort = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/** Where the request dialled: the socket error's address and port, else the URL's host and port. */
function dialed(e: { address?: unknown; port?: unknown }, url: URL): string {
  if (typeof e.address === 'string' && typeof e.port === 'number') return `${hostPort(e.address)}:${e.port}`;
  return `${url.hostname}:${url.port || (url.protocol === 'http:' ? '80' : '443')}`;
}

/** Go's words for the failures of a request that got no answer (net, crypto/tls, crypto/x509, net/http). */
const GO_TEXTS: Record<string, (e: Record<string, unknown>, url: URL) => string> = {
  ECONNREFUSED: (e, url) => `dial tcp ${dialed(e, url)}: connect: connection refused`,
  EHOSTUNREACH: (e, url) => `dial tcp ${dialed(e, url)}: connect: no route to host`,
  ENETUNREACH: (e, url) => `dial tcp ${dialed(e, url)}: connect: network is unreachable`,
  ETIMEDOUT: (e, url) => `dial tcp ${dialed(e, url)}: i/o timeout`,
  UND_ERR_CONNECT_TIMEOUT: (e, url) => `dial tcp ${dialed(e, url)}: i/o timeout`,
  UND_ERR_HEADERS_TIMEOUT: () => 'net/http: timeout awaiting response headers',
  ENOTFOUND: (e, url) => lookupFailed(e, url),
  EAI_NONAME: (e, url) => lookupFailed(e, url),
  ECONNRESET: () => 'read: connection reset by peer',
  EPIPE: () => 'write: broken pipe',
  UND_ERR_SOCKET: () => 'EOF',
  UND_ERR_CLOSED: () => 'EOF',
  DEPTH_ZERO_SELF_SIGNED_CERT: () => 'x509: certificate signed by unknown authority',
  SELF_SIGNED_CERT_IN_CHAIN: () => 'x509: certificate signed by unknown authority',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: () => 'x509: certificate signed by unknown authority',
  UNABLE_TO_GET_ISSUER_CERT: () => 'x509: certificate signed by unknown authority',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: () => 'x509: certificate signed by unknown authority',
  // A server that speaks plain HTTP where TLS was expected.
  ERR_SSL_WRONG_VERSION_NUMBER: () => 'http: server gave HTTP response to HTTPS client',
};

function lookupFailed(e: Record<string, unknown>, url: URL): string {
  const host = typeof e.hostname === 'string' ? e.hostname : url.hostname;
  const ns = resolver();
  return `dial tcp: lookup ${host}${ns === undefined ? '' : ` on ${ns}`}: no such host`;
}

/**
 * A request that got no answer, in Go's words as oc prints it: `Get "https://127.0.0.1:1/v2/": dial tcp
 * 127.0.0.1:1: connect: connection refused`. Failures Go words differently from Node in ways that are not
 * deterministic here (an expired certificate, a name mismatch) keep Node's description after `Get "URL": `.
 */
export function goRequestText(err: unknown, url: string, method = 'GET'): string {
  const op = method.charAt(0).toUpperCase() + method.slice(1).toLowerCase();
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  let innermost = err;
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (parsed && typeof code === 'string' && Object.hasOwn(GO_TEXTS, code))
      return `${op} ${JSON.stringify(url)}: ${GO_TEXTS[code]!(e as Record<string, unknown>, parsed)}`;
    innermost = e;
  }
  return `${op} ${JSON.stringify(url)}: ${describe(innermost)}`;
}
