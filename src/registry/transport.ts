/**
 * The HTTP side of one registry: `/v2/` ping, the challenge it answers with, credentials (Basic or
 * Bearer tokens per scope), retries on 429/5xx/resets, and redirects that never carry Authorization
 * to another origin. The layers compose as in go-containerregistry: auth wraps retry wraps HTTP.
 */
import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { FetchError, OsimageError, describe, type OnWarning } from '../errors.js';
import { dispatcher as sharedDispatcher } from '../http/dispatcher.js';
import { send, statusText, type Response, type SendOptions } from '../http/request.js';
import { TransientError, defaultRetryPolicy, isRetryableStatus, parseRetryAfter, withRetries, type RetryPolicy } from '../http/retry.js';
import type { Credential } from './auth.js';
import { parseChallenges, pickChallenge, type Challenge } from './challenge.js';
import { TokenCache, basicHeader, discard, readCapped, type BearerChallenge } from './token.js';

export const MAX_REDIRECTS = 10;
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface TransportOptions {
  /** The registry as written in references: `quay.io`, `127.0.0.1:5000`, `docker.io`. */
  registry: string;
  /** The host the API is served from (`registry-1.docker.io` for docker.io); default `registry`. */
  apiHost?: string;
  insecure?: boolean;
  caFile?: string;
  /** Looked up once, on the first request that needs it. */
  credential?: () => Promise<{ credential: Credential | undefined; file?: string }>;
  retry?: RetryPolicy;
  onWarning?: OnWarning;
  /** Tests and callers that want their own pool. */
  dispatcher?: Dispatcher;
}

export interface TransportRequest {
  method?: SendOptions['method'];
  headers?: Record<string, string>;
  /** Bodies other than strings and Buffers cannot be replayed: no retries, no re-auth. */
  body?: SendOptions['body'];
  /** Token scopes, e.g. `repository:ocp/release:pull`. */
  scopes: string[];
  /** Follow redirects (blobs to object storage); default false. */
  followRedirects?: boolean;
  /** Statuses returned to the caller instead of thrown (2xx always are). */
  accept?: number[];
  /** What is being fetched, for messages: `manifest quay.io/x/y:tag`. */
  what: string;
  /** Retry 429/5xx/resets (default: when the body can be replayed). */
  retry?: boolean;
}

type AuthState = { kind: 'none' } | { kind: 'basic' } | { kind: 'bearer'; challenge: BearerChallenge };

const AUTH_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

function isReplayable(body: SendOptions['body']): boolean {
  return body === undefined || body === null || typeof body === 'string' || Buffer.isBuffer(body) || body instanceof Uint8Array;
}

/** Loopback, RFC 1918, link-local, unique-local: addresses a public registry must not send us to. */
export function isPrivateAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  const v = isIP(h);
  if (v === 4) {
    const [a, b] = h.split('.').map(Number) as [number, number];
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || a === 0;
  }
  if (v === 6) {
    const l = h.toLowerCase();
    return l === '::1' || l === '::' || l.startsWith('fe80:') || l.startsWith('fc') || l.startsWith('fd');
  }
  return false;
}

/** Pull a registry error body apart: `MANIFEST_UNKNOWN: manifest unknown`. */
export function describeRegistryErrors(body: Buffer): { codes: string[]; text: string } {
  try {
    const doc = JSON.parse(body.toString('utf8')) as { errors?: Array<{ code?: unknown; message?: unknown }> };
    if (Array.isArray(doc?.errors) && doc.errors.length) {
      const codes = doc.errors.map((e) => (typeof e?.code === 'string' ? e.code : '')).filter(Boolean);
      const text = doc.errors
        .map((e) => [typeof e?.code === 'string' ? e.code : '', typeof e?.message === 'string' ? e.message : ''].filter(Boolean).join(': '))
        .join('; ');
      return { codes, text };
    }
  } catch {
    // not JSON: fall through
  }
  const text = body.toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200);
  return { codes: [], text };
}

/** The error for a registry response we did not expect, naming the URL, status and the registry's codes. */
export class RegistryError extends FetchError {
  readonly codes: string[];
  constructor(message: string, url: string, status: number, codes: string[]) {
    super(message, url, status);
    this.name = 'RegistryError';
    this.codes = codes;
  }
}

export class RegistryTransport {
  readonly registry: string;
  readonly apiHost: string;
  private readonly opts: TransportOptions;
  private readonly dispatcher: Dispatcher;
  private readonly policy: RetryPolicy;
  private readonly tokens = new TokenCache();
  private base: string | undefined;
  private pinging: Promise<void> | undefined;
  private auth: AuthState = { kind: 'none' };
  private cred: Promise<{ credential: Credential | undefined; file?: string }> | undefined;

  constructor(opts: TransportOptions) {
    this.opts = opts;
    this.registry = opts.registry;
    this.apiHost = opts.apiHost ?? opts.registry;
    this.dispatcher = opts.dispatcher ?? sharedDispatcher({ insecure: opts.insecure, caFile: opts.caFile });
    this.policy = opts.retry ?? defaultRetryPolicy();
  }

