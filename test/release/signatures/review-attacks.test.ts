/**
 * Hostile input for `release verify-signatures` that must never pass nor hang: signatures made here with
 * OpenPGP.js (independently of osimage), placed in the cluster-version operator's store layout
 * `<store>/sha256=<hex>/signature-<n>` (library-go pkg/verify/store), against the real registry.
 *
 * - A signing subkey that has expired: gpg (and so containers/image) refuses its signatures; OpenPGP.js checks
 *   a subkey only as it was when it signed.
 * - A key the operator's OpenPGP library (golang.org/x/crypto/openpgp, library-go pkg/verify/verify.go) cannot read:
 *   EdDSA. The keys here are RSA or NIST-curve ECDSA for that reason.
 * - A compressed OpenPGP packet (RFC 4880 5.6, BZip2) that inflates to a gibibyte from under a kilobyte.
 * - The payload's verifier ConfigMap as the operator finds it (library-go pkg/verify NewFromManifests over the
 *   manifests the operator's pkg/payload LoadUpdate loads: the top-level .yaml/.yml/.json files of its own
 *   manifests/, then of release-manifests/, each in name order; the first one decides, even when invalid),
 *   whatever escapes its text uses.
 * - One signed message carrying the signatures of two keyrings' keys: the operator reads it once per keyring.
 * - Claims with a key given twice (containers/image's JSON reader refuses them: signature/internal/json.go).
 * - Pull specs from the payload (image-references) or from meta.json naming local paths: never opened.
 * - --skip-verification: the digest checked must be the content read.
 * - And guards for what already held: a sigstore layer whose bytes are not its digest's, a forged key id, a store
 *   redirecting to itself, a gap in signature-N, --require all with one kind missing.
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { verifyBuildContainers } from '../../../src/release/signatures/build-containers.js';
import { readKeyring, verifyGpgSignature } from '../../../src/release/signatures/gpg.js';
import { readClaim } from '../../../src/release/signatures/simple-signing.js';
import { readPayloadParts } from '../../../src/release/signatures/verifier-config.js';
import { openRemote } from '../../../src/registry/remote.js';
import type { BuildRef } from '../../../src/rhcos/os-image.js';
import { osimage } from '../../helpers/cli.js';
import { serveFolder, type FileServer } from '../../helpers/file-server.js';
import { pushBuilt, releaseImage, tempDir, type Temp } from '../../helpers/oci-builder.js';
import { type GpgKey, gpgSign, makeGpgKey, putSignatures as putStoreSignatures } from '../../helpers/gpg-signing.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../../helpers/registry.js';

const ATOMIC = 'atomic container signature';

let reg: TestRegistry | undefined;
printLogsOnFailure(() => reg);
let tmp: Temp;
let store: FileServer;
let repo: string;
let release: GpgKey;
let beta: GpgKey;

// RSA: the operator's OpenPGP library reads no EdDSA key (see the test of that below).
const gpgKey = (name: string, more: Parameters<typeof makeGpgKey>[1] = {}) => makeGpgKey(name, { type: 'rsa', rsaBits: 2048, ...more });

function claim(digest: string, identity = 'quay.io/x/y:1') {
  return Buffer.from(
    JSON.stringify({
      critical: { identity: { 'docker-reference': identity }, image: { 'docker-manifest-digest': digest }, type: ATOMIC },
      optional: { creator: 'test' },
    }),
  );
}

const putSignatures = (digest: string, sigs: Buffer[]) => putStoreSignatures(join(tmp.dir, 'store'), digest, sigs);

const indent = (s: string) =>
  s
    .trimEnd()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

function verifierYaml(name: string, keys: Record<string, string>): string {
  const data = [...Object.entries(keys).map(([k, v]) => `  ${k}: |\n${indent(v)}`), `  store-local: ${store.url}`].join('\n');
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: openshift-config-managed\n  annotations:\n    release.openshift.io/verification-config-map: ""\ndata:\n${data}\n`;
}

const YAML_FILE = 'release-manifests/0000_90_cluster-version-operator_02_verification.yaml';

async function pushRelease(tag: string, extra: Array<{ name: string; data: string }>): Promise<string> {
  return pushBuilt(`${repo}:${tag}`, await releaseImage({ name: tag, extra }));
}

/** Push a release holding `files`, sign its digest with `keys` into the store, and verify it requiring GPG (-o json). */
async function signedAndVerified(tag: string, files: Array<{ name: string; data: string }>, keys: GpgKey['priv'] | GpgKey['priv'][]) {
  const digest = await pushRelease(tag, files);
  await putSignatures(digest, [await gpgSign(keys, claim(digest))]);
  return verify(['--require', 'gpg', `${repo}:${tag}`, '-o', 'json']);
}

