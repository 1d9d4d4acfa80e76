/**
 * Signing a release as it is built (`release new --sign-key`, `--gpg-sign`), in the formats `verify.ts` reads:
 *
 * - sigstore: a cosign claim signed with a private key (ECDSA or RSA PKCS#1 v1.5 over SHA-256, or Ed25519), as
 *   the one layer of an image manifest tagged `sha256-<hex>.sig` beside the release (pushed to its repository, or a
 *   tag in the same oci-archive). Keys are PEM: PKCS#8 (`PRIVATE KEY`, or `ENCRYPTED PRIVATE KEY` with a
 *   passphrase), SEC 1 (`EC PRIVATE KEY`) or PKCS#1 (`RSA PRIVATE KEY`), read by node:crypto, and cosign's own
 *   encrypted keys (`ENCRYPTED COSIGN PRIVATE KEY`, `ENCRYPTED SIGSTORE PRIVATE KEY`), read by cosign-key.ts.
 * - GPG: the atomic container claim signed by `gpg --sign` with the key the user names (the agent holds it), written
 *   into a folder in the store layout the cluster-version operator reads (`<algorithm>=<hex>/signature-<n>`, the
 *   first free n).
 */
import { createPrivateKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OsimageError, UsageError, describe } from '../../errors.js';
import { writeFileAtomic } from '../../files/atomic.js';
import { readRegularFile } from '../../files/read.js';
import { sha256Digest } from '../../oci/digest.js';
import { MEDIA_TYPES } from '../../registry/types.js';
import { type Blob, type BuiltImage, buildManifest, jsonBlob } from '../build-layer.js';
import { decryptCosignKey, isCosignKey, parseCosignKey } from './cosign-key.js';
import { SIGNATURE_ANNOTATION, signatureTag } from './sigstore.js';
import { COSIGN_PAYLOAD_MEDIA_TYPE, claimBytes } from './simple-signing.js';
import { MAX_SIGNATURES_PER_STORE, digestFolder } from './stores.js';

const MAX_KEY_BYTES = 64 * 1024;

export interface ClaimOptions {
  creator: string;
  /** Seconds since the epoch. */
  timestamp: number;
}

/** Which kind of encrypted key a passphrase is asked for: a cosign key may also take cosign's own variable. */
export type EncryptedKeyKind = 'pkcs8' | 'cosign';

/** Read a sigstore signing key; `passphrase` is asked only for an encrypted key. */
export async function readSigstoreSigningKey(
  file: string,
  passphrase: (kind: EncryptedKeyKind) => Promise<string | undefined>,
): Promise<KeyObject> {
  const bytes = await readRegularFile(file, MAX_KEY_BYTES);
  const text = bytes.toString('utf8');
  let key: KeyObject;
  if (isCosignKey(text)) {
    const sealed = parseCosignKey(text, file);
    const pass = await passphrase('cosign');
    // cosign writes keys with an empty passphrase when asked to: an empty one given is used, a missing one is not.
    if (pass === undefined) {
      throw new UsageError(
        `${file} is a cosign encrypted key: give its passphrase in OSIMAGE_SIGN_PASSPHRASE (or COSIGN_PASSWORD) or with --passphrase-file`,
      );
    }
    key = await decryptCosignKey(sealed, pass);
    return checkSigningKey(key, file);
  }
  const encrypted = text.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----');
  const pass = encrypted ? await passphrase('pkcs8') : undefined;
  if (encrypted && (pass === undefined || pass === '')) {
    throw new UsageError(`${file} is encrypted: give its passphrase in OSIMAGE_SIGN_PASSPHRASE or with --passphrase-file`);
  }
  try {
    key = createPrivateKey({ key: text, format: 'pem', ...(pass !== undefined ? { passphrase: pass } : {}) });
  } catch (err) {
    throw new OsimageError(`${file}: not a PEM private key${encrypted ? ' (or a wrong passphrase)' : ''}: ${describe(err)}`, {
      cause: err,
      code: 'invalid-input',
    });
  }
  return checkSigningKey(key, file);
}

function checkSigningKey(key: KeyObject, file: string): KeyObject {
  const type = key.asymmetricKeyType;
  if (type !== 'ec' && type !== 'rsa' && type !== 'ed25519') {
    throw new OsimageError(`${file}: a ${type ?? 'unknown'} key cannot make sigstore signatures (ECDSA, RSA or Ed25519)`, {
      code: 'invalid-input',
    });
  }
  return key;
}

