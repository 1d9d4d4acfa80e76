/**
 * GPG simple signing, as the cluster-version operator checks it (library-go pkg/verify): a signature is an
 * OpenPGP signed message (gpg --sign, not detached) whose content is the atomic container claim. It is checked
 * against keyrings (each a ConfigMap key `verifier-public-key-*`, or a `--keyring` file); the keyring that holds
 * the signing key verifies it. OpenPGP.js does the cryptography (signature validity and expiry); a key that has
 * expired or been revoked is refused, as gpg refuses it. OpenPGP.js is loaded only when a GPG signature or keyring is read.
 */
import { OsimageError, describe } from '../../errors.js';
import { lazyRequire } from '../../lazy.js';

const openpgp = lazyRequire<typeof import('openpgp')>('openpgp');

type PublicKey = import('openpgp').PublicKey;

/** A key file or ConfigMap value is a few kilobytes; a bigger one is not a keyring. */
export const MAX_KEYRING_BYTES = 1024 * 1024;

export interface Keyring {
  /** The ConfigMap key (`verifier-public-key-redhat`) or the file it came from. */
  name: string;
  keys: PublicKey[];
  /** Primary key fingerprints, upper-case hex (as containers/image prints them). */
  fingerprints: string[];
}

export interface GpgVerified {
  keyring: string;
  /** The primary key's fingerprint, upper-case hex. */
  fingerprint: string;
  /** The signing (sub)key's id, upper-case hex. */
  keyId: string;
  /** When the signature was made. */
  created?: Date;
  content: Buffer;
}

/** Read an armoured or binary keyring (`source` names it in errors). */
export async function readKeyring(name: string, bytes: Buffer, source = name): Promise<Keyring> {
  if (bytes.length > MAX_KEYRING_BYTES) throw new OsimageError(`${source}: the keyring is larger than ${MAX_KEYRING_BYTES} bytes`);
  const pgp = openpgp();
  let keys: PublicKey[];
  try {
    const text = bytes.toString('utf8');
    const read = text.includes('-----BEGIN PGP')
      ? await pgp.readKeys({ armoredKeys: text })
      : await pgp.readKeys({ binaryKeys: new Uint8Array(bytes) });
    keys = read.map((k) => k.toPublic());
  } catch (err) {
    throw new OsimageError(`${source}: not an OpenPGP public key: ${describe(err)}`, { cause: err, code: 'invalid-input' });
  }
  if (keys.length === 0) throw new OsimageError(`${source}: no OpenPGP public key in it`, { code: 'invalid-input' });
  return { name, keys, fingerprints: keys.map((k) => k.getFingerprint().toUpperCase()) };
}

/**
 * Verify one signature (`source` names where it was read): the keyring that holds its signing key checks it.
 * An unknown key, a bad or expired signature, or an expired or revoked key is an OsimageError naming `source`.
 */
export async function verifyGpgSignature(bytes: Buffer, keyrings: readonly Keyring[], source: string): Promise<GpgVerified> {
  const pgp = openpgp();
  let message: Awaited<ReturnType<typeof pgp.readMessage>>;
  try {
    message = await pgp.readMessage({ binaryMessage: new Uint8Array(bytes) });
  } catch (err) {
    throw new OsimageError(`${source}: not an OpenPGP message: ${describe(err)}`, { cause: err, code: 'invalid-input' });
  }
  const ids = message.getSigningKeyIDs();
  if (ids.length === 0) throw new OsimageError(`${source}: the message is not signed`, { code: 'invalid-input' });
  for (const id of ids) {
    for (const ring of keyrings) {
      const key = ring.keys.find((k) => k.getKeys(id).length > 0);
      if (!key) continue;
      const keyId = id.toHex().toUpperCase();
      let result: Awaited<ReturnType<typeof pgp.verify<Uint8Array>>>;
      try {
        result = await pgp.verify({ message, verificationKeys: [key], expectSigned: true, format: 'binary' });
      } catch (err) {
        throw new OsimageError(`${source}: the signature by key ${keyId} (${ring.name}) is not valid: ${describe(err)}`, {
          cause: err,
          code: 'invalid-input',
        });
      }
      // OpenPGP.js accepts a signature made while its key was valid; gpg (and so containers/image) refuses a key
      // that has expired or been revoked since. So do we.
      const fingerprint = key.getFingerprint().toUpperCase();
      const expires = await key.getExpirationTime().catch(() => null);
      if (expires instanceof Date && expires.getTime() <= Date.now()) {
        throw new OsimageError(`${source}: the key ${fingerprint} (${ring.name}) expired on ${expires.toISOString()}`, {
          code: 'invalid-input',
        });
      }
      if (await key.isRevoked())
        throw new OsimageError(`${source}: the key ${fingerprint} (${ring.name}) is revoked`, { code: 'invalid-input' });
      const created = (await result.signatures[0]?.signature)?.packets[0]?.created ?? undefined;
      return {
        keyring: ring.name,
        fingerprint,
        keyId,
        ...(created ? { created } : {}),
        content: Buffer.from(result.data),
      };
    }
  }
  const shown = ids.map((id) => id.toHex().toUpperCase()).join(', ');
  throw new OsimageError(`${source}: signed by key ${shown}, which no keyring holds`, { code: 'invalid-input' });
}
