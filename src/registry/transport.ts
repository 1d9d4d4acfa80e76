/**
 * The request pipeline of one registry, composed as in go-containerregistry: auth wraps retry wraps
 * HTTP. The ping (ping.ts) learns the scheme and the challenge; the authenticator (authenticator.ts)
 * answers it; the HTTP client (src/http) sends, follows redirects by the one policy and retries;
 * errors.ts turns an unexpected answer into a RegistryError.
 */
import type { OnWarning } from '../errors.js';
import {
  httpClient,
  defaultRetryPolicy,
  retryableOr,
  type RetryLoop,
  isRetryableStatus,
  statusText,
  withRetries,
  type HttpClient,
  type RequestBody,
  type Response,
  type RetryPolicy,
  type SendOptions,
} from '../http/client.js';
import { redactUrl } from '../http/redact.js';
import { Authenticator, type CredentialLookup } from './authenticator.js';
import { registryFailure, type RegistryError } from './errors.js';
import { ping } from './ping.js';

export const MAX_REDIRECTS = 10;

export interface TransportOptions {
  /** The registry as written in references: `quay.io`, `127.0.0.1:5000`, `docker.io`. */
  registry: string;
  /** The host the API is served from (`registry-1.docker.io` for docker.io); default `registry`. */
  apiHost?: string;
  insecure?: boolean;
  caFile?: string;
  /** Looked up once, on the first request that needs it. */
  credential?: CredentialLookup;
  retry?: RetryPolicy;
  onWarning?: OnWarning;
  /** Tests and callers that want their own client. */
  client?: HttpClient;
}

export interface TransportRequest {
  method?: SendOptions['method'];
  headers?: Record<string, string>;
  /** Bodies other than strings and Buffers cannot be replayed: no retries, no re-auth. */
  body?: RequestBody;
  /** Token scopes, e.g. `repository:ocp/release:pull`. */
  scopes: string[];
  /** Follow redirects (blobs to object storage); default false. */
  followRedirects?: boolean;
  /** Statuses returned to the caller instead of thrown (2xx always are). */
  accept?: number[];
  /** What is being fetched, for messages: `manifest quay.io/x/y:tag`. */
  what: string;
  /**
   * Retry 429/5xx/resets (default: when the body can be replayed). A RetryLoop: the caller's own loop (around
   * this request and the read of its body), whose retries this request's share; false: one attempt, the
   * caller retries.
   */
  retry?: boolean | RetryLoop;
}

function isReplayable(body: RequestBody | undefined): boolean {
  return body === undefined || body === null || typeof body === 'string' || Buffer.isBuffer(body) || body instanceof Uint8Array;
}

export class RegistryTransport {
  readonly registry: string;
  readonly apiHost: string;
  private readonly opts: TransportOptions;
  private readonly client: HttpClient;
  private readonly policy: RetryPolicy;
  private readonly auth: Authenticator;
  private base: string | undefined;
  private pinging: Promise<void> | undefined;

  constructor(opts: TransportOptions) {
    this.opts = opts;
    this.registry = opts.registry;
    this.apiHost = opts.apiHost ?? opts.registry;
    this.client = opts.client ?? httpClient({ insecure: opts.insecure, caFile: opts.caFile });
    this.policy = opts.retry ?? defaultRetryPolicy();
    this.auth = new Authenticator({
      registry: this.registry,
      apiHost: this.apiHost,
      insecure: opts.insecure,
      client: this.client,
      ...(opts.credential ? { credential: opts.credential } : {}),
    });
  }

  /** Token requests made so far. */
  get tokenRequests(): number {
    return this.auth.tokenRequests;
  }

  /** `https://host` (or `http://host` for an insecure registry that speaks only HTTP), after the ping. */
  async baseUrl(): Promise<string> {
    await this.ping();
    return this.base!;
  }

  /** GET /v2/ once: learn the scheme and the challenge. */
  ping(): Promise<void> {
    this.pinging ??= ping({
      registry: this.registry,
      apiHost: this.apiHost,
      insecure: this.opts.insecure,
      client: this.client,
      retry: this.policy,
    })
      .then((p) => {
        this.auth.fromPing(p.status, p.wwwAuthenticate, p.url, p.base);
        this.base = p.base;
      })
      .catch((err) => {
        this.pinging = undefined;
        throw err;
      });
    return this.pinging;
  }

  /**
   * One request to the registry: path (`/v2/...`) or absolute URL on the registry. 401 gets one
   * re-authentication (a new token, with a scope the registry asked for); 429/5xx/resets are retried;
   * other non-2xx statuses (unless in `accept`) throw a RegistryError naming the URL, status and codes.
   */
  async request(pathOrUrl: string, req: TransportRequest): Promise<Response> {
    await this.ping();
    const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${this.base}${pathOrUrl}`;
    // Credentials go only to the registry's own origin, even when it names another (an upload Location).
    const sameOrigin = new URL(url).origin === new URL(this.base!).origin;
    const replayable = isReplayable(req.body);
    const retry = req.retry ?? replayable;
    const run = async (): Promise<Response> => {
      let scopes = [...req.scopes];
      for (let reauth = 0; ; reauth++) {
        const authz = sameOrigin ? await this.auth.header(scopes) : undefined;
        const res = await this.client.send(url, {
          method: req.method ?? 'GET',
          headers: { ...req.headers, ...(authz ? { authorization: authz } : {}) },
          body: req.body,
          maxRedirects: req.followRedirects ? MAX_REDIRECTS : 0,
          what: req.what,
        });
        this.noteWarnings(res.headers.warning);
        if (res.status === 401 && reauth === 0 && replayable) {
          const again = this.auth.retryScopes(res, url, scopes);
          if (again) {
            scopes = again;
            await res.body.dump().catch(() => undefined);
            continue;
          }
        }
        if (isRetryableStatus(res.status)) {
          await res.body.dump().catch(() => undefined);
          throw retryableOr(res, `${req.what}: ${statusText(res.status)} from ${redactUrl(res.url)}`);
        }
        if ((res.status >= 200 && res.status < 300) || req.accept?.includes(res.status)) return res;
        throw await this.failure(res, req, url, authz !== undefined);
      }
    };
    if (retry === false) return run();
    return withRetries(run, retry === true ? this.policy : retry);
  }

  private readonly warned = new Set<string>();

  /** Registries send deprecation notices as `Warning: 299 - "text"`; pass each distinct one on once. */
  private noteWarnings(header: string | string[] | undefined): void {
    if (!header || !this.opts.onWarning) return;
    for (const h of Array.isArray(header) ? header : [header]) {
      for (const m of h.matchAll(/299\s+\S+\s+"((?:[^"\\]|\\.)*)"/g)) {
        const text = m[1]!.replace(/\\(.)/g, '$1').trim();
        if (!text || this.warned.has(text)) continue;
        this.warned.add(text);
        this.opts.onWarning({ code: 'registry-notice', message: `registry ${this.registry}: ${text}` });
      }
    }
  }

  /**
   * Turn an unexpected response to `url` into a one-line error naming what, where and why; `sent`: whether the
   * request carried credentials (for a 401's words).
   */
  private failure(res: Response, req: Pick<TransportRequest, 'what' | 'method'>, url: string, sent: boolean): Promise<RegistryError> {
    return registryFailure(res, req.what, req.method, () => this.auth.unauthorized(res.url, sent), url);
  }
}
