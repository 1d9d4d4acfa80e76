/**
 * cosign's encrypted private keys (sigstore/cosign pkg/cosign/keys.go; the JSON of secure-systems-lab
 * go-securesystemslib encrypted/encrypted.go), read from keys written by the test's own encryptor
 * (test/helpers/cosign-key.ts) and from a committed fixture (test/fixtures/signatures/README.md says how it was made).
 */
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { decryptCosignKey, isCosignKey, parseCosignKey } from '../../../src/release/signatures/cosign-key.js';
import { type CosignKeyDoc, cosignEncryptedKey } from '../../helpers/cosign-key.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/signatures/', import.meta.url));
const fixture = (name: string) => readFileSync(`${FIXTURES}${name}`, 'utf8');

async function open(text: string, pass: string) {
  return decryptCosignKey(parseCosignKey(text, 'k.key'), pass);
}

describe('cosign encrypted keys', () => {
  test('the fixture decrypts to the private half of its .pub', async () => {
    const text = fixture('cosign-ecdsa.key');
    expect(isCosignKey(text)).toBe(true);
    const key = await open(text, 'fixture passphrase');
    const signature = sign('sha256', Buffer.from('claim'), key);
    expect(verify('sha256', Buffer.from('claim'), createPublicKey(fixture('cosign-ecdsa.pub')), signature)).toBe(true);
  });

  test('both PEM types, RSA, Ed25519, the legacy scrypt cost and an empty passphrase', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ed = generateKeyPairSync('ed25519');
    const k1 = await open(cosignEncryptedKey(rsa.privateKey, 'pw', { label: 'COSIGN', n: 32768 }), 'pw');
    expect(k1.asymmetricKeyType).toBe('rsa');
    expect(k1.export({ type: 'pkcs8', format: 'der' })).toEqual(rsa.privateKey.export({ type: 'pkcs8', format: 'der' }));
    const k2 = await open(cosignEncryptedKey(ed.privateKey, ''), '');
    expect(k2.asymmetricKeyType).toBe('ed25519');
  });

  test('a wrong passphrase is one line naming the file', async () => {
    await expect(open(fixture('cosign-ecdsa.key'), 'wrong')).rejects.toThrow(
      /^k\.key: cannot decrypt the cosign key: wrong passphrase \(or a damaged key\)$/,
    );
  });

  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  test.each([
    ['an unknown kdf', { edit: (d: CosignKeyDoc) => (d.kdf.name = 'argon2') }, 'unknown kdf "argon2" (cosign writes "scrypt")'],
    ['an unknown cipher', { edit: (d: CosignKeyDoc) => (d.cipher.name = 'aes-gcm') }, 'unknown cipher "aes-gcm"'],
    ['a huge scrypt cost', { n: 1024, edit: (d: CosignKeyDoc) => (d.kdf.params!.N = 2 ** 30) }, 'scrypt N=1073741824 r=8 p=1 costs more'],
    ['N not a power of two', { n: 1024, edit: (d: CosignKeyDoc) => (d.kdf.params!.N = 1000) }, 'scrypt N=1000 is not a power of two'],
    ['missing params', { n: 1024, edit: (d: CosignKeyDoc) => delete d.kdf.params }, 'kdf.params needs the integers N, r and p'],
    ['a short nonce', { n: 1024, edit: (d: CosignKeyDoc) => (d.cipher.nonce = 'AAAA') }, 'cipher.nonce is 3 bytes, not 24'],
    ['a salt that is no base64', { n: 1024, edit: (d: CosignKeyDoc) => (d.kdf.salt = 42) }, 'kdf.salt is not a base64 string'],
    [
      'an oversize ciphertext',
      { n: 1024, edit: (d: CosignKeyDoc) => (d.ciphertext = Buffer.alloc(20_000).toString('base64')) },
      'the ciphertext is larger than the 16384 bytes allowed',
    ],
  ])('%s is refused before a passphrase is needed', (_, opts, message) => {
    const text = cosignEncryptedKey(privateKey, 'pw', opts);
    expect(() => parseCosignKey(text, 'k.key')).toThrow(`k.key: not a cosign encrypted key: ${message}`);
  });

  test('damaged PEM and JSON', () => {
    const pem = (body: string) => `-----BEGIN ENCRYPTED COSIGN PRIVATE KEY-----\n${body}\n-----END ENCRYPTED COSIGN PRIVATE KEY-----\n`;
    expect(() => parseCosignKey(pem('bm90IGpzb24='), 'k.key')).toThrow(/^k\.key: not a cosign encrypted key: the PEM body is not JSON/);
    expect(() => parseCosignKey(pem('!!!'), 'k.key')).toThrow('k.key: not a cosign encrypted key: the PEM body is not base64');
    expect(() => parseCosignKey('-----BEGIN ENCRYPTED COSIGN PRIVATE KEY-----\nabcd\n', 'k.key')).toThrow('no complete PEM block');
  });

  test('a plaintext that is no PKCS#8 key', async () => {
    const sec1 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    // The encryptor exports PKCS#8; wrap it so that what is sealed is SEC 1 instead, as cosign's own test keys do.
    const fake = { export: () => sec1.export({ type: 'sec1', format: 'der' }) } as unknown as typeof sec1;
    await expect(open(cosignEncryptedKey(fake, 'pw', { n: 1024 }), 'pw')).rejects.toThrow(
      /^k\.key: the decrypted cosign key is not a PKCS#8 private key/,
    );
  });
});
