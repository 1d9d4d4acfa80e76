/**
 * release-metadata parsing, component versions, and the small formatting rules of the
 * info view (oc's semantics).
 */
import { describe, expect, test } from 'vitest';
import { createdString } from '../../src/release/info.js';
import { parseImageReferences, type ImageStream } from '../../src/oci/image-stream.js';
import { componentVersions, parseComponentVersions, parseReleaseMetadata, sortSemver } from '../../src/release/references.js';

const stream = (tags: Array<{ name: string; annotations?: Record<string, string>; kind?: string; pull?: string }>): ImageStream =>
  parseImageReferences(
    Buffer.from(
      JSON.stringify({
        kind: 'ImageStream',
        apiVersion: 'image.openshift.io/v1',
        metadata: { name: 'x' },
        spec: {
          tags: tags.map((t) => ({
            name: t.name,
            annotations: t.annotations ?? {},
            from: { kind: t.kind ?? 'DockerImage', name: t.pull ?? `r/x@sha256:${'a'.repeat(64)}` },
          })),
        },
      }),
    ),
  );

describe('release-metadata', () => {
  test('fields, and errors for the wrong shapes', () => {
    expect(
      parseReleaseMetadata(Buffer.from('{"kind":"cincinnati-metadata-v0","version":"4.13.1","previous":["4.13.0"]}')).previous,
    ).toEqual(['4.13.0']);
    expect(() => parseReleaseMetadata(Buffer.from('{'))).toThrow(/^invalid release metadata: /);
    expect(() => parseReleaseMetadata(Buffer.from('[]'))).toThrow('invalid release metadata: not a JSON object');
    expect(() => parseReleaseMetadata(Buffer.from('{"version":"1","previous":"4.1"}'))).toThrow('previous is not a list of strings');
  });

  test('Upgrades are semver-sorted, as given when one does not parse', () => {
    expect(sortSemver(['4.13.0', '4.12.17', '4.12.9', '4.12.16'])).toEqual(['4.12.9', '4.12.16', '4.12.17', '4.13.0']);
    expect(sortSemver(['b', 'a'])).toEqual(['b', 'a']);
  });
});

describe('component versions', () => {
  test('build metadata is dropped; display names are kept', () => {
    const v = parseComponentVersions(
      'kubernetes=1.26.1+abc, machine-os=413.92.202305231734-0',
      'machine-os=Red Hat Enterprise Linux CoreOS',
    );
    expect(Object.fromEntries(v)).toEqual({
      kubernetes: { version: '1.26.1', displayName: '' },
      'machine-os': { version: '413.92.202305231734-0', displayName: 'Red Hat Enterprise Linux CoreOS' },
    });
  });

  test.each([
    ['kubernetes', 'the version pair "kubernetes" must be NAME=VERSION'],
    // oc's checks in oc's order (pkg/cli/admin/release/image_mapper.go parseComponentVersionsLabel)
    ['K=1.0.0', 'the version name "K" must be at least 2 characters'],
    ['Kk=1.0.0', 'the version name "Kk" must only be ASCII alphanumerics and internal hyphens'],
    ['kubernetes=one', 'the version pair "kubernetes=one" must have a valid semantic version: No Major.Minor.Patch elements found'],
    [
      'machine-os=v4.13.1',
      'the version pair "machine-os=v4.13.1" must have a valid semantic version: Invalid character(s) found in major number "v4"',
    ],
    [
      'machine-os=410.8.20190325.0',
      'the version pair "machine-os=410.8.20190325.0" must have a valid semantic version: Invalid character(s) found in patch number "20190325.0"',
    ],
  ])('%s is an error', (label, message) => {
    expect(() => parseComponentVersions(label)).toThrow(message);
  });

  test('kubectl only from cli images; conflicts and invalid labels become warnings', () => {
    const is = stream([
      { name: 'cli', annotations: { 'io.openshift.build.versions': 'kubectl=1.26.1' } },
      { name: 'hyperkube', annotations: { 'io.openshift.build.versions': 'kubectl=9.9.9,kubernetes=1.26.1' } },
      { name: 'other', annotations: { 'io.openshift.build.versions': 'kubernetes=1.26.2' } },
      { name: 'broken', annotations: { 'io.openshift.build.versions': 'nope' } },
    ]);
    const { versions, warnings } = componentVersions(is);
    expect(versions.get('kubectl')?.version).toBe('1.26.1');
    expect(versions.get('kubernetes')?.version).toBe('1.26.1');
    expect(warnings).toEqual([
      {
        code: 'invalid-version-annotation',
        message: 'the referenced image broken had an invalid version annotation: the version pair "nope" must be NAME=VERSION',
      },
      { code: 'multiple-versions', message: 'multiple versions or display names reported for the following component(s): kubernetes' },
    ]);
  });
});

describe('Created', () => {
  test('UTC, RFC 3339, whole seconds; Go zero time when absent', () => {
    expect(createdString('2023-05-25T08:25:20.987654321Z')).toBe('2023-05-25T08:25:20Z');
    expect(createdString('2023-05-25T10:25:20+02:00')).toBe('2023-05-25T08:25:20Z');
    expect(createdString(undefined)).toBe('0001-01-01T00:00:00Z');
  });
});
