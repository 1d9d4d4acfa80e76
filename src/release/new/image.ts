/**
 * The release image: an optional base image plus one appended release-manifests layer, with the config
 * rewritten as oc does (labels replaced by io.openshift.release and io.openshift.release.base-image-digest,
 * one history entry, os/arch defaulting to linux/amd64); on a manifest-list base, that on each of its images.
 */
import { OsimageError } from '../../errors.js';
import { selectPlatform } from '../../registry/platform.js';
import {
  isIndex,
  MEDIA_TYPES,
  type Descriptor,
  type FetchedManifest,
  type ImageConfig,
  type ImageManifest,
  type ImageSource,
} from '../../registry/types.js';
import { LayerWriter, jsonBlob, type Blob, type BuiltLayer } from '../build-layer.js';
import { readImageConfig } from '../info.js';
import type { PayloadFile } from './assemble.js';

export const RELEASE_LABEL = 'io.openshift.release';
export const BASE_DIGEST_LABEL = 'io.openshift.release.base-image-digest';

/**
 * The release-manifests layer: the folder entry (0777, no trailing slash), then every file (0444). A file that
 * came from an image keeps its entry's time, as in oc; the folder takes `folderTime`, else the creation time.
 */
export async function releaseLayer(files: PayloadFile[], created: string, docker: boolean, folderTime?: Date): Promise<BuiltLayer> {
  const w = releaseLayerWriter(created, folderTime);
  try {
    for (const f of files) await w.add(f);
  } catch (err) {
    w.abort(err as Error);
    throw err;
  }
  return withMediaType(await w.finish(), docker);
}

/** The release layer made a file at a time (see releaseLayer): each file's data may go once it is added. */
export interface ReleaseLayerWriter {
  add(file: PayloadFile): Promise<void>;
  abort(err?: Error): void;
  /** The layer, with the OCI layer media type (composeReleaseImage gives it the base's kind). */
  finish(): Promise<BuiltLayer>;
}

export function releaseLayerWriter(created: string, folderTime?: Date): ReleaseLayerWriter {
  const mtime = new Date(created);
  const w = new LayerWriter();
  let first: Promise<void> | undefined = w.add({ name: 'release-manifests', type: 'directory', mode: 0o777, mtime: folderTime ?? mtime });
  // Awaited by the next add or finish; a writer aborted before then must not leave an unhandled rejection.
  first.catch(() => undefined);
  const started = async () => {
    if (first) await first;
    first = undefined;
  };
  return {
    add: async (f) => {
      await started();
      await w.add({ name: `release-manifests/${f.name}`, data: f.data, mode: 0o444, mtime: f.mtime ?? mtime });
    },
    abort: (err) => w.abort(err),
    finish: async () => {
      await started();
      return w.finish();
    },
  };
}

/** The layer as a Docker image's layer when the base is a Docker image (the bytes are the same). */
function withMediaType(layer: BuiltLayer, docker: boolean): BuiltLayer {
  const mediaType = docker ? MEDIA_TYPES.dockerLayerGzip : MEDIA_TYPES.ociLayerGzip;
  return layer.descriptor.mediaType === mediaType ? layer : { ...layer, descriptor: { ...layer.descriptor, mediaType } };
}

export interface BaseImage {
  source: ImageSource;
  /** The chosen image manifest's digest (recorded in io.openshift.release.base-image-digest). */
  digest: string;
  layers: Descriptor[];
  config: ImageConfig;
  docker: boolean;
}

async function baseOf(source: ImageSource, m: FetchedManifest & { parsed: ImageManifest }): Promise<BaseImage> {
  const config = await readImageConfig(source, m.parsed.config);
  const mt = m.mediaType || m.parsed.mediaType || '';
  return { source, digest: m.digest, layers: m.parsed.layers, config, docker: mt === MEDIA_TYPES.dockerManifest };
}

/** A manifest list as a base: each of its images, in the list's order, the release layer goes on every one. */
export interface BaseList {
  source: ImageSource;
  list: FetchedManifest & { parsed: { manifests: Descriptor[] } };
  images: Array<{ entry: Descriptor; base: BaseImage }>;
}

/**
 * The base as oc's `new` takes it: an image; a manifest list with one entry, as its image; a longer list only with
 * `keepManifestList` (then every image of it, as a list), else oc's error. osimage also takes one image of the
 * list with an explicit `--filter-by-os`.
 */
