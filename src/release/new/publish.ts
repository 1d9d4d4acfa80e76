/** Where a new release goes: a registry, an oci-archive file, or a folder of flat manifests. */
import { mkdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { OsimageError, describe } from '../../errors.js';
import { syncMany, writeFileAtomic } from '../../files/atomic.js';
import { forEachLimit } from '../../files/parallel.js';
import { type LayoutEntry, writeOciArchive } from '../../registry/oci-write.js';
import { openPushTarget, type PushOptions, type RegistryDestination } from '../../registry/push.js';
import type { Descriptor, ImageSource } from '../../registry/types.js';
import type { PayloadFile } from './assemble.js';
import type { ReleaseImage, ReleaseList } from './image.js';

/** How many blobs of an image are pushed at once. */
const PUSH_PARALLEL = 4;

/** A stream that starts flowing once the source's blob stream is open (push takes a synchronous opener). */
function lazyBlob(source: ImageSource, desc: Descriptor): Readable {
  const out = new PassThrough();
  source.blob(desc).then(
    (s) => {
      s.on('error', (err) => out.destroy(err));
      s.pipe(out);
    },
    (err: unknown) => out.destroy(err as Error),
  );
  return out;
}

/** Push the image: base layers by cross-repository mount when the base is in the same registry, else copied. */
export async function pushRelease(
  image: ReleaseImage,
  target: string,
  base: ImageSource | undefined,
  opts: PushOptions & { baseRepository?: string; baseRegistry?: string },
): Promise<string> {
  const dest = await openPushTarget(target, opts);
  const sameRegistry = opts.baseRegistry !== undefined && opts.baseRegistry === dest.reference.registry;
  if (image.baseLayers.length > 0 && !base) throw new OsimageError('internal: base layers without a base image');
  await pushBlobs(dest, image, base, sameRegistry ? opts.baseRepository : undefined);
  return dest.pushManifest(image.manifest.bytes, image.manifest.descriptor.mediaType);
}

/**
 * An image's blobs, all at once (as oc pushes them): each is a few requests (a HEAD, then a mount or an upload) that
 * would otherwise wait on the one before; the manifest goes only once every blob is there.
 */
async function pushBlobs(dest: RegistryDestination, image: ReleaseImage, base: ImageSource | undefined, mountFrom: string | undefined) {
  const pushes = [
    ...image.baseLayers.map((desc) => () => dest.pushBlob(desc, () => lazyBlob(base!, desc), mountFrom ? { mountFrom } : {})),
    () => dest.pushBlob(image.layer.descriptor, image.layer.bytes),
    () => dest.pushBlob(image.config.descriptor, image.config.bytes),
  ];
  await forEachLimit(pushes, PUSH_PARALLEL, async (push) => {
    await push();
  });
}

/** Push every image of a list by digest (base layers as pushRelease does), then the list under the target's tag. */
export async function pushReleaseList(
  release: ReleaseList,
  target: string,
  base: ImageSource,
  opts: PushOptions & { baseRepository?: string; baseRegistry?: string },
): Promise<string> {
  const dest = await openPushTarget(target, opts);
  const sameRegistry = opts.baseRegistry !== undefined && opts.baseRegistry === dest.reference.registry;
  for (const image of release.images) {
    await pushBlobs(dest, image, base, sameRegistry ? opts.baseRepository : undefined);
    await dest.pushManifest(image.manifest.bytes, image.manifest.descriptor.mediaType, image.manifest.descriptor.digest);
  }
  return dest.pushManifest(release.manifest.bytes, release.manifest.descriptor.mediaType);
}

/** {@link writeReleaseArchive} for a list: the list under `tag`, its images and their blobs beside it. */
export async function writeReleaseListArchive(
  release: ReleaseList,
  file: string,
  tag: string,
  base: ImageSource,
  extra: LayoutEntry[] = [],
): Promise<void> {
  const blobs = release.images.flatMap((image) => [
    ...image.baseLayers.map((descriptor) => ({ descriptor, open: () => base.blob(descriptor) })),
    image.layer,
    image.config,
    image.manifest,
  ]);
  await writeOciArchive(file, [{ top: release.manifest, blobs, tag }, ...extra], { mtime: new Date(release.created) });
}

/**
 * Write an oci-archive (a tar of an OCI image layout) holding the image under `tag` (and `extra` images: a sigstore
 * signature's). Base layers are streamed from their source into the tar; the file appears only when complete.
 */
export async function writeReleaseArchive(
  image: ReleaseImage,
  file: string,
  tag: string,
  base: ImageSource | undefined,
  extra: LayoutEntry[] = [],
): Promise<void> {
  if (image.baseLayers.length > 0 && !base) throw new OsimageError('internal: base layers without a base image');
  const baseBlobs = image.baseLayers.map((descriptor) => ({ descriptor, open: () => base!.blob(descriptor) }));
  await writeOciArchive(file, [{ top: image.manifest, blobs: [...baseBlobs, image.layer, image.config], tag }, ...extra], {
    mtime: new Date(image.created),
  });
}

/** Write the flat payload files into a folder (created if missing), each atomically. */
/** How many payload files are written at once. */
const WRITE_PARALLEL = 16;

export async function writeReleaseDir(files: PayloadFile[], dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new OsimageError(`cannot create ${dir}: ${describe(err)}`);
  }
  for (const f of files) {
    // Payload names are flat: one that is a path (a hostile tag name) never leaves the folder.
    if (f.name === '' || f.name === '.' || f.name === '..' || /[/\\]/.test(f.name)) {
      throw new OsimageError(`${dir}: refusing to write ${JSON.stringify(f.name)}: a payload file name is never a path`);
    }
  }
  // Each file is written atomically, many at once, and flushed to disk together at the end (many fsyncs in flight,
  // then the folder once), as extract --to does: one fsync after another took seconds for thousands of manifests.
  const writes = files.map((f) => ({ f, path: join(dir, f.name) }));
  await forEachLimit(writes, WRITE_PARALLEL, async ({ f, path }) => {
    await writeFileAtomic(path, f.data, { durable: false });
    // oc gives each file the time of its entry in the release layer.
    if (f.mtime) await utimes(path, f.mtime, f.mtime);
  });
  await syncMany(writes.map((w) => w.path));
  await syncMany([dir]);
}