/** The `sha256-<hex>.sig` image holding one signature of `digest` for `identity`. */
export function sigstoreSignatureImage(
  digest: string,
  identity: string,
  key: KeyObject,
  claim: ClaimOptions,
): BuiltImage & { tag: string } {
  const payload = claimBytes('cosign', digest, identity, { creator: claim.creator, timestamp: claim.timestamp });
  const signature = cryptoSign(key.asymmetricKeyType === 'ed25519' ? null : 'sha256', payload, key);
  const layer: Blob = {
    bytes: payload,
    descriptor: {
      mediaType: COSIGN_PAYLOAD_MEDIA_TYPE,
      digest: sha256Digest(payload),
      size: payload.length,
      annotations: { [SIGNATURE_ANNOTATION]: signature.toString('base64') },
    },
  };
  // The config cosign writes: no platform, the one layer's diff id (the claim is not compressed).
  const config = jsonBlob(
    {
      architecture: '',
      config: {},
      created: '0001-01-01T00:00:00Z',
      history: [{ created: '0001-01-01T00:00:00Z' }],
      os: '',
      rootfs: { type: 'layers', diff_ids: [layer.descriptor.digest] },
    },
    MEDIA_TYPES.ociConfig,
  );
  return { ...buildManifest(config, [layer]), tag: signatureTag(digest) };
}

export interface GpgSignOptions {
  keyId: string;
  /** A file holding the passphrase (gpg's loopback pinentry); else the agent asks, or holds it already. */
  passphraseFile?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Sign the atomic claim of `digest` for `identity` with `gpg --sign` and write it into `dir` in the store layout.
 * Returns the file written.
 */
export async function writeGpgSignature(
  dir: string,
  digest: string,
  identity: string,
  claim: ClaimOptions,
  opts: GpgSignOptions,
): Promise<string> {
  const folder = join(dir, digestFolder(digest));
  let n = 1;
  for (; n <= MAX_SIGNATURES_PER_STORE; n++) {
    if (!(await exists(join(folder, `signature-${n}`)))) break;
  }
  if (n > MAX_SIGNATURES_PER_STORE) {
    throw new OsimageError(`${folder} already holds ${MAX_SIGNATURES_PER_STORE} signatures, as many as a cluster reads`);
  }
  const message = claimBytes('atomic', digest, identity, { creator: claim.creator, timestamp: claim.timestamp });
  const args = ['--batch', '--no-tty', '--local-user', opts.keyId, '--sign', '--output', '-'];
  if (opts.passphraseFile !== undefined) args.unshift('--pinentry-mode', 'loopback', '--passphrase-file', opts.passphraseFile);
  const { execa } = await import('execa');
  let signed: Buffer;
  try {
    const r = await execa('gpg', args, { input: message, encoding: 'buffer', ...(opts.env ? { env: opts.env, extendEnv: false } : {}) });
    signed = Buffer.from(r.stdout);
  } catch (err) {
    const stderr = (err as { stderr?: Uint8Array }).stderr;
    const why = stderr ? Buffer.from(stderr).toString('utf8').trim().split('\n').at(-1) : describe(err);
    throw new OsimageError(`gpg could not sign with key ${opts.keyId}: ${why}`, { cause: err });
  }
  await checkClusterCanVerify(signed, opts, execa);
  const file = join(folder, `signature-${n}`);
  try {
    await mkdir(folder, { recursive: true });
    await writeFileAtomic(file, signed, { mode: 0o644 });
  } catch (err) {
    throw new OsimageError(`cannot write the signature ${file}: ${describe(err)}`, { cause: err });
  }
  return file;
}

/**
 * gpg signs with whatever key it holds (GnuPG 2.4 makes Ed25519 keys by default), and the cluster-version operator's
 * OpenPGP library reads RSA, DSA and NIST ECDSA only: the signature is checked here as verify-signatures checks it,
 * against the key gpg exports, so a signature no cluster can verify is never written.
 */
async function checkClusterCanVerify(signed: Buffer, opts: GpgSignOptions, execa: typeof import('execa').execa): Promise<void> {
  const name = `gpg key ${opts.keyId}`;
  let exported: Buffer;
  try {
    const r = await execa('gpg', ['--batch', '--no-tty', '--export', opts.keyId], {
      encoding: 'buffer',
      ...(opts.env ? { env: opts.env, extendEnv: false } : {}),
    });
    exported = Buffer.from(r.stdout);
  } catch (err) {
    throw new OsimageError(`gpg could not export the public key of ${opts.keyId}: ${describe(err)}`, { cause: err });
  }
  const { readKeyring, verifyGpgSignature } = await import('./gpg.js');
  try {
    await verifyGpgSignature(signed, [await readKeyring(name, exported)], `the signature gpg made with ${name}`);
  } catch (err) {
    throw new OsimageError(`refusing to write a signature a cluster cannot verify: ${err instanceof Error ? err.message : describe(err)}`, {
      cause: err,
    });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
