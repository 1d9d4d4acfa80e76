/**
 * oc's texts of a release comparison (src/oc/changes.ts): the ages of the Created row, the source links of
 * `--commits` (checked against Go's net/url and path.Join, which oc uses), the `--contents` hint, and the
 * `-o json` object's shape.
 */
import { describe, expect, test } from 'vitest';
import {
  changesJson,
  commitUrl,
  compareUrl,
  contentsHint,
  createdAge,
  renderChangesJson,
  sourceChange,
  sourceOf,
} from '../../src/oc/changes.js';
import type { ReleaseInfoFields } from '../../src/oc/release-info.js';

const NOW = new Date('2026-12-02T12:00:00Z');

describe('createdAge (ShortHumanDuration of now - created)', () => {
  test.each([
    ['2026-12-02T11:59:15Z', '45s'],
    ['2026-12-02T11:48:00.999Z', '11m'],
    ['2026-12-02T07:00:00Z', '5h'],
    ['2026-11-29T12:00:00Z', '3d'],
    ['2025-12-03T12:00:00Z', '364d'],
    ['2023-05-25T08:25:20Z', '3y'],
    ['2023-05-25T08:25:20.123456789Z', '3y'],
    ['2026-12-02T12:00:01Z', '0s'],
    ['2026-12-02T12:00:10Z', '<invalid>'],
  ])('%s → %s', (created, age) => {
    expect(createdAge(created, NOW)).toBe(age);
  });

  test("no created, or Go's zero time: the int64 duration saturates, 292y", () => {
    expect(createdAge(undefined, NOW)).toBe('292y');
    expect(createdAge('0001-01-01T00:00:00Z', NOW)).toBe('292y');
  });
});

describe('commit and compare links (Go: url.Parse, path.Join on the path, String)', () => {
  // Each expected value is what Go 1.19 printed for the same input.
  test.each([
    ['https://github.com/openshift/oc', 'https://github.com/openshift/oc/commit/abc'],
    ['https://github.com/openshift/oc/', 'https://github.com/openshift/oc/commit/abc'],
    ['https://github.com/openshift/oc.git', 'https://github.com/openshift/oc.git/commit/abc'],
    ['https://github.com/openshift/oc?x=1&y=2', 'https://github.com/openshift/oc/commit/abc?x=1&y=2'],
    ['https://github.com/openshift/oc#frag', 'https://github.com/openshift/oc/commit/abc#frag'],
    ['https://github.com/openshift/oc#', 'https://github.com/openshift/oc/commit/abc'],
    ['https://github.com/openshift/oc?', 'https://github.com/openshift/oc/commit/abc?'],
    ['https://github.com/open shift/oc', 'https://github.com/open%20shift/oc/commit/abc'],
    ['https://github.com/open%20shift/oc', 'https://github.com/open%20shift/oc/commit/abc'],
    ['https://github.com/open%2Fshift/oc', 'https://github.com/open/shift/oc/commit/abc'],
    ['https://github.com/a/../../b', 'https://github.com/b/commit/abc'],
    ["https://github.com/ä(x)!*'", 'https://github.com/%C3%A4%28x%29%21%2A%27/commit/abc'],
    ['https://github.com/a#b c', 'https://github.com/a/commit/abc#b%20c'],
    ['https://github.com/', 'https://github.com/commit/abc'],
    ['https://github.com//x//y', 'https://github.com/x/y/commit/abc'],
    // Not GitHub, or not a URL Go parses: the words.
    ['https://github.com/a%zz', 'https://github.com/a%zz abc'],
    ['https://github.com/a\tb', 'https://github.com/a\tb abc'],
    ['https://github.com/a#b%zz', 'https://github.com/a#b%zz abc'],
    ['http://github.com/a', 'http://github.com/a abc'],
    ['https://github.company.com/a', 'https://github.company.com/a abc'],
    ['', ' abc'],
  ])('%s', (repo, url) => {
    expect(commitUrl(repo, 'abc')).toBe(url);
  });

  test('the commit is a path element too: cleaned and escaped', () => {
    expect(commitUrl('https://github.com/a', 'x/../../y')).toBe('https://github.com/a/y');
    expect(commitUrl('https://github.com/a', 'a b?c')).toBe('https://github.com/a/commit/a%20b%3Fc');
  });

  test('compare links', () => {
    expect(compareUrl('https://github.com/openshift/oc', 'a1', 'b2')).toBe('https://github.com/openshift/oc/compare/a1...b2');
    expect(compareUrl('https://gitlab.example.com/x', 'a1', 'b2')).toBe('https://gitlab.example.com/x a1 b2');
  });
});

