/**
 * Content digests: `algorithm:hex`. One rule everywhere (payload manifests, release new, the registry and
 * OCI layouts, verify): `sha256`, `sha384` and `sha512` with exactly 64, 96 and 128 lowercase hex digits.
 * The OCI image spec registers sha256 and sha512 and the distribution grammar allows all three; anything
 * else (another algorithm, uppercase hex, a short digest) is refused, not silently accepted.
 */

/** Hex digits per supported algorithm. */
export const DIGEST_HEX_LENGTH = { sha256: 64, sha384: 96, sha512: 128 } as const;
export type DigestAlgorithm = keyof typeof DIGEST_HEX_LENGTH;
export const DIGEST_ALGORITHMS = Object.keys(DIGEST_HEX_LENGTH) as DigestAlgorithm[];

/**
 * The distribution grammar for a digest, as a regular expression source (no anchors): `algorithm:hex` with
 * at least 32 hex digits of either case. Text that matches it *looks like* a digest (oc's substitution in
 * `release new` matches it); whether it is one we accept is {@link digestProblem}'s answer.
 */
export const DIGEST_GRAMMAR = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';

const ALGORITHM_RE = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*$/;
const SUPPORTED_RE = /^(?:sha256:[a-f0-9]{64}|sha384:[a-f0-9]{96}|sha512:[a-f0-9]{128})$/;

/** Why `digest` is not one we accept, in words that follow `invalid digest "…": `; undefined when it is fine. */
export function digestProblem(digest: string, algorithms: readonly DigestAlgorithm[] = DIGEST_ALGORITHMS): string | undefined {
  const colon = digest.indexOf(':');
  if (colon <= 0) return 'expected <algorithm>:<hex>';
  const algorithm = digest.slice(0, colon);
  const hex = digest.slice(colon + 1);
  if (!ALGORITHM_RE.test(algorithm)) return `invalid digest algorithm ${JSON.stringify(algorithm)}`;
  const want = (DIGEST_HEX_LENGTH as Record<string, number>)[algorithm];
  if (want === undefined || !algorithms.includes(algorithm as DigestAlgorithm)) {
    return `unsupported digest algorithm ${algorithm} (use ${algorithms.join(', ')})`;
  }
  if (!/^[0-9a-fA-F]*$/.test(hex)) return `the ${algorithm} digest contains characters that are not hex digits`;
  if (hex.length !== want) return `a ${algorithm} digest has ${want} hex digits, not ${hex.length}`;
  if (hex !== hex.toLowerCase()) return `the ${algorithm} digest must be lowercase hex`;
  return undefined;
}

/** Whether `value` is a digest we accept (see the module comment). */
export function isDigest(value: string): boolean {
  return SUPPORTED_RE.test(value);
}

/** The algorithm of an accepted digest (`sha512` for `sha512:…`). */
export function digestAlgorithm(digest: string): DigestAlgorithm {
  return digest.slice(0, digest.indexOf(':')) as DigestAlgorithm;
}

/** `repo@sha256:…` → `sha256:…`; undefined for a reference by tag or one whose digest is not accepted. */
export function digestOf(pullspec: string): string | undefined {
  const at = pullspec.lastIndexOf('@');
  if (at < 0) return undefined;
  const digest = pullspec.slice(at + 1);
  return isDigest(digest) ? digest : undefined;
}
