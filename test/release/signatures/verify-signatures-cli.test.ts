/**
 * `osimage release verify-signatures` against the real distribution registry and a real HTTP signature store.
 *
 * The signatures are made here, independently of osimage: GPG ones with OpenPGP.js (a signed, not detached,
 * message over the atomic container claim, placed in the cluster-version operator's store layout
 * `<store>/sha256=<hex>/signature-<n>`: library-go pkg/verify/store/sigstore); sigstore ones with node:crypto
 * over the cosign claim, pushed as the `sha256-<hex>.sig` manifest whose layers have media type
 * `application/vnd.dev.cosign.simplesigning.v1+json` and the base64 signature in the
 * `dev.cosignproject.cosign/signature` annotation (sigstore/cosign specs/SIGNATURE_SPEC.md; containers/image
 * docs/containers-signature.5.md and signature/sigstore).
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage } from '../../helpers/cli.js';
import { archive, entry, pushBuilt, releaseImage, tempDir, type Temp } from '../../helpers/oci-builder.js';
import { serveFolder, type FileServer } from '../../helpers/file-server.js';
import { type GpgKey, gpgSign, makeGpgKey, putSignatures as putStoreSignatures } from '../../helpers/gpg-signing.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../../helpers/registry.js';
import type { BuiltImage } from '../../../src/release/build-layer.js';

const ATOMIC = 'atomic container signature';
const COSIGN = 'cosign container image signature';
const SIMPLE_SIGNING = 'application/vnd.dev.cosign.simplesigning.v1+json';

let reg: TestRegistry | undefined;
printLogsOnFailure(() => reg);
let tmp: Temp;
let store: FileServer;
let repo: string;
type KeyName = 'release' | 'beta' | 'stranger' | 'old';
const gpgKeys = {} as Record<KeyName, GpgKey>;
let ec: { priv: KeyObject; pubFile: string };
let rsa: { priv: KeyObject; pubFile: string };

// NIST P-256 ECDSA: the operator's OpenPGP library (golang.org/x/crypto/openpgp) reads no EdDSA key.
const gpgKey = (name: string) => makeGpgKey(name, { type: 'ecc', curve: 'nistP256' });

function pemKeyPair(type: 'ec' | 'rsa', file: string) {
  const pair = type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { priv: pair.privateKey, pubFile: file, pem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string };
}

function claim(type: string, digest: string, identity: string, optional: unknown = { creator: 'test', timestamp: 1700000000 }, extra = {}) {
  return Buffer.from(
    JSON.stringify({
      critical: { identity: { 'docker-reference': identity }, image: { 'docker-manifest-digest': digest }, type },
      optional,
      ...extra,
    }),
  );
}

/** Put signatures 1..n of `digest` in the store folder. */
const putSignatures = (digest: string, sigs: Buffer[]) => putStoreSignatures(join(tmp.dir, 'store'), digest, sigs);

