/**
 * `resolve --verify-signatures`: a release browser on disk whose build's meta.json names two containers pushed to
 * the real registry, each signed (or not, or by another key) with a `sha256-<hex>.sig` manifest written by
 * osimage's own signing code (sigstore/cosign specs/SIGNATURE_SPEC.md; release/signatures/sign.ts, checked against
 * OpenSSL in test/release/signatures/sign-cli.test.ts).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sigstoreSignatureImage } from '../../src/release/signatures/sign.js';
import { osimage } from '../helpers/cli.js';
import { image, multiArch, pushBuilt, tempDir, type Temp } from '../helpers/oci-builder.js';
import { authFileFor, printLogsOnFailure, startRegistry, type TestRegistry, useRegistry } from '../helpers/registry.js';

let reg: TestRegistry | undefined;
printLogsOnFailure(() => reg);
let tmp: Temp;
const file = (name: string) => join(tmp.dir, name);
const BUILD = '418.94.202612010000-0';
const CHANNEL = '4.18-9.4/builds';
const signer = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });

interface Pushed {
  repo: string;
  digest: string;
  manifestListDigest?: string;
}

async function pushContainer(repo: string, tag: string, content: string): Promise<Pushed> {
  const built = await image([{ entries: [{ name: 'etc/os-release', data: content }] }]);
  const digest = await pushBuilt(`${reg!.host}/${repo}:${tag}`, built);
  return { repo: `${reg!.host}/${repo}`, digest };
}

async function sign(c: Pushed, key: KeyObject, identity = c.repo): Promise<void> {
  const sig = sigstoreSignatureImage(c.digest, identity, key, { creator: 'test', timestamp: 1_700_000_000 });
  await pushBuilt(`${c.repo}:${sig.tag}`, sig);
}

/** A release browser folder with one build whose meta.json names `base` and `ext`; its path. */
async function browser(name: string, base: Pushed, ext: Pushed): Promise<string> {
  const root = file(name);
  const dir = join(root, CHANNEL, BUILD, 'x86_64');
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(root, CHANNEL, 'builds.json'),
    JSON.stringify({ 'schema-version': '1.0.0', builds: [{ id: BUILD, arches: ['x86_64'] }], timestamp: '2026-12-01T00:00:00Z' }),
  );
  await writeFile(
    join(dir, 'meta.json'),
    JSON.stringify({
      buildid: BUILD,
      'base-oscontainer': {
        image: base.repo,
        digest: base.digest,
        ...(base.manifestListDigest ? { 'manifest-list-digest': base.manifestListDigest } : {}),
        tags: [],
      },
      'extensions-container': { image: ext.repo, digest: ext.digest, tags: [] },
    }),
  );
  return root;
}

let signed: { base: Pushed; ext: Pushed };
let unsigned: Pushed;
let wrongKey: Pushed;
let otherIdentity: Pushed;

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  tmp = await tempDir('osimage-resolve-sig-');
  await writeFile(file('signer.pub'), signer.publicKey.export({ type: 'spki', format: 'pem' }));
  await writeFile(file('stranger.pub'), stranger.publicKey.export({ type: 'spki', format: 'pem' }));
  signed = { base: await pushContainer('rhcos/art', 'base', 'base'), ext: await pushContainer('rhcos/art', 'ext', 'ext') };
  await sign(signed.base, signer.privateKey);
  await sign(signed.ext, signer.privateKey);
  unsigned = await pushContainer('rhcos/art', 'unsigned', 'unsigned');
  wrongKey = await pushContainer('rhcos/art', 'stranger', 'stranger');
  await sign(wrongKey, stranger.privateKey);
  otherIdentity = await pushContainer('rhcos/art', 'elsewhere', 'elsewhere');
  await sign(otherIdentity, signer.privateKey, 'quay.io/someone/else');
}, 60_000);

afterAll(async () => {
  await reg?.stop();
  reg = undefined;
  await tmp?.cleanup();
});

const resolve = (root: string, ...args: string[]) =>
  osimage(['resolve', '--base-url', root, '--channel', CHANNEL, '--verify-signatures', '--insecure', '--key', file('signer.pub'), ...args]);