const verify = (args: string[]) => osimage(['release', 'verify-signatures', '--insecure', ...args]);

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  tmp = await tempDir('osimage-signature-attacks-');
  await mkdir(join(tmp.dir, 'store'), { recursive: true });
  store = await serveFolder(join(tmp.dir, 'store'));
  repo = `${reg.host}/ocp/release`;
  release = await gpgKey('release');
  beta = await gpgKey('beta');
}, 60_000);

afterAll(async () => {
  await store?.close();
  await reg?.stop();
  reg = undefined;
  await tmp?.cleanup();
});

describe('GPG signatures that must not pass', () => {
  test('a signature by a signing subkey that has expired since (the primary key never expires)', async () => {
    const made = new Date(Date.now() - 3600_000);
    const key = await gpgKey('subkey', { date: made, subkeys: [{ sign: true, keyExpirationTime: 60 }] });
    const sig = await gpgSign(key.priv, claim('sha256:00'), new Date(made.getTime() + 10_000));
    const ring = await readKeyring('verifier-public-key-subkey', Buffer.from(key.armored));
    await expect(verifyGpgSignature(sig, [ring], 'store/signature-1')).rejects.toThrow(
      /^store\/signature-1: the signing key [0-9A-F]{16} of [0-9A-F]{40} \(verifier-public-key-subkey\) is not valid now: .*expired/,
    );
  });

  test('a signing subkey that is valid signs; once revoked it does not', async () => {
    const key = await gpgKey('subkey-ok', { subkeys: [{ sign: true }] });
    const sig = await gpgSign(key.priv, claim('sha256:00'));
    const ring = await readKeyring('ring', Buffer.from(key.armored));
    const ok = await verifyGpgSignature(sig, [ring], 'S');
    expect(ok).toMatchObject({ fingerprint: key.fpr, keyring: 'ring' });
    expect(ok.keyId).not.toBe(key.fpr.slice(-16));
    const revoked = await openpgp.readPrivateKey({ armoredKey: key.priv.armor() });
    revoked.subkeys[0] = await revoked.subkeys[0]!.revoke(revoked.keyPacket as openpgp.SecretKeyPacket);
    const revokedRing = await readKeyring('ring', Buffer.from(revoked.toPublic().armor()));
    await expect(verifyGpgSignature(sig, [revokedRing], 'S')).rejects.toThrow(
      /^S: the signature by key [0-9A-F]{16} \(ring\) is not valid: .*revoked/,
    );
  });

  test("a signature by another key that names a keyring key's id is checked with that key, and fails", async () => {
    const stranger = await gpgKey('stranger');
    const sig = await gpgSign(stranger.priv, claim('sha256:00'));
    const from = Buffer.from(stranger.fpr.slice(-16), 'hex');
    const to = Buffer.from(release.fpr.slice(-16), 'hex');
    // Every occurrence of the stranger's key id (the one-pass packet, the issuer subpacket, the fingerprint's tail).
    const forged = Buffer.from(sig);
    for (let i = forged.indexOf(from); i >= 0; i = forged.indexOf(from, i + 8)) to.copy(forged, i);
    const ring = await readKeyring('verifier-public-key-release', Buffer.from(release.armored));
    await expect(verifyGpgSignature(forged, [ring], 'S')).rejects.toThrow(
      new RegExp(`^S: the signature by key ${release.fpr.slice(-16)} \\(verifier-public-key-release\\) is not valid`),
    );
  });

  test('a key the operator cannot read (EdDSA) is refused: a cluster would never verify its signature', async () => {
    const key = await gpgKey('eddsa', { type: 'ecc', curve: 'ed25519Legacy' });
    const sig = await gpgSign(key.priv, claim('sha256:00'));
    const ring = await readKeyring('verifier-public-key-eddsa', Buffer.from(key.armored));
    await expect(verifyGpgSignature(sig, [ring], 'S')).rejects.toThrow(
      new RegExp(
        `^S: the key ${key.fpr} \\(verifier-public-key-eddsa\\) is an eddsaLegacy \\(ed25519Legacy\\) key, which the cluster-version operator's OpenPGP library \\(golang.org/x/crypto/openpgp\\) cannot read`,
      ),
    );
    const ecdsa = await gpgKey('ecdsa', { type: 'ecc', curve: 'nistP256' });
    const ok = await verifyGpgSignature(
      await gpgSign(ecdsa.priv, claim('sha256:00')),
      [await readKeyring('r', Buffer.from(ecdsa.armored))],
      'S',
    );
    expect(ok.fingerprint).toBe(ecdsa.fpr);
  });

  test('a compressed packet that inflates to a gibibyte is refused at once, naming the signature', async () => {
    // BZip2 of a one-pass signature packet and a literal data packet of 2^30 zero bytes (841 bytes compressed):
    // wrapped in a compressed data packet (tag 8, algorithm 3), 845 bytes in all.
    const bz = Buffer.from(BZIP2_GIBIBYTE, 'base64');
    const body = Buffer.concat([Buffer.from([3]), bz]);
    const bomb = Buffer.concat([Buffer.from([0xc8, ((body.length - 192) >> 8) + 192, (body.length - 192) & 0xff]), body]);
    const ring = await readKeyring('verifier-public-key-release', Buffer.from(release.armored));
    const err = await verifyGpgSignature(bomb, [ring], 'store/signature-1').catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^store\/signature-1: not an OpenPGP message: .*decompressed size/);
    expect((err as Error).message).not.toContain('\n');
  });

  test('one message signed by the keys of two keyrings satisfies both, as the operator reads it once per keyring', async () => {
    const cm = verifierYaml('release-verification', {
      'verifier-public-key-beta': beta.armored,
      'verifier-public-key-release': release.armored,
    });
    const r = await signedAndVerified('two-in-one', [{ name: YAML_FILE, data: cm }], [release.priv, beta.priv]);
    const j = JSON.parse(r.stdout);
    expect(j.gpg.keyrings.map((k: { signed: boolean }) => k.signed)).toEqual([true, true]);
    expect(r.exitCode).toBe(0);
  });
});

