/**
 * `GET /v2/` once per registry: learn the scheme (https, or http for an insecure registry that speaks
 * only plain HTTP) and the challenge it answers with.
 */
import { FetchError, OsimageError } from '../errors.js';
import { UnreachableRegistryError } from './errors.js';
import {
  TransientError,
  isRetryableStatus,
  retryableOr,
  statusText,
  withRetries,
  type HttpClient,
  type Response,
  type RetryPolicy,
} from '../http/client.js';

export interface PingOptions {
  registry: string;
  /** The host the API is served from. */
  apiHost: string;
  /** Verification off, and plain http tried after https. */
  insecure?: boolean;
  client: HttpClient;
  retry: RetryPolicy;
}

export interface Pinged {
  /** `https://host` or `http://host`. */
  base: string;
  /** The URL that answered (after any redirect). */
  url: string;
  /** 2xx, 401 (a challenge follows) or 403 (no auth offered). */
  status: number;
  wwwAuthenticate: Response['headers'][string];
}

export async function ping(opts: PingOptions): Promise<Pinged> {
  const schemes = opts.insecure ? ['https', 'http'] : ['https'];
  // --insecure: the plain http ping is sent alongside the https one instead of after its failure (a
  // query by tag waited for the TLS attempt first). The outcome is the sequential one: an https answer always
  // wins (the http ping is then aborted and ignored), and the http ping only stands in for the first http
  // attempt, which runs (with its retries) as before when https could not connect.
  const ctl = new AbortController();
  const early = opts.insecure ? sendPing(`http://${opts.apiHost}/v2/`, opts, ctl.signal) : undefined;
  early?.catch(() => undefined); // its failure is read only if the http attempt comes
  try {
    return await pingSchemes(schemes, opts, early);
  } finally {
    ctl.abort();
  }
}

/** One `GET /v2/`, its body read. */
async function sendPing(url: string, opts: PingOptions, signal?: AbortSignal): Promise<Response> {
  const res = await opts.client.send(url, { maxRedirects: 3, what: `registry ${opts.registry}`, ...(signal ? { signal } : {}) });
  await res.body.dump().catch(() => undefined);
  return res;
}

async function pingSchemes(schemes: string[], opts: PingOptions, early: Promise<Response> | undefined): Promise<Pinged> {
  let lastErr: FetchError | undefined;
  for (const [i, scheme] of schemes.entries()) {
    const base = `${scheme}://${opts.apiHost}`;
    const url = `${base}/v2/`;
    const fallback = i < schemes.length - 1;
    // The http ping's first attempt may already be under way (sent by ping()); later attempts are sent here.
    let first = scheme === 'http' ? early : undefined;
    const attempt = async () => {
      const started = first;
      first = undefined;
      const res = await (started ?? sendPing(url, opts));
      if (isRetryableStatus(res.status)) throw retryableOr(res, `registry ${opts.registry} ping ${url} answered ${statusText(res.status)}`);
      return res;
    };
    // An https attempt that may fall back to http does not retry a failure to connect (the server may
    // not speak TLS), but does retry a 429/5xx answer like any other request.
    const noConnectRetry = async () => {
      try {
        return await attempt();
      } catch (err) {
        if (err instanceof TransientError && err.status === undefined)
          throw new FetchError(err.message, err.url, undefined, err.cause, err.code);
        throw err;
      }
    };
    try {
      const res = await withRetries(fallback ? noConnectRetry : attempt, opts.retry);
      if ((res.status >= 200 && res.status < 300) || res.status === 401 || res.status === 403) {
        return { base, url: res.url, status: res.status, wwwAuthenticate: res.headers['www-authenticate'] };
      }
      throw new FetchError(`${opts.registry} does not look like a registry: ${url} answered ${statusText(res.status)}`, url, res.status);
    } catch (err) {
      // An answer (any status) is final; only a failure to connect falls back to http.
      if (!(err instanceof FetchError) || err.status !== undefined) throw err;
      lastErr = err;
      if (!fallback) break;
    }
  }
  if (lastErr === undefined) throw new OsimageError(`cannot reach registry ${opts.registry}`);
  throw new UnreachableRegistryError(opts.registry, lastErr, opts.insecure === true);
}