describe('resolve --verify-signatures', () => {
  test('every container signed: the usual answer, and a note of what was verified', async () => {
    const root = await browser('good', signed.base, signed.ext);
    const r = await resolve(root, '-o', 'os-image');
    expect(r.stderr).not.toContain('error');
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe(`${signed.base.repo}@${signed.base.digest}`);
    expect(r.stderr).toContain(
      `info: Verified the sigstore signatures of ${signed.base.repo}@${signed.base.digest}, ${signed.ext.repo}@${signed.ext.digest}`,
    );
    // Either of two keys may sign.
    const two = await resolve(root, '--key', file('stranger.pub'), '-o', 'json');
    expect(two.exitCode).toBe(0);
    const j = JSON.parse(two.stdout);
    expect(j.build).toBe(BUILD);
    // -o json carries what was verified: each container at the digest checked, and its signature entries.
    expect(j.signatures.map((c: { container: string; image: string }) => [c.container, c.image])).toEqual([
      ['base-oscontainer', `${signed.base.repo}@${signed.base.digest}`],
      ['extensions-container', `${signed.ext.repo}@${signed.ext.digest}`],
    ]);
    for (const c of j.signatures) {
      expect(c.signatures.length).toBeGreaterThan(0);
      expect(c.signatures.some((s: { kind: string; verdict: string }) => s.kind === 'sigstore' && s.verdict === 'valid')).toBe(true);
    }
    // Without --verify-signatures the object has no signatures field.
    const plain = await osimage(['resolve', '--base-url', root, '--channel', CHANNEL, '-o', 'json']);
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('signatures');
  });

  test('an unsigned container: exit 1, one line naming it, nothing on stdout', async () => {
    const root = await browser('unsigned', signed.base, unsigned);
    const r = await resolve(root);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const sigTag = `${unsigned.digest.replace(':', '-')}.sig`;
    expect(r.stderr.trim()).toBe(
      `error: signature verification failed for extensions-container ${unsigned.repo}@${unsigned.digest}: no sigstore signature: ${unsigned.repo}:${sigTag} does not exist`,
    );
  });

  test('a container signed by another key: exit 1 naming it and the key', async () => {
    const root = await browser('stranger', wrongKey, unsigned);
    const r = await resolve(root);
    expect(r.exitCode).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`error: signature verification failed for base-oscontainer ${wrongKey.repo}@${wrongKey.digest}: `);
    expect(lines[0]).toContain(`not signed by the key given (${file('signer.pub')}) (and 1 more of the build's containers)`);
  });

  test('--identity-rule compares the signed identity with the container; without it the identity is not compared', async () => {
    const root = await browser('identity', signed.base, otherIdentity);
    expect((await resolve(root)).exitCode).toBe(0);
    // cosign signs the repository alone, which only the repository rules compare (as in containers/image).
    const r = await resolve(root, '--identity-rule', 'matchRepository');
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`signature verification failed for extensions-container ${otherIdentity.repo}@${otherIdentity.digest}: `);
    expect(r.stderr).toContain(
      `the signed identity quay.io/someone/else does not match the repository ${otherIdentity.repo} (matchRepository)`,
    );
    const exact = await resolve(root, '--identity-rule', 'exactRepository=quay.io/someone/else');
    expect(exact.stderr).toContain(`signature verification failed for base-oscontainer ${signed.base.repo}@${signed.base.digest}: `);
    const sameRepo = await resolve(await browser('identity-ok', signed.base, signed.ext), '--identity-rule', 'matchRepository');
    expect(sameRepo.exitCode).toBe(0);
  });

  test('usage errors before any network', async () => {
    const root = await browser('usage', signed.base, signed.ext);
    const noKey = await osimage(['resolve', '--base-url', root, '--channel', CHANNEL, '--verify-signatures']);
    expect(noKey.exitCode).toBe(2);
    expect(noKey.stderr).toContain('--verify-signatures needs --key FILE');
    const keyAlone = await osimage(['resolve', '--base-url', root, '--channel', CHANNEL, '--key', file('signer.pub')]);
    expect(keyAlone.exitCode).toBe(2);
    expect(keyAlone.stderr).toContain('--key applies only with --verify-signatures');
    const authAlone = await osimage(['resolve', '--base-url', root, '--channel', CHANNEL, '--authfile', file('auth.json')]);
    expect(authAlone.exitCode).toBe(2);
    expect(authAlone.stderr).toContain('--registry-config applies only with --verify-signatures');
    const badRule = await resolve(root, '--identity-rule', 'sameish');
    expect(badRule.exitCode).toBe(2);
    expect(badRule.stderr).toContain('--identity-rule: unknown rule "sameish"');
  });
});

