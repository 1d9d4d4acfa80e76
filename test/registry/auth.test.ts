import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { OsimageError } from '../../src/errors.js';
import { authFileCandidates, findCredential, normalizeAuthKey } from '../../src/registry/auth.js';
import { parseChallenges, pickChallenge } from '../../src/registry/challenge.js';
import { isPrivateAddress } from '../../src/http/address.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const authJson = (entries: Record<string, unknown>, extra: Record<string, unknown> = {}) => JSON.stringify({ auths: entries, ...extra });

let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-auth-'));
  home = join(dir, 'home');
  await mkdir(home, { recursive: true });
  // Only what the test sets: no HOME/XDG/DOCKER_CONFIG from the machine.
  env = { HOME: home, XDG_RUNTIME_DIR: join(dir, 'run'), PATH: process.env.PATH };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(path: string, content: string): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, content);
  return path;
}

describe('auth file lookup order', () => {
  test('REGISTRY_AUTH_FILE (alone) > XDG_RUNTIME_DIR > ~/.config > ~/.docker, each used when the ones before are unset', async () => {
    const a = await put(join(dir, 'a.json'), authJson({ 'q.io': { auth: b64('A:pa') } }));
    const b = await put(join(dir, 'run', 'containers', 'auth.json'), authJson({ 'q.io': { auth: b64('B:pb') } }));
    const c = await put(join(home, '.config', 'containers', 'auth.json'), authJson({ 'q.io': { auth: b64('C:pc') } }));
    const d = await put(join(home, '.docker', 'config.json'), authJson({ 'q.io': { auth: b64('D:pd') } }));
    const user = async (e: NodeJS.ProcessEnv, registryConfig?: string) =>
      (await findCredential('q.io', 'ocp/release', { env: e, home, ...(registryConfig ? { registryConfig } : {}) })).credential?.username;

    expect(await user({ ...env, REGISTRY_AUTH_FILE: a })).toBe('A');
    expect(await user(env)).toBe('B');
    await rm(b);
    expect(await user(env)).toBe('C');
    await rm(c);
    expect(await user(env)).toBe('D');
    // --registry-config beats everything, and is the only file read
    const explicit = await put(join(dir, 'explicit.json'), authJson({ 'q.io': { auth: b64('X:px') } }));
    expect(await user({ ...env, REGISTRY_AUTH_FILE: a }, explicit)).toBe('X');
    const empty = await put(join(dir, 'empty.json'), authJson({}));
    expect(await user({ ...env, REGISTRY_AUTH_FILE: a }, empty)).toBeUndefined();
    // DOCKER_CONFIG moves the docker file: the moved one is read, and ~/.docker/config.json (d) no longer is
    const moved = await put(join(dir, 'dockercfg', 'config.json'), authJson({ 'q.io': { auth: b64('E:pe') } }));
    const withDockerConfig = { ...env, DOCKER_CONFIG: join(dir, 'dockercfg') };
    expect(await user(withDockerConfig)).toBe('E');
    expect((await findCredential('q.io', 'ocp/release', { env: withDockerConfig, home })).file).toBe(moved);
    await rm(moved);
    expect(await user(withDockerConfig)).toBeUndefined();
    expect((await findCredential('q.io', 'ocp/release', { env, home })).file).toBe(d);
  });

  test('a default file without a matching entry passes on to the next one', async () => {
    await put(join(dir, 'run', 'containers', 'auth.json'), authJson({ 'other.io': { auth: b64('A:pa') } }));
    await put(join(home, '.docker', 'config.json'), authJson({ 'q.io': { auth: b64('D:pd') } }));
    const r = await findCredential('q.io', 'x/y', { env, home });
    expect(r.credential?.username).toBe('D');
    expect(r.file).toBe(join(home, '.docker', 'config.json'));
    expect(r.key).toBe('q.io');
  });

  test('REGISTRY_AUTH_FILE is the only file read, as -a is (oc and podman read it so)', async () => {
    const a = await put(join(dir, 'a.json'), authJson({ 'other.io': { auth: b64('A:pa') } }));
    await put(join(home, '.docker', 'config.json'), authJson({ 'q.io': { auth: b64('D:pd') } }));
    const r = await findCredential('q.io', 'x/y', { env: { ...env, REGISTRY_AUTH_FILE: a }, home });
    expect(r.credential).toBeUndefined();
    expect(authFileCandidates({ env: { ...env, REGISTRY_AUTH_FILE: a }, home }).map((c) => c.path)).toEqual([a]);
  });

  test('candidates follow XDG_CONFIG_HOME and fall back to /run/containers/<uid> without XDG_RUNTIME_DIR', () => {
    const paths = authFileCandidates({ env: { HOME: home, XDG_CONFIG_HOME: join(dir, 'cfg') }, home, uid: 1234 }).map((c) => c.path);
    expect(paths).toEqual([
      '/run/containers/1234/auth.json',
      join(dir, 'cfg', 'containers', 'auth.json'),
      join(home, '.docker', 'config.json'),
      join(home, '.dockercfg'),
    ]);
  });

  test("a missing --registry-config or REGISTRY_AUTH_FILE is an error in oc's words; missing default files are skipped", async () => {
    const nope = join(dir, 'nope.json');
    await expect(findCredential('q.io', 'a/b', { env, home, registryConfig: nope })).rejects.toMatchObject({
      message: `unable to load --registry-config: stat ${nope}: no such file or directory`,
    });
    await expect(findCredential('q.io', 'a/b', { env: { ...env, REGISTRY_AUTH_FILE: nope }, home })).rejects.toMatchObject({
      message: `stat ${nope}: no such file or directory`,
    });
    expect((await findCredential('q.io', 'a/b', { env, home })).credential).toBeUndefined();
  });

  test("a malformed file named by -a or REGISTRY_AUTH_FILE: oc's prefix, then which file and why", async () => {
    const f = await put(join(dir, 'bad.json'), '{"auths": []}');
    await expect(findCredential('q.io', 'a/b', { env, home, registryConfig: f })).rejects.toMatchObject({
      message: `unable to load --registry-config: auth file ${f}: "auths" is not an object`,
    });
    await expect(findCredential('q.io', 'a/b', { env: { ...env, REGISTRY_AUTH_FILE: f }, home })).rejects.toMatchObject({
      message: `unable to load \${REGISTRY_AUTH_FILE}: auth file ${f}: "auths" is not an object`,
    });
  });
});

