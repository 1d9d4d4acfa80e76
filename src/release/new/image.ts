/**
 * The release image: an optional base image plus one appended release-manifests layer, with the config
 * rewritten as oc does (labels replaced by io.openshift.release and io.openshift.release.base-image-digest,
 * one history entry, os/arch defaulting to linux/amd64).
 */
import { OsimageError } from '../../errors.js';
import { resolveImage } from '../../registry/platform.js';
import { MEDIA_TYPES, type Descriptor, type ImageConfig, type ImageSource } from '../../registry/types.js';
import { buildLayer, jsonBlob, type Blob, type BuiltLayer } from '../build-layer.js';
import { readImageConfig } from '../info.js';
import type { PayloadFile } from './assemble.js';

export const RELEASE_LABEL = 'io.openshift.release';
export const BASE_DIGEST_LABEL = 'io.openshift.release.base-image-digest';

/**
 * The release-manifests layer: the folder entry (0777, no trailing slash), then every file (0444). A file that
 * came from an image keeps its entry's time, as in oc; the folder takes `folderTime`, else the creation time.
 */
export async function releaseLayer(files: PayloadFile[], created: string, docker: boolean, folderTime?: Date): Promise<BuiltLayer> {
  const mtime = new Date(created);
  return buildLayer(
    [
      { name: 'release-manifests', type: 'directory', mode: 0o777, mtime: folderTime ?? mtime },
      ...files.map((f) => ({ name: `release-manifests/${f.name}`, data: f.data, mode: 0o444, mtime: f.mtime ?? mtime })),
    ],
    docker ? { mediaType: MEDIA_TYPES.dockerLayerGzip } : {},
  );
}

export interface BaseImage {
  source: ImageSource;
  /** The chosen image manifest's digest (recorded in io.openshift.release.base-image-digest). */
  digest: string;
  layers: Descriptor[];
  config: ImageConfig;
  docker: boolean;
}

export async function loadBase(source: ImageSource, filterByOs?: string): Promise<BaseImage> {
  const resolved = await resolveImage(source, filterByOs);
  const m = resolved.manifest.parsed;
  const config = await readImageConfig(source, m.config);
  const mt = resolved.manifest.mediaType || m.mediaType || '';
  return { source, digest: resolved.manifest.digest, layers: m.layers, config, docker: mt === MEDIA_TYPES.dockerManifest };
}

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
}): Promise<ReleaseImage> {
  const docker = opts.base?.docker ?? false;
  const layer = await releaseLayer(opts.files, opts.created, docker, opts.folderTime);
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
