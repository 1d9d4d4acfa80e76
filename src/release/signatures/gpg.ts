/**
 * GPG simple signing, as the cluster-version operator checks it (library-go pkg/verify): a signature is an
 * OpenPGP signed message (gpg --sign, not detached) whose content is the atomic container claim. It is checked
 * against keyrings (each a ConfigMap key `verifier-public-key-*`, or a `--keyring` file); the keyring that holds
 * the signing key verifies it. OpenPGP.js does the cryptography (signature validity and expiry); a key that has
 * expired or been revoked is refused, as gpg refuses it, and so is a key the operator's Go library cannot read.
 * OpenPGP.js is loaded only when a GPG signature or keyring is read.
 */
import { OsimageError, describe } from '../../errors.js';
import { lazyRequire } from '../../lazy.js';

const openpgp = lazyRequire<typeof import('openpgp')>('openpgp');

type PublicKey = import('openpgp').PublicKey;

/** A key file or ConfigMap value is a few kilobytes; a bigger one is not a keyring. */
export const MAX_KEYRING_BYTES = 1024 * 1024;

/**
 * A signature is read whole (at most 50 KiB) but may hold a compressed packet: what it inflates to is capped, or a
 * few hundred bytes of BZip2 would make gigabytes. A claim is a few hundred bytes.
 */
export const MAX_DECOMPRESSED_BYTES = 1024 * 1024;
const PGP_LIMITS = { maxDecompressedMessageSize: MAX_DECOMPRESSED_BYTES };

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
  /** Further keyrings whose keys also signed this message (one message may carry several signatures). */
  alsoKeyrings: string[];
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
 * Verify one signature (`source` names where it was read) against every keyring that holds one of its signing
 * keys, as the operator reads a signature once per keyring: one message signed by the keys of two keyrings counts
 * for both. An unknown key, a bad or expired signature, or an expired or revoked key (or signing subkey) is an
 * OsimageError naming `source`.
 */
export async function verifyGpgSignature(bytes: Buffer, keyrings: readonly Keyring[], source: string): Promise<GpgVerified> {
  const ids = (await readSigned(bytes, source)).getSigningKeyIDs();
  if (ids.length === 0) throw new OsimageError(`${source}: the message is not signed`, { code: 'invalid-input' });
  const verified: GpgVerified[] = [];
  let failure: unknown;
  for (const ring of keyrings) {
    try {
      // OpenPGP.js consumes a message as it verifies it: each keyring reads its own copy.
      if (!ring.keys.some((k) => ids.some((id) => k.getKeys(id).length > 0))) continue;
      const one = await verifyWithKeyring(await readSigned(bytes, source), ids, ring, source);
      if (one) verified.push(one);
    } catch (err) {
      failure ??= err;
    }
  }
  const [first, ...others] = verified;
  if (first) return { ...first, alsoKeyrings: others.map((v) => v.keyring) };
  if (failure !== undefined) throw failure;
  const shown = ids.map((id) => id.toHex().toUpperCase()).join(', ');
  throw new OsimageError(`${source}: signed by key ${shown}, which no keyring holds`, { code: 'invalid-input' });
}

type Message = Awaited<ReturnType<typeof import('openpgp').readMessage>>;
type KeyID = ReturnType<Message['getSigningKeyIDs']>[number];

/**
 * The operator verifies with golang.org/x/crypto/openpgp, frozen before EdDSA, Curve25519, Brainpool and version 5
 * and 6 keys: it reads version 4 (and 3) RSA, DSA and NIST-curve ECDSA keys only. A signature OpenPGP.js accepts
 * from any other key would pass here and never in a cluster. Why `key` cannot be read, or undefined.
 */
