/**
 * Writes a private key the way `cosign generate-key-pair` does, for tests of the reading side: PEM whose body is
 * go-securesystemslib's `encrypted` JSON (sigstore/cosign pkg/cosign/keys.go marshalKeyPair, which calls
 * secure-systems-lab/go-securesystemslib encrypted.Encrypt): scrypt (N, r, p, a 32-byte salt) derives a 32-byte
 * key that seals the PKCS#8 DER with NaCl secretbox (XSalsa20-Poly1305, a 24-byte nonce); byte fields are standard
 * base64, as Go's encoding/json writes []byte. Written apart from osimage's reader, from those sources.
 */
import { type KeyObject, randomBytes, scryptSync } from 'node:crypto';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';

/** The JSON body, loosely typed so that tests can damage it. */
export interface CosignKeyDoc {
  kdf: { name: unknown; params?: { N: unknown; r: unknown; p: unknown }; salt: unknown };
  cipher: { name: unknown; nonce: unknown };
  ciphertext: unknown;
}

export interface CosignKeyOptions {
  /** The PEM type's middle word: cosign writes SIGSTORE today, COSIGN before. */
  label?: 'COSIGN' | 'SIGSTORE';
  /** cosign's default (go-securesystemslib "Standard"): N = 65536, r = 8, p = 1. */
  n?: number;
  r?: number;
  p?: number;
  /** Replace parts of the JSON before it is encoded (for damaged keys). */
  edit?: (doc: CosignKeyDoc) => void;
}

export function cosignEncryptedKey(key: KeyObject, passphrase: string, opts: CosignKeyOptions = {}): string {
  const n = opts.n ?? 65536;
  const r = opts.r ?? 8;
  const p = opts.p ?? 1;
  const salt = randomBytes(32);
  const nonce = randomBytes(24);
  const boxKey = scryptSync(passphrase, salt, 32, { N: n, r, p, maxmem: 256 * 1024 * 1024 });
  const der = key.export({ type: 'pkcs8', format: 'der' });
  const sealed = xsalsa20poly1305(boxKey, nonce).encrypt(der);
  const doc: CosignKeyDoc = {
    kdf: { name: 'scrypt', params: { N: n, r, p }, salt: salt.toString('base64') },
    cipher: { name: 'nacl/secretbox', nonce: nonce.toString('base64') },
    ciphertext: Buffer.from(sealed).toString('base64'),
  };
  opts.edit?.(doc);
  const body = Buffer.from(JSON.stringify(doc)).toString('base64').replace(/.{64}/g, '$&\n');
  const type = `ENCRYPTED ${opts.label ?? 'SIGSTORE'} PRIVATE KEY`;
  return `-----BEGIN ${type}-----\n${body.endsWith('\n') ? body : `${body}\n`}-----END ${type}-----\n`;
}
