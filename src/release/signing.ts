/**
 * `release extract --tools --signing-key FILE`: sha256sum.txt signed with an OpenPGP private key, as an
 * ASCII-armoured detached signature (sha256sum.txt.asc), which `gpg --verify sha256sum.txt.asc sha256sum.txt`
 * checks. The key file is armoured or binary; the first key that can sign is used, decrypted with the passphrase
 * `ask` gives when it is protected. OpenPGP.js does the cryptography; it is loaded only when a key is given.
 */
import { readFile } from 'node:fs/promises';
import { OsimageError, describe } from '../errors.js';
import { lazyRequire } from '../lazy.js';

const openpgp = lazyRequire<typeof import('openpgp')>('openpgp');

/** A key file is a few kilobytes; a bigger one is not a key. */
const MAX_KEY_BYTES = 1024 * 1024;

export type Sign = (data: Buffer) => Promise<string>;

/** Read the key in `file` (decrypting it with `ask()`'s passphrase if it needs one): a function that signs. */
export async function readSigningKey(file: string, ask: () => Promise<string>): Promise<Sign> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new OsimageError(`cannot read the signing key ${file}: ${describe(err)}`, { cause: err });
  }
  if (bytes.length > MAX_KEY_BYTES) throw new OsimageError(`the signing key ${file} is larger than ${MAX_KEY_BYTES} bytes`);
  const pgp = openpgp();
  let keys: Awaited<ReturnType<typeof pgp.readPrivateKeys>>;
  try {
    const text = bytes.toString('utf8');
    keys = text.includes('-----BEGIN PGP')
      ? await pgp.readPrivateKeys({ armoredKeys: text })
      : await pgp.readPrivateKeys({ binaryKeys: new Uint8Array(bytes) });
  } catch (err) {
    throw new OsimageError(`cannot read the signing key ${file}: ${describe(err)}`, { cause: err });
  }
  for (let key of keys) {
    try {
      await key.getSigningKey();
    } catch {
      continue;
    }
    if (!key.isDecrypted()) {
      const passphrase = await ask();
      try {
        key = await pgp.decryptKey({ privateKey: key, passphrase });
      } catch (err) {
        throw new OsimageError(`unable to decrypt signing key: ${describe(err)}`, { cause: err });
      }
    }
    const signingKey = key;
    return async (data) => {
      const message = await pgp.createMessage({ binary: new Uint8Array(data) });
      try {
        return await pgp.sign({ message, signingKeys: signingKey, detached: true, format: 'armored' });
      } catch (err) {
        throw new OsimageError(`unable to sign the sha256sum.txt file: ${describe(err)}`, { cause: err });
      }
    };
  }
  throw new OsimageError(`no private key exists in ${file} capable of signing the output`);
}