describe('stores and requirements', () => {
  const signedRelease = async (tag: string, sigs: (digest: string) => Promise<Array<Buffer | undefined>>) => {
    const cm = verifierYaml('release-verification', { 'verifier-public-key-release': release.armored });
    const digest = await pushRelease(tag, [{ name: YAML_FILE, data: cm }]);
    const dir = join(tmp.dir, 'store', digest.replace(':', '='));
    await mkdir(dir, { recursive: true });
    for (const [i, b] of (await sigs(digest)).entries()) if (b) await writeFile(join(dir, `signature-${i + 1}`), b);
    return digest;
  };

  test('a gap: signature-2 behind a missing signature-1 is not read (the operator stops at the first miss)', async () => {
    await signedRelease('gap', async (d) => [undefined, await gpgSign(release.priv, claim(d))]);
    const r = await verify(['--require', 'gpg', `${repo}:gap`, '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout).signatures).toEqual([]);
  });

  test('a store that redirects to itself: one error line naming the signature, no hang', async () => {
    const digest = await signedRelease('loop', async (d) => [await gpgSign(release.priv, claim(d))]);
    const path = `/${digest.replace(':', '=')}/signature-1`;
    store.faults.push((req, res) => {
      if (req.url !== path) return false;
      res.writeHead(302, { location: path }).end();
      return true;
    });
    try {
      const r = await verify(['--require', 'gpg', `${repo}:loop`, '-o', 'json']);
      expect(r.exitCode).toBe(1);
      const [sig] = JSON.parse(r.stdout).signatures;
      expect(sig.verdict).toBe('error');
      expect(sig.reason).toMatch(/too many redirects/);
      expect(sig.reason).not.toContain('\n');
    } finally {
      store.faults.length = 0;
    }
  });

  test('--require all with GPG met and no .sig: not met', async () => {
    await signedRelease('all-half', async (d) => [await gpgSign(release.priv, claim(d))]);
    const pub = join(tmp.dir, 'all.pub');
    await writeFile(pub, generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string);
    const r = await verify(['--key', pub, '--require', 'all', `${repo}:all-half`, '-o', 'json']);
    const j = JSON.parse(r.stdout);
    expect(j.gpg.met).toBe(true);
    expect(j.sigstore).toMatchObject({ found: false, met: false });
    expect(r.exitCode).toBe(1);
  });
});

describe('the verifier ConfigMap is the one the operator would use', () => {
  test('an earlier ConfigMap whose annotation is written with a JSON escape is still the first', async () => {
    // The operator decodes the JSON before looking for the annotation: `\/` is `/`.
    const escaped = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'first',
        namespace: 'openshift-config-managed',
        annotations: { 'release.openshift.io/verification-config-map': '' },
      },
      data: { 'verifier-public-key-beta': beta.armored, 'store-local': store.url },
    }).replace('release.openshift.io/verification', 'release.openshift.io\\/verification');
    const r = await signedAndVerified(
      'escaped',
      [
        { name: 'release-manifests/0000_00_escaped.json', data: escaped },
        { name: YAML_FILE, data: verifierYaml('second', { 'verifier-public-key-release': release.armored }) },
      ],
      release.priv,
    );
    const j = JSON.parse(r.stdout);
    expect(j.gpg.configMap).toContain('openshift-config-managed/first');
    expect(r.exitCode).toBe(1);
  });

  test('and in YAML: a double-quoted key with hex and unicode escapes', async () => {
    const spelled = verifierYaml('first-yaml', { 'verifier-public-key-beta': beta.armored }).replace(
      '    release.openshift.io/verification-config-map: ""',
      '    "release.openshift.io\\x2F\\u0076erification-config-map": ""',
    );
    expect(spelled).not.toContain('release.openshift.io/verification-config-map');
    const r = await signedAndVerified(
      'escaped-yaml',
      [
        { name: 'release-manifests/0000_00_escaped.yaml', data: spelled },
        { name: YAML_FILE, data: verifierYaml('second', { 'verifier-public-key-release': release.armored }) },
      ],
      release.priv,
    );
    const j = JSON.parse(r.stdout);
    expect(j.gpg.configMap).toContain('openshift-config-managed/first-yaml');
    expect(r.exitCode).toBe(1);
  });

  test('a ConfigMap in a subfolder of release-manifests/ is not read (the operator reads the top level only)', async () => {
    const r = await signedAndVerified(
      'subfolder',
      [
        { name: 'release-manifests/00/verification.yaml', data: verifierYaml('nested', { 'verifier-public-key-beta': beta.armored }) },
        { name: YAML_FILE, data: verifierYaml('top', { 'verifier-public-key-release': release.armored }) },
      ],
      beta.priv,
    );
    const j = JSON.parse(r.stdout);
    expect(j.gpg.configMap).toContain('openshift-config-managed/top');
    expect(r.exitCode).toBe(1);
  });

  test("a ConfigMap in the operator's own manifests/ comes before release-manifests/ (the operator loads it first)", async () => {
    const r = await signedAndVerified(
      'cvo-manifests',
      [
        { name: 'manifests/9999_late.yaml', data: verifierYaml('own', { 'verifier-public-key-beta': beta.armored }) },
        { name: 'release-manifests/0000_00_early.yaml', data: verifierYaml('payload', { 'verifier-public-key-release': release.armored }) },
      ],
      release.priv,
    );
    const j = JSON.parse(r.stdout);
    expect(j.gpg.configMap).toContain('openshift-config-managed/own');
    expect(j.gpg.configMap).toContain('manifests/9999_late.yaml');
    expect(r.exitCode).toBe(1);
  });

  test('a later manifests/ ConfigMap counts when release-manifests/ has none', async () => {
    const r = await signedAndVerified(
      'cvo-manifests-only',
      [
        { name: 'manifests/0000_00_other.yaml', data: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n' },
        { name: 'manifests/sub/0000_00_nested.yaml', data: verifierYaml('nested', { 'verifier-public-key-beta': beta.armored }) },
        { name: 'manifests/0000_90_verification.yaml', data: verifierYaml('own', { 'verifier-public-key-release': release.armored }) },
      ],
      release.priv,
    );
    const j = JSON.parse(r.stdout);
    expect(j.gpg.configMap).toContain('openshift-config-managed/own');
    expect(r.exitCode).toBe(0);
  });

  test('an invalid ConfigMap after the first does not matter; the first decides even when invalid', async () => {
    const invalid = (name: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: openshift-config-managed\n  annotations:\n    release.openshift.io/verification-config-map: ""\ndata:\n  store-x: 1\n`;
    const r = await signedAndVerified(
      'later-invalid',
      [
        { name: 'manifests/0000_90_verification.yaml', data: verifierYaml('own', { 'verifier-public-key-release': release.armored }) },
        { name: 'manifests/0000_91_invalid.yaml', data: invalid('own-later') },
        { name: 'release-manifests/0000_00_invalid.yaml', data: invalid('payload') },
      ],
      release.priv,
    );
    expect(JSON.parse(r.stdout).gpg.configMap).toContain('openshift-config-managed/own');
    expect(r.exitCode).toBe(0);

    const bad = await signedAndVerified(
      'first-invalid',
      [
        { name: 'manifests/0000_00_invalid.yaml', data: invalid('own-first') },
        { name: 'manifests/0000_90_verification.yaml', data: verifierYaml('own', { 'verifier-public-key-release': release.armored }) },
      ],
      release.priv,
    );
    expect(JSON.parse(bad.stdout).gpg.problem).toContain('openshift-config-managed/own-first');
    expect(bad.exitCode).toBe(1);
  });

  test('a manifests/ template naming the annotation is refused: the operator would render it first', async () => {
    const templated = verifierYaml('own', { 'verifier-public-key-beta': beta.armored }).replace('name: own', 'name: {{ .ReleaseImage }}');
    const r = await signedAndVerified(
      'cvo-template',
      [
        { name: 'manifests/0000_90_verification.yaml', data: templated },
        { name: YAML_FILE, data: verifierYaml('payload', { 'verifier-public-key-release': release.armored }) },
      ],
      release.priv,
    );
    const j = JSON.parse(r.stdout);
    expect(j.gpg.problem).toContain('manifests/0000_90_verification.yaml: a template');
    expect(r.exitCode).toBe(1);
    // With --keyring and --store the payload's verifier is not used, so manifests/ (every layer) is not read at all;
    // image-references (for --os-images) still is.
    const ring = join(tmp.dir, 'release-ring.asc');
    await writeFile(ring, release.armored);
    const flags = await verify(['--require', 'gpg', '--keyring', ring, '--store', store.url, `${repo}:cvo-template`, '-o', 'json']);
    expect(JSON.parse(flags.stdout).gpg.problem).toBeUndefined();
    expect(flags.exitCode).toBe(0);
    const source = await openRemote(`${repo}:cvo-template`, { insecure: true, env: {} });
    const parts = await readPayloadParts(source, { verifier: false });
    expect(parts.verifier).toBeUndefined();
    expect(parts.imageReferences).toBeDefined();
    await expect(readPayloadParts(source)).rejects.toThrow('a template names the verifier annotation');
  });
});

describe("--os-images: the pull specs are the payload's, not the user's", () => {
  test('an OS image tag naming a local file or folder is refused, not opened', async () => {
    const local = join(tmp.dir, 'local-layout');
    await mkdir(local, { recursive: true });
    const image = await releaseImage({
      name: 'local-os',
      tags: [
        { name: 'rhel-coreos', pullspec: 'oci-archive:/dev/zero' },
        { name: 'rhel-coreos-extensions', pullspec: `oci:${local}` },
        { name: 'machine-os-content', pullspec: 'dir:/etc' },
      ],
    });
    await pushBuilt(`${repo}:local-os`, image);
    const pub = join(tmp.dir, 'os.pub');
    await writeFile(pub, generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string);
    const r = await verify(['--key', pub, '--os-images', '--require', 'sigstore', `${repo}:local-os`, '-o', 'json']);
    expect(r.exitCode).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.osImages).toHaveLength(3);
    for (const o of j.osImages) expect(o.problem).toMatch(/is not a registry image/);
  });
});

describe("resolve --verify-signatures: the containers are meta.json's, not the user's", () => {
  test('a container naming a local layout is refused, not opened', async () => {
    const local = join(tmp.dir, 'meta-layout');
    await mkdir(local, { recursive: true });
    const pub = join(tmp.dir, 'meta.pub');
    await writeFile(pub, generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string);
    const digest = `sha256:${'c'.repeat(64)}`;
    const container = { image: `oci:${local}`, digest, manifestListDigest: null, tags: [], pullspec: `oci:${local}@${digest}` };
    const opened: string[] = [];
    const build = { build: 'b1', metaUrl: 'https://example.com/b1/meta.json', meta: { containers: { 'base-oscontainer': container } } };
    const err = await verifyBuildContainers(build as unknown as BuildRef, {
      keyFiles: [pub],
      open: async (ref) => {
        opened.push(ref);
        throw new Error(`opened ${ref}`);
      },
    }).catch((e: Error) => e);
    expect(opened).toEqual([]);
    expect((err as Error).message).toBe(
      `signature verification failed for base-oscontainer oci:${local}@${digest}: https://example.com/b1/meta.json names oci:${local}@${digest}, which is not a registry image`,
    );
  });
});

