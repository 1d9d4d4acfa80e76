/**
 * `release new --sign-key` and `--gpg-sign`, checked independently of osimage's reading code: the pushed
 * `sha256-<hex>.sig` manifest is fetched from the real registry over plain HTTP, its layer's digest checked and its
 * signature verified with OpenSSL (cosign's format: sigstore/cosign specs/SIGNATURE_SPEC.md); the GPG signature is
 * verified by skopeo's `standalone-verify` (containers/image simple signing), and both by
 * `release verify-signatures`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage } from '../../helpers/cli.js';
import { checkPushedSignature } from '../../helpers/sigstore-check.js';
import { tempDir, type Temp } from '../../helpers/oci-builder.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../../helpers/registry.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/release-new/payload', import.meta.url));
const HAVE_GPG = existsSync('/usr/bin/gpg') && existsSync('/usr/bin/skopeo');
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

let reg: TestRegistry | undefined;
printLogsOnFailure(() => reg);
let tmp: Temp;
const file = (name: string) => join(tmp.dir, name);

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  tmp = await tempDir('osimage-sign-');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await writeFile(file('ec.key'), ec.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  await writeFile(file('ec.pub'), ec.publicKey.export({ type: 'spki', format: 'pem' }));
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await writeFile(
    file('rsa-enc.key'),
    rsa.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'open sesame' }),
  );
  await writeFile(file('rsa.pub'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
}, 60_000);

afterAll(async () => {
  await reg?.stop();
  reg = undefined;
  await tmp?.cleanup();
});

const newArgs = (name: string) => ['release', 'new', '--insecure', '--from-dir', FIXTURE, '--name', name, '--to-image-base-tag', ''];
const digestOf = (stdout: string) => /^(sha256:[0-9a-f]{64}) /m.exec(stdout)![1]!;

async function registryGet(path: string, accept = OCI_MANIFEST): Promise<Buffer> {
  const res = await fetch(`${reg!.url}/v2/${path}`, { headers: { accept } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('release new --sign-key (sigstore)', () => {
  test('pushes the .sig manifest beside the release; OpenSSL verifies its signature', async () => {
    const target = `${reg!.host}/ocp/release:4.99.5`;
    const r = await osimage([...newArgs('4.99.5'), '--to-image', target, '--sign-key', file('ec.key')]);
    expect(r.exitCode).toBe(0);
    const digest = digestOf(r.stdout);
    expect(r.stderr).toContain(`Signed with ${file('ec.key')}: ${reg!.host}/ocp/release:${digest.replace(':', '-')}.sig`);
    const { layers, claim } = await checkPushedSignature(reg!.url, 'ocp/release', digest, file('ec.pub'), tmp.dir);
    expect(layers).toHaveLength(1);
    expect(layers[0]!.mediaType).toBe('application/vnd.dev.cosign.simplesigning.v1+json');
    expect(claim.critical).toEqual({
      identity: { 'docker-reference': target },
      image: { 'docker-manifest-digest': digest },
      type: 'cosign container image signature',
    });

    const v = await osimage([
      'release',
      'verify-signatures',
      '--insecure',
      '--key',
      file('ec.pub'),
      '--require',
      'sigstore',
      '--identity',
      target,
      target,
    ]);
    expect(v.exitCode).toBe(0);
  });

  test('an encrypted PKCS#8 key (passphrase from the environment) signs into the --to-file archive', async () => {
    const out = file('signed.tar');
    const args = [
      ...newArgs('4.99.6'),
      '--to-file',
      out,
      '--sign-key',
      file('rsa-enc.key'),
      '--sign-identity',
      'quay.io/example/release:4.99.6',
    ];
    const noPass = await osimage(args);
    expect(noPass.exitCode).toBe(2);
    expect(noPass.stderr).toContain('rsa-enc.key is encrypted: give its passphrase in OSIMAGE_SIGN_PASSPHRASE or with --passphrase-file');
    const wrong = await osimage(args, { env: { OSIMAGE_SIGN_PASSPHRASE: 'wrong' } });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr).toContain('not a PEM private key (or a wrong passphrase)');
    const r = await osimage(args, { env: { OSIMAGE_SIGN_PASSPHRASE: 'open sesame' } });
    expect(r.exitCode).toBe(0);
    const v = await osimage([
      'release',
      'verify-signatures',
      '--key',
      file('rsa.pub'),
      '--require',
      'sigstore',
      `oci-archive:${out}:4.99.6`,
      '-o',
      'json',
    ]);
    expect(v.exitCode).toBe(0);
    expect(JSON.parse(v.stdout).signatures[0]).toMatchObject({
      verdict: 'valid',
      identity: 'quay.io/example/release:4.99.6',
      digest: digestOf(r.stdout),
    });
  });

  test('a damaged cosign key is one line naming it; usage errors', async () => {
    await writeFile(
      file('cosign.key'),
      '-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\neyJrZGYiOnt9fQ==\n-----END ENCRYPTED SIGSTORE PRIVATE KEY-----\n',
    );
    const r = await osimage([...newArgs('4.99.7'), '--to-image', `${reg!.host}/ocp/release:4.99.7`, '--sign-key', file('cosign.key')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`${file('cosign.key')}: not a cosign encrypted key: the JSON has no "kdf" or no "cipher" object`);
    const noDir = await osimage([...newArgs('4.99.7'), '--to-image', `${reg!.host}/ocp/release:4.99.7`, '--gpg-sign', 'ABCD']);
    expect(noDir.exitCode).toBe(2);
    expect(noDir.stderr).toContain('--gpg-sign requires --signature-dir');
    const noId = await osimage([...newArgs('4.99.7'), '--to-file', file('x.tar'), '--sign-key', file('ec.key')]);
    expect(noId.exitCode).toBe(2);
    expect(noId.stderr).toContain('require --sign-identity REF');
    const dry = await osimage([...newArgs('4.99.7'), '--sign-key', file('ec.key')]);
    expect(dry.exitCode).toBe(2);
    expect(dry.stderr).toContain('require --to-image or --to-file');
  });
});

describe.runIf(HAVE_GPG)('release new --gpg-sign', () => {
  let env: Record<string, string>;
  let fpr: string;
  beforeAll(async () => {
    const home = file('gnupg');
    await mkdir(home, { mode: 0o700 });
    env = { ...process.env, GNUPGHOME: home } as Record<string, string>;
    await execa(
      'gpg',
      ['--batch', '--passphrase', '', '--quick-gen-key', 'Osimage Signer <signer@example.com>', 'nistp256', 'sign', 'never'],
      { env },
    );
    fpr = /^fpr:+([0-9A-F]{40}):/m.exec((await execa('gpg', ['--list-keys', '--with-colons'], { env })).stdout)![1]!;
    await execa('gpg', ['--batch', '--export', '--armor', '--output', file('signer.asc'), fpr], { env });
  }, 60_000);
  afterAll(async () => {
    await execa('gpgconf', ['--kill', 'gpg-agent'], { env, reject: false });
  });

  test('writes the store layout; skopeo standalone-verify and verify-signatures accept it', async () => {
    const target = `${reg!.host}/ocp/release:4.99.8`;
    const dir = file('sigs');
    const r = await osimage([...newArgs('4.99.8'), '--to-image', target, '--gpg-sign', fpr, '--signature-dir', dir], {
      env: { GNUPGHOME: env.GNUPGHOME },
    });
    expect(r.stderr).not.toContain('error');
    expect(r.exitCode).toBe(0);
    const digest = digestOf(r.stdout);
    const sig = join(dir, digest.replace(':', '='), 'signature-1');
    expect(r.stderr).toContain(`Signed with gpg key ${fpr}: ${sig}`);
    await writeFile(file('manifest.json'), await registryGet(`ocp/release/manifests/${digest}`));
    const skopeo = await execa('skopeo', ['standalone-verify', file('manifest.json'), target, fpr, sig], { env, reject: false });
    expect(skopeo.stdout).toBe(`Signature verified, digest ${digest}`);
    expect(await readFile(sig)).not.toHaveLength(0);

    const v = await osimage([
      'release',
      'verify-signatures',
      '--insecure',
      '--keyring',
      file('signer.asc'),
      '--store',
      `file://${dir}`,
      '--require',
      'gpg',
      target,
    ]);
    expect(v.exitCode).toBe(0);
    // A second signing of the same digest takes the next number.
    const again = await osimage([...newArgs('4.99.8'), '--to-image', target, '--gpg-sign', fpr, '--signature-dir', dir], {
      env: { GNUPGHOME: env.GNUPGHOME },
    });
    expect(again.stderr).toContain(join(dir, digest.replace(':', '='), 'signature-2'));
  });

  test('a key the operator cannot read (Ed25519, GnuPG 2.4 default) is refused, and no signature is written', async () => {
    await execa('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', 'Osimage Ed <ed@example.com>', 'ed25519', 'sign', 'never'], {
      env,
    });
    const listed = (await execa('gpg', ['--list-keys', '--with-colons', 'ed@example.com'], { env })).stdout;
    const ed = /^fpr:+([0-9A-F]{40}):/m.exec(listed)![1]!;
    const dir = file('sigs-ed');
    const r = await osimage(
      [...newArgs('4.99.9'), '--to-image', `${reg!.host}/ocp/release:4.99.9`, '--gpg-sign', ed, '--signature-dir', dir],
      {
        env: { GNUPGHOME: env.GNUPGHOME },
      },
    );
    expect(r.exitCode).toBe(1);
    // Either the key's algorithm is named, or (now and then) OpenPGP.js cannot read gpg's export of an Ed25519 key at
    // all: a refusal either way, for a key no cluster reads.
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: refusing to write a signature a cluster cannot verify: .*gpg key ${ed}\\b.*(eddsa|not an OpenPGP public key)`,
        'im',
      ),
    );
    expect(existsSync(dir)).toBe(false);
  });
});