describe('--verify-signatures with --manifest-list, and pin --verify-signatures', () => {
  test('--manifest-list checks the manifest list digest, the one printed', async () => {
    const amd = await image([{ entries: [{ name: 'etc/os-release', data: 'amd64' }] }]);
    const arm = await image([{ entries: [{ name: 'etc/os-release', data: 'arm64' }] }], { architecture: 'arm64' });
    const index = multiArch([
      { image: amd, platform: { os: 'linux', architecture: 'amd64' } },
      { image: arm, platform: { os: 'linux', architecture: 'arm64' } },
    ]);
    const listDigest = await pushBuilt(`${reg!.host}/rhcos/multi:base`, index);
    const base: Pushed = { repo: `${reg!.host}/rhcos/multi`, digest: amd.descriptor.digest, manifestListDigest: listDigest };
    await sign(base, signer.privateKey); // the per-arch image only
    const root = await browser('multi', base, signed.ext);
    expect((await resolve(root, '-o', 'os-image')).exitCode).toBe(0);
    const list = await resolve(root, '-o', 'os-image', '--manifest-list');
    expect(list.exitCode).toBe(1);
    expect(list.stderr).toContain(`signature verification failed for base-oscontainer ${base.repo}@${listDigest}: no sigstore signature`);
    await sign({ repo: base.repo, digest: listDigest }, signer.privateKey);
    const again = await resolve(root, '-o', 'os-image', '--manifest-list');
    expect(again.exitCode).toBe(0);
    expect(again.stdout.trim()).toBe(`${base.repo}@${listDigest}`);
  });

  test('pin writes nothing when a container is unsigned, and pins a signed build', async () => {
    const pin = (root: string, script: string, ...extra: string[]) =>
      osimage([
        'pin',
        '--write',
        script,
        '--base-url',
        root,
        '--channel',
        CHANNEL,
        '--verify-signatures',
        '--insecure',
        '--key',
        file('signer.pub'),
        ...extra,
      ]);
    const bad = await pin(await browser('pin-bad', signed.base, unsigned), file('bad.sh'));
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain(`error: signature verification failed for extensions-container ${unsigned.repo}@${unsigned.digest}`);
    await expect(stat(file('bad.sh'))).rejects.toThrow();
    const good = await pin(await browser('pin-good', signed.base, signed.ext), file('good.sh'));
    expect(good.exitCode).toBe(0);
    expect(await readFile(file('good.sh'), 'utf8')).toContain(BUILD);
    const check = await osimage(['pin', '--check', '--pins', file('good.sh'), '--verify-signatures', '--key', file('signer.pub')]);
    expect(check.exitCode).toBe(2);
    expect(check.stderr).toContain('--verify-signatures checks a build before it is pinned; it does not apply to --check');
  });
});

describe('--verify-signatures against a registry with TLS of its own CA and a password', () => {
  const secure = useRegistry({ mode: 'htpasswd', tls: true });

  test('-a and --certificate-authority reach the .sig manifests; without the auth file, no answer', async () => {
    const r = secure();
    const auth = file('auth.json');
    await writeFile(auth, authFileFor(r.host, 'alice', r.users.alice!));
    const push = async (tag: string): Promise<Pushed> => {
      const built = await image([{ entries: [{ name: 'etc/os-release', data: `secure ${tag}` }] }]);
      const digest = await pushBuilt(`${r.host}/rhcos/secure:${tag}`, built, { registryConfig: auth });
      const c = { repo: `${r.host}/rhcos/secure`, digest };
      const sig = sigstoreSignatureImage(digest, c.repo, signer.privateKey, { creator: 'test', timestamp: 1_700_000_000 });
      await pushBuilt(`${c.repo}:${sig.tag}`, sig, { registryConfig: auth });
      return c;
    };
    const root = await browser('secure', await push('base'), await push('ext'));
    const args = [
      'resolve',
      '--base-url',
      root,
      '--channel',
      CHANNEL,
      '--verify-signatures',
      '--key',
      file('signer.pub'),
      '-o',
      'os-image',
    ];
    const ok = await osimage([...args, '-a', auth, '--certificate-authority', r.caFile!]);
    expect(ok.stderr).not.toContain('error');
    expect(ok.exitCode).toBe(0);
    const noAuth = await osimage([...args, '--certificate-authority', r.caFile!]);
    expect(noAuth.exitCode).toBe(1);
    expect(noAuth.stdout).toBe('');
    expect(noAuth.stderr).toContain('error: signature verification failed for base-oscontainer');
    expect(noAuth.stderr).toContain('no basic auth credentials');
  });
});
