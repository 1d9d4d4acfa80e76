/**
 * Which pull specs may be written into payload manifests: the one reference grammar (src/oci/reference.ts)
 * with the payload's policy: a tag and a digest together are refused (oc's substitution can match only one
 * of them), and a reference by tag only with `allowTag`.
 */
import { parseImageReference, type Reference } from '../oci/reference.js';

export type { Reference as Pullspec } from '../oci/reference.js';

const DIGEST_HINT = 'the payload needs <repository>@sha256:<64 hex> (pass --allow-tag to write it anyway)';

/** Parse a value for a payload manifest; throws InvalidReferenceError naming the value and the rule it breaks. */
export function requireOsImagePullspec(value: string, opts: { allowTag?: boolean } = {}): Reference {
  return parseImageReference(value, { tagAndDigest: 'refuse', requireDigest: !opts.allowTag, digestHint: DIGEST_HINT });
}

declare const checked: unique symbol;
/** A pull spec already checked by {@link osPullspec}: payload writers take only these, and check them no more. */
export type OsPullspec = string & { readonly [checked]: true };

/** Check a value for a payload manifest once, at the edge, and mark it checked. */
export function osPullspec(value: string, opts: { allowTag?: boolean } = {}): OsPullspec {
  requireOsImagePullspec(value, opts);
  return value as OsPullspec;
}
