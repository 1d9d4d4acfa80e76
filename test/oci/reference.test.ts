/**
 * The one image-reference grammar (src/oci/reference.ts, src/oci/digest.ts) and its policies, and one
 * sha512 pull spec carried through every place that opens one: payload write, release new's mappings and
 * substitution, the registry client (verify opens releases through it), and digestOf (release info, diff,
 * verify).
 */
import { describe, expect, it } from 'vitest';
import type { OsimageError } from '../../src/errors.js';
import { digestOf, digestProblem, isDigest } from '../../src/oci/digest.js';
import { InvalidReferenceError, parseImageReference } from '../../src/oci/reference.js';
import { requireOsImagePullspec } from '../../src/payload/pullspec.js';
import { parseReference } from '../../src/registry/reference.js';
import { parseMappings } from '../../src/release/new/mappings.js';
import { replaceImageReferences } from '../../src/release/new/substitute.js';

const HEX = (c: string, n = 64) => c.repeat(n);
const U = `quay.io/x/os@sha256:${HEX('c')}`;

function failure(input: string, policy = {}): OsimageError {
  try {
    parseImageReference(input, policy);
  } catch (err) {
    return err as OsimageError;
  }
  throw new Error(`${input} parsed`);
}

describe('parseImageReference: the text as written', () => {
  it('reads a digest reference into its parts', () => {
    expect(parseImageReference(U)).toEqual({
      text: U,
      name: 'quay.io/x/os',
      domain: 'quay.io',
      path: 'x/os',
      digest: `sha256:${HEX('c')}`,
      kind: 'digest',
    });
  });

  it.each([
    [`localhost:5000/ocp/release@sha256:${HEX('a')}`, 'localhost:5000'],
    [`127.0.0.1:5000/a/b@sha256:${HEX('a')}`, '127.0.0.1:5000'],
    [`Registry.Example.COM/a__b/c-d.e@sha256:${HEX('a')}`, 'Registry.Example.COM'],
    [`[::1]:5000/x@sha256:${HEX('a')}`, '[::1]:5000'],
    // As distribution normalises: a first component with an uppercase letter is a registry host.
    [`Foo/bar@sha256:${HEX('a')}`, 'Foo'],
    ['busybox', undefined],
  ])('%s: domain %s', (ref, domain) => {
    expect(parseImageReference(ref).domain).toBe(domain);
  });

  it('calls name:tag and a bare name tag references, and fills nothing in', () => {
    expect(parseImageReference('quay.io/x/os:latest')).toMatchObject({ kind: 'tag', tag: 'latest', name: 'quay.io/x/os' });
    expect(parseImageReference('busybox')).toMatchObject({ kind: 'tag', name: 'busybox', path: 'busybox' });
    expect(parseImageReference('busybox').tag).toBeUndefined();
  });

  it.each([
    ['', /: repository name must have at least one component \(the value is empty\)$/],
    [` ${U}`, /whitespace/],
    [HEX('a'), /64-character hexadecimal string is an image ID/],
    [`quay.io/x/os@sha256:${HEX('g')}`, /invalid digest ".*": the sha256 digest contains characters that are not hex digits/],
    [`quay.io/x/os@sha256:${HEX('c').slice(1)}`, /a sha256 digest has 64 hex digits, not 63/],
    [`quay.io/x/os@sha512:${HEX('c')}`, /a sha512 digest has 128 hex digits, not 64/],
    [`quay.io/x/os@sha256:${HEX('C')}`, /the sha256 digest must be lowercase hex/],
    [`quay.io/x/os@md5:${HEX('a', 32)}`, /unsupported digest algorithm md5 \(use sha256, sha384, sha512\)/],
    ['quay.io/x/os@sha256', /expected <algorithm>:<hex>/],
    [`quay.io/x/OS@sha256:${HEX('c')}`, /: repository name must be lowercase$/],
    [`quay.io//os@sha256:${HEX('c')}`, /invalid repository path component ""/],
    ['quay.io/x/os:-bad', /invalid tag "-bad"/],
    [`quay.io/x/os:${'t'.repeat(129)}`, /tag is longer than 128 characters/],
    [`-bad.io/x/os@sha256:${HEX('c')}`, /invalid registry host "-bad.io"/],
    [`quay.io/x/os_@sha256:${HEX('c')}`, /invalid repository path component "os_"/],
    [`quay.io/${'a'.repeat(260)}@sha256:${HEX('c')}`, /name is longer than 255 characters/],
    ['quay.io/', /missing repository name/],
    [`docker://${U}`, /invalid registry host "docker:"/],
  ])('refuses %j', (ref, why) => {
    const err = failure(ref) as InvalidReferenceError;
    expect(err).toBeInstanceOf(InvalidReferenceError);
    expect(err.code).toBe('invalid-reference');
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/^".*" is not a valid image reference: /);
    expect(err.message).toMatch(why);
  });

  // What oc 4.13 prints for these (`oc adm release info REF`), recorded beside osimage in hack/oc-compare (ref-*).
  // oc's words are what oc 4.13 prints (`oc adm release info REF`; hack/oc-compare records some as ref-* pairs).
  it.each([
    ['quay.io/Openshift/x:1', 'repository name must be lowercase', ''],
    ['quay.io/x/y:bad:tag', 'invalid reference format', ' (invalid tag "bad:tag")'],
    ['quay.io/x/y@sha256:abc', 'invalid reference format', ' (invalid digest "sha256:abc": a sha256 digest has 64 hex digits, not 3)'],
    ['', 'repository name must have at least one component', ' (the value is empty)'],
    ['quay.io/x//y:1', 'invalid reference format', ' (invalid repository path component "")'],
    ['x:1 ', 'invalid reference format', ' (contains whitespace)'],
    [':1', 'invalid reference format', ' (missing repository name)'],
    [
      `quay.io/x/y@sha256:${HEX('a', 40)}`,
      'invalid checksum digest length',
      ` (invalid digest "sha256:${HEX('a', 40)}": a sha256 digest has 64 hex digits, not 40)`,
    ],
    [
      `quay.io/x/y@md5:${HEX('a', 32)}`,
      'unsupported digest algorithm',
      ` (invalid digest "md5:${HEX('a', 32)}": unsupported digest algorithm md5 (use sha256, sha384, sha512))`,
    ],
    [`quay.io/${'a'.repeat(250)}/x:1`, 'repository name must not be more than 255 characters', ' (name is longer than 255 characters)'],
    ['docker://quay.io/x/y:1', 'invalid reference format', ' (invalid registry host "docker:")'],
  ])("%j: oc's words, then osimage's reason when it says more", (ref, oc, ours) => {
    expect(failure(ref).message).toBe(`${JSON.stringify(ref)} is not a valid image reference: ${oc}${ours}`);
  });

  it("what the grammar takes and osimage refuses is worded with osimage's reason", () => {
    expect(failure(HEX('a')).message).toBe(
      `"${HEX('a')}" is not a valid image reference: a bare 64-character hexadecimal string is an image ID, not a reference`,
    );
  });

  it('a name of letters and digits far longer than any registry takes is refused at once', () => {
    // The grammar written with a nested repetition of an empty separator would take exponential time here.
    const t = Date.now();
    expect(failure(`quay.io/${'a'.repeat(5000)}!`).message).toContain('is not a valid image reference: invalid reference format (');
    expect(Date.now() - t).toBeLessThan(1000);
  });
});

