import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { type OnWarning, OsimageError } from '../errors.js';
import { digestAlgorithm, isDigest } from '../oci/digest.js';

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
