/**
 * Sigstore signatures as cosign writes them and containers/image reads them: an image manifest tagged
 * `sha256-<hex>.sig` in the signed image's repository, each layer of media type
 * `application/vnd.dev.cosign.simplesigning.v1+json` a cosign claim, its signature (base64) in the layer's
 * `dev.cosignproject.cosign/signature` annotation. Signatures are checked against public keys (PEM: ECDSA, RSA
 * PKCS#1 v1.5 or Ed25519, SHA-256) with node:crypto. Certificates, Rekor bundles and keyless (Fulcio)
 * signatures are not read. Layers of other media types are skipped, as containers/image skips them.
 */
import { createHash, createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import type { Readable } from 'node:stream';
import { OsimageError, describe, hasCode } from '../../errors.js';
import { readRegularFile } from '../../files/read.js';
import { parseLayoutReference } from '../../registry/oci-layout.js';
import { parseReference } from '../../registry/reference.js';
import { type Descriptor, type ImageSource, isIndex } from '../../registry/types.js';
import { COSIGN_PAYLOAD_MEDIA_TYPE } from './simple-signing.js';

export const SIGNATURE_ANNOTATION = 'dev.cosignproject.cosign/signature';
/** A .sig manifest holds one layer a signature; more than this many is not a signature manifest we read. */
export const MAX_SIGNATURE_LAYERS = 32;
/** A cosign claim is a few hundred bytes (more with annotations). */
export const MAX_PAYLOAD_BYTES = 64 * 1024;
/** A public key file is a few hundred bytes. */
const MAX_KEY_BYTES = 64 * 1024;

export interface PublicKeyFile {
  file: string;
  key: KeyObject;
  /** `SHA256:` and the base64 of the SHA-256 of the key's DER SubjectPublicKeyInfo (as ssh-keygen prints keys). */
  fingerprint: string;
  /** `ecdsa-P-256`, `rsa-4096`, `ed25519`. */
  kind: string;
}

export interface SigstoreLayer {
  /** `REF:sha256-….sig layer N` */
  source: string;
  payload?: Buffer;
  signature?: Buffer;
  /** Why the layer could not be read. */
  error?: string;
}

export interface SigstoreSignatures {
  /** The .sig reference looked up. */
  ref: string;
  /** False when no .sig manifest exists. */
  found: boolean;
  layers: SigstoreLayer[];
  /** Layers of other media types, skipped. */
  skipped: number;
}

/** Read a PEM public key (`--key FILE`): ECDSA, RSA or Ed25519. */
export async function readPublicKey(file: string): Promise<PublicKeyFile> {
  const bytes = await readRegularFile(file, MAX_KEY_BYTES);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: bytes, format: 'pem' });
  } catch (err) {
    throw new OsimageError(`${file}: not a PEM public key: ${describe(err)}`, { cause: err, code: 'invalid-input' });
  }
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  let kind: string;
  if (type === 'ec') kind = `ecdsa-${details.namedCurve ?? 'unknown'}`;
  else if (type === 'rsa') kind = `rsa-${details.modulusLength ?? 0}`;
  else if (type === 'ed25519') kind = 'ed25519';
  else
    throw new OsimageError(`${file}: a ${type ?? 'unknown'} key cannot check sigstore signatures (ECDSA, RSA or Ed25519)`, {
      code: 'invalid-input',
    });
  return { file, key, fingerprint: keyFingerprint(key), kind };
}

export function keyFingerprint(key: KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return `SHA256:${createHash('sha256').update(der).digest('base64').replace(/=+$/, '')}`;
}

/** `sha256-<hex>.sig`, cosign's tag for the signatures of `digest`. */
export function signatureTag(digest: string): string {
  return `${digest.replace(':', '-')}.sig`;
}

/** containers/image transports other than a registry: their images have no registry name (nor, but for oci, tags). */
const LOCAL_TRANSPORT = /^(oci|oci-archive|dir|docker-archive|docker-daemon|containers-storage|ostree|sif|tarball|file):/;

