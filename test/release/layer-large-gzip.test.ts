/**
 * A gzip layer larger than the chunks gunzip is handed at once (layer-stream.ts copies the source's chunks into a
 * few 1 MiB buffers it fills again once gunzip has consumed them): every byte arrives in order, across the chunk
 * boundaries and the buffers' reuse, whether the walk reads the layer to its end or stops at the file it wants.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openImage } from '../../src/registry/open.js';
import { resolveImage } from '../../src/registry/platform.js';
import { findFile, walkLayers } from '../../src/release/overlay.js';
import { entry, image, layout, releaseEntries, tempDir, type Temp } from '../helpers/oci-builder.js';

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

// Random bytes do not compress: the layer's gzip is as large as its data, several MiB in the source's 64 KiB reads,
// so each of the few input buffers is filled several times over.
const big = randomBytes(3 * 1024 * 1024 + 12345);
const after = randomBytes(1024 * 1024 + 7);
const tail = randomBytes(5 * 1024 * 1024 + 3);

async function source() {
  const entries = releaseEntries({
    extra: [
      { name: 'release-manifests/big.bin', data: big },
      { name: 'release-manifests/after.bin', data: after },
      { name: 'release-manifests/tail.bin', data: tail },
      { name: 'release-manifests/last.yaml', data: 'kind: Last\n' },
    ],
  });
  const ref = await layout(tmp.dir, 'big', [entry(await image([{ entries, compression: 'gzip' }]))]);
  const src = await openImage(ref);
  return { src, manifest: (await resolveImage(src)).manifest.parsed };
}

test('a layer read to its end gives every file whole', async () => {
  const { src, manifest } = await source();
  const got = new Map<string, Buffer>();
  await walkLayers(src, manifest, { folder: 'release-manifests', onFile: (f) => void got.set(f.path, f.data) });
  await src.close();
  expect(got.get('big.bin')?.equals(big)).toBe(true);
  expect(got.get('after.bin')?.equals(after)).toBe(true);
  expect(got.get('tail.bin')?.equals(tail)).toBe(true);
  expect(got.get('last.yaml')?.toString()).toBe('kind: Last\n');
});

test('a walk that stops at a file past the first chunks gets it whole', async () => {
  const { src, manifest } = await source();
  const f = await findFile(src, manifest, 'release-manifests', 'after.bin');
  await src.close();
  expect(f?.data.equals(after)).toBe(true);
});

test('a reader that stalls mid-layer still gets every byte (the input buffers wait for gunzip)', async () => {
  const { src, manifest } = await source();
  const got = new Map<string, Buffer>();
  await walkLayers(src, manifest, {
    folder: 'release-manifests',
    onFile: async (f) => {
      got.set(f.path, f.data);
      // While this waits, gunzip's output backs up and the source's bytes keep coming.
      if (f.path === 'big.bin') await new Promise((r) => setTimeout(r, 200));
    },
  });
  await src.close();
  expect(got.get('after.bin')?.equals(after)).toBe(true);
  expect(got.get('tail.bin')?.equals(tail)).toBe(true);
});
