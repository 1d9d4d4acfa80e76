/** The one ImageStream model: lenient reading (release info, release new, verify) and strict reading (payload). */
import { describe, expect, test } from 'vitest';
import type { OsimageError } from '../../src/errors.js';
import { imageFor, imageStreamFromObject, InvalidImageStreamError, parseImageReferences } from '../../src/oci/image-stream.js';
import { imageReferences, type TagSpec } from '../helpers/oci-builder.js';

const stream = (tags: TagSpec[]) => parseImageReferences(Buffer.from(imageReferences('x', tags)));

describe('image-references, read leniently', () => {
  test('JSON as oc writes it', () => {
    const is = parseImageReferences(Buffer.from(imageReferences()));
    expect(is.metadata.name).toBe('4.13.1');
    expect(is.spec.tags.map((t) => t.name)).toEqual(['cli', 'machine-os-content']);
  });

  test.each([
    ['{"kind":"ImageStream","apiVersion":"v1"}'],
    ['{"kind":"List","apiVersion":"image.openshift.io/v1"}'],
    ['[1,2]'],
    ['null'],
    ['{"kind":"ImageStream","apiVersion":"image.openshift.io/v1","spec":{"tags":"nope"}}'],
  ])('%s is unrecognized', (text) => {
    expect(() => parseImageReferences(Buffer.from(text))).toThrow(/^unrecognized image-references in release payload$/);
  });

  test('--image-for: only DockerImage tags with a name', () => {
    const is = stream([{ name: 'a' }, { name: 'b', kind: 'ImageStreamTag', pullspec: 'ns/b:1' }, { name: 'c', pullspec: '' }]);
    expect(imageFor(is, 'a')).toBe(`quay.io/x/y@sha256:${'c'.repeat(64)}`);
    expect(imageFor(is, 'b')).toBeUndefined();
    expect(imageFor(is, 'c')).toBeUndefined();
    expect(imageFor(is, 'zz')).toBeUndefined();
  });
});

describe('image-references, read strictly', () => {
  const IS = { kind: 'ImageStream', apiVersion: 'image.openshift.io/v1' };

  test('fills metadata and spec.tags, keeps the rest as written', () => {
    const is = imageStreamFromObject({ ...IS, spec: { tags: null } }, { strict: true, source: 'f' });
    expect(is.metadata).toEqual({});
    expect(is.spec.tags).toEqual([]);
  });

  test.each([
    [{ ...IS, kind: 'List' }, 'f: kind "List" is not ImageStream'],
    [{ ...IS, apiVersion: 'v1' }, 'f: API version "v1" is not image.openshift.io/v1'],
    [{ ...IS, spec: { tags: [{ name: '' }] } }, 'f: spec.tags[0] has no name'],
  ])('%j: %s', (doc, message) => {
    let err: unknown;
    try {
      imageStreamFromObject(doc, { strict: true, source: 'f' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidImageStreamError);
    expect((err as OsimageError).code).toBe('invalid-input');
    expect((err as Error).message).toBe(message);
  });

  test('lenient reading lets a tag without a name through; strict reading does not', () => {
    const doc = { ...IS, spec: { tags: [{ from: { kind: 'DockerImage', name: 'q/x:1' } }] } };
    expect(imageStreamFromObject(doc).spec.tags).toHaveLength(1);
    expect(() => imageStreamFromObject(doc, { strict: true })).toThrow(/spec.tags\[0\] has no name/);
  });
});

describe('bounds', () => {
  test('more tags than any release has is one line, not gigabytes of views', () => {
    const tags = Array.from({ length: 10_001 }, (_, i) => ({
      name: `t${i}`,
      from: { kind: 'DockerImage', name: `q.io/x/y@sha256:${'a'.repeat(64)}` },
    }));
    const doc = { kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', spec: { tags } };
    expect(() => imageStreamFromObject(doc, { source: 'REL (release-manifests/image-references)' })).toThrow(
      'image-references has 10001 tags, more than the 10000 osimage reads (a release has a few hundred)',
    );
    expect(imageStreamFromObject({ ...doc, spec: { tags: tags.slice(0, 10_000) } }).spec.tags).toHaveLength(10_000);
  });
});
