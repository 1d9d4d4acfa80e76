import { createPrivateKey, createSign, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { REGISTRY_BIN, freePort, htpasswdAuth, startRegistryServer, type RegistryServer } from '../infra/registry-server.mjs';
import { testCertificateAuthority } from '../infra/tls.mjs';
import { selfSignedCert } from './tls.js';

export { REGISTRY_BIN, freePort };

export type RegistryMode = 'open' | 'htpasswd' | 'token';

export interface TokenRequestLog {
  method: string;
  /** Requested scopes (GET: repeated `scope=`; POST: the space-joined form field). */
  scopes: string[];
  service: string | undefined;
  /** Who asked: a user (Basic), `refresh:<user>` (identity token), or undefined (anonymous). */
  account: string | undefined;
  grantType: string | undefined;
  authorization: string | undefined;
  status: number;
}

export interface TokenServer {
  url: string;
  realm: string;
  service: string;
  requests: TokenRequestLog[];
  /** Identity (refresh) tokens the server accepts, mapped to the user. */
  refreshTokens: Map<string, string>;
  /** expires_in sent with each token. */
  expiresIn: number;
  close(): Promise<void>;
}

export interface StartOptions {
  mode?: RegistryMode;
  /** Users for htpasswd and token modes (default: {alice: 'wonderland'}). */
  users?: Record<string, string>;
  /** Token mode: may anonymous clients pull? (default true; pushes always need a user) */
  anonymousPull?: boolean;
  /** Serve HTTPS with a certificate of a CA of its own (`caFile`). */
  tls?: boolean;
}

export interface TestRegistry {
  mode: RegistryMode;
  /** `http://127.0.0.1:PORT` (`https://` with tls) */
  url: string;
  /** With tls: the CA certificate that signed the registry's (for `--certificate-authority`). */
  caFile?: string;
  /** `127.0.0.1:PORT`, as in image references. */
  host: string;
  users: Record<string, string>;
  dir: string;
  token?: TokenServer;
  /** The registry's log so far. */
  logs(): Promise<string>;
  stop(): Promise<void>;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** A self-signed P-256 certificate and key for signing tokens. */
async function makeSigningCert(dir: string): Promise<{ key: KeyObject; certDer: Buffer; certPath: string }> {
  const {
    certFile: certPath,
    cert,
    key: keyPem,
  } = await selfSignedCert(dir, {
    name: 'token',
    subject: '/CN=osimage-test-token-signer',
    ipAddress: null,
  });
  const pem = cert.toString('utf8');
  const body = pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  return { key: createPrivateKey(keyPem), certDer: Buffer.from(body, 'base64'), certPath };
}

function signJwt(key: KeyObject, certDer: Buffer, claims: Record<string, unknown>): string {
  const header = { typ: 'JWT', alg: 'ES256', x5c: [certDer.toString('base64')] };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const sig = createSign('SHA256').update(input).sign({ key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${b64url(sig)}`;
}

function parseBasic(h: string | undefined): { user: string; pass: string } | undefined {
  if (!h || !/^basic /i.test(h)) return undefined;
  const dec = Buffer.from(h.slice(6).trim(), 'base64').toString('utf8');
  const i = dec.indexOf(':');
  return i < 0 ? undefined : { user: dec.slice(0, i), pass: dec.slice(i + 1) };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `repository:ns/repo:pull,push` → access claim entries, limited to what the caller may do. */
function grant(scopes: string[], canPush: boolean, canPull: boolean): Array<{ type: string; name: string; actions: string[] }> {
  const out: Array<{ type: string; name: string; actions: string[] }> = [];
  for (const s of scopes) {
    const m = /^([^:]+):(.+):([^:]+)$/.exec(s);
    if (!m) continue;
    const actions = m[3]!.split(',').filter((a) => (a === 'pull' && canPull) || ((a === 'push' || a === '*') && canPush));
    if (actions.length) out.push({ type: m[1]!, name: m[2]!, actions });
  }
  return out;
}

async function startTokenServer(
  dir: string,
  users: Record<string, string>,
  anonymousPull: boolean,
): Promise<TokenServer & { certPath: string; issuer: string }> {
  const { key, certDer, certPath } = await makeSigningCert(dir);
  const issuer = 'osimage-test-issuer';
  const service = 'osimage-test-registry';
  const requests: TokenRequestLog[] = [];
  const refreshTokens = new Map<string, string>();
  const state = { expiresIn: 300 };
  const server: Server = createServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const entry: TokenRequestLog = {
      method: req.method ?? 'GET',
      scopes: [],
      service: undefined,
      account: undefined,
      grantType: undefined,
      authorization: req.headers.authorization,
      status: 200,
    };
    requests.push(entry);
    const reply = (status: number, body: unknown) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (u.pathname !== '/token') return reply(404, { errors: [{ code: 'NOT_FOUND' }] });
    let user: string | undefined;
    if (req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      entry.grantType = form.get('grant_type') ?? undefined;
      entry.service = form.get('service') ?? undefined;
      entry.scopes = (form.get('scope') ?? '').split(' ').filter(Boolean);
      if (entry.grantType === 'refresh_token') {
        user = refreshTokens.get(form.get('refresh_token') ?? '');
        if (!user) return reply(401, { error: 'invalid_grant' });
        entry.account = `refresh:${user}`;
      } else if (entry.grantType === 'password') {
        const name = form.get('username') ?? '';
        if (users[name] === undefined || users[name] !== form.get('password')) return reply(401, { error: 'invalid_grant' });
        user = name;
        entry.account = user;
      } else {
        return reply(400, { error: 'unsupported_grant_type' });
      }
    } else {
      entry.service = u.searchParams.get('service') ?? undefined;
      entry.scopes = u.searchParams
        .getAll('scope')
        .flatMap((s) => s.split(' '))
        .filter(Boolean);
      const basic = parseBasic(req.headers.authorization);
      if (req.headers.authorization) {
        if (!basic || users[basic.user] === undefined || users[basic.user] !== basic.pass)
          return reply(401, { errors: [{ code: 'UNAUTHORIZED', message: 'bad credentials' }] });
        user = basic.user;
        entry.account = user;
      }
    }
    if (entry.service !== service) return reply(400, { error: `unknown service ${entry.service}` });
    const now = Math.floor(Date.now() / 1000);
    const access = grant(entry.scopes, user !== undefined, user !== undefined || anonymousPull);
    const token = signJwt(key, certDer, {
      iss: issuer,
      sub: user ?? '',
      aud: service,
      exp: now + state.expiresIn,
      nbf: now - 10,
      iat: now,
      jti: randomBytes(8).toString('hex'),
      access,
    });
    const body: Record<string, unknown> = {
      token,
      access_token: token,
      expires_in: state.expiresIn,
      issued_at: new Date(now * 1000).toISOString(),
    };
    if (req.method === 'POST' && entry.grantType === 'refresh_token') body.refresh_token = u.searchParams.get('refresh_token') ?? undefined;
    reply(200, body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    realm: `${url}/token`,
    service,
    issuer,
    certPath,
    requests,
    refreshTokens,
    get expiresIn() {
      return state.expiresIn;
    },
    set expiresIn(v: number) {
      state.expiresIn = v;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Start a registry; stop it in afterAll. */
export async function startRegistry(opts: StartOptions = {}): Promise<TestRegistry> {
  const mode = opts.mode ?? 'open';
  const users = opts.users ?? { alice: 'wonderland' };
  const dir = await mkdtemp(join(tmpdir(), 'osimage-registry-'));
  const dataDir = join(dir, 'data');
  let token: (TokenServer & { certPath: string; issuer: string }) | undefined;
  let auth = '';
  if (mode === 'htpasswd') {
    auth = await htpasswdAuth(dir, users);
  } else if (mode === 'token') {
    token = await startTokenServer(dir, users, opts.anonymousPull ?? true);
    auth = [
      'auth:',
      '  token:',
      `    realm: ${token.realm}`,
      `    service: ${token.service}`,
      `    issuer: ${token.issuer}`,
      `    rootcertbundle: ${JSON.stringify(token.certPath)}`,
    ].join('\n');
  }

  let server: RegistryServer;
  let ca: Awaited<ReturnType<typeof testCertificateAuthority>> | undefined;
  try {
    ca = opts.tls ? await testCertificateAuthority(dir) : undefined;
    server = await startRegistryServer({ dir, dataDir, auth, ...(ca ? { tls: ca } : {}) });
  } catch (err) {
    await token?.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const stop = async () => {
    await server.stop();
    await token?.close();
    await rm(dir, { recursive: true, force: true });
  };
  return {
    mode,
    url: server.url,
    ...(ca ? { caFile: ca.caFile } : {}),
    host: server.host,
    users,
    dir,
    ...(token ? { token } : {}),
    logs: server.logs,
    stop,
  };
}

/** An auth file (containers auth.json format) for the given host and user. */
export function authFileFor(host: string, user: string, password: string): string {
  return JSON.stringify({ auths: { [host]: { auth: Buffer.from(`${user}:${password}`).toString('base64') } } });
}

/** Print the registry's log after a failed test (it goes to a file, not the test output). */
export function printLogsOnFailure(get: () => TestRegistry | undefined): void {
  afterEach(async (ctx) => {
    const reg = get();
    if (reg && ctx.task.result?.state === 'fail') {
      const log = await reg.logs();
      process.stderr.write(
        `--- docker-registry log (${reg.mode}, ${reg.url}), last 60 lines ---\n${log.split('\n').slice(-60).join('\n')}\n`,
      );
    }
  });
}

/**
 * A registry for the enclosing describe block: started before its tests, stopped after them, its log printed
 * when a test fails. The getter returns the running registry.
 */
export function useRegistry(opts: StartOptions = {}): () => TestRegistry {
  let reg: TestRegistry | undefined;
  printLogsOnFailure(() => reg);
  beforeAll(async () => {
    reg = await startRegistry(opts);
  });
  afterAll(async () => {
    await reg?.stop();
    reg = undefined;
  });
  return () => {
    if (!reg) throw new Error('the registry is not running (useRegistry is used outside its describe block)');
    return reg;
  };
}