describe('policies', () => {
  const both = `quay.io/x/os:v1@sha256:${HEX('c')}`;

  it('a tag and a digest: the digest names the image (as in oc), or (payload) a refusal', () => {
    expect(parseImageReference(both)).toMatchObject({ tag: 'v1', digest: `sha256:${HEX('c')}`, kind: 'digest' });
    expect(failure(both, { tagAndDigest: 'refuse' }).message).toMatch(/both a tag and a digest; write <repository>@<digest>/);
  });

  it('requireDigest refuses a tag, with the hint', () => {
    expect(failure('quay.io/x/os:1', { requireDigest: true, digestHint: 'say why' }).message).toBe(
      'image reference "quay.io/x/os:1" is by tag, not by digest; say why',
    );
    expect(parseImageReference(U, { requireDigest: true }).digest).toBe(`sha256:${HEX('c')}`);
  });

  it('algorithms narrows the digests that pass', () => {
    expect(failure(`q.io/x@sha512:${HEX('a', 128)}`, { algorithms: ['sha256'] }).message).toMatch(
      /unsupported digest algorithm sha512 \(use sha256\)/,
    );
  });

  it('dockerTransport drops docker:// and keeps the text as written', () => {
    expect(parseImageReference(`docker://${U}`, { dockerTransport: true })).toMatchObject({ text: `docker://${U}`, name: 'quay.io/x/os' });
  });
});