describe('registry flags', () => {
  test('--skip-verification is refused: the digest verified must be that of the content read', async () => {
    const r = await verify(['--skip-verification', '--require', 'gpg', `${repo}:escaped`]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--skip-verification cannot be used with verify-signatures');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  test('--help does not offer --skip-verification (it is refused), but the other registry flags', async () => {
    const r = await verify(['--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain('--skip-verification');
    expect(r.stdout).toContain('--registry-config');
  });
});

describe('sigstore layers', () => {
  const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

  /** An OCI layout (image-spec image-layout.md) holding `blobs`, with `manifests` tagged in index.json. */
  async function layout(dir: string, blobs: Buffer[], manifests: Array<{ tag: string; bytes: Buffer }>) {
    await mkdir(join(dir, 'blobs', 'sha256'), { recursive: true });
    await writeFile(join(dir, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
    for (const b of [...blobs, ...manifests.map((m) => m.bytes)]) await writeFile(join(dir, 'blobs', 'sha256', sha(b).slice(7)), b);
    const index = {
      schemaVersion: 2,
      manifests: manifests.map((m) => ({
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        digest: sha(m.bytes),
        size: m.bytes.length,
        annotations: { 'org.opencontainers.image.ref.name': m.tag },
      })),
    };
    await writeFile(join(dir, 'index.json'), JSON.stringify(index));
  }

  test('a layer whose bytes are not those its digest names is an error, even when they are a good signature', async () => {
    const dir = join(tmp.dir, 'layout-mismatch');
    const config = Buffer.from('{}');
    const image = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha(config), size: config.length },
        layers: [],
      }),
    );
    const digest = sha(image);
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pub = join(tmp.dir, 'mismatch.pub');
    await writeFile(pub, pair.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    const good = Buffer.from(
      JSON.stringify({
        critical: {
          identity: { 'docker-reference': 'quay.io/x/y:1' },
          image: { 'docker-manifest-digest': digest },
          type: 'cosign container image signature',
        },
        optional: null,
      }),
    );
    // The descriptor names other bytes of the same size; the file under that digest holds the good claim.
    const named = Buffer.from(good.toString().replace('quay.io/x/y:1', 'quay.io/x/z:1'));
    const sigManifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha(config), size: config.length },
        layers: [
          {
            mediaType: 'application/vnd.dev.cosign.simplesigning.v1+json',
            digest: sha(named),
            size: named.length,
            annotations: { 'dev.cosignproject.cosign/signature': sign('sha256', good, pair.privateKey).toString('base64') },
          },
        ],
      }),
    );
    await layout(
      dir,
      [config],
      [
        { tag: 'rel', bytes: image },
        { tag: `${digest.replace(':', '-')}.sig`, bytes: sigManifest },
      ],
    );
    await writeFile(join(dir, 'blobs', 'sha256', sha(named).slice(7)), good);
    const r = await osimage(['release', 'verify-signatures', '--key', pub, '--require', 'sigstore', `oci:${dir}:rel`, '-o', 'json']);
    expect(r.exitCode).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.signatures).toEqual([expect.objectContaining({ verdict: 'error', reason: expect.stringContaining('layer 0') })]);
    expect(j.signatures[0].reason).not.toContain('\n');
  });
});