  /** Token requests made so far. */
  get tokenRequests(): number {
    return this.tokens.requests;
  }

  /** `https://host` (or `http://host` for an insecure registry that speaks only HTTP), after the ping. */
  async baseUrl(): Promise<string> {
    await this.ping();
    return this.base!;
  }

  private credential(): Promise<{ credential: Credential | undefined; file?: string }> {
    this.cred ??= this.opts.credential ? this.opts.credential() : Promise.resolve({ credential: undefined });
    return this.cred;
  }

  /** GET /v2/ once: learn the scheme and the challenge. */
  ping(): Promise<void> {
    this.pinging ??= this.doPing().catch((err) => {
      this.pinging = undefined;
      throw err;
    });
    return this.pinging;
  }

  private async doPing(): Promise<void> {
    const schemes = this.opts.insecure ? ['https', 'http'] : ['https'];
    let lastErr: unknown;
    for (const [i, scheme] of schemes.entries()) {
      const base = `${scheme}://${this.apiHost}`;
      const url = `${base}/v2/`;
      const fallback = i < schemes.length - 1;
      try {
        const attempt = async () => {
          const res = await send(url, { dispatcher: this.dispatcher, maxRedirects: 3 });
          await res.body.dump().catch(() => undefined);
          if (isRetryableStatus(res.status)) {
            throw new TransientError(
              `registry ${this.registry} ping ${url} answered ${statusText(res.status)}`,
              url,
              res.status,
              parseRetryAfter(res.headers['retry-after']),
            );
          }
          return res;
        };
        // An https attempt that may fall back to http does not retry a failure to connect (the server may
        // not speak TLS), but does retry a 429/5xx answer like any other request.
        const noConnectRetry = async () => {
          try {
            return await attempt();
          } catch (err) {
            if (err instanceof TransientError && err.status === undefined) throw new FetchError(err.message, err.url, undefined, err);
            throw err;
          }
        };
        const res = await withRetries(fallback ? noConnectRetry : attempt, this.policy);
        this.base = base;
        if (res.status === 401) {
          this.auth = this.stateFrom(parseChallenges(res.headers['www-authenticate']), url);
        } else if (res.status >= 200 && res.status < 300) {
          this.auth = { kind: 'none' };
        } else if (res.status === 403) {
          this.auth = { kind: 'none' };
        } else {
          throw new FetchError(
            `${this.registry} does not look like a registry: ${url} answered ${statusText(res.status)}`,
            url,
            res.status,
          );
        }
        return;
      } catch (err) {
        lastErr = err;
        // An answer (any status) or a bad challenge is final; only a failure to connect falls back to http.
        if (!(err instanceof FetchError) || err.status !== undefined) throw err;
        if (!fallback) break;
      }
    }
    const hint = this.opts.insecure ? '' : ' (use --insecure for a registry that speaks plain HTTP or has an untrusted certificate)';
    throw new OsimageError(`cannot reach registry ${this.registry}: ${describe(lastErr)}${hint}`, { cause: lastErr });
  }

  private stateFrom(challenges: Challenge[], url: string): AuthState {
    const c = pickChallenge(challenges);
    if (!c) {
      if (challenges.length === 0) return { kind: 'basic' };
      throw new OsimageError(
        `registry ${this.registry} asks for an unsupported authentication scheme (${challenges.map((x) => x.scheme).join(', ')})`,
      );
    }
    if (c.scheme === 'basic') return { kind: 'basic' };
    return {
      kind: 'bearer',
      challenge: { realm: this.checkRealm(c.params.realm!, url), ...(c.params.service ? { service: c.params.service } : {}) },
    };
  }

