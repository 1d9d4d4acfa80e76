/**
 * GPG simple signatures made in tests with OpenPGP.js, independently of osimage's verifier: a key pair, a signed
 * message over the claim's bytes, and the cluster-version operator's store layout
 * (`<store>/<algorithm>=<hex>/signature-<n>`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as openpgp from 'openpgp';

export type GpgKey = { priv: openpgp.PrivateKey; armored: string; fpr: string };

/** A key pair for `name` with the key options given (type, curve, bits, dates…). */
export async function makeGpgKey(name: string, options: Partial<Parameters<typeof openpgp.generateKey>[0]>): Promise<GpgKey> {
  const { privateKey, publicKey } = await openpgp.generateKey({
    userIDs: [{ name, email: `${name}@example.com` }],
    format: 'object',
    ...options,
  });
  return { priv: privateKey, armored: publicKey.armor(), fpr: publicKey.getFingerprint().toUpperCase() };
}

/** A binary OpenPGP message of `data` signed by `keys` (at `date`, when given). */
export async function gpgSign(keys: openpgp.PrivateKey | openpgp.PrivateKey[], data: Buffer, date?: Date): Promise<Buffer> {
  const message = await openpgp.createMessage({ binary: new Uint8Array(data) });
  return Buffer.from(await openpgp.sign({ message, signingKeys: keys, format: 'binary', ...(date ? { date } : {}) }));
}

/** Signatures 1..n of `digest` in the store folder `store`. */
export async function putSignatures(store: string, digest: string, sigs: Buffer[]): Promise<void> {
  const dir = join(store, digest.replace(':', '='));
  await mkdir(dir, { recursive: true });
  for (const [i, s] of sigs.entries()) await writeFile(join(dir, `signature-${i + 1}`), s);
}
