/**
 * Stream metadata: the bootimage JSON the installer pins (`data/data/coreos/*.json`), prints
 * (`openshift-install coreos print-stream-json`) and ships in the payload (`coreos-bootimages`), in the
 * shape of coreos/stream-metadata-go `stream.Stream` with the RHCOS extensions.
 */

export interface StreamArtifact {
  location: string;
  signature?: string;
  sha256?: string;
  'uncompressed-sha256'?: string;
}

/** One format of a platform: a disk, or the PXE trio. */
export interface StreamFormat {
  disk?: StreamArtifact;
  kernel?: StreamArtifact;
  initramfs?: StreamArtifact;
  rootfs?: StreamArtifact;
}

export interface PlatformArtifacts {
  release: string;
  formats: Record<string, StreamFormat>;
}

export interface RegionImage {
  release: string;
  image: string;
}

export interface ReplicatedImage {
  regions: Record<string, RegionImage>;
}

/** IBM Cloud and PowerVS: an object in a bucket per region. */
export interface RegionObject {
  release: string;
  object: string;
  bucket: string;
  url: string;
}

export interface ReplicatedObject {
  regions: Record<string, RegionObject>;
}

export interface GcpImage {
  release: string;
  project: string;
  family?: string;
  name: string;
}

export interface ContainerImage {
  release: string;
  /** The repository with a tag. */
  image: string;
  /** The repository with the digest. */
  'digest-ref': string;
}

export interface StreamImages {
  aliyun?: ReplicatedImage;
  aws?: ReplicatedImage;
  gcp?: GcpImage;
  ibmcloud?: ReplicatedObject;
  kubevirt?: ContainerImage;
  powervs?: ReplicatedObject;
}

export interface AzureDisk {
  release: string;
  url: string;
}

export interface RhcosExtensions {
  'aws-winli'?: ReplicatedImage;
  'azure-disk'?: AzureDisk;
  marketplace?: Record<string, unknown>;
}

export interface StreamArch {
  artifacts: Record<string, PlatformArtifacts>;
  images: StreamImages;
  'rhel-coreos-extensions'?: RhcosExtensions;
}

export interface StreamJson {
  stream: string;
  metadata: { 'last-modified': string; generator?: string };
  architectures: Record<string, StreamArch>;
}
