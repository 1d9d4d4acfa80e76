import { describe, expect, test } from 'vitest';
import { InvalidReferenceError } from '../../src/oci/reference.js';
import { parseReference } from '../../src/registry/reference.js';

const HEX = 'a'.repeat(64);
const D = `sha256:${HEX}`;

describe('parseReference: normalisation', () => {
  test.each([
    // input, registry, repository, tag, digest, apiHost, string
    ['busybox', 'docker.io', 'library/busybox', 'latest', undefined, 'registry-1.docker.io', 'docker.io/library/busybox:latest'],
    ['ubuntu:22.04', 'docker.io', 'library/ubuntu', '22.04', undefined, 'registry-1.docker.io', 'docker.io/library/ubuntu:22.04'],
    ['docker.io/ubuntu', 'docker.io', 'library/ubuntu', 'latest', undefined, 'registry-1.docker.io', 'docker.io/library/ubuntu:latest'],
    [
      'index.docker.io/library/ubuntu',
      'docker.io',
      'library/ubuntu',
      'latest',
      undefined,
      'registry-1.docker.io',
      'docker.io/library/ubuntu:latest',
    ],
    ['openshift/origin', 'docker.io', 'openshift/origin', 'latest', undefined, 'registry-1.docker.io', 'docker.io/openshift/origin:latest'],
    ['localhost/foo', 'localhost', 'foo', 'latest', undefined, 'localhost', 'localhost/foo:latest'],
    ['localhost:5000/foo/bar:v1', 'localhost:5000', 'foo/bar', 'v1', undefined, 'localhost:5000', 'localhost:5000/foo/bar:v1'],
    ['h:5000/foo', 'h:5000', 'foo', 'latest', undefined, 'h:5000', 'h:5000/foo:latest'],
    [
      '127.0.0.1:5000/ocp/release:4.16.0',
      '127.0.0.1:5000',
      'ocp/release',
      '4.16.0',
      undefined,
      '127.0.0.1:5000',
      '127.0.0.1:5000/ocp/release:4.16.0',
    ],
    [
      'quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
      'quay.io',
      'openshift-release-dev/ocp-release',
      '4.16.0-x86_64',
      undefined,
      'quay.io',
      'quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
    ],
    [`quay.io/ocp/release@${D}`, 'quay.io', 'ocp/release', undefined, D, 'quay.io', `quay.io/ocp/release@${D}`],
    ['Example.com/a/b', 'Example.com', 'a/b', 'latest', undefined, 'Example.com', 'Example.com/a/b:latest'],
    ['docker://quay.io/a/b:t', 'quay.io', 'a/b', 't', undefined, 'quay.io', 'quay.io/a/b:t'],
    [
      `quay.io/ocp/release@sha512:${'b'.repeat(128)}`,
      'quay.io',
      'ocp/release',
      undefined,
      `sha512:${'b'.repeat(128)}`,
      'quay.io',
      `quay.io/ocp/release@sha512:${'b'.repeat(128)}`,
    ],
    ['a.b/c__d/e-f--g.h_i', 'a.b', 'c__d/e-f--g.h_i', 'latest', undefined, 'a.b', 'a.b/c__d/e-f--g.h_i:latest'],
  ])('%s', (input, registry, repository, tag, digest, apiHost, str) => {
    const { reference: r } = parseReference(input);
    expect(r.registry).toBe(registry);
    expect(r.repository).toBe(repository);
    expect(r.tag).toBe(tag);
    expect(r.digest).toBe(digest);
    expect(r.apiHost).toBe(apiHost);
    expect(r.toString()).toBe(str);
  });

  test('tag and digest: the digest names the image and the tag is ignored, without a word (as oc does)', () => {
    const { reference: r } = parseReference(`q.io/ocp/release:4.16@${D}`);
    expect(r.digest).toBe(D);
    expect(r.tag).toBeUndefined();
    expect(r.identifier).toBe(D);
  });

  test('pullspecFor-style digests keep the registry as written', () => {
    const { reference: r } = parseReference('busybox:1');
    expect(r.withDigest(D)).toBe(`docker.io/library/busybox@${D}`);
    expect(r.name).toBe('docker.io/library/busybox');
  });
});

describe('parseReference: invalid references are usage errors with the reason', () => {
  test.each([
    ['quay.io/Openshift/x', /^"quay.io\/Openshift\/x" is not a valid image reference: repository name must be lowercase$/],
    ['r@sha256:abc', /invalid digest/],
    [HEX, /64-character hexadecimal/],
    [`r:${'t'.repeat(129)}`, /longer than 128/],
    ['r:-bad', /invalid tag/],
    ['', /: repository name must have at least one component \(the value is empty\)$/],
    ['quay.io/', /missing repository|invalid repository path/],
    ['quay.io/a//b', /invalid repository path component/],
    ['quay.io/a/b c', /whitespace/],
    [`r@md5:${'0'.repeat(32)}`, /unsupported digest algorithm/],
    [`r@sha256:${'A'.repeat(64)}`, /invalid digest .*must be lowercase hex/],
    [`r@sha256:${'a'.repeat(32)}`, /invalid digest .*has 64 hex digits, not 32/],
    [`quay.io/${'a'.repeat(250)}`, /longer than 255/],
    ['-bad.io/a', /invalid registry host/],
    ['quay.io/a/b:', /invalid tag/],
  ])('%s', (input, reason) => {
    let err: unknown;
    try {
      parseReference(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidReferenceError);
    expect((err as InvalidReferenceError).code).toBe('invalid-reference');
    expect((err as InvalidReferenceError).exitCode).toBe(2);
    expect((err as Error).message).toMatch(reason);
    expect((err as Error).message.split('\n')).toHaveLength(1);
  });
});