describe('--commits cells', () => {
  const gh = (name: string, commit: string) => ({ repo: `https://github.com/openshift/${name}`, commit });
  test('an image in both releases', () => {
    expect(sourceChange(gh('oc', 'a'), gh('oc', 'b'))).toBe('https://github.com/openshift/oc/compare/a...b');
    expect(sourceChange(gh('oc', 'a'), gh('oc', 'a'))).toBe('https://github.com/openshift/oc/commit/a');
    expect(sourceChange(gh('origin', 'a'), gh('oc', 'b'))).toBe(
      'https://github.com/openshift/origin/commit/a -> https://github.com/openshift/oc/commit/b',
    );
    expect(sourceChange(gh('origin', 'a'), gh('oc', 'a'))).toBe(
      'https://github.com/openshift/origin -> https://github.com/openshift/oc/commit/a',
    );
    expect(sourceChange(gh('origin', ''), gh('oc', 'a'))).toBe(
      'https://github.com/openshift/origin <unknown> -> https://github.com/openshift/oc/commit/a',
    );
    expect(sourceChange(gh('oc', 'a'), gh('oc', ''))).toBe('<unknown>');
    expect(sourceChange(gh('oc', 'a'), { repo: '', commit: 'b' })).toBe('<unknown>');
  });
  test('an image only in the new release', () => {
    expect(sourceOf(gh('oc', 'a'))).toBe('https://github.com/openshift/oc/commit/a');
    expect(sourceOf({ repo: 'https://gitlab.example.com/x', commit: 'a' })).toBe('https://gitlab.example.com/x a');
    expect(sourceOf({ repo: '', commit: 'a' })).toBe('<unknown>');
  });
});

test('the --contents hint names both releases and the program', () => {
  expect(contentsHint('osimage release', 'A', 'B')).toBe(
    'To see the differences between these releases, run:\n\n' +
      '  osimage release extract A --to=/tmp/old\n' +
      '  osimage release extract B --to=/tmp/new\n' +
      '  diff /tmp/old /tmp/new\n\n',
  );
});

describe('-o json', () => {
  const release = (name: string, digest: string): ReleaseInfoFields => ({
    image: `r:${name}`,
    digest,
    pullFrom: `r@${digest}`,
    platform: 'linux/amd64',
    config: { created: '2023-05-25T08:25:20Z', os: 'linux', architecture: 'amd64' },
    size: 10,
    references: {
      kind: 'ImageStream',
      apiVersion: 'image.openshift.io/v1',
      metadata: { name },
      spec: { tags: [{ name: 'cli', from: { kind: 'DockerImage', name: `q@${digest}` } }] },
    },
    componentVersions: new Map([['kubectl', { version: '1.26.1', displayName: '' }]]),
    streamVersions: new Map(),
    manifests: ['a.yaml'],
    metadataFiles: ['notes.txt'],
    warnings: [],
  });

  test("oc's keys: ReleaseInfo without osimage's extra keys, versions and images null; maps in Go's order; bytes in base64", () => {
    const a = release('4.13.1', `sha256:${'1'.repeat(64)}`);
    const b = release('4.13.2', `sha256:${'2'.repeat(64)}`);
    const j = changesJson({
      from: a,
      to: b,
      images: [
        { name: 'cli', from: a.references.spec.tags[0]!, to: b.references.spec.tags[0]! },
        { name: '10', from: null, to: { name: '10', from: { kind: 'DockerImage', name: 'x' } } },
      ],
      manifests: [{ filename: 'b.yaml', from: Buffer.from('a: 1\n'), to: null }],
    });
    expect(Object.keys(j)).toEqual(['from', 'to', 'changedImages', 'changedManifests']);
    expect(Object.keys(j.from as object)).toEqual([
      'image',
      'digest',
      'contentDigest',
      'listDigest',
      'config',
      'metadata',
      'references',
      'versions',
      'displayVersions',
      'images',
      'warnings',
    ]);
    expect(j.from).toMatchObject({ versions: null, images: null, warnings: null, listDigest: '', metadata: null });
    const text = renderChangesJson({
      from: a,
      to: b,
      images: [],
      manifests: [{ filename: 'b.yaml', from: Buffer.from('a: 1\n'), to: null }],
    });
    expect(text).toMatch(/"changedImages": \{\},\n/);
    expect(text).toContain('"from": "YTogMQo=",\n      "to": null');
    expect(text.endsWith('}\n')).toBe(true);
    const images = j.changedImages as Record<string, { from: unknown; to: { generation: unknown; referencePolicy: unknown } }>;
    expect(Object.keys(images)).toEqual(['10', 'cli']);
    expect(images['10']!.from).toBeNull();
    // A tag as oc's Go type re-encodes it.
    expect(images['10']!.to).toMatchObject({ generation: null, importPolicy: {}, referencePolicy: { type: '' } });
  });
});