function operatorCannotRead(key: {
  getAlgorithmInfo(): { algorithm: string; curve?: string };
  keyPacket: { version: number };
}): string | undefined {
  const { algorithm, curve } = key.getAlgorithmInfo();
  const version = key.keyPacket.version;
  if (version !== 4 && version !== 3) return `is a version ${version} key`;
  if (algorithm === 'rsaEncryptSign' || algorithm === 'rsaSign' || algorithm === 'dsa') return undefined;
  if (algorithm === 'ecdsa' && curve !== undefined && NIST_CURVES.has(curve)) return undefined;
  return `is an ${algorithm}${curve ? ` (${curve})` : ''} key`;
}

const NIST_CURVES = new Set(['nistP256', 'nistP384', 'nistP521', 'p256', 'p384', 'p521']);

/** The hashes golang.org/x/crypto/openpgp knows (RFC 4880 9.4 ids): MD5, SHA-1, RIPEMD-160, SHA-2. */
const OPERATOR_HASHES = new Set([1, 2, 3, 8, 9, 10, 11]);

function operatorCannotHash(hash: number | null | undefined): string | undefined {
  if (hash === undefined || hash === null || OPERATOR_HASHES.has(hash)) return undefined;
  return `signed with hash algorithm ${hash}`;
}

async function readSigned(bytes: Buffer, source: string): Promise<Message> {
  try {
    return await openpgp().readMessage({ binaryMessage: new Uint8Array(bytes), config: PGP_LIMITS });
  } catch (err) {
    throw new OsimageError(`${source}: not an OpenPGP message: ${describe(err)}`, { cause: err, code: 'invalid-input' });
  }
}

/** The signature checked with the keys of `ring` that it names; undefined when the ring holds none of them. */
async function verifyWithKeyring(message: Message, ids: KeyID[], ring: Keyring, source: string): Promise<GpgVerified | undefined> {
  const pgp = openpgp();
  const keys = ring.keys.filter((k) => ids.some((id) => k.getKeys(id).length > 0));
  if (keys.length === 0) return undefined;
  const named = ids.filter((id) => keys.some((k) => k.getKeys(id).length > 0)).map((id) => id.toHex().toUpperCase());
  let result: Awaited<ReturnType<typeof pgp.verify<Uint8Array>>>;
  try {
    result = await pgp.verify({ message, verificationKeys: keys, expectSigned: true, format: 'binary', config: PGP_LIMITS });
  } catch (err) {
    throw new OsimageError(`${source}: the signature by key ${named.join(', ')} (${ring.name}) is not valid: ${describe(err)}`, {
      cause: err,
      code: 'invalid-input',
    });
  }
  // The signature that held, of those the message carries.
  let good: (typeof result.signatures)[number] | undefined;
  for (const s of result.signatures) {
    if (await s.verified.catch(() => false)) {
      good = s;
      break;
    }
  }
  const id = good?.keyID ?? ids[0]!;
  const key = keys.find((k) => k.getKeys(id).length > 0) ?? keys[0]!;
  const keyId = id.toHex().toUpperCase();
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
  // The same holds for a signing subkey: valid when it signed is not enough, it must be valid now.
  let signing: Awaited<ReturnType<PublicKey['getSigningKey']>>;
  try {
    signing = await key.getSigningKey(id, new Date());
  } catch (err) {
    throw new OsimageError(`${source}: the signing key ${keyId} of ${fingerprint} (${ring.name}) is not valid now: ${describe(err)}`, {
      cause: err,
      code: 'invalid-input',
    });
  }
  const packet = (await good?.signature)?.packets[0];
  const unreadable = operatorCannotRead(key) ?? operatorCannotRead(signing) ?? operatorCannotHash(packet?.hashAlgorithm);
  if (unreadable !== undefined) {
    throw new OsimageError(
      `${source}: the key ${fingerprint} (${ring.name}) ${unreadable}, which the cluster-version operator's OpenPGP library (golang.org/x/crypto/openpgp) cannot read: a cluster would not verify this signature`,
      { code: 'invalid-input' },
    );
  }
  const created = packet?.created ?? undefined;
  return {
    keyring: ring.name,
    fingerprint,
    keyId,
    ...(created ? { created } : {}),
    content: Buffer.from(result.data),
    alsoKeyrings: [],
  };
}
