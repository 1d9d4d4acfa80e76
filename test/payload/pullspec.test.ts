import { describe, expect, it } from 'vitest';
import { PayloadError } from '../../src/payload/errors.js';
import { parsePullspec, requireOsImagePullspec } from '../../src/payload/pullspec.js';
import { HEX, U } from './helpers.js';

describe('parsePullspec', () => {
  it('reads a digest reference into its parts', () => {
    expect(parsePullspec(U)).toEqual({ text: U, name: 'quay.io/x/os', domain: 'quay.io', digest: `sha256:${HEX('c')}`, kind: 'digest' });
  });

  it.each([
    [`localhost:5000/ocp/release@sha256:${HEX('a')}`, 'localhost:5000'],
    [`127.0.0.1:5000/a/b@sha256:${HEX('a')}`, '127.0.0.1:5000'],
    [`Registry.Example.COM/a__b/c-d.e@sha256:${HEX('a')}`, 'Registry.Example.COM'],
    [`[::1]:5000/x@sha256:${HEX('a')}`, '[::1]:5000'],
  ])('accepts %s', (ref, domain) => {
    expect(parsePullspec(ref).domain).toBe(domain);
  });

  it('accepts sha512 with 128 hex digits', () => {
    expect(parsePullspec(`quay.io/x/os@sha512:${'f'.repeat(128)}`).kind).toBe('digest');
  });

  it('calls name:tag and a bare name tag references', () => {
    expect(parsePullspec('quay.io/x/os:latest')).toMatchObject({ kind: 'tag', tag: 'latest', name: 'quay.io/x/os' });
    expect(parsePullspec('quay.io/x/os')).toMatchObject({ kind: 'tag' });
    expect(parsePullspec('localhost:5000/os')).toMatchObject({ kind: 'tag', domain: 'localhost:5000' });
  });

  it.each([
    ['', /the value is empty/],
    [` quay.io/x/os@sha256:${HEX('c')}`, /whitespace/],
    [`quay.io/x/os@sha256:${'g'.repeat(64)}`, /not hex digits/],
    [`quay.io/x/os@sha256:${HEX('c').slice(1)}`, /64 hex digits, not 63/],
    [`quay.io/x/os@sha256:${HEX('c')}c`, /64 hex digits, not 65/],
    [`quay.io/x/os@sha256:${HEX('C')}`, /lowercase/],
    [`quay.io/x/os@md5:${'a'.repeat(32)}`, /unsupported digest algorithm md5/],
    ['quay.io/x/os@sha256', /<algorithm>:<hex>/],
    [`quay.io/x/os:v1@sha256:${HEX('c')}`, /both a tag and a digest/],
    [`quay.io/x/OS@sha256:${HEX('c')}`, /must be lowercase/],
    [`quay.io//os@sha256:${HEX('c')}`, /empty path component/],
    ['quay.io/x/os:-bad', /invalid tag/],
    [`-bad.io/x/os@sha256:${HEX('c')}`, /invalid registry host/],
    [`quay.io/x/os_@sha256:${HEX('c')}`, /invalid path component/],
    [`quay.io/${'a'.repeat(260)}@sha256:${HEX('c')}`, /longer than 255/],
  ])('refuses %j', (ref, why) => {
    expect(() => parsePullspec(ref)).toThrow(PayloadError);
    expect(() => parsePullspec(ref)).toThrow(why);
  });
});

describe('requireOsImagePullspec', () => {
  it('refuses a tag unless allowed', () => {
    expect(() => requireOsImagePullspec('quay.io/x/os:latest')).toThrow(/by tag, not by digest.*--allow-tag/);
    expect(requireOsImagePullspec('quay.io/x/os:latest', { allowTag: true }).tag).toBe('latest');
    expect(requireOsImagePullspec(U).kind).toBe('digest');
  });
});
