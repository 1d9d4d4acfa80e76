/**
 * `release info` with the cache, against the real registry behind the recording proxy: a repeat by tag costs
 * one manifest request and no blob, by digest nothing at all; --no-cache and --skip-verification bypass it; a
 * corrupted entry is fetched again with the same output; a cache that cannot be written changes nothing on
 * stderr; no credential or token reaches the disk.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { CLI_PULLSPEC, MOC_PULLSPEC, baseEntries, image, pushBuilt, releaseEntries, tempDir, type Temp } from '../helpers/oci-builder.js';
import { authFileFor, printLogsOnFailure, startRegistry, type RegistryMode, type TestRegistry } from '../helpers/registry.js';
import type { BuiltImage } from '../../src/release/build-layer.js';

/** Every file under `dir`, recursively. */
async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(join(e.parentPath, e.name));
  }
  return out;
}

interface Setup {
  reg: TestRegistry;
  proxy: FaultProxy;
  img: BuiltImage;
  /** By tag, through the proxy. */
  ref: string;
  /** By digest, through the proxy. */
  byDigest: string;
  temp: Temp;
  authFile?: string;
}

/** A registry (open, htpasswd or token) with a two-layer release image, behind the recording proxy. */
function useRelease(mode: RegistryMode): () => Setup {
  let s: Setup | undefined;
  printLogsOnFailure(() => s?.reg);
  beforeAll(async () => {
    const reg = await startRegistry({ mode });
    const proxy = await startFaultProxy(reg.url);
    const temp = await tempDir('osimage-cache-release-');
    let authFile: string | undefined;
    let pushAuth: string | undefined;
    if (mode !== 'open') {
      authFile = join(temp.dir, 'auth.json');
      await writeFile(authFile, authFileFor(proxy.host, 'alice', 'wonderland'));
      pushAuth = join(temp.dir, 'push-auth.json');
      await writeFile(pushAuth, authFileFor(reg.host, 'alice', 'wonderland'));
    }
    const img = await image([{ entries: baseEntries() }, { entries: releaseEntries({ name: '4.13.1' }) }]);
    const digest = await pushBuilt(`${reg.host}/ocp/release:4.13.1`, img, pushAuth ? { registryConfig: pushAuth } : {});
    s = {
      reg,
      proxy,
      img,
      temp,
      ref: `${proxy.host}/ocp/release:4.13.1`,
      byDigest: `${proxy.host}/ocp/release@${digest}`,
      ...(authFile ? { authFile } : {}),
    };
  });
  afterAll(async () => {
    await s?.proxy.close();
    await s?.reg.stop();
    await s?.temp.cleanup();
  });
  return () => s!;
}

let cache: Temp;
/** The user key's folder (src/cache/user-key.ts), away from the cache folder and from the host's home. */
let state: Temp;
beforeAll(async () => {
  state = await tempDir('osimage-cache-state-');
});
afterAll(async () => state.cleanup());
beforeEach(async () => {
  cache = await tempDir('osimage-cache-dir-');
});
afterEach(async () => {
  await cache.cleanup();
});

