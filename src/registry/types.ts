/**
 * The contract between image transports (registry, oci:, oci-archive:) and their users
 * (release reader, release new, verify). One noun: an ImageSource.
 */
import type { Readable } from 'node:stream';
import type { CacheStore } from '../cache/store.js';
import type { OnWarning } from '../errors.js';
import type { MirrorSet } from './mirrors.js';

/** Manifests and indexes are small documents; a bigger one is refused (as containers/image does), on every transport. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

export const MEDIA_TYPES = {
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayerTar: 'application/vnd.oci.image.layer.v1.tar',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
  dockerSchema1: 'application/vnd.docker.distribution.manifest.v1+json',
  dockerSchema1Signed: 'application/vnd.docker.distribution.manifest.v1+prettyjws',
} as const;

export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
  platform?: Platform;
  urls?: string[];
}

export interface ImageManifest {
  schemaVersion: 2;
  mediaType?: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
}

export interface ImageIndex {
  schemaVersion: 2;
  mediaType?: string;
  manifests: Descriptor[];
  annotations?: Record<string, string>;
}

/** The parts of an image config we read. */
export interface ImageConfig {
  created?: string;
  architecture?: string;
  os?: string;
  variant?: string;
  config?: { Labels?: Record<string, string> | null; Env?: string[] | null; [k: string]: unknown };
  rootfs?: { type: string; diff_ids: string[] };
  history?: unknown[];
  [k: string]: unknown;
}

/** A manifest as fetched: its exact bytes (verified against the digest), media type and parsed form. */
export interface FetchedManifest {
  digest: string;
  mediaType: string;
  bytes: Buffer;
  parsed: ImageManifest | ImageIndex;
}

export function isIndex(m: ImageManifest | ImageIndex): m is ImageIndex {
  return Array.isArray((m as ImageIndex).manifests);
}

export interface SourceOptions {
  /** -a / --registry-config: an auth file (containers auth.json or docker config.json). */
  registryConfig?: string;
  /** --insecure: plain HTTP allowed and TLS not verified. */
  insecure?: boolean;
  /** --certificate-authority FILE */
  caFile?: string;
  /** --skip-verification: digest mismatches become warnings. */
  skipVerification?: boolean;
  /** Where warnings go (the command prints them on stderr). */
  onWarning?: OnWarning;
  /** Progress of blob downloads (bytes so far, total), for a TTY progress bar. */
  onProgress?: (digest: string, done: number, total: number) => void;
  /** The digest-keyed cache (src/cache), for sources that use one (the registry); ignored with skipVerification. */
  cache?: CacheStore;
  /** Digest mirrors (`--icsp-file` / `--idms-file`, registry/mirrors.ts) for images named by digest. */
  mirrors?: MirrorSet;
  /** Where `file://` references are read from (`--dir`; default: the current folder). */
  fileDir?: string;
}

/** Where images come from: a registry, an OCI image layout folder, or an OCI archive. */
export interface ImageSource {
  /** The reference as the user should see it (`quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64`, `oci:/path:tag`). */
  readonly name: string;
  /** A pullspec for an image in the same repository by digest (for "Pull From"); for oci transports, `name@digest`. */
  pullspecFor(digest: string): string;
  /** The manifest the reference names (by tag or digest), verified against its digest. */
  manifest(): Promise<FetchedManifest>;
  /** A manifest by digest (an index's child), verified. */
  manifestByDigest(digest: string): Promise<FetchedManifest>;
  /**
   * A blob as a stream. The stream fails (or warns with skipVerification) at its end when the bytes do not
   * match desc.digest and desc.size. Destroying it early stops the download.
   */
  blob(desc: Descriptor): Promise<Readable>;
  /** Release connections and temporary files. */
  close(): Promise<void>;
  /** Where verified content by digest may be kept and found again (undefined: not cached). */
  readonly cache?: CacheStore | undefined;
}