export async function loadBases(
  source: ImageSource,
  opts: { filterByOs?: string | undefined; keepManifestList?: boolean | undefined } = {},
): Promise<BaseImage | BaseList> {
  const top = await source.manifest();
  if (!isIndex(top.parsed)) return baseOf(source, top as FetchedManifest & { parsed: ImageManifest });
  const entries = top.parsed.manifests;
  const child = async (entry: Descriptor) => {
    const m = await source.manifestByDigest(entry.digest);
    if (isIndex(m.parsed)) {
      throw new OsimageError(`image ${source.name}: the manifest list entry ${entry.digest} is itself a list, which is unsupported`);
    }
    return baseOf(source, m as FetchedManifest & { parsed: ImageManifest });
  };
  if (entries.length === 1) return child(entries[0]!);
  if (opts.keepManifestList) {
    const images = [];
    for (const entry of entries) images.push({ entry, base: await child(entry) });
    return { source, list: top as BaseList['list'], images };
  }
  if (opts.filterByOs !== undefined && opts.filterByOs !== '') return child(selectPlatform(top.parsed, source.name, opts.filterByOs));
  throw new OsimageError(
    `use --keep-manifest-list option for image manifest type *manifestlist.DeserializedManifestList from manifest ${top.digest}`,
  );
}

export const isBaseList = (b: BaseImage | BaseList | undefined): b is BaseList => b !== undefined && 'images' in b;

export interface ReleaseImage {
  manifest: Blob;
  config: Blob;
  layer: BuiltLayer;
  /** Base layers (bottom first), to copy from the base source. */
  baseLayers: Descriptor[];
  created: string;
}

export async function composeReleaseImage(opts: {
  name: string;
  files: PayloadFile[];
  created: string;
  base?: BaseImage;
  folderTime?: Date | undefined;
  /** The release layer already made of the files (releaseLayerWriter), else it is made here. */
  layer?: BuiltLayer | undefined;
}): Promise<ReleaseImage> {
  const docker = opts.base?.docker ?? false;
  const layer = opts.layer ? withMediaType(opts.layer, docker) : await releaseLayer(opts.files, opts.created, docker, opts.folderTime);
  const baseConfig: ImageConfig = opts.base?.config ?? {};
  const config: ImageConfig = {
    ...baseConfig,
    created: opts.created,
    architecture: baseConfig.architecture || 'amd64',
    os: baseConfig.os || 'linux',
    config: {
      ...(baseConfig.config ?? {}),
      Labels: { [RELEASE_LABEL]: opts.name, ...(opts.base ? { [BASE_DIGEST_LABEL]: opts.base.digest } : {}) },
    },
    rootfs: { type: 'layers', diff_ids: [...(baseConfig.rootfs?.diff_ids ?? []), layer.diffId] },
    history: [{ created: opts.created, comment: 'Release image for OpenShift' }],
  };
  if ((opts.base?.layers.length ?? 0) !== (baseConfig.rootfs?.diff_ids?.length ?? 0)) {
    throw new OsimageError(
      `base image ${opts.base?.source.name}: its config lists ${baseConfig.rootfs?.diff_ids?.length ?? 0} layers, its manifest ${opts.base?.layers.length}`,
    );
  }
  const configBlob = jsonBlob(config, docker ? MEDIA_TYPES.dockerConfig : MEDIA_TYPES.ociConfig);
  const baseLayers = opts.base?.layers ?? [];
  const manifest = jsonBlob(
    {
      schemaVersion: 2,
      mediaType: docker ? MEDIA_TYPES.dockerManifest : MEDIA_TYPES.ociManifest,
      config: configBlob.descriptor,
      layers: [...baseLayers, layer.descriptor],
    },
    docker ? MEDIA_TYPES.dockerManifest : MEDIA_TYPES.ociManifest,
  );
  return { manifest, config: configBlob, layer, baseLayers, created: opts.created };
}

/** A release made on every image of a manifest list: one image each, and the list naming them (in the base's order). */
export interface ReleaseList {
  manifest: Blob;
  images: ReleaseImage[];
  created: string;
}

/**
 * The release layer on each image of the list, and a list of the same kind (a Docker list stays one, an OCI index
 * one) whose entries keep their platforms and name the new images.
 */
export async function composeReleaseList(opts: {
  name: string;
  files: PayloadFile[];
  created: string;
  bases: BaseList;
  folderTime?: Date | undefined;
  layer?: BuiltLayer | undefined;
}): Promise<ReleaseList> {
  const images: ReleaseImage[] = [];
  for (const { base } of opts.bases.images) {
    images.push(
      await composeReleaseImage({
        name: opts.name,
        files: opts.files,
        created: opts.created,
        base,
        folderTime: opts.folderTime,
        layer: opts.layer,
      }),
    );
  }
  const mediaType = opts.bases.list.mediaType === MEDIA_TYPES.ociIndex ? MEDIA_TYPES.ociIndex : MEDIA_TYPES.dockerList;
  const manifests = opts.bases.images.map(({ entry }, i) => {
    const d = images[i]!.manifest.descriptor;
    const { mediaType: _m, size: _s, digest: _d, ...rest } = entry;
    return { mediaType: d.mediaType, size: d.size, digest: d.digest, ...rest };
  });
  return { manifest: jsonBlob({ schemaVersion: 2, mediaType, manifests }, mediaType), images, created: opts.created };
}