describe('release info with the cache (open registry)', () => {
  const get = useRelease('open');
  const run = (args: string[], env: Record<string, string | undefined> = {}) =>
    osimage(['release', 'info', '--insecure', ...args], {
      env: { OSIMAGE_NO_CACHE: undefined, OSIMAGE_CACHE_DIR: cache.dir, XDG_STATE_HOME: state.dir, ...env },
    });
  const requests = () => get().proxy.requests.map((r) => `${r.method} ${r.url}`);
  const manifestRequests = () => requests().filter((r) => /\/manifests\//.test(r));
  const blobRequests = () => requests().filter((r) => /\/blobs\//.test(r));
  beforeEach(() => {
    get().proxy.requests.length = 0;
  });

  test('a repeat by tag: one manifest request (HEAD), no blob; the same output', async () => {
    const first = await run(['--image-for', 'machine-os-content', get().ref]);
    expect(first).toEqual({ stdout: MOC_PULLSPEC, stderr: '', exitCode: 0 });
    expect(blobRequests().length).toBeGreaterThan(0);
    get().proxy.requests.length = 0;
    const again = await run(['--image-for', 'machine-os-content', get().ref]);
    expect(again).toEqual(first);
    expect(manifestRequests()).toEqual(['HEAD /v2/ocp/release/manifests/4.13.1']);
    expect(blobRequests()).toEqual([]);
  });

  test('the full view: a repeat by tag needs no config or layer; by digest no request at all', async () => {
    const first = await run([get().ref]);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/^Name: +4\.13\.1$/m);
    get().proxy.requests.length = 0;
    expect(await run([get().ref])).toEqual(first);
    expect(manifestRequests()).toHaveLength(1);
    expect(blobRequests()).toEqual([]);
    get().proxy.requests.length = 0;
    const byDigest = await run([get().byDigest]);
    expect(byDigest.exitCode).toBe(0);
    expect(requests()).toEqual([]);
    expect(byDigest.stdout.replace(/^Pull From:.*$/m, '')).toBe(first.stdout.replace(/^Pull From:.*$/m, ''));
  });

  test('by digest from cold: fetched once, then answered from the cache alone', async () => {
    const first = await run(['--image-for', 'cli', get().byDigest]);
    expect(first).toEqual({ stdout: CLI_PULLSPEC, stderr: '', exitCode: 0 });
    get().proxy.requests.length = 0;
    expect(await run(['--image-for', 'cli', get().byDigest])).toEqual(first);
    expect(requests()).toEqual([]);
  });

  test('--no-cache fetches again and leaves the cache alone', async () => {
    await run(['--image-for', 'cli', get().ref]);
    const before = await files(cache.dir);
    get().proxy.requests.length = 0;
    const r = await run(['--no-cache', '--image-for', 'cli', get().ref]);
    expect(r).toEqual({ stdout: CLI_PULLSPEC, stderr: '', exitCode: 0 });
    expect(manifestRequests()).toEqual(['GET /v2/ocp/release/manifests/4.13.1']);
    expect(blobRequests().length).toBeGreaterThan(0);
    expect(await files(cache.dir)).toEqual(before);
  });

  test('--skip-verification writes nothing (and reads nothing)', async () => {
    const r = await run(['--skip-verification', get().ref]);
    expect(r.exitCode).toBe(0);
    expect(await files(cache.dir)).toEqual([]);
    await run(['--image-for', 'cli', get().ref]);
    get().proxy.requests.length = 0;
    await run(['--skip-verification', '--image-for', 'cli', get().ref]);
    expect(blobRequests().length).toBeGreaterThan(0);
  });

  test('corrupted entries are discarded and fetched again, with the same output', async () => {
    const first = await run([get().ref]);
    const stored = await files(cache.dir);
    expect(stored.length).toBeGreaterThanOrEqual(4); // manifest, config, release files, tag
    for (const f of stored) {
      const raw = await readFile(f);
      raw.writeUInt8(raw.readUInt8(raw.length - 1) ^ 0x01, raw.length - 1);
      await writeFile(f, raw);
    }
    get().proxy.requests.length = 0;
    expect(await run([get().ref])).toEqual(first);
    expect(manifestRequests()).toEqual(['GET /v2/ocp/release/manifests/4.13.1']);
    expect(blobRequests().length).toBeGreaterThan(0);
    // Stored again, intact: the next repeat is warm.
    get().proxy.requests.length = 0;
    expect(await run([get().ref])).toEqual(first);
    expect(blobRequests()).toEqual([]);
  });

  test('a manifest whose stored bytes no longer match its digest is fetched again', async () => {
    await run(['--image-for', 'cli', get().byDigest]);
    const [manifest] = (await files(cache.dir)).filter((f) => f.includes('/manifests/'));
    // A well-formed entry (its checksum right) whose bytes are another document that parses the same (the real
    // manifest and a trailing space): only hashing the bytes against the digest catches it.
    const { CacheStore } = await import('../../src/cache/store.js');
    const store = new CacheStore(cache.dir);
    const name = manifest!.split('/').pop()!;
    const real = await store.get({ kind: 'manifests', name });
    await store.put({ kind: 'manifests', name }, Buffer.concat([real!.data, Buffer.from(' ')]), real!.meta);
    get().proxy.requests.length = 0;
    const r = await run(['--image-for', 'cli', get().byDigest]);
    expect(r).toEqual({ stdout: CLI_PULLSPEC, stderr: '', exitCode: 0 });
    expect(manifestRequests()).toHaveLength(1);
  });

  test('a cache that cannot be written changes nothing on stderr; OSIMAGE_DEBUG says why', async () => {
    const notAFolder = join(cache.dir, 'file');
    await writeFile(notAFolder, 'x');
    const env = { OSIMAGE_CACHE_DIR: join(notAFolder, 'cache') };
    const r = await run(['--image-for', 'cli', get().ref], env);
    expect(r).toEqual({ stdout: CLI_PULLSPEC, stderr: '', exitCode: 0 });
    const full = await run([get().ref], env);
    expect(full.exitCode).toBe(0);
    expect(full.stderr).toBe('');
    const debug = await run(['--image-for', 'cli', get().ref], { ...env, OSIMAGE_DEBUG: '1' });
    expect(debug.stdout).toBe(CLI_PULLSPEC);
    expect(debug.stderr).toMatch(/^debug: cache: cannot write /m);
  });

  test('a symlinked kind folder: the prune after each write (a bound of 1 byte) never reaches what it points to', async () => {
    const outside = await tempDir('osimage-cache-outside-');
    try {
      await writeFile(join(outside.dir, 'f'), 'precious');
      await mkdir(join(cache.dir, 'v1'), { mode: 0o700 });
      await symlink(outside.dir, join(cache.dir, 'v1', 'configs'));
      const r = await run([get().ref], { OSIMAGE_CACHE_MAX_SIZE: '1' });
      expect(r.exitCode).toBe(0);
      expect(await readdir(outside.dir)).toEqual(['f']);
    } finally {
      await outside.cleanup();
    }
  });

  test('a release entry rewritten to name other images (its checksum recomputed) is not served', async () => {
    const first = await run(['--image-for', 'cli', get().byDigest]);
    expect(first).toEqual({ stdout: CLI_PULLSPEC, stderr: '', exitCode: 0 });
    const evil = `evil.example.com/cli@sha256:${'e'.repeat(64)}`;
    let forged = 0;
    for (const f of (await files(cache.dir)).filter((p) => p.includes('/release/'))) {
      // `MAGIC <sum>\n<meta>\n<data>` (src/cache/store.ts): anyone who can write the file can recompute a checksum.
      const raw = await readFile(f);
      const nl = raw.indexOf(0x0a);
      const body = raw.subarray(nl + 1);
      const metaEnd = body.indexOf(0x0a);
      const doc = JSON.parse(body.subarray(metaEnd + 1).toString('utf8'));
      if (typeof doc.imageReferences !== 'string') continue;
      const refs = JSON.parse(Buffer.from(doc.imageReferences, 'base64').toString('utf8'));
      for (const t of refs.spec.tags) if (t.name === 'cli') t.from.name = evil;
      doc.imageReferences = Buffer.from(JSON.stringify(refs)).toString('base64');
      const rewritten = Buffer.concat([body.subarray(0, metaEnd + 1), Buffer.from(JSON.stringify(doc))]);
      const magic = raw.subarray(0, nl).toString('latin1').split(' ')[0];
      const sum = createHash('sha256').update(rewritten).digest('hex');
      await writeFile(f, Buffer.concat([Buffer.from(`${magic} ${sum}\n`), rewritten]));
      forged++;
    }
    expect(forged).toBeGreaterThan(0);
    expect(await run(['--image-for', 'cli', get().byDigest])).toEqual(first);
  });

  test('--cache-dir beats OSIMAGE_CACHE_DIR', async () => {
    const other = await tempDir('osimage-cache-flag-');
    try {
      await run(['--cache-dir', other.dir, '--image-for', 'cli', get().ref]);
      expect((await files(other.dir)).length).toBeGreaterThan(0);
      expect(await files(cache.dir)).toEqual([]);
    } finally {
      await other.cleanup();
    }
  });
});

describe.each(['htpasswd', 'token'] as const)('no credential reaches the cache (%s registry)', (mode) => {
  const get = useRelease(mode);

  test('after a cold and a warm run, no cache file holds the password, the auth string or a token', async () => {
    const env = { OSIMAGE_NO_CACHE: undefined, OSIMAGE_CACHE_DIR: cache.dir };
    const args = ['release', 'info', '--insecure', '-a', get().authFile!];
    const first = await osimage([...args, get().ref], { env });
    expect(first.exitCode).toBe(0);
    get().proxy.requests.length = 0;
    expect(await osimage([...args, get().ref], { env })).toEqual(first);
    const secrets = ['wonderland', Buffer.from('alice:wonderland').toString('base64')];
    for (const r of get().proxy.requests) {
      const authz = String(r.headers.authorization ?? '');
      const m = /^(?:Bearer|Basic) (.+)$/i.exec(authz);
      if (m) secrets.push(m[1]!);
    }
    // The warm run had to authenticate: its credential or token is among those checked.
    expect(secrets.length).toBeGreaterThan(2);
    const stored = await files(cache.dir);
    expect(stored.length).toBeGreaterThan(0);
    for (const f of stored) {
      const text = (await readFile(f)).toString('latin1');
      for (const s of secrets) expect(text.includes(s), `${f} contains a secret`).toBe(false);
    }
  });
});
