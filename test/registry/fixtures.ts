/**
 * Tiny images for the registry tests: a config, gzip'd tar layers of a few KiB, an image manifest and,
 * for multi-arch, an index. Pushed with the project's own push client.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { openPushTarget, type PushOptions } from '../../src/registry/push.js';
import { MEDIA_TYPES, type Descriptor, type Platform } from '../../src/registry/types.js';
import { sha256Digest } from '../../src/oci/digest.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';

export interface Blob {
  desc: Descriptor;
  bytes: Buffer;
}

export async function tarOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name, mtime: new Date(0) }, content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as unknown as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

export function blobOf(bytes: Buffer, mediaType: string, extra: Partial<Descriptor> = {}): Blob {
  return { bytes, desc: { mediaType, digest: sha256Digest(bytes), size: bytes.length, ...extra } };
}

export interface TestImage {
  config: Blob;
  layers: Blob[];
  manifest: Blob;
  platform: Platform;
}

/** An OCI image with one or more gzip layers; `noise` adds random bytes so layers are distinct. */
export async function makeImage(
  opts: { platform?: Platform; layers?: Array<Record<string, string | Buffer>>; noise?: number } = {},
): Promise<TestImage> {
  const platform = opts.platform ?? { os: 'linux', architecture: 'amd64' };
  const layerFiles = opts.layers ?? [{ 'etc/hello': 'hello\n', 'noise.bin': randomBytes(opts.noise ?? 4096) }];
  const layers: Blob[] = [];
  const diffIds: string[] = [];
  for (const files of layerFiles) {
    const t = await tarOf(files);
    diffIds.push(sha256Digest(t));
    layers.push(blobOf(gzipSync(t), MEDIA_TYPES.ociLayerGzip));
  }
  const config = blobOf(
    Buffer.from(
      JSON.stringify({
        architecture: platform.architecture,
        os: platform.os,
        ...(platform.variant ? { variant: platform.variant } : {}),
        rootfs: { type: 'layers', diff_ids: diffIds },
        config: { Labels: { test: 'yes' } },
      }),
    ),
    MEDIA_TYPES.ociConfig,
  );
  const manifest = blobOf(
    Buffer.from(
      JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPES.ociManifest, config: config.desc, layers: layers.map((l) => l.desc) }),
    ),
    MEDIA_TYPES.ociManifest,
    { platform },
  );
  return { config, layers, manifest, platform };
}

export function makeIndex(images: TestImage[], extra: Descriptor[] = []): Blob {
  const manifests = [...images.map((i) => ({ ...i.manifest.desc, platform: i.platform })), ...extra];
  return blobOf(Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex, manifests })), MEDIA_TYPES.ociIndex);
}

/** Push an image's blobs and manifest (by digest, and under `tag` when given). Returns the manifest digest. */
export async function pushImage(
  ref: string,
  image: TestImage,
  opts: PushOptions & { tag?: string; chunkSize?: number } = {},
): Promise<string> {
  const dest = await openPushTarget(ref, opts);
  for (const b of [image.config, ...image.layers]) {
    await dest.pushBlob(b.desc, () => Readable.from([b.bytes]), opts.chunkSize ? { chunkSize: opts.chunkSize } : {});
  }
  return dest.pushManifest(image.manifest.bytes, image.manifest.desc.mediaType, opts.tag);
}

/** Push several images and an index over them under the reference's tag. */
export async function pushIndex(ref: string, images: TestImage[], opts: PushOptions = {}): Promise<{ index: Blob; digests: string[] }> {
  const digests: string[] = [];
  for (const img of images) digests.push(await pushImage(ref, img, { ...opts, tag: img.manifest.desc.digest }));
  const index = makeIndex(images);
  const dest = await openPushTarget(ref, opts);
  await dest.pushManifest(index.bytes, MEDIA_TYPES.ociIndex);
  return { index, digests };
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export interface ProxiedImage {
  reg: TestRegistry;
  proxy: FaultProxy;
  image: TestImage;
  /** The image's reference through the proxy: `PROXY/ocp/release:4.16.0`. */
  ref: string;
}

/**
 * For a test file: the real registry (open), the fault proxy in front of it, and one image of `noise` random
 * bytes pushed through the proxy; the proxy's log is cleared before each test. `set` receives them once running.
 */
export function useProxiedImage(noise: number, set: (s: ProxiedImage) => void): void {
  let reg: TestRegistry | undefined;
  let proxy: FaultProxy | undefined;
  printLogsOnFailure(() => reg);
  beforeAll(async () => {
    reg = await startRegistry({ mode: 'open' });
    proxy = await startFaultProxy(reg.url);
    const image = await makeImage({ noise });
    const ref = `${proxy.host}/ocp/release:4.16.0`;
    await pushImage(ref, image, { insecure: true, env: {} });
    set({ reg, proxy, image, ref });
  });
  afterAll(async () => {
    await proxy?.close();
    await reg?.stop();
  });
  beforeEach(() => proxy?.clear());
}
