/**
 * The client behind src/http/client.ts (the barrel the rest of osimage imports): one exchange at a time
 * through the pool for a TLS setting. undici (request.ts) is loaded on the first send, so creating a client
 * costs nothing.
 */
import type { TlsOptions } from './dispatcher.js';
import type { Response, SendOptions } from './types.js';

export interface HttpClient {
  readonly tls: Readonly<TlsOptions>;
  /** One exchange, following redirects (SendOptions.maxRedirects) by the one redirect policy. */
  send(url: string, opts?: SendOptions): Promise<Response>;
}

/** A client for a TLS setting: `insecure` skips verification and lets https redirect to http. */
export function httpClient(tls: TlsOptions = {}): HttpClient {
  const settings = { ...tls };
  return {
    tls: settings,
    async send(url, opts = {}) {
      const { send } = await import('./request.js');
      return send(url, opts, settings);
    },
  };
}

/** Body errors after which a download can resume with a Range request (besides the transient ones). */
const RESUMABLE_CODES = new Set(['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'ECONNABORTED']);

export function isResumableBodyError(err: unknown): boolean {
  return RESUMABLE_CODES.has((err as { code?: string } | null)?.code ?? '');
}