function verifierConfigMap(keys: Record<string, string>, stores: Record<string, string>): string {
  const indent = (s: string) =>
    s
      .trimEnd()
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n');
  const data = [
    ...Object.entries(keys).map(([k, v]) => `  ${k}: |\n${indent(v)}`),
    ...Object.entries(stores).map(([k, v]) => `  ${k}: ${v}`),
  ].join('\n');
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: release-verification\n  namespace: openshift-config-managed\n  annotations:\n    release.openshift.io/verification-config-map: ""\ndata:\n${data}\n`;
}

/** Push a release with `configMap` (if any) in release-manifests/ under `tag`; its digest. */
async function pushRelease(tag: string, configMap?: string, name = tag): Promise<{ digest: string; image: BuiltImage }> {
  const extra = configMap ? [{ name: 'release-manifests/0000_90_cluster-version-operator_02_verification.yaml', data: configMap }] : [];
  const image = await releaseImage({ name, extra });
  const digest = await pushBuilt(`${repo}:${tag}`, image);
  return { digest, image };
}

const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** The cosign .sig manifest for `digest`, one layer per [claim, signature], pushed beside the image. */
async function pushSigstore(digest: string, layers: Array<{ payload: Buffer; signature: Buffer | string; mediaType?: string }>) {
  const config = Buffer.from('{}');
  const blobs: Array<{ descriptor: Record<string, unknown>; bytes: Buffer }> = [
    { descriptor: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha256(config), size: config.length }, bytes: config },
  ];
  const layerDescs = layers.map((l) => {
    const descriptor = {
      mediaType: l.mediaType ?? SIMPLE_SIGNING,
      digest: sha256(l.payload),
      size: l.payload.length,
      annotations: { 'dev.cosignproject.cosign/signature': typeof l.signature === 'string' ? l.signature : l.signature.toString('base64') },
    };
    blobs.push({ descriptor, bytes: l.payload });
    return descriptor;
  });
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: blobs[0]!.descriptor,
      layers: layerDescs,
    }),
  );
  const top = {
    descriptor: { mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: sha256(manifest), size: manifest.length },
    bytes: manifest,
    config: blobs[0]!,
    layers: blobs.slice(1),
    blobs,
  };
  await pushBuilt(`${repo}:${digest.replace(':', '-')}.sig`, top as unknown as BuiltImage);
}

const ecSign = (payload: Buffer) => sign('sha256', payload, ec.priv);

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  tmp = await tempDir('osimage-signatures-');
  store = await serveFolder(join(tmp.dir, 'store'));
  await mkdir(join(tmp.dir, 'store'), { recursive: true });
  repo = `${reg.host}/ocp/release`;
  gpgKeys.release = await gpgKey('release');
  gpgKeys.beta = await gpgKey('beta');
  gpgKeys.stranger = await gpgKey('stranger');
  const ecPair = pemKeyPair('ec', join(tmp.dir, 'ec.pub'));
  const rsaPair = pemKeyPair('rsa', join(tmp.dir, 'rsa.pub'));
  await writeFile(ecPair.pubFile, ecPair.pem);
  await writeFile(rsaPair.pubFile, rsaPair.pem);
  await writeFile(join(tmp.dir, 'release.asc'), gpgKeys.release.armored);
  ec = ecPair;
  rsa = rsaPair;
}, 60_000);

afterAll(async () => {
  await store?.close();
  await reg?.stop();
  reg = undefined;
  await tmp?.cleanup();
});

const verify = (args: string[]) => osimage(['release', 'verify-signatures', '--insecure', ...args]);

describe('release verify-signatures: both kinds', () => {
  let digest: string;
  beforeAll(async () => {
    const cm = verifierConfigMap({ 'verifier-public-key-release': gpgKeys.release.armored }, { 'store-local': `${store.url}/` });
    ({ digest } = await pushRelease('4.17.0', cm));
    const identity = `${repo}:4.17.0`;
    await putSignatures(digest, [
      await gpgSign(gpgKeys.release.priv, claim(ATOMIC, digest, 'quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64')),
    ]);
    const p1 = claim(COSIGN, digest, identity, null);
    const p2 = claim(COSIGN, digest, identity, { creator: 'cosign', 'sigstore.dev/extra': 'kept' });
    await pushSigstore(digest, [
      { payload: p1, signature: ecSign(p1) },
      { payload: p2, signature: sign('sha256', p2, rsa.priv) },
    ]);
  });

  test('the payload verifier and the .sig manifest: all met (JSON)', async () => {
    const r = await verify(['--key', ec.pubFile, '--key', rsa.pubFile, '--require', 'all', `${repo}:4.17.0`, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ digest, require: 'all', met: true });
    expect(j.gpg).toMatchObject({
      keyringsFrom: 'payload',
      storesFrom: 'payload',
      met: true,
      keyrings: [{ name: 'verifier-public-key-release', fingerprints: [gpgKeys.release.fpr], signed: true }],
    });
    expect(j.gpg.configMap).toContain('openshift-config-managed/release-verification');
    expect(j.signatures).toEqual([
      {
        kind: 'gpg',
        source: `${store.url}/${digest.replace(':', '=')}/signature-1`,
        verdict: 'valid',
        key: gpgKeys.release.fpr,
        keyId: expect.stringMatching(/^[0-9A-F]{16}$/),
        keyring: 'verifier-public-key-release',
        identity: 'quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64',
        digest,
        creator: 'test',
        timestamp: '2023-11-14T22:13:20.000Z',
      },
      expect.objectContaining({ kind: 'sigstore', verdict: 'valid', keyring: ec.pubFile, identity: `${repo}:4.17.0` }),
      expect.objectContaining({ kind: 'sigstore', verdict: 'valid', keyring: rsa.pubFile, creator: 'cosign' }),
    ]);
    expect(j.sigstore).toMatchObject({ ref: `${repo}:${digest.replace(':', '-')}.sig`, found: true, met: true });
  });

  test('text: each signature with its verdict, and the requirement', async () => {
    const r = await verify(['--key', ec.pubFile, `${repo}:4.17.0`]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`Digest:    ${digest}`);
    expect(r.stdout).toContain('GPG (simple signing): verified');
    expect(r.stdout).toContain(`Keyring verifier-public-key-release (${gpgKeys.release.fpr}): signed`);
    expect(r.stdout).toContain('Sigstore: verified');
    // The RSA-signed layer is not signed by the EC key given.
    expect(r.stdout).toMatch(/verdict: +INVALID: .*layer 1: not signed by the key given/);
    expect(r.stdout).toContain('Required (any: GPG or sigstore): met');
  });

  test('without --key the sigstore signatures are reported unverified; --require sigstore fails', async () => {
    const r = await verify(['--require', 'sigstore', `${repo}:4.17.0`]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/verdict: +UNVERIFIED: no --key given/);
    expect(r.stdout).toContain('Required (sigstore: a signature by a given key): NOT MET');
  });

  test('--identity compares: another repository fails sigstore (matchRepoDigestOrExact)', async () => {
    const r = await verify([
      '--key',
      ec.pubFile,
      '--require',
      'sigstore',
      '--identity',
      'quay.io/other/release:4.17.0',
      `${repo}:4.17.0`,
      '-o',
      'json',
    ]);
    expect(r.exitCode).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.signatures[0].verdict).toBe('invalid');
    expect(j.signatures[0].reason).toContain(`the signed identity ${repo}:4.17.0 does not match quay.io/other/release:4.17.0`);
    const ok = await verify(['--key', ec.pubFile, '--require', 'sigstore', '--identity-rule', 'matchRepository', `${repo}@${digest}`]);
    expect(ok.exitCode).toBe(0);
    const remap = await verify([
      '--key',
      ec.pubFile,
      '--require',
      'sigstore',
      '--identity',
      `mirror.example.com/ocp/release:4.17.0`,
      '--identity-rule',
      `remapIdentity=mirror.example.com/ocp,${reg!.host}/ocp`,
      `${repo}:4.17.0`,
    ]);
    expect(remap.stdout).toContain('Required');
    expect(remap.exitCode).toBe(0);
  });

  test('--keyring and --store replace the payload: an oci-archive verified offline from a file:// store', async () => {
    const built = await pushRelease('offline', undefined, '4.17.1');
    const ref = await archive(tmp.dir, 'offline.tar', [entry(built.image, '4.17.1')], '4.17.1');
    const offlineStore = join(tmp.dir, 'offline-store');
    const dir = join(offlineStore, built.digest.replace(':', '='));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'signature-1'), await gpgSign(gpgKeys.release.priv, claim(ATOMIC, built.digest, 'quay.io/x/y:4.17.1')));
    const r = await osimage([
      'release',
      'verify-signatures',
      '--keyring',
      join(tmp.dir, 'release.asc'),
      '--store',
      `file://${offlineStore}`,
      '--require',
      'gpg',
      ref,
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('GPG (simple signing): verified');
    expect(r.stdout).toContain(`file://${dir}/signature-1`);
  });
});

