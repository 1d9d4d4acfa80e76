/**
 * Content digests: `algorithm:hex`. One rule everywhere (payload manifests, release new, the registry and
 * OCI layouts, verify): `sha256`, `sha384` and `sha512` with exactly 64, 96 and 128 lowercase hex digits.
 * The OCI image spec registers sha256 and sha512 and the distribution grammar allows all three; anything
 * else (another algorithm, uppercase hex, a short digest) is refused, not silently accepted.
 *
 * And their verification: bytes or a stream hashed with the digest's own algorithm, for the registry, OCI
 * layouts, the digest-keyed cache and `release new`. node:crypto is loaded on the first hash, so the many
 * modules that only parse digests (references, pullspecs) do not pay for it at start-up.
 */
import type * as Crypto from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { type OnWarning, OsimageError } from '../errors.js';

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

let crypto: typeof Crypto | undefined;
const createHash = (algorithm: string) => (crypto ??= process.getBuiltinModule('node:crypto') as typeof Crypto).createHash(algorithm);

export function sha256Digest(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

export interface DigestCheckOptions {
  skipVerification?: boolean;
  onWarning?: OnWarning;
  /** What the bytes are, for messages: `manifest quay.io/x/y@sha256:...`, `blob sha256:...`. */
  what?: string;
}

function mismatch(expected: string, actual: string, what: string, opts: DigestCheckOptions): void {
  const msg = `content integrity error: digest mismatch for ${what}: expected ${expected}, got ${actual}`;
  if (!opts.skipVerification) throw new OsimageError(msg, { code: 'digest-mismatch' });
  opts.onWarning?.({ code: 'digest-mismatch', message: `${msg} (continuing: --skip-verification)` });
}

/** The hash for an expected digest: its own algorithm (sha256, sha384 or sha512); anything else is an error. */
function hashFor(expected: string) {
  if (!isDigest(expected)) throw new OsimageError(`unsupported or invalid digest ${expected}`);
  const algorithm = digestAlgorithm(expected);
  const hash = createHash(algorithm);
  return { update: (b: Uint8Array) => hash.update(b), digest: () => `${algorithm}:${hash.digest('hex')}` };
}

/** Check whole bytes against a digest, computed with the digest's own algorithm. */
export function verifyBytes(bytes: Uint8Array, expected: string, opts: DigestCheckOptions = {}): void {
  const hash = hashFor(expected);
  hash.update(bytes);
  const actual = hash.digest();
  if (actual !== expected) mismatch(expected, actual, opts.what ?? 'content', opts);
}

/** A descriptor's size must be a whole number of bytes, 0 or more: a negative one would switch every size check off. */
export function isValidSize(size: unknown): size is number {
  return typeof size === 'number' && Number.isSafeInteger(size) && size >= 0;
}

/**
 * A pass-through stream that hashes what flows and, at the end, fails when the digest or size
 * differs from what was expected. Bytes flow on without buffering.
 */
export function verifyingStream(expected: { digest: string; size?: number }, opts: DigestCheckOptions = {}): Transform {
  const hash = hashFor(expected.digest);
  let size = 0;
  const what = opts.what ?? `blob ${expected.digest}`;
  return new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      hash.update(chunk);
      size += chunk.length;
      if (expected.size !== undefined && expected.size >= 0 && size > expected.size && !opts.skipVerification) {
        cb(new OsimageError(`size mismatch for ${what}: more than the ${expected.size} bytes expected`, { code: 'size-mismatch' }));
        return;
      }
      cb(null, chunk);
    },
    flush(cb: TransformCallback) {
      try {
        if (expected.size !== undefined && expected.size >= 0 && size !== expected.size) {
          const msg = `size mismatch for ${what}: expected ${expected.size} bytes, got ${size}`;
          if (!opts.skipVerification) throw new OsimageError(msg, { code: 'size-mismatch' });
          opts.onWarning?.({ code: 'size-mismatch', message: `${msg} (continuing: --skip-verification)` });
        }
        const actual = hash.digest();
        if (actual !== expected.digest) mismatch(expected.digest, actual, what, opts);
        cb();
      } catch (err) {
        cb(err as Error);
      }
    },
  });
}
