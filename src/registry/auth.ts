/**
 * Registry credentials from auth files (containers auth.json and docker config.json share a format).
 *
 * Files: `-a/--registry-config FILE`, else `$REGISTRY_AUTH_FILE` (either: only that file, which must exist, as in
 * oc and podman), else the first file with a matching entry of `$XDG_RUNTIME_DIR/containers/auth.json`,
 * `${XDG_CONFIG_HOME:-~/.config}/containers/auth.json`, `$DOCKER_CONFIG/config.json` (or `~/.docker/config.json`),
 * `~/.dockercfg`: containers-auth.json(5)'s order, which oc 4.13 announces it will move to (it still lets
 * `~/.docker/config.json` win unless REGISTRY_AUTH_PREFERENCE=podman, and says so in a warning).
 *
 * Keys in a file: `credHelpers[host]`, then the repository path, its parents and the host
 * (`quay.io/ns/repo`, `quay.io/ns`, `quay.io`), then keys written as URLs (`https://quay.io/v1/`);
 * `docker.io`, `index.docker.io` and `registry-1.docker.io` are one host.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { env as runEnv } from '../context.js';
import { OsimageError, describe, type OnWarning } from '../errors.js';

export interface Credential {
  username?: string;
  password?: string;
  /** An OAuth2 refresh token (`identitytoken`), exchanged at the token server with grant_type=refresh_token. */
  identityToken?: string;
  /** A bearer token used as is (`registrytoken`). */
  registryToken?: string;
}

export interface CredentialLookup {
  credential: Credential | undefined;
  /** The file the credential came from, and the key (or `credHelpers`) that matched. */
  file?: string;
  key?: string;
}

export interface AuthFileOptions {
  /** -a / --registry-config: the only file read when given. */
  registryConfig?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  uid?: number;
  onWarning?: OnWarning;
}

export interface AuthFileCandidate {
  path: string;
  /** Where the path came from, as oc names it in messages: `--registry-config`, `${REGISTRY_AUTH_FILE}`, … */
  source: string;
  /** A missing file is an error (-a, $REGISTRY_AUTH_FILE) rather than skipped. */
  required: boolean;
  /** `~/.dockercfg`: the legacy format with the entries at the top level. */
  legacy?: boolean;
}

/** The auth files to look in, in order. */
export function authFileCandidates(opts: AuthFileOptions = {}): AuthFileCandidate[] {
  if (opts.registryConfig) return [{ path: opts.registryConfig, source: '--registry-config', required: true }];
  const env = opts.env ?? runEnv();
  if (env.REGISTRY_AUTH_FILE) return [{ path: env.REGISTRY_AUTH_FILE, source: '${REGISTRY_AUTH_FILE}', required: true }];
  const home = opts.home ?? env.HOME ?? homedir();
  const out: AuthFileCandidate[] = [];
  const runtimeDir = env.XDG_RUNTIME_DIR || `/run/containers/${opts.uid ?? process.getuid?.() ?? 0}`;
  out.push({
    path: env.XDG_RUNTIME_DIR ? join(runtimeDir, 'containers', 'auth.json') : join(runtimeDir, 'auth.json'),
    source: '$XDG_RUNTIME_DIR',
    required: false,
  });
  out.push({ path: join(env.XDG_CONFIG_HOME || join(home, '.config'), 'containers', 'auth.json'), source: '~/.config', required: false });
  out.push({
    path: env.DOCKER_CONFIG ? join(env.DOCKER_CONFIG, 'config.json') : join(home, '.docker', 'config.json'),
    source: env.DOCKER_CONFIG ? '$DOCKER_CONFIG' : '~/.docker',
    required: false,
  });
  out.push({ path: join(home, '.dockercfg'), source: '~/.dockercfg', required: false, legacy: true });
  return out;
}

interface AuthEntry {
  auth?: unknown;
  username?: unknown;
  password?: unknown;
  identitytoken?: unknown;
  registrytoken?: unknown;
}

export interface AuthFile {
  path: string;
  auths: Record<string, AuthEntry>;
  credHelpers: Record<string, string>;
  credsStore?: string;
}

/** The hosts that mean Docker Hub, normalised to one. */
function canonicalHost(host: string): string {
  const h = host.toLowerCase();
  return h === 'index.docker.io' || h === 'registry-1.docker.io' || h === 'docker.io' ? 'docker.io' : h;
}

