/**
 * The machine-os build a release ships, found as `verify` finds it: the release's OS tag (the first of
 * OS_TAG_PREFERENCE it has) and its `machine-os` version annotation. A layered tag whose annotation is missing
 * or is not an OCP+RHEL build id (a 4.19+ node image) is read for its labels: a node image names its base
 * build (`org.opencontainers.image.version`), which is what the release browser has.
 */
import { describe } from '../errors.js';
import { containerKeyForTag } from '../oci/os-tags.js';
import type { ImageSource, SourceOptions } from '../registry/types.js';
import { loadReleaseInfo, type ReleaseInfo } from '../release/info.js';
import { inspectOsImage } from '../release/os-image-config.js';
import { parseBuildId } from '../rhcos/build-id.js';
import { defaultOsTag, payloadSide, withLabels } from './verify.js';

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
