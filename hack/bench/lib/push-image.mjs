/**
 * Push one of the bench's generated images (buildBenchImages) to a local registry with osimage's own push code
 * (dist/, so `npm run build` first); returns its reference by tag.
 */
import { readFile } from 'node:fs/promises';

export async function pushBenchImage(registryHost, bench, name = 'standard') {
  const { openPushTarget } = await import('../../../dist/registry/push.js');
  const { closeDispatchers } = await import('../../../dist/http/dispatcher.js');
  const { image } = bench.images[name];
  const ref = `${registryHost}/ocp/release:${name}`;
  const dest = await openPushTarget(ref, { insecure: true });
  try {
    for (const blob of image.blobs) {
      const c = bench.content.get(blob.descriptor.digest);
      await dest.pushBlob(blob.descriptor, c.bytes ?? (await readFile(c.path)));
    }
    await dest.pushManifest(image.bytes, image.descriptor.mediaType, name);
  } finally {
    await closeDispatchers();
  }
  return ref;
}
