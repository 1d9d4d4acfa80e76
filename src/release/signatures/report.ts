/**
 * The report of `release verify-signatures`: each signature found (kind, where, key, identity, timestamp,
 * verdict), what each kind needs and whether it has it; and the two steps every signature goes through once its
 * signature holds: its claim read and checked (digest, and identity when asked), its facts put on the entry.
 */
import { OsimageError } from '../../errors.js';
import { type IdentityRule, checkIdentity } from './identity.js';
import { type ClaimFormat, readClaim, type SignedClaim } from './simple-signing.js';

export const REQUIREMENTS = ['gpg', 'sigstore', 'any', 'all'] as const;
export type Requirement = (typeof REQUIREMENTS)[number];

export type Verdict = 'valid' | 'invalid' | 'unverified' | 'error';

export interface SignatureEntry {
  kind: 'gpg' | 'sigstore';
  /** Where it was read: a store URL, or `REF:sha256-….sig layer N`. */
  source: string;
  verdict: Verdict;
  /** Why it is not valid. */
  reason?: string;
  /** The signing key: a GPG primary key fingerprint, or a sigstore key's SHA256: fingerprint. */
  key?: string;
  /** The GPG signing (sub)key id. */
  keyId?: string;
  /** The keyring (ConfigMap key or file) or key file that holds the key. */
  keyring?: string;
  identity?: string;
  digest?: string;
  creator?: string;
  /** optional.timestamp of the claim (else the GPG signature's creation time), ISO 8601. */
  timestamp?: string;
}

export interface GpgSection {
  /** Where the keyrings came from: the payload's ConfigMap, --keyring files, or nowhere. */
  keyringsFrom: 'payload' | 'flags' | 'none';
  storesFrom: 'payload' | 'flags' | 'none';
  /** `the config map NS/NAME (release-manifests/FILE)` when the payload's was read. */
  configMap?: string;
  keyrings: Array<{ name: string; fingerprints: string[]; signed: boolean }>;
  stores: string[];
  /** Every keyring signed (and there was at least one). */
  met: boolean;
  /** Why GPG could not be checked at all. */
  problem?: string;
  checked: boolean;
}

export interface SigstoreSection {
  ref?: string;
  found: boolean;
  keys: Array<{ file: string; fingerprint: string; kind: string }>;
  skippedLayers: number;
  met: boolean;
  problem?: string;
  checked: boolean;
}

/** An OS image of the payload (`--os-images`) and its sigstore signatures. */
export interface OsImageSignatures {
  tag: string;
  image: string;
  digest?: string;
  ref?: string;
  found: boolean;
  met: boolean;
  problem?: string;
  signatures: SignatureEntry[];
}

export interface SignatureReport {
  image: string;
  digest: string;
  require: Requirement;
  identityRule?: { rule: string; image?: string };
  gpg: GpgSection;
  sigstore: SigstoreSection;
  signatures: SignatureEntry[];
  /** With --os-images: each OS image tag of the payload (every one must have a valid signature). */
  osImages?: OsImageSignatures[];
  /** Whether `require` is met (and, with --os-images, every OS image is signed). */
  met: boolean;
}

/** How identities are compared, when asked: the rule, and the name the image is compared as (undefined: it has none). */
export interface IdentityCheck {
  rule: IdentityRule;
  ruleText: string;
  image: string | undefined;
}

/** The claim's facts on an entry. */
export function withClaim(entry: SignatureEntry, claim: SignedClaim, created?: Date): SignatureEntry {
  entry.identity = claim.identity;
  entry.digest = claim.digest;
  if (claim.creator !== undefined) entry.creator = claim.creator;
  if (claim.timestamp !== undefined) entry.timestamp = new Date(claim.timestamp * 1000).toISOString();
  else if (created) entry.timestamp = created.toISOString();
  return entry;
}

/** The claim checked for the digest, and for the identity rule when one is given; throws a reason. */
export function checkClaim(
  bytes: Buffer,
  format: ClaimFormat,
  digest: string,
  source: string,
  opts: { identity?: IdentityCheck | undefined },
): SignedClaim {
  const claim = readClaim(bytes, format, digest, source);
  if (opts.identity) {
    const why = checkIdentity(opts.identity.rule, opts.identity.image, claim.identity);
    if (why !== undefined) throw Object.assign(new OsimageError(`${source}: ${why}`, { code: 'invalid-input' }), { claim });
  }
  return claim;
}