/** A key written as a URL (`https://index.docker.io/v1/`, `http://h:5000`) → its host; other keys unchanged. */
export function normalizeAuthKey(key: string): string {
  const m = /^https?:\/\/([^/]+)/i.exec(key);
  const host = m ? m[1]! : key;
  const slash = host.indexOf('/');
  return canonicalHost(slash >= 0 && m ? host.slice(0, slash) : host);
}

/** ` (line L, column C)` of a JSON.parse error, when the engine says at which position; else nothing. */
function jsonErrorPlace(err: unknown, text: string): string {
  const m = / at position (\d+)/.exec(err instanceof Error ? err.message : '');
  if (!m) return '';
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  return ` (line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
}

/** Read and check one auth file. A file that is not JSON of the right shape is an error naming it. */
export async function readAuthFile(path: string, legacy = false): Promise<AuthFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new OsimageError(`cannot read auth file ${path}: ${describe(err)}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // V8's message quotes the text around the error, which here may be a password: say where, never what.
    throw new OsimageError(`auth file ${path} is not valid JSON${jsonErrorPlace(err, text)}`, { code: 'invalid-input' });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new OsimageError(`auth file ${path} is not a JSON object`);
  }
  const obj = doc as Record<string, unknown>;
  const auths = legacy && obj.auths === undefined ? obj : (obj.auths ?? {});
  if (typeof auths !== 'object' || auths === null || Array.isArray(auths)) {
    throw new OsimageError(`auth file ${path}: "auths" is not an object`);
  }
  for (const [k, v] of Object.entries(auths)) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new OsimageError(`auth file ${path}: entry "${k}" is not an object`);
  }
  const helpers = obj.credHelpers ?? {};
  if (typeof helpers !== 'object' || helpers === null || Array.isArray(helpers)) {
    throw new OsimageError(`auth file ${path}: "credHelpers" is not an object`);
  }
  return {
    path,
    auths: auths as Record<string, AuthEntry>,
    credHelpers: Object.fromEntries(Object.entries(helpers).filter(([, v]) => typeof v === 'string')) as Record<string, string>,
    ...(typeof obj.credsStore === 'string' && obj.credsStore ? { credsStore: obj.credsStore } : {}),
  };
}

/** Keys to try, most specific first: `host/ns/repo`, `host/ns`, `host`. */
export function authKeyOrder(registry: string, repository: string): string[] {
  const keys: string[] = [];
  const parts = repository.split('/');
  for (let n = parts.length; n > 0; n--) keys.push(`${registry}/${parts.slice(0, n).join('/')}`);
  keys.push(registry);
  return keys;
}

/** Decode one entry; undefined when it is empty (a credential-helper marker) or unusable (with a warning). */
function decodeEntry(entry: AuthEntry, file: string, key: string, warn?: OnWarning): Credential | undefined {
  const cred: Credential = {};
  if (typeof entry.auth === 'string' && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const canonical = Buffer.from(decoded, 'utf8').toString('base64').replace(/=+$/, '');
    if (colon < 0 || canonical !== entry.auth.trim().replace(/=+$/, '')) {
      warn?.({
        code: 'auth-entry',
        message: `auth file ${file}: entry "${key}" has an "auth" value that is not base64 of user:password; ignoring it`,
      });
      return undefined;
    }
    cred.username = decoded.slice(0, colon);
    cred.password = decoded.slice(colon + 1).replace(/\0+$/, '');
  } else {
    if (typeof entry.username === 'string' && entry.username) cred.username = entry.username;
    if (typeof entry.password === 'string') cred.password = entry.password;
  }
  if (typeof entry.identitytoken === 'string' && entry.identitytoken) cred.identityToken = entry.identitytoken;
  if (typeof entry.registrytoken === 'string' && entry.registrytoken) cred.registryToken = entry.registrytoken;
  if (!cred.username && !cred.identityToken && !cred.registryToken) return undefined;
  return cred;
}