describe('digests: one rule', () => {
  it.each([
    [`sha256:${HEX('a')}`, true],
    [`sha384:${HEX('a', 96)}`, true],
    [`sha512:${HEX('a', 128)}`, true],
    [`sha256:${HEX('A')}`, false],
    [`sha256:${HEX('a', 32)}`, false],
    [`sha512:${HEX('a', 64)}`, false],
    [`md5:${HEX('a', 32)}`, false],
  ])('%s: %s', (digest, ok) => {
    expect(isDigest(digest)).toBe(ok);
    expect(digestProblem(digest) === undefined).toBe(ok);
    expect(digestOf(`quay.io/a/b@${digest}`)).toBe(ok ? digest : undefined);
  });

  it('digestOf is undefined for tags', () => {
    expect(digestOf('quay.io/a/b:tag')).toBeUndefined();
    expect(digestOf('localhost:5000/a/b:tag')).toBeUndefined();
  });
});

describe('one sha512 pull spec from payload write through release new to verify', () => {
  const OS = `quay.io/openshift/os@sha512:${HEX('e', 128)}`;
  const UPPER = `Foo/bar@sha256:${HEX('a')}`;

  it('payload write accepts it', () => {
    expect(requireOsImagePullspec(OS).digest).toBe(`sha512:${HEX('e', 128)}`);
  });

  it('release new maps to it and substitutes it (and a sha512 source is replaced whole)', () => {
    expect(parseMappings([`machine-os-content=${OS}`])).toEqual([{ source: 'machine-os-content', target: OS, origin: '' }]);
    const replacements = new Map([['quay.io/openshift/os', `reg.example/os@sha256:${HEX('b')}`]]);
    expect(replaceImageReferences(`image: ${OS}\n`, replacements)).toBe(`image: reg.example/os@sha256:${HEX('b')}\n`);
    expect(replaceImageReferences(`image: ${OS}\n`, new Map([[OS.split('@')[0]!, OS]]))).toBe(`image: ${OS}\n`);
  });

  it('the registry client (and so verify) opens it, and digestOf reads it', () => {
    const { reference } = parseReference(OS);
    expect(reference).toMatchObject({ registry: 'quay.io', repository: 'openshift/os', digest: `sha512:${HEX('e', 128)}` });
    expect(reference.identifier).toBe(`sha512:${HEX('e', 128)}`);
    expect(digestOf(OS)).toBe(`sha512:${HEX('e', 128)}`);
  });

  it('a host with uppercase letters means the same everywhere', () => {
    expect(requireOsImagePullspec(UPPER).domain).toBe('Foo');
    expect(parseReference(UPPER).reference).toMatchObject({ registry: 'Foo', repository: 'bar' });
  });

  it('a bad one is refused in the same words everywhere', () => {
    const bad = `quay.io/openshift/os@sha512:${HEX('E', 128)}`;
    const why = /^".*" is not a valid image reference: invalid digest ".*": the sha512 digest must be lowercase hex$/;
    expect(() => requireOsImagePullspec(bad)).toThrow(why);
    expect(() => parseReference(bad)).toThrow(why);
    expect(digestOf(bad)).toBeUndefined();
  });
});