  /** The realm must be https (unless insecure) and must not point a public registry at a private address. */
  private checkRealm(realm: string, from: string): string {
    let u: URL;
    try {
      u = new URL(realm, from);
    } catch {
      throw new OsimageError(`registry ${this.registry} sent an invalid token realm "${realm}"`);
    }
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && this.opts.insecure)) {
      throw new OsimageError(`registry ${this.registry} sent token realm ${u} that is not https (use --insecure to allow it)`);
    }
    const regHost = new URL(`http://${this.apiHost}`).hostname;
    if (isPrivateAddress(u.hostname) && !isPrivateAddress(regHost)) {
      throw new OsimageError(`registry ${this.registry} sent token realm ${u} on a private address; refusing it`);
    }
    return u.toString();
  }

  private async authorization(scopes: string[]): Promise<string | undefined> {
    const state = this.auth;
    if (state.kind === 'none') return undefined;
    const { credential, file } = await this.credential();
    if (state.kind === 'basic') {
      if (credential?.username !== undefined && credential.password !== undefined)
        return basicHeader(credential.username, credential.password);
      if (credential?.registryToken) return `Bearer ${credential.registryToken}`;
      return undefined;
    }
    const token = await this.tokens.get({
      challenge: state.challenge,
      scopes,
      credential,
      registry: this.registry,
      ...(file ? { credentialFile: file } : {}),
      dispatcher: this.dispatcher,
    });
    return `Bearer ${token}`;
  }

  private async exchange(url: string, req: TransportRequest, authz: string | undefined): Promise<Response> {
    let current = url;
    let headers: Record<string, string> = { ...(req.headers ?? {}) };
    if (authz) headers.authorization = authz;
    const origin = new URL(url).origin;
    for (let hop = 0; ; hop++) {
      const res = await send(current, {
        method: req.method ?? 'GET',
        headers,
        body: req.body,
        dispatcher: this.dispatcher,
        maxRedirects: 0,
      });
      const location = res.headers.location;
      if (!req.followRedirects || res.status < 300 || res.status >= 400 || res.status === 304 || !location) return res;
      await res.body.dump().catch(() => undefined);
      if (hop >= MAX_REDIRECTS)
        throw new FetchError(`too many redirects (more than ${MAX_REDIRECTS}) fetching ${req.what} from ${url}`, current, res.status);
      const next = new URL(Array.isArray(location) ? location[0]! : location, current);
      const prev = new URL(current);
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        throw new FetchError(`refusing redirect to ${next.protocol} URL from ${current}`, current, res.status);
      if (prev.protocol === 'https:' && next.protocol === 'http:' && !this.opts.insecure) {
        throw new FetchError(`refusing redirect from https to plain http (${next.origin}) for ${req.what}`, current, res.status);
      }
      const target = next.hostname.replace(/^\[|\]$/g, '');
      if (/^169\.254\./.test(target) || target.toLowerCase().startsWith('fe80:')) {
        throw new FetchError(`refusing redirect to link-local address ${next.host} for ${req.what}`, current, res.status);
      }
      if (next.origin !== origin) {
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !AUTH_HEADERS.includes(k.toLowerCase())));
      }
      current = next.toString();
    }
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
        const authz = sameOrigin ? await this.authorization(scopes) : undefined;
        const res = await this.exchange(url, req, authz);
        this.noteWarnings(res.headers.warning);
        if (res.status === 401 && reauth === 0 && replayable) {
          const challenges = parseChallenges(res.headers['www-authenticate']);
          const c = pickChallenge(challenges);
          const state = this.auth;
          if (c?.scheme === 'bearer' && state.kind === 'bearer') {
            this.tokens.invalidate({ challenge: state.challenge, scopes });
            if (c.params.error === 'insufficient_scope' && c.params.scope) {
              scopes = [...new Set([...scopes, ...c.params.scope.split(' ').filter(Boolean)])];
            }
            await res.body.dump().catch(() => undefined);
            continue;
          }
          if (state.kind === 'none' && c) {
            // The registry let the ping through but challenges this repository.
            this.auth = this.stateFrom(challenges, url);
            await res.body.dump().catch(() => undefined);
            continue;
          }
        }
        if (isRetryableStatus(res.status)) {
          await res.body.dump().catch(() => undefined);
          throw new TransientError(
            `${req.what}: ${statusText(res.status)} from ${res.url}`,
            res.url,
            res.status,
            parseRetryAfter(res.headers['retry-after']),
          );
        }
        if ((res.status >= 200 && res.status < 300) || req.accept?.includes(res.status)) return res;
        throw await this.failure(res, req);
      }
    };
    return retry ? withRetries(run, this.policy) : run();
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

  /** Turn an unexpected response into a one-line error naming what, where and why. */
  async failure(res: Response, req: Pick<TransportRequest, 'what' | 'method'>): Promise<RegistryError> {
    let detail = '';
    let codes: string[] = [];
    if (req.method !== 'HEAD') {
      try {
        const body = await readCapped(res, res.url, MAX_ERROR_BODY_BYTES, 'error response');
        ({ codes, text: detail } = describeRegistryErrors(body));
      } catch {
        discard(res.body);
      }
    } else {
      await res.body.dump().catch(() => undefined);
    }
    let msg = `${req.what}: ${statusText(res.status)} from ${res.url}${detail ? `: ${detail}` : ''}`;
    if (res.status === 401) {
      const { credential, file } = await this.credential().catch(() => ({ credential: undefined, file: undefined }));
      const from = file ? ` (credentials from ${file})` : '';
      if (this.auth.kind === 'basic' && credential?.username !== undefined) {
        msg = `${req.what}: authentication to ${this.registry} failed as ${credential.username}: 401 Unauthorized${from}`;
      } else {
        const who = credential ? from : ' (no credentials found for this registry)';
        msg = `${req.what}: ${this.registry} answered 401 Unauthorized${who}: the repository does not exist or you lack access`;
      }
    }
    return new RegistryError(msg, res.url, res.status, codes);
  }
}