const BZIP2_GIBIBYTE = [
  'QlpoOTFBWSZTWQjXpxQFfjj1VelCAQAIAEIAEIAAIAAIBAoAAIAIoABwUwmmgNMQTVUgD1MmTamORKgJdKioCWNFFQEu+lRUBL3z',
  'jrcfMZ22+78b+f2daioCWf5igrJMprIcE8W+Ar8cgAGAAAAQQABhAJqMhUBLUhUBLmKCskymshwTxb4CvxyAAYAAABBAAGEAmoyF',
  'QEtSFQEuYoKyTKayHBPFvgK/HIABgAAAEEAAYQCajIVAS1IVAS5igrJMprIcE8W+Ar8cgAGAAAAQQABhAJqMhUBLUhUBLmKCskym',
  'shwTxb4CvxyAAYAAABBAAGEAmoyFQEtSFQEuYoKyTKayHBPFvgK/HIABgAAAEEAAYQCajIVAS1IVAS5igrJMprIcE8W+Ar8cgAGA',
  'AAAQQABhAJqMhUBLUhUBLmKCskymshwTxb4CvxyAAYAAABBAAGEAmoyFQEtSFQEuYoKyTKayHBPFvgK/HIABgAAAEEAAYQCajIVA',
  'S1IVAS5igrJMprIcE8W+Ar8cgAGAAAAQQABhAJqMhUBLUhUBLmKCskymshwTxb4CvxyAAYAAABBAAGEAmoyFQEtSFQEuYoKyTKay',
  'HBPFvgK/HIABgAAAEEAAYQCajIVAS1IVAS5igrJMprIcE8W+Ar8cgAGAAAAQQABhAJqMhUBLUhUBLmKCskymshwTxb4CvxyAAYAA',
  'ABBAAGEAmoyFQEtSFQEuYoKyTKayHBPFvgK/HIABgAAAEEAAYQCajIVAS1IVAS5igrJMprIcE8W+Ar8cgAGAAAAQQABhAJqMhUBL',
  'UhUBLmKCskymshwTxb4CvxyAAYAAABBAAGEAmoyFQEtSFQEuYoKyTKayHBPFvgK/HIABgAAAEEAAYQCajIVAS1IVAS5igrJMprIc',
  'E8W+Ar8cgAGAAAAQQABhAJqMhUBLUhUBLmKCskymshwTxb4CvxyAAYAAABBAAGEAmoyFQEtSFQEuYoKyTKayHBPFvgK/HIABgAAA',
  'EEAAYQCajIVAS1IVAS5igrJMprIcE8W+Ar8cgAGAAAAQQABhAJqMhUBLUhUBLmKCskyms5mml9YBFKqIAYAAQAAAEEAAYZgKU0yS',
  'RIbFJIkPF3JFOFCQl6SfAg==',
].join('');

