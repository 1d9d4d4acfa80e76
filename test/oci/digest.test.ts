/** Digests under the one rule, and the registry verifying each algorithm with its own hash. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyBytes, verifyingStream } from '../../src/oci/digest.js';

const bytes = Buffer.from('{"schemaVersion":2}');
const digest = (algorithm: string) => `${algorithm}:${createHash(algorithm).update(bytes).digest('hex')}`;

describe('verification by the digest’s own algorithm', () => {
  it.each(['sha256', 'sha384', 'sha512'])('%s: the right bytes pass, others fail', (algorithm) => {
    expect(() => verifyBytes(bytes, digest(algorithm))).not.toThrow();
    expect(() => verifyBytes(Buffer.from('x'), digest(algorithm))).toThrow(/digest mismatch/);
  });

  it('a stream checks a sha512 digest', async () => {
    const s = verifyingStream({ digest: digest('sha512'), size: bytes.length });
    const done = new Promise((resolve, reject) => s.on('finish', resolve).on('error', reject));
    s.end(bytes);
    s.resume();
    await expect(done).resolves.toBeUndefined();
  });

  it('an algorithm outside the rule is refused before any hashing', () => {
    expect(() => verifyBytes(bytes, `md5:${createHash('md5').update(bytes).digest('hex')}`)).toThrow(/unsupported or invalid digest md5:/);
  });
});