describe('release verify-signatures: bad input is refused, never a pass', () => {
  /** A release whose verifier has `keys` and the test store; signatures placed as given. */
  async function release(tag: string, sigs: (digest: string) => Promise<Buffer[]>, keys: KeyName[] = ['release']) {
    const cm = verifierConfigMap(Object.fromEntries(keys.map((k) => [`verifier-public-key-${k}`, gpgKeys[k].armored])), {
      'store-local': store.url,
    });
    const { digest } = await pushRelease(tag, cm);
    await putSignatures(digest, await sigs(digest));
    return digest;
  }

  test('a signature for another digest', async () => {
    await release('other-digest', async () => [
      await gpgSign(gpgKeys.release.priv, claim(ATOMIC, `sha256:${'1'.repeat(64)}`, 'quay.io/x/y:1')),
    ]);
    const r = await verify(['--require', 'gpg', `${repo}:other-digest`]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/INVALID: http:\/\/.*signature-1: the signature is for sha256:1{64}, not sha256:/);
    expect(r.stdout).toContain('Required (GPG: every keyring signed): NOT MET');
  });

  test('a key no keyring holds; then a second keyring that did not sign', async () => {
    await release('stranger', async (d) => [await gpgSign(gpgKeys.stranger.priv, claim(ATOMIC, d, 'quay.io/x/y:1'))]);
    const r = await verify(['--require', 'gpg', `${repo}:stranger`]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/signature-1: signed by key [0-9A-F]{16}, which no keyring holds/);
    await release('two-keys', async (d) => [await gpgSign(gpgKeys.release.priv, claim(ATOMIC, d, 'quay.io/x/y:1'))], ['release', 'beta']);
    const two = await verify(['--require', 'gpg', `${repo}:two-keys`, '-o', 'json']);
    expect(two.exitCode).toBe(1);
    const j = JSON.parse(two.stdout);
    expect(j.gpg.keyrings.map((k: { signed: boolean }) => k.signed)).toEqual([false, true]);
    expect(j.gpg.problem).toMatch(/against keyrings: verifier-public-key-beta$/);
  });

  test('a verifier ConfigMap with a bad store fails GPG, in one line naming it, and not the sigstore check', async () => {
    const cm = verifierConfigMap({ 'verifier-public-key-release': gpgKeys.release.armored }, { 'store-bad': 'ftp://example.com/sigs' });
    const { digest } = await pushRelease('bad-store', cm);
    const p = claim(COSIGN, digest, `${repo}:bad-store`);
    await pushSigstore(digest, [{ payload: p, signature: ecSign(p) }]);
    const r = await verify(['--key', ec.pubFile, `${repo}:bad-store`, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.gpg.met).toBe(false);
    expect(j.gpg.problem).toMatch(
      /^the config map openshift-config-managed\/release-verification \(release-manifests\/.*\.yaml\) key store-bad: the store ftp:\/\/example.com\/sigs must be an http:\/\/, https:\/\/ or file:\/\/ URL$/,
    );
    expect(j.sigstore.met).toBe(true);
    const gpgOnly = await verify(['--require', 'gpg', `${repo}:bad-store`]);
    expect(gpgOnly.exitCode).toBe(1);
  });

  test('a key that has expired since it signed', async () => {
    const made = new Date(Date.now() - 3600_000);
    const { privateKey, publicKey } = await openpgp.generateKey({
      type: 'ecc',
      curve: 'nistP256',
      userIDs: [{ name: 'old' }],
      format: 'object',
      date: made,
      keyExpirationTime: 60,
    });
    gpgKeys.old = { priv: privateKey, armored: publicKey.armor(), fpr: publicKey.getFingerprint().toUpperCase() };
    await release(
      'expired',
      async (d) => {
        const message = await openpgp.createMessage({ binary: new Uint8Array(claim(ATOMIC, d, 'quay.io/x/y:1')) });
        const signed = await openpgp.sign({ message, signingKeys: privateKey, format: 'binary', date: new Date(made.getTime() + 10_000) });
        return [Buffer.from(signed)];
      },
      ['old'],
    );
    const r = await verify(['--require', 'gpg', `${repo}:expired`]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(`signature-1: the key ${gpgKeys.old.fpr} (verifier-public-key-old) expired on`);
  });

  test('unknown fields, malformed JSON, the wrong type: each invalid, and the next signature is still read', async () => {
    await release('bad-claims', async (d) => [
      await gpgSign(gpgKeys.release.priv, claim(ATOMIC, d, 'quay.io/x/y:1', { creator: 'x', extra: 1 })),
      await gpgSign(gpgKeys.release.priv, Buffer.from('{"critical": ')),
      await gpgSign(gpgKeys.release.priv, claim(COSIGN, d, 'quay.io/x/y:1')),
      await gpgSign(gpgKeys.release.priv, claim(ATOMIC, d, 'quay.io/x/y:1', {}, { surprise: true })),
    ]);
    const r = await verify(['--require', 'gpg', `${repo}:bad-claims`, '-o', 'json']);
    expect(r.exitCode).toBe(1);
    const reasons = JSON.parse(r.stdout).signatures.map((s: { reason: string }) => s.reason);
    expect(reasons).toEqual([
      expect.stringContaining('unknown field "extra" in optional'),
      expect.stringContaining('the signed claim is not valid JSON'),
      expect.stringContaining(`the signed claim's type is "${COSIGN}"`),
      expect.stringContaining('unknown field "surprise" in the signed claim'),
    ]);
  });

  test('a store that redirects elsewhere, an oversize signature, garbage: errors naming the URL', async () => {
    const digest = await release('misbehaving', async (d) => [
      await gpgSign(gpgKeys.release.priv, claim(ATOMIC, d, 'quay.io/x/y:1')),
      Buffer.alloc(60 * 1024, 1),
      Buffer.from('not openpgp'),
    ]);
    const folder = `/${digest.replace(':', '=')}`;
    store.faults.push((req, res) => {
      if (req.url === `${folder}/signature-1`) {
        res.writeHead(302, { location: `http://localhost:1${folder}/signature-1` }).end();
        return true;
      }
      return false;
    });
    try {
      const r = await verify(['--require', 'gpg', `${repo}:misbehaving`, '-o', 'json']);
      expect(r.exitCode).toBe(1);
      const sigs = JSON.parse(r.stdout).signatures;
      expect(sigs.map((s: { verdict: string }) => s.verdict)).toEqual(['error', 'error', 'invalid']);
      expect(sigs[0].reason).toContain(`refusing redirect out of the signature store ${store.url}`);
      expect(sigs[1].reason).toMatch(/signature-2 is 61440 bytes, more than the 51200 allowed$/);
      expect(sigs[2].reason).toMatch(/signature-3: not an OpenPGP message/);
    } finally {
      store.faults.length = 0;
    }
  });

  test('a .sig manifest with a hundred layers; a claim signed by another key; bad base64', async () => {
    const { digest } = await pushRelease('sig-many');
    const p = claim(COSIGN, digest, `${repo}:sig-many`);
    await pushSigstore(
      digest,
      Array.from({ length: 100 }, () => ({ payload: p, signature: ecSign(p) })),
    );
    const many = await verify(['--key', ec.pubFile, '--require', 'sigstore', `${repo}:sig-many`]);
    expect(many.exitCode).toBe(1);
    expect(many.stdout).toContain('has 100 layers, more than the 32 allowed');

    const other = await pushRelease('sig-bad');
    const q = claim(COSIGN, other.digest, `${repo}:sig-bad`);
    const wrongDigest = claim(COSIGN, digest, `${repo}:sig-bad`);
    await pushSigstore(other.digest, [
      { payload: q, signature: sign('sha256', q, rsa.priv) },
      { payload: q, signature: 'not base64!' },
      { payload: wrongDigest, signature: ecSign(wrongDigest) },
      { payload: claim(COSIGN, other.digest, `${repo}:sig-bad`, null, { extra: 1 }), signature: ecSign(q) },
    ]);
    const r = await verify(['--key', ec.pubFile, '--require', 'sigstore', `${repo}:sig-bad`, '-o', 'json']);
    expect(r.exitCode).toBe(1);
    const sigs = JSON.parse(r.stdout).signatures;
    expect(sigs.map((s: { verdict: string }) => s.verdict)).toEqual(['invalid', 'error', 'invalid', 'invalid']);
    expect(sigs[0].reason).toContain('layer 0: not signed by the key given');
    expect(sigs[1].reason).toContain('annotation is not base64');
    expect(sigs[2].reason).toContain(`the signature is for ${digest}, not ${other.digest}`);
    expect(sigs[3].reason).toContain('not signed by the key given');
  });

  test('usage: a bad --identity-rule, a missing --key file', async () => {
    const r = await verify(['--identity-rule', 'matchEverything', `${repo}:sig-bad`]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--identity-rule: unknown rule "matchEverything"');
    const k = await verify(['--key', join(tmp.dir, 'missing.pub'), `${repo}:sig-bad`]);
    expect(k.exitCode).toBe(1);
    expect(k.stderr).toContain('missing.pub: no such file');
    const ring = await verify(['--keyring', ec.pubFile, '--store', store.url, `${repo}:sig-bad`]);
    expect(ring.exitCode).toBe(1);
    expect(ring.stderr).toContain(`${ec.pubFile}: not an OpenPGP public key`);
    const ftp = await verify(['--store', 'ftp://example.com/sigs', `${repo}:sig-bad`]);
    expect(ftp.exitCode).toBe(2);
    expect(ftp.stderr).toContain('--store: the store ftp://example.com/sigs must be an http://, https:// or file:// URL');
  });
});

describe('release verify-signatures --os-images', () => {
  test('every OS image tag must have a sigstore signature by --os-key', async () => {
    const osRepo = `${reg!.host}/os/node`;
    const os = await pushBuilt(`${osRepo}:os`, await releaseImage({ name: 'os-image' }));
    const ext = await pushBuilt(`${osRepo}:ext`, await releaseImage({ name: 'ext-image' }));
    const image = await releaseImage({
      name: '4.17.9',
      tags: [
        { name: 'cli', pullspec: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'a'.repeat(64)}` },
        { name: 'rhel-coreos', pullspec: `${osRepo}@${os}` },
        { name: 'rhel-coreos-extensions', pullspec: `${osRepo}@${ext}` },
      ],
    });
    const digest = await pushBuilt(`${repo}:4.17.9`, image);
    const p = claim(COSIGN, digest, `${repo}:4.17.9`);
    await pushSigstore(digest, [{ payload: p, signature: sign('sha256', p, rsa.priv) }]);
    // The OS images are signed by the EC key; the extensions not yet.
    const signOs = async (d: string) => {
      const q = claim(COSIGN, d, osRepo);
      const sigRepo = repo;
      repo = osRepo;
      try {
        await pushSigstore(d, [{ payload: q, signature: ecSign(q) }]);
      } finally {
        repo = sigRepo;
      }
    };
    await signOs(os);
    const args = ['--key', rsa.pubFile, '--os-images', '--os-key', ec.pubFile, '--require', 'sigstore', `${repo}:4.17.9`];
    const half = await verify([...args, '-o', 'json']);
    expect(half.exitCode).toBe(1);
    const j = JSON.parse(half.stdout);
    expect(j.sigstore.met).toBe(true);
    expect(j.osImages).toEqual([
      expect.objectContaining({ tag: 'rhel-coreos', image: `${osRepo}@${os}`, digest: os, met: true }),
      expect.objectContaining({
        tag: 'rhel-coreos-extensions',
        met: false,
        problem: `no sigstore signature: ${osRepo}:${ext.replace(':', '-')}.sig does not exist`,
      }),
    ]);
    await signOs(ext);
    const all = await verify(args);
    expect(all.exitCode).toBe(0);
    expect(all.stdout).toContain(`rhel-coreos-extensions ${osRepo}@${ext}: verified`);
    expect(all.stdout).toContain('Required (sigstore: a signature by a given key, and every OS image): met');
  });
});
