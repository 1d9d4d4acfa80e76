/**
 * The signed claim, as the cluster-version operator reads the GPG kind (library-go pkg/verify,
 * verifyAtomicContainerSignature: Go's decoder with DisallowUnknownFields) and containers/image the sigstore kind
 * (internal/signature sigstore payload: exact `critical`, lax `optional`).
 */
import { describe, expect, test } from 'vitest';
import { claimBytes, readClaim } from '../../../src/release/signatures/simple-signing.js';

const D = `sha256:${'a'.repeat(64)}`;
const doc = (v: unknown) => Buffer.from(JSON.stringify(v));
const critical = (type: string) => ({ type, image: { 'docker-manifest-digest': D }, identity: { 'docker-reference': 'quay.io/x/y:1' } });

describe('readClaim', () => {
  test('round trip of what a signer writes, both kinds', () => {
    expect(readClaim(claimBytes('atomic', D, 'quay.io/x/y:1', { creator: 'c', timestamp: 5 }), 'atomic', D, 'S')).toEqual({
      type: 'atomic container signature',
      digest: D,
      identity: 'quay.io/x/y:1',
      creator: 'c',
      timestamp: 5,
    });
    expect(readClaim(claimBytes('cosign', D, 'quay.io/x/y:1'), 'cosign', D, 'S').identity).toBe('quay.io/x/y:1');
  });

  test('atomic: unknown fields anywhere, a fractional timestamp, no identity, the wrong digest', () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ critical: { ...critical('atomic container signature'), extra: 1 } }, /unknown field "extra" in critical/],
      [
        { critical: { ...critical('atomic container signature'), image: { 'docker-manifest-digest': D, x: 1 } } },
        /unknown field "x" in critical.image/,
      ],
      [{ critical: critical('atomic container signature'), optional: { timestamp: 1.5 } }, /not an integer/],
      [{ critical: { ...critical('atomic container signature'), identity: { 'docker-reference': '' } } }, /has no identity/],
      [
        { critical: { ...critical('atomic container signature'), image: { 'docker-manifest-digest': `sha256:${'b'.repeat(64)}` } } },
        /is for sha256:b+, not/,
      ],
      [{ critical: { ...critical('atomic container signature'), type: 7 } }, /critical.type is not a string/],
      [[1, 2], /not a JSON object/],
    ];
    for (const [v, re] of bad) expect(() => readClaim(doc(v), 'atomic', D, 'SRC')).toThrow(re);
    expect(() => readClaim(doc({ critical: critical('x') }), 'atomic', D, 'SRC')).toThrow(/^SRC: the signed claim's type is "x"/);
  });

  test('cosign: optional may be null and carry other fields; critical is exact and complete', () => {
    expect(readClaim(doc({ critical: critical('cosign container image signature'), optional: null }), 'cosign', D, 'S').digest).toBe(D);
    expect(
      readClaim(doc({ critical: critical('cosign container image signature'), optional: { a: 'b', timestamp: 1.9 } }), 'cosign', D, 'S')
        .timestamp,
    ).toBe(1);
    expect(() => readClaim(doc({ critical: critical('cosign container image signature') }), 'cosign', D, 'S')).toThrow(
      /missing field "optional"/,
    );
    const { identity: _, ...noIdentity } = critical('cosign container image signature');
    expect(() => readClaim(doc({ critical: noIdentity, optional: null }), 'cosign', D, 'S')).toThrow(
      /missing field "identity" in critical/,
    );
  });

  test('deep or malformed JSON is refused in one line naming the source', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 50; i++) deep = { a: deep };
    expect(() =>
      readClaim(doc({ critical: critical('atomic container signature'), optional: { creator: deep } }), 'atomic', D, 'SRC'),
    ).toThrow(/^SRC: /);
    expect(() => readClaim(Buffer.from('{"critical": '), 'atomic', D, 'SRC')).toThrow(/^SRC: the signed claim is not valid JSON/);
  });
});