describe('claims that a consumer would read otherwise', () => {
  const digest = `sha256:${'a'.repeat(64)}`;
  const other = `sha256:${'b'.repeat(64)}`;

  test('a cosign claim with a duplicate key is refused (containers/image refuses duplicate keys)', () => {
    const text = `{"critical":{"identity":{"docker-reference":"quay.io/x/y:1"},"image":{"docker-manifest-digest":"${other}","docker-manifest-digest":"${digest}"},"type":"cosign container image signature"},"optional":null}`;
    expect(() => readClaim(Buffer.from(text), 'cosign', digest, 'REF layer 0')).toThrow(
      /^REF layer 0: the signed claim has the key "docker-manifest-digest" twice in critical.image$/,
    );
    const top = `{"critical":{"identity":{"docker-reference":"quay.io/x/y:1"},"image":{"docker-manifest-digest":"${digest}"},"type":"cosign container image signature"},"optional":null,"optional":{}}`;
    expect(() => readClaim(Buffer.from(top), 'cosign', digest, 'REF layer 0')).toThrow(/has the key "optional" twice/);
  });

  test('a claim nested 60,000 deep, and one of a megabyte of spaces: one line each', () => {
    const deep = Buffer.from(`${'['.repeat(60_000)}${']'.repeat(60_000)}`);
    expect(() => readClaim(deep, 'atomic', digest, 'S')).toThrow(/^S: the signed claim .*deep/);
    const wide = Buffer.from(`{"critical":${' '.repeat(1 << 20)}{}}`);
    expect(() => readClaim(wide, 'atomic', digest, 'S')).toThrow(/^S: /);
  });
});
