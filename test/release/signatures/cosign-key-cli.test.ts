/**
 * `release new --sign-key` with a key in cosign's encrypted format (the committed fixture, and one written in the
 * test by test/helpers/cosign-key.ts), checked apart from osimage's reading code: the pushed `sha256-<hex>.sig`
 * manifest's claim is fetched from the real registry and its signature verified with `openssl dgst -verify`
 * (cosign's format: sigstore/cosign specs/SIGNATURE_SPEC.md), and by `release verify-signatures --key`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage } from '../../helpers/cli.js';
import { checkPushedSignature } from '../../helpers/sigstore-check.js';
import { cosignEncryptedKey } from '../../helpers/cosign-key.js';
import { tempDir, type Temp } from '../../helpers/oci-builder.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../../helpers/registry.js';

const PAYLOAD = fileURLToPath(new URL('../../fixtures/release-new/payload', import.meta.url));
const KEY = fileURLToPath(new URL('../../fixtures/signatures/cosign-ecdsa.key', import.meta.url));
const PUB = fileURLToPath(new URL('../../fixtures/signatures/cosign-ecdsa.pub', import.meta.url));
const PASS = 'fixture passphrase';

let reg: TestRegistry | undefined;
printLogsOnFailure(() => reg);
let tmp: Temp;
const file = (name: string) => join(tmp.dir, name);

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  tmp = await tempDir('osimage-cosign-key-');
}, 60_000);

afterAll(async () => {
  await reg?.stop();
  reg = undefined;
  await tmp?.cleanup();
});

const newArgs = (name: string) => ['release', 'new', '--insecure', '--from-dir', PAYLOAD, '--name', name, '--to-image-base-tag', ''];
const digestOf = (stdout: string) => /^(sha256:[0-9a-f]{64}) /m.exec(stdout)![1]!;
// Neither variable leaks in from the host.
const noPass = { OSIMAGE_SIGN_PASSPHRASE: undefined, COSIGN_PASSWORD: undefined };

describe('release new --sign-key with a cosign key', () => {
  test('the fixture signs the pushed release; OpenSSL and verify-signatures accept the signature', async () => {
    const target = `${reg!.host}/ocp/release:4.99.21`;
    const r = await osimage([...newArgs('4.99.21'), '--to-image', target, '--sign-key', KEY], {
      env: { ...noPass, OSIMAGE_SIGN_PASSPHRASE: PASS },
    });
    expect(r.stderr).not.toContain('error');
    expect(r.exitCode).toBe(0);
    const digest = digestOf(r.stdout);
    await checkPushedSignature(reg!.url, 'ocp/release', digest, PUB, tmp.dir);

    const v = await osimage(['release', 'verify-signatures', '--insecure', '--key', PUB, '--require', 'sigstore', target]);
    expect(v.exitCode).toBe(0);
  });

  test('COSIGN_PASSWORD is read for a cosign key, after OSIMAGE_SIGN_PASSPHRASE; a key made in the test signs an archive', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await writeFile(file('rsa-cosign.key'), cosignEncryptedKey(rsa.privateKey, 'cosign pw', { label: 'COSIGN' }));
    await writeFile(file('rsa.pub'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
    const out = file('signed.tar');
    const args = [
      ...newArgs('4.99.22'),
      '--to-file',
      out,
      '--sign-key',
      file('rsa-cosign.key'),
      '--sign-identity',
      'quay.io/example/release:4.99.22',
    ];
    const r = await osimage(args, { env: { ...noPass, COSIGN_PASSWORD: 'cosign pw' } });
    expect(r.exitCode).toBe(0);
    const v = await osimage([
      'release',
      'verify-signatures',
      '--key',
      file('rsa.pub'),
      '--require',
      'sigstore',
      `oci-archive:${out}:4.99.22`,
    ]);
    expect(v.exitCode).toBe(0);
    // Ours wins over cosign's when both are set.
    const both = await osimage(args, { env: { OSIMAGE_SIGN_PASSPHRASE: 'wrong', COSIGN_PASSWORD: 'cosign pw' } });
    expect(both.exitCode).toBe(1);
    expect(both.stderr).toContain(`${file('rsa-cosign.key')}: cannot decrypt the cosign key: wrong passphrase (or a damaged key)`);
  });

  test('--passphrase-file; no passphrase; a wrong one', async () => {
    const target = `${reg!.host}/ocp/release:4.99.23`;
    await writeFile(file('pass'), `${PASS}\n`);
    const args = [...newArgs('4.99.23'), '--to-image', target, '--sign-key', KEY];
    const none = await osimage(args, { env: noPass });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain(
      `${KEY} is a cosign encrypted key: give its passphrase in OSIMAGE_SIGN_PASSPHRASE (or COSIGN_PASSWORD) or with --passphrase-file`,
    );
    const wrong = await osimage(args, { env: { ...noPass, OSIMAGE_SIGN_PASSPHRASE: 'nope' } });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr.trim().split('\n').at(-1)).toBe(
      `error: ${KEY}: cannot decrypt the cosign key: wrong passphrase (or a damaged key)`,
    );
    const r = await osimage([...args, '--passphrase-file', file('pass')], { env: noPass });
    expect(r.exitCode).toBe(0);
    const v = await osimage(['release', 'verify-signatures', '--insecure', '--key', PUB, '--require', 'sigstore', target]);
    expect(v.exitCode).toBe(0);
  });
});
