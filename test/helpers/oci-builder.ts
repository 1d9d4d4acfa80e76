/**
 * Thin test helpers over src/release/build-layer.ts and src/registry/oci-write.ts: release payload fixtures, temp
 * layouts and archives, and an ImageSource wrapper that records which blobs were read.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { buildImage, buildIndex, buildLayer, type BuiltImage, type BuiltIndex, type LayerEntry } from '../../src/release/build-layer.js';
import { writeOciArchive, writeOciLayout, type LayoutEntry } from '../../src/registry/oci-write.js';
import type { Descriptor, FetchedManifest, ImageSource, Platform } from '../../src/registry/types.js';

export { whiteout, opaque } from '../../src/release/build-layer.js';

export const CLI_PULLSPEC = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'a'.repeat(64)}`;
export const MOC_PULLSPEC = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'b'.repeat(64)}`;

export interface TagSpec {
  name: string;
  pullspec?: string;
  kind?: string;
  annotations?: Record<string, string>;
}

/** image-references as oc writes it: 2-space JSON, tags sorted, no trailing newline. */
export function imageReferences(name = '4.13.1', tags?: TagSpec[]): string {
  const list: TagSpec[] = tags ?? [
    {
      name: 'cli',
      pullspec: CLI_PULLSPEC,
      annotations: {
        'io.openshift.build.commit.id': '1'.repeat(40),
        'io.openshift.build.commit.ref': '',
        'io.openshift.build.source-location': 'https://github.com/openshift/oc',
        'io.openshift.build.versions': 'kubectl=1.26.1',
      },
    },
    {
      name: 'machine-os-content',
      pullspec: MOC_PULLSPEC,
      annotations: {
        'io.openshift.build.commit.id': '',
        'io.openshift.build.commit.ref': '',
        'io.openshift.build.source-location': '',
        'io.openshift.build.version-display-names': 'machine-os=Red Hat Enterprise Linux CoreOS',
        'io.openshift.build.versions': 'machine-os=413.92.202305231734-0',
      },
    },
  ];
  const is = {
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: {
      name,
      creationTimestamp: '2023-05-25T08:25:20Z',
      annotations: { 'release.openshift.io/from-image-stream': 'ocp/4.13-art-latest-2023-05-24-134135' },
    },
    spec: {
      lookupPolicy: { local: false },
      tags: [...list]
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((t) => ({
          name: t.name,
          annotations: t.annotations ?? {},
          from: { kind: t.kind ?? 'DockerImage', name: t.pullspec ?? `quay.io/x/y@sha256:${'c'.repeat(64)}` },
          generation: null,
          importPolicy: {},
          referencePolicy: { type: '' },
        })),
    },
    status: { dockerImageRepository: '' },
  };
  return JSON.stringify(is, null, 2);
}

export function releaseMetadata(version = '4.13.1'): string {
  return JSON.stringify({
    kind: 'cincinnati-metadata-v0',
    version,
    previous: ['4.13.0', '4.12.17', '4.12.16'],
    metadata: { url: 'https://access.redhat.com/errata/RHSA-2023:3304' },
  });
}

