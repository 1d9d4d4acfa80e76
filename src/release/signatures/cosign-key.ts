/**
 * Private keys as cosign writes them (`cosign generate-key-pair`, `cosign import-key-pair`): PEM under the type
 * `ENCRYPTED COSIGN PRIVATE KEY` or `ENCRYPTED SIGSTORE PRIVATE KEY`, whose body is JSON in
 * go-securesystemslib's `encrypted` format:
 *
 *   {"kdf": {"name": "scrypt", "params": {"N": …, "r": …, "p": …}, "salt": B64},
 *    "cipher": {"name": "nacl/secretbox", "nonce": B64}, "ciphertext": B64}
 *
 * (Go's encoding of byte slices: standard base64 with padding). The key is scrypt(passphrase, salt, N, r, p) of 32
 * bytes; the ciphertext is NaCl secretbox (XSalsa20-Poly1305, the 16-byte tag first) of the PKCS#8 DER of the
 * private key. cosign accepts an empty passphrase, so an empty one is tried like any other.
 *
 * node:crypto has scrypt but no XSalsa20-Poly1305: that comes from @noble/ciphers, loaded only when such a key is
 * read.
 */
import { createPrivateKey, scrypt, type KeyObject } from 'node:crypto';
import { OsimageError, describe } from '../../errors.js';

const BEGIN = /-----BEGIN ENCRYPTED (?:COSIGN|SIGSTORE) PRIVATE KEY-----/;
const PEM = /-----BEGIN (ENCRYPTED (?:COSIGN|SIGSTORE) PRIVATE KEY)-----\r?\n([\s\S]*?)-----END \1-----/;
const KEY_BYTES = 32;
const NONCE_BYTES = 24;
const TAG_BYTES = 16;
/**
 * scrypt's cost, bounded so that a hostile key cannot make us spend gigabytes or minutes: cosign writes N = 2^15 to
 * 2^17 with r = 8 and p = 1 (the memory scrypt needs is 128·N·r bytes, 16 MiB for those).
 */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;
const MAX_SCRYPT_P = 16;
/** A PKCS#8 key is a few kilobytes at most (RSA-8192). */
const MAX_CIPHERTEXT_BYTES = 16 * 1024;

/** Whether `text` holds a key in cosign's encrypted format. */
export function isCosignKey(text: string): boolean {
  return BEGIN.test(text);
}

/** A cosign key as read, before any passphrase: what scrypt and secretbox need. */
export interface SealedCosignKey {
  file: string;
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  nonce: Buffer;
  ciphertext: Buffer;
}

/**
 * Decrypt a cosign key with `passphrase`. Errors are one line naming the file: a wrong passphrase, a plaintext
 * that is no PKCS#8 key (cosign reads only PKCS#8 too).
 */
export async function decryptCosignKey(sealed: SealedCosignKey, passphrase: string): Promise<KeyObject> {
  const file = sealed.file;
  const key = await deriveKey(passphrase, sealed, file);
  const { secretbox } = await import('@noble/ciphers/salsa.js');
  let der: Uint8Array;
  try {
    der = secretbox(key, sealed.nonce).open(sealed.ciphertext);
  } catch {
    throw new OsimageError(`${file}: cannot decrypt the cosign key: wrong passphrase (or a damaged key)`, { code: 'invalid-input' });
  }
  try {
    return createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
  } catch (err) {
    throw new OsimageError(`${file}: the decrypted cosign key is not a PKCS#8 private key: ${describe(err)}`, {
      cause: err,
      code: 'invalid-input',
    });
  }
}

/**
 * Read the cosign key in `text` (from `file`, which errors name), checked before a passphrase is asked for: damaged
 * PEM or JSON, an unknown kdf or cipher, out-of-bounds scrypt parameters, an oversize ciphertext.
 */
export function parseCosignKey(text: string, file: string): SealedCosignKey {
  const bad = (why: string) => new OsimageError(`${file}: not a cosign encrypted key: ${why}`, { code: 'invalid-input' });
  const m = PEM.exec(text);
  if (!m) throw bad('no complete PEM block');
  const body = m[2]!.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0) throw bad('the PEM body is not base64');
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(body, 'base64').toString('utf8'));
  } catch (err) {
    throw bad(`the PEM body is not JSON (${describe(err)})`);
  }
  const kdf = field(doc, 'kdf');
  const cipher = field(doc, 'cipher');
  if (!kdf || !cipher) throw bad('the JSON has no "kdf" or no "cipher" object');
  if (kdf.name !== 'scrypt') throw bad(`unknown kdf ${JSON.stringify(kdf.name)} (cosign writes "scrypt")`);
  if (cipher.name !== 'nacl/secretbox') throw bad(`unknown cipher ${JSON.stringify(cipher.name)} (cosign writes "nacl/secretbox")`);
  const params = field(kdf, 'params');
  const n = params?.N;
  const r = params?.r;
  const p = params?.p;
  if (!isPositiveInteger(n) || !isPositiveInteger(r) || !isPositiveInteger(p)) throw bad('kdf.params needs the integers N, r and p');
  if (n < 2 || (n & (n - 1)) !== 0) throw bad(`scrypt N=${n} is not a power of two`);
  if (128 * n * r > MAX_SCRYPT_MEMORY || p > MAX_SCRYPT_P) {
    throw bad(`scrypt N=${n} r=${r} p=${p} costs more than osimage allows (cosign writes N=65536 r=8 p=1)`);
  }
  const salt = base64Field(kdf, 'salt', 'kdf.salt', bad);
  const nonce = base64Field(cipher, 'nonce', 'cipher.nonce', bad);
  const ciphertext = base64Field(doc as Record<string, unknown>, 'ciphertext', 'ciphertext', bad);
  if (nonce.length !== NONCE_BYTES) throw bad(`cipher.nonce is ${nonce.length} bytes, not ${NONCE_BYTES}`);
  if (ciphertext.length <= TAG_BYTES) throw bad('the ciphertext is too short to hold a key');
  if (ciphertext.length > MAX_CIPHERTEXT_BYTES) throw bad(`the ciphertext is larger than the ${MAX_CIPHERTEXT_BYTES} bytes allowed`);
  return { file, n, r, p, salt, nonce, ciphertext };
}

function field(doc: unknown, name: string): Record<string, unknown> | undefined {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const v = (doc as Record<string, unknown>)[name];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function isPositiveInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
}

function base64Field(obj: Record<string, unknown>, name: string, path: string, bad: (why: string) => OsimageError): Buffer {
  const v = obj[name];
  if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) throw bad(`${path} is not a base64 string`);
  return Buffer.from(v, 'base64');
}

function deriveKey(passphrase: string, s: SealedCosignKey, file: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(passphrase, s.salt, KEY_BYTES, { N: s.n, r: s.r, p: s.p, maxmem: 2 * MAX_SCRYPT_MEMORY }, (err, key) => {
      if (err) reject(new OsimageError(`${file}: scrypt failed: ${describe(err)}`, { cause: err, code: 'invalid-input' }));
      else resolve(key);
    });
  });
}
