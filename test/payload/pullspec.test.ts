/** The payload's policy on the one reference grammar (the grammar itself: test/oci/reference.test.ts). */
import { describe, expect, it } from 'vitest';
import { InvalidReferenceError } from '../../src/oci/reference.js';
import { requireOsImagePullspec } from '../../src/payload/pullspec.js';
import { HEX, U } from './helpers.js';

describe('requireOsImagePullspec', () => {
  it('refuses a tag unless allowed', () => {
    expect(() => requireOsImagePullspec('quay.io/x/os:latest')).toThrow(
      'image reference "quay.io/x/os:latest" is by tag, not by digest; the payload needs <repository>@sha256:<64 hex> (pass --allow-tag to write it anyway)',
    );
    expect(requireOsImagePullspec('quay.io/x/os:latest', { allowTag: true }).tag).toBe('latest');
    expect(requireOsImagePullspec(U).kind).toBe('digest');
  });

  it('accepts sha384 and sha512 with 96 and 128 hex digits', () => {
    expect(requireOsImagePullspec(`quay.io/x/os@sha384:${'f'.repeat(96)}`).kind).toBe('digest');
    expect(requireOsImagePullspec(`quay.io/x/os@sha512:${'f'.repeat(128)}`).kind).toBe('digest');
  });

  it.each([
    ['', /repository name must have at least one component/],
    [`quay.io/x/os:v1@sha256:${HEX('c')}`, /both a tag and a digest/],
    [`quay.io/x/os@sha256:${HEX('c').slice(1)}`, /64 hex digits, not 63/],
  ])('refuses %j', (ref, why) => {
    expect(() => requireOsImagePullspec(ref, { allowTag: true })).toThrow(InvalidReferenceError);
    expect(() => requireOsImagePullspec(ref, { allowTag: true })).toThrow(why);
  });
});