/** A release layer's entries in oc's order: folder (no slash), image-references, release-metadata, manifests. */
export function releaseEntries(opts: { name?: string; tags?: TagSpec[]; extra?: LayerEntry[]; metadata?: boolean } = {}): LayerEntry[] {
  return [
    { name: 'release-manifests', type: 'directory', mode: 0o777 },
    { name: 'release-manifests/image-references', data: imageReferences(opts.name, opts.tags), mode: 0o444 },
    ...(opts.metadata === false ? [] : [{ name: 'release-manifests/release-metadata', data: releaseMetadata(opts.name), mode: 0o444 }]),
    { name: 'release-manifests/0000_50_x_a.yaml', data: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n' },
    ...(opts.extra ?? []),
  ];
}

/** A base layer with unrelated files. */
export function baseEntries(): LayerEntry[] {
  return [
    { name: 'etc', type: 'directory' },
    { name: 'etc/os-release', data: 'ID=rhel\n' },
    { name: 'usr/bin/cluster-version-operator', data: 'binary' },
  ];
}

export interface LayerSpec {
  entries: LayerEntry[];
  compression?: 'gzip' | 'none';
  mediaType?: string;
}

export async function image(
  layers: LayerSpec[],
  opts: { created?: string; os?: string; architecture?: string; variant?: string; labels?: Record<string, string> } = {},
): Promise<BuiltImage> {
  const built = [];
  for (const l of layers) {
    built.push(
      await buildLayer(l.entries, {
        ...(l.compression ? { compression: l.compression } : {}),
        ...(l.mediaType ? { mediaType: l.mediaType } : {}),
      }),
    );
  }
  return buildImage({ created: opts.created ?? '2023-05-25T08:25:20.123456789Z', ...opts, layers: built });
}

/** The usual release image: a base layer and a top layer with release-manifests/. */
export async function releaseImage(opts: Parameters<typeof releaseEntries>[0] & { architecture?: string } = {}): Promise<BuiltImage> {
  return image(
    [{ entries: baseEntries() }, { entries: releaseEntries(opts) }],
    opts.architecture ? { architecture: opts.architecture } : {},
  );
}

export function multiArch(images: Array<{ image: BuiltImage; platform: Platform }>): BuiltIndex {
  return buildIndex(images);
}

export function entry(top: BuiltImage | BuiltIndex, tag?: string): LayoutEntry {
  return { top, blobs: top.blobs, ...(tag !== undefined ? { tag } : {}) };
}

export interface Temp {
  dir: string;
  cleanup(): Promise<void>;
}

export async function tempDir(prefix = 'osimage-release-'): Promise<Temp> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A temp folder for one test file (made before its tests, removed after them) and `refOf`, which writes an
 * image of the given layers (each a list of entries, bottom first) as a new layout in it: its `oci:` reference.
 */
export function tempLayouts(prefix?: string): { readonly dir: string; refOf(layers: LayerEntry[][]): Promise<string> } {
  let tmp: Temp | undefined;
  let n = 0;
  beforeAll(async () => {
    tmp = await tempDir(prefix);
  });
  afterAll(async () => {
    await tmp?.cleanup();
  });
  return {
    get dir() {
      if (!tmp) throw new Error('tempLayouts: used outside a test');
      return tmp.dir;
    },
    async refOf(layers) {
      const img = await image(layers.map((entries) => ({ entries })));
      return layout(this.dir, `img${n++}`, [entry(img)]);
    },
  };
}

/** Write a layout folder under `dir/name` and return its `oci:` reference (with the tag when given). */
export async function layout(dir: string, name: string, entries: LayoutEntry[], tag?: string): Promise<string> {
  const path = join(dir, name);
  await writeOciLayout(path, entries);
  return `oci:${path}${tag !== undefined ? `:${tag}` : ''}`;
}

export async function archive(
  dir: string,
  name: string,
  entries: LayoutEntry[],
  tag?: string,
  opts: { prefix?: string } = {},
): Promise<string> {
  const path = join(dir, name);
  await writeOciArchive(path, entries, opts);
  return `oci-archive:${path}${tag !== undefined ? `:${tag}` : ''}`;
}

/** An ImageSource that records every blob opened (digest, in order) and passes everything through. */
export class RecordingSource implements ImageSource {
  readonly blobsOpened: string[] = [];
  constructor(private readonly inner: ImageSource) {}
  get name(): string {
    return this.inner.name;
  }
  pullspecFor(digest: string): string {
    return this.inner.pullspecFor(digest);
  }
  manifest(): Promise<FetchedManifest> {
    return this.inner.manifest();
  }
  manifestByDigest(digest: string): Promise<FetchedManifest> {
    return this.inner.manifestByDigest(digest);
  }
  blob(desc: Descriptor): Promise<Readable> {
    this.blobsOpened.push(desc.digest);
    return this.inner.blob(desc);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Push a built image or index (and everything it needs) to `ref` (`host/repo:tag`) with the project's push client. */
export async function pushBuilt(
  ref: string,
  top: BuiltImage | BuiltIndex,
  opts: { insecure?: boolean; registryConfig?: string } = {},
): Promise<string> {
  const { openPushTarget } = await import('../../src/registry/push.js');
  const dest = await openPushTarget(ref, {
    insecure: opts.insecure ?? true,
    ...(opts.registryConfig ? { registryConfig: opts.registryConfig } : {}),
  });
  const images: BuiltImage[] = 'images' in top ? top.images : [top];
  for (const img of images) {
    for (const b of img.blobs) await dest.pushBlob(b.descriptor, b.bytes);
    if ('images' in top) await dest.pushManifest(img.bytes, img.descriptor.mediaType, img.descriptor.digest);
  }
  return dest.pushManifest(top.bytes, top.descriptor.mediaType);
}
