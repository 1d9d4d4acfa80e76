/**
 * What `release new` signs with, prepared before anything is built (a bad key fails at once), and the two places
 * a signature goes: the sigstore `.sig` image (a tag in the archive written, or pushed beside the release) and a
 * GPG signature file in a store folder.
 */
import type { KeyObject } from 'node:crypto';
import { env } from '../../context.js';
import { UsageError } from '../../errors.js';
import { readRegularFile } from '../../files/read.js';
import type { LayoutEntry } from '../../registry/oci-write.js';
import { type PushOptions, openPushTarget } from '../../registry/push.js';
import { parseReference } from '../../registry/reference.js';
import type { BuiltImage } from '../build-layer.js';
import { type ClaimOptions, type EncryptedKeyKind, readSigstoreSigningKey, sigstoreSignatureImage, writeGpgSignature } from './sign.js';

/** The environment variable that may hold the passphrase of an encrypted signing key. */
export const PASSPHRASE_ENV = 'OSIMAGE_SIGN_PASSPHRASE';
/** cosign's own variable: read, after ours, for a key in cosign's format, so a pipeline set up for cosign signs as it is. */
export const COSIGN_PASSPHRASE_ENV = 'COSIGN_PASSWORD';

export interface SignRequest {
  /** --sign-key FILE: a sigstore private key. */
  sigstoreKey?: string | undefined;
  /** --gpg-sign KEYID, with --signature-dir DIR. */
  gpgKeyId?: string | undefined;
  signatureDir?: string | undefined;
  /** --sign-identity REF: the identity signed (default: the reference pushed to). */
  identity?: string | undefined;
  /** --passphrase-file FILE (else $OSIMAGE_SIGN_PASSPHRASE). */
  passphraseFile?: string | undefined;
}

export interface ReleaseSigner {
  identity?: string | undefined;
  sigstore?: KeyObject;
  gpg?: { keyId: string; dir: string; passphraseFile?: string };
  claim: ClaimOptions;
}

async function passphrase(req: SignRequest, kind: EncryptedKeyKind): Promise<string | undefined> {
  if (req.passphraseFile !== undefined) {
    const text = (await readRegularFile(req.passphraseFile, 64 * 1024)).toString('utf8');
    return text.split(/\r?\n/)[0];
  }
  const vars = env();
  return vars[PASSPHRASE_ENV] ?? (kind === 'cosign' ? vars[COSIGN_PASSPHRASE_ENV] : undefined);
}

export async function prepareSigner(req: SignRequest, creator: string): Promise<ReleaseSigner> {
  const signer: ReleaseSigner = { identity: req.identity, claim: { creator, timestamp: Math.floor(Date.now() / 1000) } };
  if (req.identity !== undefined) {
    try {
      parseReference(req.identity);
    } catch (err) {
      throw new UsageError(`--sign-identity: ${(err as Error).message}`);
    }
  }
  if (req.sigstoreKey !== undefined) signer.sigstore = await readSigstoreSigningKey(req.sigstoreKey, (kind) => passphrase(req, kind));
  if (req.gpgKeyId !== undefined && req.signatureDir !== undefined) {
    signer.gpg = {
      keyId: req.gpgKeyId,
      dir: req.signatureDir,
      ...(req.passphraseFile !== undefined ? { passphraseFile: req.passphraseFile } : {}),
    };
  }
  return signer;
}

/** The sigstore image for `digest`, as a layout entry (for an archive), or undefined when not signing so. */
export function sigstoreEntry(signer: ReleaseSigner | undefined, digest: string, identity: string): LayoutEntry | undefined {
  if (!signer?.sigstore) return undefined;
  const image = sigstoreSignatureImage(digest, identity, signer.sigstore, signer.claim);
  return { top: image, blobs: image.blobs, tag: image.tag };
}

/** Push the sigstore image of `digest` beside `target` (same repository, tag `sha256-<hex>.sig`); its reference. */
export async function pushSigstoreSignature(
  signer: ReleaseSigner,
  digest: string,
  target: string,
  identity: string,
  opts: PushOptions,
): Promise<string | undefined> {
  if (!signer.sigstore) return undefined;
  const image: BuiltImage & { tag: string } = sigstoreSignatureImage(digest, identity, signer.sigstore, signer.claim);
  const ref = `${parseReference(target).reference.name}:${image.tag}`;
  const dest = await openPushTarget(ref, opts);
  for (const b of image.blobs) await dest.pushBlob(b.descriptor, b.bytes);
  await dest.pushManifest(image.bytes, image.descriptor.mediaType);
  return ref;
}

/** Write the GPG signature of `digest`, when signing so; the file written. */
export async function writeGpg(signer: ReleaseSigner | undefined, digest: string, identity: string): Promise<string | undefined> {
  if (!signer?.gpg) return undefined;
  return writeGpgSignature(signer.gpg.dir, digest, identity, signer.claim, {
    keyId: signer.gpg.keyId,
    ...(signer.gpg.passphraseFile !== undefined ? { passphraseFile: signer.gpg.passphraseFile } : {}),
    env: env(),
  });
}
