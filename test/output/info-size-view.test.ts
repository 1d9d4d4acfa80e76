/**
 * The Images section of `release info --size`: sizes, what each image alone brings, the BASE column and the
 * total, laid out as oc 4.13 lays them out (the infoflag-size pairs compare whole outputs with oc's).
 */
import { describe, expect, test } from 'vitest';
import type { TagReference } from '../../src/oci/image-stream.js';
import { renderSizeSection } from '../../src/output/info-size-view.js';
import { tabwrite } from '../../src/output/release-view.js';
import type { ComponentImage } from '../../src/release/components.js';

const MB = 1024 * 1024;
const NOW = Date.parse('2023-06-01T00:00:00Z');
const layer = (id: string, size: number) => ({ mediaType: 'x', digest: `sha256:${id.repeat(64).slice(0, 64)}`, size });
const img = (layers: ReturnType<typeof layer>[], created: string | null = '2023-05-25T00:00:00Z'): ComponentImage => ({
  name: 'n',
  digest: 'd',
  contentDigest: 'd',
  listDigest: '',
  mediaType: 'm',
  layers,
  config: created === null ? {} : { created },
});
const tag = (name: string, kind = 'DockerImage'): TagReference => ({ name, from: { kind, name: `quay.io/x@sha256:${'1'.repeat(64)}` } });

describe('renderSizeSection', () => {
  test('shared layers count once; an image of shared layers only is credited with its top layer, once', () => {
    const images = new Map([
      ['a', img([layer('1', 10 * MB), layer('2', MB)])],
      ['b', img([layer('1', 10 * MB), layer('3', 2 * MB)], null)],
      ['c', img([layer('1', 10 * MB), layer('2', MB)], '0001-01-01T00:00:00Z')],
    ]);
    const text = tabwrite(renderSizeSection([tag('a'), tag('b'), tag('c'), tag('other', 'ImageStreamTag'), tag('unread')], images, NOW));
    expect(text).toBe(
      [
        '',
        'Images:',
        '  NAME    AGE  LAYERS  SIZE MB  UNIQUE MB  ',
        '  a        7d       2     11.0        1.0  ',
        '  b                 2     12.0        2.0  ',
        '  c                 2     11.0        0.0  ',
        '  unread                                  ',
        '',
        '  13.63MB across 3 layers',
        '',
      ].join('\n'),
    );
  });

  test('several bases get a lettered column each (five at most), more are numbered', () => {
    const few = new Map(['a', 'b', 'c'].map((n, i) => [n, img([layer(String(i + 1), MB)])]));
    const text = tabwrite(
      renderSizeSection(
        ['a', 'b', 'c'].map((n) => tag(n)),
        few,
        NOW,
      ),
    );
    expect(text).toContain('BASE\n');
    expect(text).toMatch(/\n {2}a .* A\n {2}b .* {2}B\n {2}c .* {3}C\n/);
    expect(text).toContain('3.146MB across 3 layers, 3 different base images');
    const many = new Map(['a', 'b', 'c', 'd', 'e', 'f'].map((n, i) => [n, img([layer(String(i + 1), MB)])]));
    const lines = tabwrite(
      renderSizeSection(
        [...many.keys()].map((n) => tag(n)),
        many,
        NOW,
      ),
    ).split('\n');
    expect(lines.filter((l) => /^ {2}[a-f] /.test(l)).map((l) => l.trim().split(/\s+/).pop())).toEqual(['1', '2', '3', '4', '5', '6']);
  });

  test('an image with no layers does not break the table', () => {
    const text = tabwrite(renderSizeSection([tag('empty')], new Map([['empty', img([])]]), NOW));
    expect(text).toContain('  empty   7d       0      0.0        0.0  ');
    expect(text).toContain('0B across 0 layers');
  });
});
