/**
 * The components cache of `release new --from-release`: one entry per release holding its component images'
 * manifests and configs, verified again when read; a damaged entry is dropped and the images read afresh.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { componentsKey } from '../../../src/cache/keys.js';
import { CacheStore } from '../../../src/cache/store.js';
import { jsonBlob } from '../../../src/release/build-layer.js';
import type { ComponentImage } from '../../../src/release/new/components.js';
import { loadComponents, saveComponents } from '../../../src/release/new/component-cache.js';
import type { ImageManifest } from '../../../src/registry/types.js';
import { tempDir, type Temp } from '../../helpers/oci-builder.js';

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir('osimage-components-cache-');
});
afterAll(async () => tmp?.cleanup());

const RELEASE = `sha256:${'a'.repeat(64)}`;

function component(tag: string, labels: Record<string, string>): ComponentImage {
  const config = jsonBlob(
    { architecture: 'amd64', os: 'linux', config: { Labels: labels }, rootfs: { type: 'layers', diff_ids: [] } },
    'application/vnd.oci.image.config.v1+json',
  );
  const manifestDoc = { schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: config.descriptor, layers: [] };
  const manifest = jsonBlob(manifestDoc, 'application/vnd.oci.image.manifest.v1+json');
  return {
    tag,
    pullspec: `quay.io/x/y@${manifest.descriptor.digest}`,
    digest: manifest.descriptor.digest,
    labels,
    manifest: manifestDoc as unknown as ImageManifest,
    operator: false,
    raw: { manifest: manifest.bytes, mediaType: manifestDoc.mediaType, config: config.bytes },
  };
}

describe('the components cache', () => {
  it('gives back what was saved, verified, and nothing for another release or platform', async () => {
    const store = new CacheStore(join(tmp.dir, 'a'));
    const images = [component('cli', { 'io.openshift.build.commit.id': '1' }), component('tests', {})];
    saveComponents(store, RELEASE, undefined, images);
    await store.settle();
    const back = await loadComponents(store, RELEASE, undefined);
    expect([...back.keys()].sort()).toEqual(images.map((i) => i.pullspec).sort());
    expect(back.get(images[0]!.pullspec)?.labels).toEqual({ 'io.openshift.build.commit.id': '1' });
    expect((await loadComponents(store, `sha256:${'b'.repeat(64)}`, undefined)).size).toBe(0);
    expect((await loadComponents(store, RELEASE, 'linux/arm64')).size).toBe(0);
  });

  it('keeps no image named through a manifest list (the choice could not be checked)', async () => {
    const store = new CacheStore(join(tmp.dir, 'b'));
    const img = component('cli', {});
    saveComponents(store, RELEASE, undefined, [{ ...img, pullspec: `quay.io/x/y@sha256:${'c'.repeat(64)}` }]);
    await store.settle();
    expect((await loadComponents(store, RELEASE, undefined)).size).toBe(0);
  });

  it('drops an entry whose bytes no longer match their digests', async () => {
    const store = new CacheStore(join(tmp.dir, 'c'));
    const img = component('cli', { a: 'b' });
    const other = JSON.stringify({ ...JSON.parse(img.raw!.config.toString()), config: { Labels: { a: 'c' } } });
    // An entry the store itself finds sound, whose config is not the one the manifest names.
    const entry = {
      images: [
        {
          pullspec: img.pullspec,
          mediaType: img.raw!.mediaType,
          manifest: img.raw!.manifest.toString('base64'),
          config: Buffer.from(other).toString('base64'),
        },
      ],
    };
    await store.put(componentsKey(RELEASE, undefined), Buffer.from(JSON.stringify(entry)));
    expect((await loadComponents(store, RELEASE, undefined)).size).toBe(0);
    expect(await store.get(componentsKey(RELEASE, undefined))).toBeUndefined();
    entry.images[0]!.config = img.raw!.config.toString('base64');
    await store.put(componentsKey(RELEASE, undefined), Buffer.from(JSON.stringify(entry)));
    expect((await loadComponents(store, RELEASE, undefined)).get(img.pullspec)?.labels).toEqual({ a: 'b' });
  });
});
