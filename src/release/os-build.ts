/**
 * The machine-os build a release ships (for `verify`, `diff` and `release diff`): the release's OS tag (the
 * first of OS_TAG_PREFERENCE it has) and its `machine-os` version annotation. A layered tag whose annotation is missing
 * or is not an OCP+RHEL build id (a 4.19+ node image) is read for its labels: a node image names its base
 * build (`org.opencontainers.image.version`), which is what the release browser has.
 */
import { OsimageError, describe } from '../errors.js';
import { digestOf } from '../oci/digest.js';
import { dockerImage, imageFor, type ImageStream } from '../oci/image-stream.js';
import { containerKeyForTag, OS_TAG_PREFERENCE } from '../oci/os-tags.js';
import type { ImageSource, SourceOptions } from '../registry/types.js';
import { buildIdFromLabels, machineOsFromVersions, parseBuildId } from '../rhcos/build-id.js';
import { loadReleaseInfo, type ReleaseInfo } from './info.js';
import { inspectOsImage } from './os-image-config.js';
import { ANNOTATION_VERSIONS } from './references.js';

/** One side of a comparison: where its OS image is and, when known, which build it is. */
export interface OsImageSide {
  pullspec: string;
  digest: string | undefined;
  buildId: string | undefined;
  /** Where the build id came from: `meta.json`, `annotation`, `labels`, `digest`, `node-image`. */
  buildIdSource: string | undefined;
  /** The bootimage's manifest list digest (meta.json `manifest-list-digest`): a payload naming it is the same OS. */
  listDigest?: string | undefined;
  /**
   * A payload node image (4.19+): its `coreos.build.manifest-list-tag`. Its buildId is then its base build
   * (`org.opencontainers.image.version`), which is compared with the bootimage's build.
   */
  nodeImage?: string | undefined;
}

export interface ReleaseOsBuild {
  release: string;
  /** The release version (release-metadata), else image-references' name. */
  name: string;
  tag: string;
  /** undefined when neither the annotation nor the labels name a build. */
  build: string | undefined;
  /** The node image's manifest-list tag when the OS image is a node image (4.19+). */
  nodeImage: string | undefined;
  notes: string[];
}

/** Open `release`'s image-references and find its machine-os build. */
export async function releaseOsBuild(release: string, source: ImageSource, opts: SourceOptions, platform: string): Promise<ReleaseOsBuild> {
  return osBuildOf(await loadReleaseInfo(release, source, { referencesOnly: true, filterByOs: platform }), opts, platform);
}

/** The machine-os build of a release already read (its OS image is opened only when its labels are needed). */
export async function osBuildOf(info: ReleaseInfo, opts: SourceOptions, platform: string): Promise<ReleaseOsBuild> {
  const release = info.image;
  const tag = defaultOsTag(info.references, release);
  let side = payloadSide(info.references, tag, release);
  const notes: string[] = [];
  const layered = containerKeyForTag(tag) === 'base-oscontainer';
  const annotated = side.buildId === undefined ? undefined : parseBuildId(side.buildId);
  if (side.buildId === undefined || (layered && annotated?.shape !== 'ocp-rhel' && annotated?.shape !== 'counter')) {
    try {
      const facts = await inspectOsImage(release, side.pullspec, opts, platform);
      side = withLabels(side, facts.labels);
    } catch (err) {
      notes.push(`could not read the OS image ${side.pullspec} of ${release} (offline?): ${describe(err)}`);
    }
  }
  return {
    release,
    name: info.metadata?.version || info.references.metadata.name || release,
    tag,
    build: side.buildId,
    nodeImage: side.nodeImage,
    notes,
  };
}

/** The payload's OS tag to verify: the first of OS_TAG_PREFERENCE it has, or oc's error naming them all. */
export function defaultOsTag(references: ImageStream, release: string): string {
  const tag = OS_TAG_PREFERENCE.find((t) => imageFor(references, t) !== undefined);
  if (tag) return tag;
  const names = OS_TAG_PREFERENCE.map((t) => `"${t}"`);
  throw new OsimageError(`no image tag ${names.slice(0, -1).join(', ')} or ${names.at(-1)} exists in the release image ${release}`);
}

/** The payload side from image-references: the tag's pullspec and, when annotated, its `machine-os=<id>`. */
export function payloadSide(references: ImageStream, tag: string, release: string): OsImageSide {
  const ref = (references.spec.tags ?? []).find((t) => t.name === tag && dockerImage(t));
  const pullspec = ref ? dockerImage(ref) : undefined;
  if (!ref || !pullspec) throw new OsimageError(`no image tag "${tag}" exists in the release image ${release}`);
  const buildId = machineOsFromVersions(ref.annotations?.[ANNOTATION_VERSIONS]);
  return { pullspec, digest: digestOf(pullspec), buildId, buildIdSource: buildId ? 'annotation' : undefined };
}

const MANIFEST_LIST_TAG = 'coreos.build.manifest-list-tag';
/** The label a node image names its base build with (the build the release browser has). */
export const OCI_VERSION = 'org.opencontainers.image.version';

/**
 * The payload side after its labels were read: a node image (it has `coreos.build.manifest-list-tag`) is
 * judged by its base build (`org.opencontainers.image.version`); any other image takes a build id from its
 * labels only when image-references gave none.
 */
export function withLabels(payload: OsImageSide, labels: Record<string, string>): OsImageSide {
  const nodeImage = labels[MANIFEST_LIST_TAG];
  if (nodeImage && /-node-image$/.test(nodeImage)) {
    const base = labels[OCI_VERSION] || undefined;
    return { ...payload, nodeImage, buildId: base, buildIdSource: base ? 'node-image' : undefined };
  }
  if (payload.buildId !== undefined) return payload;
  const fromLabels = buildIdFromLabels(labels);
  return fromLabels === undefined ? payload : { ...payload, buildId: fromLabels, buildIdSource: 'labels' };
}
