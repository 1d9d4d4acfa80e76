/**
 * while a layer is inflated, the walk requests the next lower one (one ahead at most), and a
 * prefetched layer the walk never reaches is aborted. Behaviour, not time: the same answers with and without
 * prefetching, at most one layer requested ahead, and no extra request for a small top layer.
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { beforeAll, describe, expect, test } from 'vitest';
import { openImage } from '../../src/registry/open.js';
import { resolveImage } from '../../src/registry/platform.js';
import type { Descriptor } from '../../src/registry/types.js';
import type { BuiltImage } from '../../src/release/build-layer.js';
import { findFile, walkLayers, type WalkOptions } from '../../src/release/overlay.js';
import { RecordingSource, baseEntries, entry, image, layout, releaseEntries, tempLayouts, whiteout } from '../helpers/oci-builder.js';

const layouts = tempLayouts('osimage-prefetch-');

/** A source that also tracks the blob streams open at once (requested and not yet ended or destroyed). */
class CountingSource extends RecordingSource {
  open = 0;
  maxOpen = 0;
  readonly streams: Readable[] = [];
  override async blob(desc: Descriptor): Promise<Readable> {
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    const s = await super.blob(desc);
    this.streams.push(s);
    let done = false;
    const end = () => {
      if (!done) this.open--;
      done = true;
    };
    s.once('end', end);
    s.once('close', end);
    return s;
  }
}

let n = 0;
async function open(img: BuiltImage): Promise<CountingSource> {
  return new CountingSource(await openImage(await layout(layouts.dir, `p${n++}`, [entry(img)])));
}

/** Layers of incompressible data (so each is ~`kib` KiB gzip), unrelated to release-manifests/. */
const filler = (i: number, kib: number) => ({ entries: [{ name: `usr/share/filler-${i}`, data: randomBytes(kib * 1024) }] });

async function walkAll(img: BuiltImage, extra: Partial<WalkOptions>) {
  const src = await open(img);
  const { manifest } = await resolveImage(src);
  const files = new Map<string, string>();
  const prefetched: number[] = [];
  const result = await walkLayers(src, manifest.parsed, {
    folder: 'release-manifests',
    onFile: (f) => void files.set(f.path, `${f.layer}:${f.data.toString()}`),
    onPrefetch: (layer) => prefetched.push(layer),
    ...extra,
  });
  return { src, files, prefetched, result };
}

describe('prefetching the next layer', () => {
  // release-manifests/ in the bottom layer, a stale copy of one file and a whiteout of another above it, and
  // three big unrelated layers on top: the walk must read every layer.
  let img: BuiltImage;
  beforeAll(async () => {
    img = await image([
      { entries: releaseEntries({ name: '4.13.1', extra: [{ name: 'release-manifests/0000_90_gone.yaml', data: 'gone: 1\n' }] }) },
      { entries: [...baseEntries(), whiteout('release-manifests/0000_90_gone.yaml')] },
      filler(1, 300),
      filler(2, 300),
      filler(3, 300),
    ]);
  });

  test('gives the same files, layers and ending as a walk without it', async () => {
    const off = await walkAll(img, { prefetchAfter: Number.POSITIVE_INFINITY });
    const on = await walkAll(img, { prefetchAfter: 0 });
    expect(off.prefetched).toEqual([]);
    expect(on.prefetched).toEqual([3, 2, 1, 0]);
    expect(on.files).toEqual(off.files);
    expect(on.result).toEqual(off.result);
    expect([...on.files.keys()].sort()).toEqual(['0000_50_x_a.yaml', 'image-references', 'release-metadata']);
    expect(on.result.layersRead).toEqual([4, 3, 2, 1, 0]);
  });

  test('requests at most one layer ahead', async () => {
    const on = await walkAll(img, { prefetchAfter: 0 });
    expect(on.src.maxOpen).toBe(2);
    const off = await walkAll(img, { prefetchAfter: Number.POSITIVE_INFINITY });
    expect(off.src.maxOpen).toBe(1);
  });

  test('a prefetched layer the walk does not reach is aborted', async () => {
    const top = await image([filler(1, 300), { entries: releaseEntries({ name: '4.13.1' }) }]);
    const src = await open(top);
    const { manifest } = await resolveImage(src);
    const prefetched: number[] = [];
    const f = await findFile(src, manifest.parsed, 'release-manifests', 'image-references', {
      prefetchAfter: 0,
      onPrefetch: (layer) => prefetched.push(layer),
    });
    expect(f?.layer).toBe(1);
    expect(prefetched).toEqual([0]);
    await new Promise((r) => setImmediate(r));
    expect(src.streams).toHaveLength(2);
    expect(src.streams[1]!.destroyed).toBe(true);
    expect(src.open).toBe(0);
  });

  test('by default a small top layer that answers the query requests nothing below it', async () => {
    const small = await image([filler(1, 300), { entries: releaseEntries({ name: '4.13.1' }) }]);
    const src = await open(small);
    const { manifest } = await resolveImage(src);
    const f = await findFile(src, manifest.parsed, 'release-manifests', 'image-references');
    expect(f?.layer).toBe(1);
    expect(src.streams).toHaveLength(1);
  });
});
