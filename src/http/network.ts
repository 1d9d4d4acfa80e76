/**
 * What kind of network failure an error is, read from the codes Node and undici give (never from the
 * message): a request that got no answer (FetchError code 'network') carries the socket's error as cause.
 */
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
