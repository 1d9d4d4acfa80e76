/**
 * The cached read of release-manifests/ names the view it holds: an answer of the release layer alone is never
 * served as the merged one, nor the other way round, whatever the entry under the key says.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { releaseFilesKey } from '../../src/cache/keys.js';
import { CacheStore } from '../../src/cache/store.js';
import { openImage } from '../../src/registry/open.js';
import type { BuiltImage } from '../../src/release/build-layer.js';
import { cachedFolderRead, type FolderRead } from '../../src/release/info-cache.js';
import { loadReleaseInfo } from '../../src/release/info.js';
import { RecordingSource, entry, image, layout, releaseEntries, tempDir, type Temp } from '../helpers/oci-builder.js';

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir('osimage-view-cache-');
});
afterAll(async () => {
  await tmp.cleanup();
});

class CachedSource extends RecordingSource {
  constructor(
    inner: ConstructorParameters<typeof RecordingSource>[0],
    readonly cache: CacheStore,
  ) {
    super(inner);
  }
}

let n = 0;
async function open(img: BuiltImage, store: CacheStore): Promise<CachedSource> {
  const ref = await layout(tmp.dir, `l${n++}`, [entry(img)]);
  return new CachedSource(await openImage(ref), store);
}

const read = (name: string): FolderRead => ({ manifests: [name], metadataFiles: [], unsafe: [], layersRead: [0] });

describe('the view in the cache entry', () => {
  test('a stale lower copy: each view gets its own answer from one cache, first read and repeated', async () => {
    const store = new CacheStore(`${tmp.dir}/cache-a`);
    const stale = releaseEntries({ name: '4.12.0', extra: [{ name: 'release-manifests/0000_10_old.yaml', data: 'old: true\n' }] });
    const img = await image([{ entries: stale }, { entries: releaseEntries({ name: '4.13.1' }) }]);
    for (let round = 0; round < 2; round++) {
      const top = await loadReleaseInfo('x', await open(img, store));
      expect(top.manifests).toEqual(['0000_50_x_a.yaml']);
      const merged = await loadReleaseInfo('x', await open(img, store), { layers: 'merged' });
      expect(merged.manifests).toEqual(['0000_10_old.yaml', '0000_50_x_a.yaml']);
    }
    // The repeat came from the cache: no layer was opened.
    const again = await open(img, store);
    await loadReleaseInfo('x', again, { layers: 'merged' });
    expect(again.blobsOpened.filter((d) => img.layers.some((l) => l.descriptor.digest === d))).toEqual([]);
  });

  test("an entry of the other view under a view's key is no hit, nor is an entry that names no view", async () => {
    const store = new CacheStore(`${tmp.dir}/cache-b`);
    const key = { folder: 'release-manifests', layers: ['sha256:aa'], query: 'full' as const };
    await cachedFolderRead(store, { ...key, view: 'release-layer' }, async () => read('top.yaml'));
    const written = await store.get(releaseFilesKey(key.folder, key.layers, 'full', undefined, 'release-layer'));
    expect(written).toBeDefined();
    // Copied under the merged key, the release layer's entry is read again rather than served.
    await store.put(releaseFilesKey(key.folder, key.layers, 'full', undefined, 'merged'), written!.data);
    const merged = await cachedFolderRead(store, { ...key, view: 'merged' }, async () => read('merged.yaml'));
    expect(merged.manifests).toEqual(['merged.yaml']);
    // An entry without a view (as written before views existed) is read again too.
    const old = JSON.parse(written!.data.toString('utf8'));
    delete old.view;
    await store.put(releaseFilesKey(key.folder, key.layers, 'full', undefined, 'release-layer'), Buffer.from(JSON.stringify(old)));
    const top = await cachedFolderRead(store, { ...key, view: 'release-layer' }, async () => read('fresh.yaml'));
    expect(top.manifests).toEqual(['fresh.yaml']);
    // And a matching entry is served.
    const hit = await cachedFolderRead(store, { ...key, view: 'release-layer' }, async () => read('not-read.yaml'));
    expect(hit.manifests).toEqual(['fresh.yaml']);
  });
});
