/** Where a new release goes: a registry, an oci-archive file, or a folder of flat manifests. */
import { createWriteStream } from 'node:fs';
import { mkdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pack as tarPack } from 'tar-stream';
import { OsimageError, describe } from '../../errors.js';
import { writeFileAtomic } from '../../files/atomic.js';
import type { PushOptions } from '../../registry/push.js';
import type { Descriptor, ImageSource } from '../../registry/types.js';
import type { PayloadFile } from './assemble.js';
import type { ReleaseImage } from './image.js';

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
  const { openPushTarget } = await import('../../registry/push.js');
  const dest = await openPushTarget(target, opts);
  const sameRegistry = opts.baseRegistry !== undefined && opts.baseRegistry === dest.reference.registry;
  for (const desc of image.baseLayers) {
    if (!base) throw new OsimageError('internal: base layers without a base image');
    await dest.pushBlob(desc, () => lazyBlob(base, desc), sameRegistry && opts.baseRepository ? { mountFrom: opts.baseRepository } : {});
  }
  await dest.pushBlob(image.layer.descriptor, image.layer.bytes);
  await dest.pushBlob(image.config.descriptor, image.config.bytes);
  return dest.pushManifest(image.manifest.bytes, image.manifest.descriptor.mediaType);
}

const hex = (digest: string) => digest.slice('sha256:'.length);

/**
 * Write an oci-archive (a tar of an OCI image layout) holding the image under `tag`. Base layers are streamed
 * from their source into the tar; the file appears only when complete (temp file, then rename).
 */
export async function writeReleaseArchive(image: ReleaseImage, file: string, tag: string, base: ImageSource | undefined): Promise<void> {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const tar = tarPack();
  const out = createWriteStream(tmp, { mode: 0o644 });
  const done = pipeline(tar, out);
  const mtime = new Date(image.created);
  const put = (name: string, data: Buffer) =>
    new Promise<void>((resolve, reject) => tar.entry({ name, mtime, mode: 0o644 }, data, (err) => (err ? reject(err) : resolve())));
  try {
    const index = {
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [{ ...image.manifest.descriptor, annotations: { 'org.opencontainers.image.ref.name': tag } }],
    };
    await put('oci-layout', Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' })));
    await put('index.json', Buffer.from(JSON.stringify(index)));
    await new Promise<void>((resolve, reject) =>
      tar.entry({ name: 'blobs', type: 'directory', mtime, mode: 0o755 }, (e) => (e ? reject(e) : resolve())),
    );
    await new Promise<void>((resolve, reject) =>
      tar.entry({ name: 'blobs/sha256', type: 'directory', mtime, mode: 0o755 }, (e) => (e ? reject(e) : resolve())),
    );
    const seen = new Set<string>();
    for (const desc of image.baseLayers) {
      if (seen.has(desc.digest)) continue;
      seen.add(desc.digest);
      if (!base) throw new OsimageError('internal: base layers without a base image');
      const entry = tar.entry({ name: `blobs/sha256/${hex(desc.digest)}`, size: desc.size, mtime, mode: 0o644 });
      await pipeline(await base.blob(desc), entry);
    }
    for (const b of [image.layer, image.config, image.manifest]) {
      if (seen.has(b.descriptor.digest)) continue;
      seen.add(b.descriptor.digest);
      await put(`blobs/sha256/${hex(b.descriptor.digest)}`, b.bytes);
    }
    tar.finalize();
    await done;
    await rename(tmp, file);
  } catch (err) {
    tar.destroy();
    await done.catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err instanceof OsimageError ? err : new OsimageError(`cannot write ${file}: ${describe(err)}`);
  }
}

/** Write the flat payload files into a folder (created if missing), each atomically. */
export async function writeReleaseDir(files: PayloadFile[], dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new OsimageError(`cannot create ${dir}: ${describe(err)}`);
  }
  for (const f of files) await writeFileAtomic(join(dir, f.name), f.data);
}