/** Whether `image` (as typed) is a registry reference, whose name an identity can be compared with. */
export function hasRegistryName(image: string): boolean {
  return !LOCAL_TRANSPORT.test(image);
}

/** The reference of the .sig manifest of `digest` beside `image` (as typed), or undefined for a transport without tags. */
export function signatureRef(image: string, digest: string): string | undefined {
  const tag = signatureTag(digest);
  for (const transport of ['oci', 'oci-archive'] as const) {
    if (image.startsWith(`${transport}:`)) return `${transport}:${parseLayoutReference(image, transport).path}:${tag}`;
  }
  if (!hasRegistryName(image)) return undefined;
  return `${parseReference(image).reference.name}:${tag}`;
}

async function readCappedStream(stream: Readable, max: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > max) {
      stream.destroy();
      throw new OsimageError(`${what} is larger than the ${max} bytes allowed`, { code: 'invalid-input' });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, total);
}

/**
 * Read the .sig manifest `ref` (opened with `open`) and its signature layers. No manifest: `found` false. A
 * manifest that is no image manifest, or has more than MAX_SIGNATURE_LAYERS layers, is an error naming it.
 */
export async function readSigstoreSignatures(ref: string, open: (ref: string) => Promise<ImageSource>): Promise<SigstoreSignatures> {
  let source: ImageSource;
  let manifest: Awaited<ReturnType<ImageSource['manifest']>>;
  try {
    source = await open(ref);
    manifest = await source.manifest();
  } catch (err) {
    if (hasCode(err, 'not-found')) return { ref, found: false, layers: [], skipped: 0 };
    throw err;
  }
  if (isIndex(manifest.parsed))
    throw new OsimageError(`the signature manifest ${ref} is an index, not an image manifest`, { code: 'invalid-input' });
  const layers: Descriptor[] = Array.isArray(manifest.parsed.layers) ? manifest.parsed.layers : [];
  if (layers.length > MAX_SIGNATURE_LAYERS) {
    throw new OsimageError(`the signature manifest ${ref} has ${layers.length} layers, more than the ${MAX_SIGNATURE_LAYERS} allowed`, {
      code: 'invalid-input',
    });
  }
  const out: SigstoreSignatures = { ref, found: true, layers: [], skipped: 0 };
  for (const [i, desc] of layers.entries()) {
    if (desc.mediaType !== COSIGN_PAYLOAD_MEDIA_TYPE) {
      out.skipped++;
      continue;
    }
    const where = `${ref} layer ${i}`;
    out.layers.push(await readLayer(source, desc, where));
  }
  return out;
}

async function readLayer(source: ImageSource, desc: Descriptor, where: string): Promise<SigstoreLayer> {
  const encoded = desc.annotations?.[SIGNATURE_ANNOTATION];
  if (typeof encoded !== 'string' || encoded === '') return { source: where, error: `${where}: no ${SIGNATURE_ANNOTATION} annotation` };
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0 || encoded.length > 8192) {
    return { source: where, error: `${where}: the ${SIGNATURE_ANNOTATION} annotation is not base64` };
  }
  if (typeof desc.size !== 'number' || desc.size > MAX_PAYLOAD_BYTES) {
    return { source: where, error: `${where}: the claim is ${desc.size} bytes, more than the ${MAX_PAYLOAD_BYTES} allowed` };
  }
  try {
    const payload = await readCappedStream(await source.blob(desc), MAX_PAYLOAD_BYTES, `${where}: the claim`);
    return { source: where, payload, signature: Buffer.from(encoded, 'base64') };
  } catch (err) {
    return { source: where, error: `${where}: ${describe(err)}` };
  }
}

/** The key among `keys` whose signature over `payload` is `signature`, or undefined. */
export function keyThatSigned(payload: Buffer, signature: Buffer, keys: readonly PublicKeyFile[]): PublicKeyFile | undefined {
  return keys.find((k) => {
    try {
      return cryptoVerify(k.key.asymmetricKeyType === 'ed25519' ? null : 'sha256', payload, k.key, signature);
    } catch {
      return false;
    }
  });
}
