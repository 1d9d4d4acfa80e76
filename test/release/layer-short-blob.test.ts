/**
 * A layer small enough to arrive in one read (an oci-archive entry is a fixed-length file stream) ends, and
 * fails its digest check, before its first bytes have been sniffed, or before the walk reaches it when it was
 * prefetched: the read must still fail with the mismatch, not leave it unhandled (a crash) or hang.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openImage } from '../../src/registry/open.js';
import { resolveImage } from '../../src/registry/platform.js';
import { buildImage, buildLayer } from '../../src/release/build-layer.js';
import { loadReleaseInfo } from '../../src/release/info.js';
import { walkLayers } from '../../src/release/overlay.js';
import { archive, baseEntries, entry, layout, releaseEntries, tempDir, type Temp } from '../helpers/oci-builder.js';

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('a tampered layer that arrives in one read', () => {
  test.each(['none', 'gzip'] as const)('compression %s: the read fails with the digest mismatch', async (compression) => {
    const top = await buildLayer(releaseEntries(), { compression });
    expect(top.bytes.length).toBeLessThan(64 * 1024);
    const img = buildImage({ created: '2023-05-25T08:25:20Z', layers: [await buildLayer(baseEntries()), top] });
    const ref = await archive(tmp.dir, `tampered-${compression}.tar`, [entry(img)]);
    const file = ref.slice('oci-archive:'.length);
    const bytes = await readFile(file);
    // Flip the last byte of the top layer's blob inside the archive: same size, another digest.
    const at = bytes.indexOf(Buffer.from(top.bytes)) + top.bytes.length - 1;
    expect(at).toBeGreaterThan(0);
    bytes[at] = bytes[at]! ^ 0xff;
    await writeFile(file, bytes);
    await expect(loadReleaseInfo('x', await openImage(ref))).rejects.toThrow(
      new RegExp(`digest mismatch for blob ${top.descriptor.digest}`),
    );
  });
});

describe('a tampered layer that was prefetched', () => {
  test('its mismatch, met while the layer above was read, fails the walk when it reaches the layer', async () => {
    const bottom = await buildLayer([{ name: 'release-manifests/zz.yaml', data: 'x: 1\n' }], { compression: 'none' });
    const many = Array.from({ length: 200 }, (_, i) => ({ name: `release-manifests/f${i}.yaml`, data: `a: ${i}\n` }));
    const top = await buildLayer([...releaseEntries(), ...many]);
    const img = buildImage({ created: '2023-05-25T08:25:20Z', layers: [bottom, top] });
    const ref = await layout(tmp.dir, 'prefetched', [entry(img)]);
    const blob = join(ref.slice('oci:'.length), 'blobs', 'sha256', bottom.descriptor.digest.slice('sha256:'.length));
    const bytes = await readFile(blob);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
    await writeFile(blob, bytes);
    const src = await openImage(ref);
    const { manifest } = await resolveImage(src);
    let files = 0;
    const walk = walkLayers(src, manifest.parsed, {
      folder: 'release-manifests',
      // The layer below is requested at the first bytes of the top one, which then takes a while: the small blob
      // is read to its end, and fails, long before the walk reaches it.
      prefetchAfter: 0,
      onFile: async () => {
        files++;
        await new Promise((r) => setTimeout(r, 1));
      },
    });
    await expect(walk).rejects.toThrow(new RegExp(`digest mismatch for blob ${bottom.descriptor.digest}`));
    expect(files).toBeGreaterThan(200);
  });
});
