/**
 * The auth layer of the registry transport: what the registry's challenge asks for (nothing, Basic or
 * Bearer), the credential (looked up once), tokens per scope set, and what to do after a 401.
 */
import { OsimageError } from '../errors.js';
import { isPrivateAddress } from '../http/address.js';
import type { HttpClient, Response } from '../http/client.js';
import { redactUrl } from '../http/redact.js';
import type { Credential } from './auth.js';
import type { UnauthorizedInfo } from './errors.js';
import { parseChallenges, pickChallenge, type Challenge } from './challenge.js';
import { TokenCache, basicHeader, type BearerChallenge } from './token.js';

type AuthState = { kind: 'none' } | { kind: 'basic' } | { kind: 'bearer'; challenge: BearerChallenge };

export type CredentialLookup = () => Promise<{ credential: Credential | undefined; file?: string }>;

export interface AuthenticatorOptions {
  registry: string;
  apiHost: string;
  /** Allows a token realm over plain http. */
  insecure?: boolean;
  credential?: CredentialLookup;
  client: HttpClient;
}

export class Authenticator {
  private readonly opts: AuthenticatorOptions;
  private readonly tokens = new TokenCache();
  private state: AuthState = { kind: 'none' };
  /** The registry's origin (`https://host:port`), learnt by the ping: only its challenges are answered. */
  private origin: string | undefined;
  private cred: ReturnType<CredentialLookup> | undefined;

  constructor(opts: AuthenticatorOptions) {
    this.opts = opts;
  }

  /** Token requests made so far. */
  get tokenRequests(): number {
    return this.tokens.requests;
  }

  private credential(): ReturnType<CredentialLookup> {
    this.cred ??= this.opts.credential ? this.opts.credential() : Promise.resolve({ credential: undefined });
    return this.cred;
  }

  /**
   * Learn the scheme from the ping's answer (`url` answered; `base` is the registry's origin): 401 with
   * challenges, or open (2xx, 403). A 401 from another origin (the ping was redirected) is not the
   * registry's challenge and is not adopted.
   */
  fromPing(status: number, wwwAuthenticate: Response['headers'][string], url: string, base: string): void {
    this.origin = new URL(base).origin;
    this.state = status === 401 && this.isRegistry(url) ? this.stateFrom(parseChallenges(wwwAuthenticate), url) : { kind: 'none' };
  }

  /** Did the registry itself answer (not a host it redirected to, such as a CDN)? */
  private isRegistry(url: string): boolean {
    return this.origin !== undefined && new URL(url).origin === this.origin;
  }

  private stateFrom(challenges: Challenge[], url: string): AuthState {
    const c = pickChallenge(challenges);
    if (!c) {
      if (challenges.length === 0) return { kind: 'basic' };
      throw new OsimageError(
        `registry ${this.opts.registry} asks for an unsupported authentication scheme (${challenges.map((x) => x.scheme).join(', ')})`,
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
    const registry = this.opts.registry;
    let u: URL;
    try {
      u = new URL(realm, from);
    } catch {
      throw new OsimageError(`registry ${registry} sent an invalid token realm "${realm}"`);
    }
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && this.opts.insecure)) {
      throw new OsimageError(`registry ${registry} sent token realm ${u} that is not https (use --insecure to allow it)`);
    }
    const regHost = new URL(`http://${this.opts.apiHost}`).hostname;
    if (isPrivateAddress(u.hostname) && !isPrivateAddress(regHost)) {
      throw new OsimageError(`registry ${registry} sent token realm ${u} on a private address; refusing it`);
    }
    return u.toString();
  }

  /** The Authorization header for a request with these token scopes, if the registry asks for one. */
  async header(scopes: string[]): Promise<string | undefined> {
    const state = this.state;
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
      registry: this.opts.registry,
      ...(file ? { credentialFile: file } : {}),
      client: this.opts.client,
    });
    return `Bearer ${token}`;
  }

  /**
   * After a 401 on `url` with these scopes: the scopes to try once more with (a new token, with any scope
   * the registry asked for; or the challenge of a repository the ping let through), or undefined.
   */
  retryScopes(res: Response, url: string, scopes: string[]): string[] | undefined {
    // A challenge from a redirect target (a CDN, an object store) never gets the registry's credentials
    // nor its tokens, and never becomes the registry's: the 401 stands.
    if (!this.isRegistry(res.url)) return undefined;
    const challenges = parseChallenges(res.headers['www-authenticate']);
    const c = pickChallenge(challenges);
    const state = this.state;
    if (c?.scheme === 'bearer' && state.kind === 'bearer') {
      this.tokens.invalidate({ challenge: state.challenge, scopes });
      if (c.params.error === 'insufficient_scope' && c.params.scope) {
        return [...new Set([...scopes, ...c.params.scope.split(' ').filter(Boolean)])];
      }
      return scopes;
    }
    if (state.kind === 'none' && c) {
      // The registry let the ping through but challenges this repository.
      this.state = this.stateFrom(challenges, url);
      return scopes;
    }
    return undefined;
  }

  /**
   * What a final 401 from `url` means: another origin's answer (a host the registry redirected to), or the
   * registry's, with who we were (`sent`: whether the request carried credentials) and where the credentials
   * came from. The words are errors.ts's UnauthorizedError.
   */
  async unauthorized(url: string, sent: boolean): Promise<UnauthorizedInfo> {
    if (!this.isRegistry(url)) {
      return {
        text: `${redactUrl(url)}, where registry ${this.opts.registry} redirected, answered 401 Unauthorized (its challenge is not answered with the registry's credentials)`,
      };
    }
    const { credential, file } = await this.credential().catch(() => ({ credential: undefined, file: undefined }));
    return {
      registry: this.opts.registry,
      username: sent ? credential?.username : undefined,
      file: sent && credential ? file : undefined,
      basic: this.state.kind === 'basic',
      sent,
    };
  }
}