describe('key matching within a file', () => {
  test('repository path, then parents, then host', async () => {
    const f = await put(
      join(dir, 'f.json'),
      authJson({
        'quay.io': { auth: b64('host:p') },
        'quay.io/ns': { auth: b64('ns:p') },
        'quay.io/ns/repo': { auth: b64('repo:p') },
      }),
    );
    const user = async (repo: string) => (await findCredential('quay.io', repo, { env, home, registryConfig: f })).credential?.username;
    expect(await user('ns/repo')).toBe('repo');
    expect(await user('ns/other')).toBe('ns');
    expect(await user('ns/repo/deeper')).toBe('repo');
    expect(await user('elsewhere/x')).toBe('host');
  });

  test('docker-style keys: https:// prefix and /v1/ suffix; docker.io means index.docker.io', async () => {
    const f = await put(
      join(dir, 'f.json'),
      authJson({
        'https://index.docker.io/v1/': { auth: b64('hub:p') },
        'http://myreg.example:5000/v2/': { auth: b64('my:p') },
      }),
    );
    const user = async (registry: string, repo: string) =>
      (await findCredential(registry, repo, { env, home, registryConfig: f })).credential?.username;
    expect(await user('docker.io', 'library/busybox')).toBe('hub');
    expect(await user('myreg.example:5000', 'a/b')).toBe('my');
    expect(await user('myreg.example', 'a/b')).toBeUndefined();
    expect(normalizeAuthKey('https://index.docker.io/v1/')).toBe('docker.io');
    expect(normalizeAuthKey('registry-1.docker.io')).toBe('docker.io');
  });

  test('auth splits on the first colon (passwords may hold colons); username/password fields; tokens', async () => {
    const f = await put(
      join(dir, 'f.json'),
      authJson({
        'a.io': { auth: b64('u:p:x') },
        'b.io': { username: 'bob', password: 'secret' },
        'c.io': { auth: b64('<token>:'), identitytoken: 'refresh-123' },
        'd.io': { registrytoken: 'bearer-456' },
      }),
    );
    const cred = async (registry: string) => (await findCredential(registry, 'x/y', { env, home, registryConfig: f })).credential;
    expect(await cred('a.io')).toEqual({ username: 'u', password: 'p:x' });
    expect(await cred('b.io')).toEqual({ username: 'bob', password: 'secret' });
    expect(await cred('c.io')).toMatchObject({ identityToken: 'refresh-123' });
    expect(await cred('d.io')).toEqual({ registryToken: 'bearer-456' });
  });

  test('a bad base64 entry is skipped with a warning; an empty auth (helper marker) quietly', async () => {
    const f = await put(
      join(dir, 'f.json'),
      authJson({ 'a.io/x': { auth: '%%%not-base64' }, 'a.io': { auth: b64('u:p') }, 'e.io': { auth: '' } }),
    );
    const warnings: string[] = [];
    const r = await findCredential('a.io', 'x/y', { env, home, registryConfig: f, onWarning: (w) => warnings.push(w.message) });
    expect(r.credential?.username).toBe('u');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(f);
    expect(warnings[0]).toContain('a.io/x');
    const w2: string[] = [];
    expect(
      (await findCredential('e.io', 'x/y', { env, home, registryConfig: f, onWarning: (w) => w2.push(w.message) })).credential,
    ).toBeUndefined();
    expect(w2).toEqual([]);
  });

  test('credHelpers: the helper gets the host on stdin; <token> means an identity token', async () => {
    const bin = join(dir, 'bin');
    await mkdir(bin);
    const seen = join(dir, 'helper-stdin');
    await writeFile(
      join(bin, 'docker-credential-fake'),
      `#!/bin/sh\ncat > ${JSON.stringify(seen)}\nhost=$(cat ${JSON.stringify(seen)})\nif [ "$host" = "tok.io" ]; then echo '{"ServerURL":"tok.io","Username":"<token>","Secret":"rt-1"}'; else echo '{"ServerURL":"h.io","Username":"hu","Secret":"hp"}'; fi\n`,
    );
    await chmod(join(bin, 'docker-credential-fake'), 0o755);
    const f = await put(join(dir, 'f.json'), authJson({}, { credHelpers: { 'h.io': 'fake', 'tok.io': 'fake' } }));
    const e = { ...env, PATH: `${bin}:${process.env.PATH}` };
    expect((await findCredential('h.io', 'a/b', { env: e, home, registryConfig: f })).credential).toEqual({
      username: 'hu',
      password: 'hp',
    });
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(seen, 'utf8')).toBe('h.io');
    expect((await findCredential('tok.io', 'a/b', { env: e, home, registryConfig: f })).credential).toEqual({ identityToken: 'rt-1' });
  });
});

