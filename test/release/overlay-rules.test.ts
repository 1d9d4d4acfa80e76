/**
 * What a container runtime shows where layers disagree about a path's kind: a folder in an
 * upper layer (an entry, or the implied parent of one) hides a lower file or symlink of that name, and a file
 * in an upper layer hides a lower folder's contents. Checked through the walker and `release extract --to`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openImage } from '../../src/registry/open.js';
import { resolveImage } from '../../src/registry/platform.js';
import type { LayerEntry } from '../../src/release/build-layer.js';
import { walkLayers } from '../../src/release/overlay.js';
import { osimage } from '../helpers/cli.js';
import { releaseEntries, tempLayouts } from '../helpers/oci-builder.js';

const tmp = tempLayouts();
const refOf = (layers: LayerEntry[][]) => tmp.refOf(layers);

async function visible(ref: string): Promise<string[]> {
  const src = await openImage(ref);
  try {
    const { manifest } = await resolveImage(src);
    const out: string[] = [];
    await walkLayers(src, manifest.parsed, { folder: 'release-manifests', onFile: (f) => void out.push(`${f.path}:${f.type}`) });
    return out.filter((p) => p.startsWith('a')).sort();
  } finally {
    await src.close();
  }
}

async function extracted(ref: string, name: string): Promise<string[]> {
  const to = join(tmp.dir, name);
  const r = await osimage(['release', 'extract', ref, '--to', to]);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return (await readdir(to, { recursive: true }))
    .map(String)
    .filter((p) => p.startsWith('a'))
    .sort();
}

describe('a folder above hides a file below', () => {
  test.each([
    [
      'a folder entry and a file in it',
      [
        { name: 'release-manifests/a', type: 'directory' as const },
        { name: 'release-manifests/a/b', data: 'b' },
      ],
    ],
    ['only the file in it (the folder implied)', [{ name: 'release-manifests/a/b', data: 'b' }]],
  ])('%s: only a/b is visible, and extract writes it', async (label, upper) => {
    const ref = await refOf([[...releaseEntries(), { name: 'release-manifests/a', data: 'lower file' }], upper]);
    expect(await visible(ref)).toEqual(['a/b:file']);
    const files = await extracted(ref, `dir-over-file-${label.length}`);
    expect(files).toEqual(['a', 'a/b']);
    expect(await readFile(join(tmp.dir, `dir-over-file-${label.length}`, 'a', 'b'), 'utf8')).toBe('b');
  });

  test('an empty folder entry above hides a lower symlink of that name', async () => {
    const ref = await refOf([
      [...releaseEntries(), { name: 'release-manifests/a', type: 'symlink', linkname: '0000_50_x_a.yaml' }],
      [{ name: 'release-manifests/a', type: 'directory' }],
    ]);
    expect(await visible(ref)).toEqual([]);
  });
});

describe('a file above hides a folder below', () => {
  test('lower a/b, upper file a: only the file a', async () => {
    const ref = await refOf([
      [...releaseEntries(), { name: 'release-manifests/a', type: 'directory' }, { name: 'release-manifests/a/b', data: 'b' }],
      [{ name: 'release-manifests/a', data: 'upper file' }],
    ]);
    expect(await visible(ref)).toEqual(['a:file']);
    expect(await extracted(ref, 'file-over-dir')).toEqual(['a']);
    expect(await readFile(join(tmp.dir, 'file-over-dir', 'a'), 'utf8')).toBe('upper file');
  });
});
