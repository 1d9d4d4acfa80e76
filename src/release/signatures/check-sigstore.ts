/**
 * The sigstore half of `release verify-signatures`: the `.sig` image beside the release (and, with --os-images,
 * beside each OS image of the payload), each layer's claim checked and its signature verified against the keys.
 */
import { describe } from '../../errors.js';
import { parseImageReferences } from '../../oci/image-stream.js';
import { containerKeyForTag } from '../../oci/os-tags.js';
import type { ImageSource } from '../../registry/types.js';
import { type IdentityCheck, type OsImageSignatures, type SignatureEntry, type SignatureReport, checkClaim, withClaim } from './report.js';
import type { SignedClaim } from './simple-signing.js';
import { hasRegistryName, type PublicKeyFile, keyThatSigned, readSigstoreSignatures, signatureRef } from './sigstore.js';
import type { PayloadParts } from './verifier-config.js';

export type OpenImage = (ref: string) => Promise<ImageSource>;

export async function checkSigstore(
  report: SignatureReport,
  image: string,
  keys: PublicKeyFile[],
  opts: { open: OpenImage; identity?: IdentityCheck | undefined },
): Promise<SignatureEntry[]> {
  const section = report.sigstore;
  section.checked = true;
  const found = await sigstoreSignaturesOf(image, report.digest, keys, opts.open, opts.identity);
  if (found.ref !== undefined) section.ref = found.ref;
  section.found = found.found;
  section.skippedLayers = found.skipped;
  section.met = found.met;
  if (found.problem !== undefined) section.problem = found.problem;
  return found.entries;
}

export interface SigstoreFound {
  ref?: string;
  found: boolean;
  skipped: number;
  met: boolean;
  problem?: string;
  entries: SignatureEntry[];
}

/** The sigstore signatures of `image` (as typed) at `digest`, each checked against `keys`. */
export async function sigstoreSignaturesOf(
  image: string,
  digest: string,
  keys: PublicKeyFile[],
  open: OpenImage,
  identity: IdentityCheck | undefined,
): Promise<SigstoreFound> {
  const ref = signatureRef(image, digest);
  if (ref === undefined)
    return { found: false, skipped: 0, met: false, problem: `${image} has no tags beside it to hold sigstore signatures`, entries: [] };
  let found: Awaited<ReturnType<typeof readSigstoreSignatures>>;
  try {
    found = await readSigstoreSignatures(ref, open);
  } catch (err) {
    return { ref, found: false, skipped: 0, met: false, problem: describe(err), entries: [] };
  }
  const entries: SignatureEntry[] = [];
  for (const layer of found.layers) {
    const entry: SignatureEntry = { kind: 'sigstore', source: layer.source, verdict: 'error' };
    entries.push(entry);
    if (layer.payload === undefined || layer.signature === undefined) {
      entry.reason = layer.error ?? 'unreadable';
      continue;
    }
    // The claim is read (for the report) before the key is known; it counts only once a key has signed it.
    let claim: SignedClaim | undefined;
    let claimError: unknown;
    try {
      claim = checkClaim(layer.payload, 'cosign', digest, layer.source, identity ? { identity } : {});
    } catch (err) {
      claim = (err as { claim?: SignedClaim }).claim;
      claimError = err;
    }
    if (claim) withClaim(entry, claim);
    if (keys.length === 0) {
      entry.verdict = 'unverified';
      entry.reason = 'no --key given to check it with';
      continue;
    }
    const key = keyThatSigned(layer.payload, layer.signature, keys);
    if (!key) {
      entry.verdict = 'invalid';
      entry.reason = `${layer.source}: not signed by ${keys.length === 1 ? 'the key' : 'any of the keys'} given (${keys.map((k) => k.file).join(', ')})`;
      continue;
    }
    Object.assign(entry, { key: key.fingerprint, keyring: key.file });
    if (claimError !== undefined) {
      entry.verdict = 'invalid';
      entry.reason = describe(claimError);
      continue;
    }
    entry.verdict = 'valid';
  }
  const met = entries.some((e) => e.verdict === 'valid');
  const result: SigstoreFound = { ref, found: found.found, skipped: found.skipped, met, entries };
  if (!found.found) result.problem = `no sigstore signature: ${ref} does not exist`;
  else if (!met)
    result.problem = keys.length === 0 ? 'no --key given to check sigstore signatures with' : `no valid sigstore signature in ${ref}`;
  return result;
}

/**
 * `--os-images`: every OS image tag of the payload's image-references (machine-os-content, rhel-coreos and its
 * extensions, the OS streams' tags), each by its digest, must have a sigstore signature by one of `keys`. Their
 * identities are reported, not compared: they name the OS images' repositories, not the release's.
 */
export async function checkOsImages(
  payload: () => Promise<PayloadParts>,
  keys: PublicKeyFile[],
  opts: { open: OpenImage },
): Promise<OsImageSignatures[]> {
  const refs = (await payload()).imageReferences;
  if (refs === undefined)
    return [
      { tag: 'image-references', image: '', found: false, met: false, problem: 'the release has no image-references', signatures: [] },
    ];
  const stream = parseImageReferences(refs, 'release-manifests/image-references');
  const out: OsImageSignatures[] = [];
  for (const t of stream.spec.tags) {
    if (containerKeyForTag(t.name) === undefined) continue;
    const image = t.from?.kind === 'DockerImage' ? t.from.name : undefined;
    const entry: OsImageSignatures = { tag: t.name, image: image ?? '', found: false, met: false, signatures: [] };
    out.push(entry);
    if (!image) {
      entry.problem = `the tag ${t.name} names no image`;
      continue;
    }
    // The pull spec is the payload's: a cluster pulls it from a registry, and osimage opens no local path for it.
    if (!hasRegistryName(image) || image.startsWith('file://')) {
      entry.problem = `the tag ${t.name} names ${image}, which is not a registry image`;
      continue;
    }
    try {
      const source = await opts.open(image);
      entry.digest = (await source.manifest()).digest;
    } catch (err) {
      entry.problem = describe(err);
      continue;
    }
    const found = await sigstoreSignaturesOf(image, entry.digest, keys, opts.open, undefined);
    if (found.ref !== undefined) entry.ref = found.ref;
    entry.found = found.found;
    entry.met = found.met;
    entry.signatures = found.entries;
    if (found.problem !== undefined) entry.problem = found.problem;
  }
  if (out.length === 0)
    out.push({ tag: '', image: '', found: false, met: false, problem: 'the release has no OS image tags', signatures: [] });
  return out;
}