describe('malformed auth files fail with one line naming the file', () => {
  test.each([
    ['not json', /is not valid JSON/],
    ['[1,2]', /is not a JSON object/],
    ['{"auths": 3}', /"auths" is not an object/],
    ['{"auths": {"q.io": "x"}}', /entry "q.io" is not an object/],
  ])('%s', async (content, reason) => {
    const f = await put(join(dir, 'bad.json'), content);
    const err = await findCredential('q.io', 'a/b', { env: { ...env, REGISTRY_AUTH_FILE: f }, home }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OsimageError);
    expect((err as Error).message).toMatch(reason);
    expect((err as Error).message).toContain(f);
    expect((err as Error).message).not.toContain('\n');
  });
});

describe('WWW-Authenticate parsing', () => {
  test.each([
    [
      'Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull"',
      [{ scheme: 'bearer', params: { realm: 'https://auth.example/token', service: 'registry.example', scope: 'repository:a/b:pull' } }],
    ],
    ['BEARER Realm=https://x/t, Service=svc', [{ scheme: 'bearer', params: { realm: 'https://x/t', service: 'svc' } }]],
    ['Basic realm="Registry Realm"', [{ scheme: 'basic', params: { realm: 'Registry Realm' } }]],
    [
      'Bearer realm="r\\"q", error="insufficient_scope", Basic realm="b"',
      [
        { scheme: 'bearer', params: { realm: 'r"q', error: 'insufficient_scope' } },
        { scheme: 'basic', params: { realm: 'b' } },
      ],
    ],
    [
      'Negotiate abc==, Basic realm=x',
      [
        { scheme: 'negotiate', params: { '': 'abc==' } },
        { scheme: 'basic', params: { realm: 'x' } },
      ],
    ],
  ])('%s', (header, expected) => {
    expect(parseChallenges(header)).toEqual(expected);
  });

  test('a Bearer challenge is chosen over Basic, wherever it is', () => {
    expect(pickChallenge(parseChallenges('Basic realm="b", Bearer realm="https://t"'))?.scheme).toBe('bearer');
  });

  test.each([['Bearer realm="x'], ['Bearer realm="x" service="y"'], ['Bearer realm="x", =y']])(
    'malformed: %s → an error, not a crash',
    (header) => {
      expect(() => parseChallenges(header)).toThrow(OsimageError);
    },
  );
});

describe('private addresses (a public registry must not send us there for tokens)', () => {
  test.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['[::1]', true],
    ['fd00::1', true],
    ['localhost', true],
    ['8.8.8.8', false],
    ['quay.io', false],
  ])('%s → %s', (host, expected) => {
    expect(isPrivateAddress(host)).toBe(expected);
  });
});
