/**
 * Bearer tokens from a registry's token server (the distribution token spec):
 * anonymous GET, GET with Basic credentials, or a form POST with an identity (refresh) token.
 * Tokens are cached per realm, service and scope set, and shared by concurrent callers.
 */
import { FetchError, OsimageError, describe } from '../errors.js';
import { isRetryableStatus, readCapped, retryableOr, statusText, type HttpClient, type Response } from '../http/client.js';
import { basicHeader } from '../http/headers.js';
import type { Credential } from './auth.js';

/** Token responses are small; refuse anything larger. */
export const MAX_TOKEN_RESPONSE_BYTES = 1024 * 1024;
/** Tokens live at least this long, whatever expires_in says (as other clients do). */
const MIN_TOKEN_LIFETIME_S = 60;
/** Renew this long before expiry. */
const RENEW_EARLY_MS = 5_000;

export interface BearerChallenge {
  realm: string;
  service?: string;
}

export interface TokenRequest {
  challenge: BearerChallenge;
  scopes: string[];
  credential: Credential | undefined;
  /** For messages: the registry host and where the credential came from. */
  registry: string;
  credentialFile?: string;
  client: HttpClient;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

export { basicHeader };

export class TokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly inflight = new Map<string, Promise<string>>();
  /** Token requests made (for diagnostics and tests). */
  requests = 0;

  private key(r: TokenRequest): string {
    return [r.challenge.realm, r.challenge.service ?? '', [...new Set(r.scopes)].sort().join(' ')].join('|');
  }

  /** A valid token for the scopes: cached, in flight, or fetched now. */
  async get(r: TokenRequest): Promise<string> {
    const key = this.key(r);
    const hit = this.tokens.get(key);
    if (hit && hit.expiresAt - RENEW_EARLY_MS > Date.now()) return hit.token;
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const p = this.fetch(r)
      .then((t) => {
        this.tokens.set(key, t);
        return t.token;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  /** Forget the token for these scopes (after the registry refused it). */
  invalidate(r: Omit<TokenRequest, 'credential' | 'client' | 'registry'>): void {
    this.tokens.delete(this.key(r as TokenRequest));
  }

  private async fetch(r: TokenRequest): Promise<CachedToken> {
    const cred = r.credential;
    if (cred?.registryToken) return { token: cred.registryToken, expiresAt: Number.POSITIVE_INFINITY };
    this.requests++;
    if (cred?.identityToken) {
      const res = await this.post(r, cred.identityToken);
      if (res) return res;
      // The token server has no OAuth endpoint (404/405): fall back to the GET exchange.
    }
    return this.getToken(r);
  }

  private authFailed(r: TokenRequest, url: string, status: number): OsimageError {
    const who = r.credential?.username
      ? ` as ${r.credential.username}`
      : r.credential?.identityToken
        ? ' with an identity token'
        : ' anonymously';
    const from = r.credentialFile ? ` (credentials from ${r.credentialFile})` : '';
    return new FetchError(
      `authentication to ${r.registry} failed${who}: token server ${url} answered ${statusText(status)}${from}`,
      url,
      status,
    );
  }

  private async getToken(r: TokenRequest): Promise<CachedToken> {
    const url = new URL(r.challenge.realm);
    if (r.challenge.service) url.searchParams.set('service', r.challenge.service);
    for (const s of r.scopes) url.searchParams.append('scope', s);
    const headers: Record<string, string> = { accept: 'application/json' };
    const cred = r.credential;
    if (cred?.username !== undefined && cred.password !== undefined && !cred.identityToken) {
      headers.authorization = basicHeader(cred.username, cred.password);
      url.searchParams.set('account', cred.username);
    }
    const res = await r.client.send(url.toString(), { headers, maxRedirects: 3, what: `a token for ${r.registry}` });
    return this.parse(r, res, url.toString());
  }

  private async post(r: TokenRequest, refreshToken: string): Promise<CachedToken | undefined> {
    const form = new URLSearchParams();
    form.set('grant_type', 'refresh_token');
    form.set('refresh_token', refreshToken);
    form.set('client_id', 'osimage');
    if (r.challenge.service) form.set('service', r.challenge.service);
    if (r.scopes.length) form.set('scope', r.scopes.join(' '));
    const res = await r.client.send(r.challenge.realm, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      maxRedirects: 0,
    });
    if (res.status === 404 || res.status === 405) {
      await res.body.dump().catch(() => undefined);
      return undefined;
    }
    return this.parse(r, res, r.challenge.realm);
  }

  private async parse(r: TokenRequest, res: Response, url: string): Promise<CachedToken> {
    if (res.status < 200 || res.status >= 300) {
      await res.body.dump().catch(() => undefined);
      if (isRetryableStatus(res.status)) throw retryableOr(res, `token server ${url} answered ${statusText(res.status)}`);
      if (res.status === 401 || res.status === 403) throw this.authFailed(r, url, res.status);
      throw new FetchError(`token server ${url} answered ${statusText(res.status)} for ${r.registry}`, url, res.status);
    }
    const bytes = await readCapped({ ...res, url }, MAX_TOKEN_RESPONSE_BYTES, 'token response');
    let doc: { token?: unknown; access_token?: unknown; expires_in?: unknown; issued_at?: unknown };
    try {
      doc = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      throw new OsimageError(`token server ${url} sent invalid JSON: ${describe(err)}`);
    }
    const token = typeof doc?.token === 'string' && doc.token ? doc.token : typeof doc?.access_token === 'string' ? doc.access_token : '';
    if (!token) throw new OsimageError(`token server ${url} sent no token for ${r.registry}`);
    const expiresIn = typeof doc.expires_in === 'number' && doc.expires_in > 0 ? doc.expires_in : MIN_TOKEN_LIFETIME_S;
    const issued = typeof doc.issued_at === 'string' ? Date.parse(doc.issued_at) : NaN;
    const start = Number.isNaN(issued) || issued > Date.now() ? Date.now() : issued;
    return { token, expiresAt: start + Math.max(expiresIn, MIN_TOKEN_LIFETIME_S) * 1000 };
  }
}