/** Find the entry for a repository in one parsed file. */
export function matchAuthFile(
  file: AuthFile,
  registry: string,
  repository: string,
  warn?: OnWarning,
): { credential: Credential; key: string } | { helper: string } | undefined {
  const host = canonicalHost(registry);
  const helper =
    file.credHelpers[registry] ?? file.credHelpers[host] ?? (host === 'docker.io' ? file.credHelpers['index.docker.io'] : undefined);
  if (helper) return { helper };
  const tried = new Set<string>();
  const candidates: Array<[string, AuthEntry]> = [];
  for (const key of authKeyOrder(registry, repository)) {
    const e = file.auths[key];
    if (e) candidates.push([key, e]);
    tried.add(key);
  }
  if (host === 'docker.io') {
    for (const key of authKeyOrder('index.docker.io', repository)) {
      const e = file.auths[key];
      if (e && !tried.has(key)) candidates.push([key, e]);
      tried.add(key);
    }
  }
  for (const [key, e] of Object.entries(file.auths)) {
    if (!tried.has(key) && /^https?:\/\//i.test(key) && normalizeAuthKey(key) === host) candidates.push([key, e]);
  }
  for (const [key, e] of Object.entries(file.auths)) {
    if (!tried.has(key) && !/^https?:\/\//i.test(key) && canonicalHost(key) === host && key !== registry) candidates.push([key, e]);
  }
  for (const [key, entry] of candidates) {
    const credential = decodeEntry(entry, file.path, key, warn);
    if (credential) return { credential, key };
    if (file.credsStore && (entry.auth === undefined || entry.auth === '')) return { helper: file.credsStore };
  }
  return undefined;
}

/** Run `docker-credential-<name> get` with the host on stdin. Not found or a failure → anonymous. */
export async function runCredentialHelper(name: string, host: string, env: NodeJS.ProcessEnv = runEnv()): Promise<Credential | undefined> {
  // Loaded here: child_process (with net and dgram) costs every registry query's start-up, and few use a helper.
  const { execFile } = await import('node:child_process');
  return new Promise((resolve) => {
    const child = execFile(`docker-credential-${name}`, ['get'], { env, timeout: 30_000, maxBuffer: 1024 * 1024 }, (err, stdout) => {
      if (err) return resolve(undefined);
      try {
        const doc = JSON.parse(stdout) as { Username?: unknown; Secret?: unknown };
        const user = typeof doc.Username === 'string' ? doc.Username : '';
        const secret = typeof doc.Secret === 'string' ? doc.Secret : '';
        if (!secret) return resolve(undefined);
        resolve(user === '<token>' ? { identityToken: secret } : { username: user, password: secret });
      } catch {
        resolve(undefined);
      }
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(host);
  });
}

/** Go's words for a file that is not there, as oc prints them. */
const statText = (path: string) => `stat ${path}: no such file or directory`;

/**
 * The credential for a repository, from the first auth file that has one. Missing default files are skipped;
 * a missing --registry-config or $REGISTRY_AUTH_FILE is an error, in oc's words (`unable to load
 * --registry-config: stat FILE: no such file or directory`; `stat FILE: …` for the variable); a malformed file is an
 * error naming it, after oc's `unable to load --registry-config: ` / `unable to load ${REGISTRY_AUTH_FILE}: `.
 */
export async function findCredential(registry: string, repository: string, opts: AuthFileOptions = {}): Promise<CredentialLookup> {
  const env = opts.env ?? runEnv();
  for (const cand of authFileCandidates(opts)) {
    let file: AuthFile | undefined;
    try {
      file = await readAuthFile(cand.path, cand.legacy);
    } catch (err) {
      if (cand.required) throw new OsimageError(`unable to load ${cand.source}: ${describe(err)}`);
      throw err;
    }
    if (!file) {
      if (cand.source === '--registry-config') throw new OsimageError(`unable to load --registry-config: ${statText(cand.path)}`);
      if (cand.required) throw new OsimageError(statText(cand.path));
      continue;
    }
    const hit = matchAuthFile(file, registry, repository, opts.onWarning);
    if (!hit) continue;
    if ('helper' in hit) {
      const helperHost = canonicalHost(registry) === 'docker.io' ? 'https://index.docker.io/v1/' : registry;
      const credential = await runCredentialHelper(hit.helper, helperHost, env);
      if (!credential) {
        opts.onWarning?.({
          code: 'credential-helper',
          message: `credential helper docker-credential-${hit.helper} (from ${file.path}) gave no credential for ${registry}`,
        });
      }
      return { credential, file: file.path, key: `credHelper ${hit.helper}` };
    }
    return { credential: hit.credential, file: file.path, key: hit.key };
  }
  return { credential: undefined };
}
