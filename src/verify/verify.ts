/**
 * `verify`: is the OS image the payload ships the bootimage's own? Every generation: the payload's
 * `rhel-coreos`, `rhel-coreos-8` or `machine-os-content` (the first it has), an exact `--tag`, or an OS image
 * stream's OS image, against the meta.json container that tag pairs with (src/oci/os-tags.ts); a 4.19+ node
 * image by its base build. Core only: it resolves, reads and compares, and returns a report.
 */
import { type Warning, describe } from '../errors.js';
import { openImage } from '../registry/open.js';
import type { SourceOptions } from '../registry/types.js';
import { loadReleaseInfo } from '../release/info.js';
import { inspectOsImage, releaseOsStreams } from '../release/os-image-config.js';
import { findStream, osStreamByTagNames, type OsStream, type OsStreams } from '../release/os-streams.js';
import { imageFor, type ImageStream } from '../oci/image-stream.js';
import { containerKeyForTag, type ContainerKey } from '../oci/os-tags.js';
import { defaultOsTag, OCI_VERSION, type OsImageSide, payloadSide, withLabels } from '../release/os-build.js';
import { requireOsContainer, resolveBuild, type ResolvedBuild } from '../rhcos/resolve.js';
import type { Settings } from '../rhcos/settings.js';
import { platformForArch } from '../rhcos/platform.js';
import { compareOsImages, sameImage, type Comparison } from './compare.js';
import { compareExtensions, extensionsTagFor, type ExtensionsReport } from './extensions.js';
import { compareBootimages, type BootimagesReport } from './bootimages.js';
import { BOOTIMAGES_MANIFEST } from '../release/bootimages.js';
import { RELEASE_FOLDER } from '../release/info.js';

export interface VerifyRequest {
  /** The release image as the user typed it. */
  release: string;
  /** One exact payload tag; by default the first of OS_TAG_PREFERENCE the payload has. */
  tag?: string | undefined;
  /** Verify this OS image stream's OS image (found as `release os-streams` finds it) instead of a tag. */
  osStream?: string | undefined;
  /** Where the bootimage comes from. */
  settings: Settings;
  /** `FILE:LINE` of the build pin, when the build came from a release script. */
  pinnedIn?: string | undefined;
  /** Registry options for the release image and the OS container. */
  sourceOptions?: SourceOptions;
  /**
   * --filter-by-os for a multi-arch release and a multi-arch OS container; by default the platform of the
   * bootimage's architecture (x86_64 → linux/amd64, aarch64 → linux/arm64, …).
   */
  filterByOs?: string | undefined;
}

export interface BootimageInfo {
  build: string;
  channel: string;
  arch: string;
  baseUrl: string;
  metaUrl: string;
  pinnedIn: string | undefined;
}

export interface VerifyReport extends Comparison {
  release: string;
  tag: string;
  /** The OS image stream verified (--os-stream), else undefined. */
  osStream: string | undefined;
  /** The meta.json container the bootimage side was read from. */
  containerKey: ContainerKey;
  extensions: ExtensionsReport;
  /** The payload's coreos-bootimages stream against the pinned build and arch. */
  bootimages: BootimagesReport;
  /** The release image's manifest digest. */
  releaseDigest: string;
  build: BootimageInfo;
  /** Things that do not change the verdict but that the reader should know (an unreachable OS container). */
  notes: string[];
  /** Warnings from resolving the build (meta.json naming another build id). */
  warnings: Warning[];
}

/**
 * The bootimage side: the build's meta.json container `key` (`oscontainer` by default). A build without an
 * `oscontainer` is an error naming it and its meta.json; a build without another key falls back to its
 * `oscontainer`, with a note (builds before 4.12 publish only that).
 */
export function bootimageSide(resolved: ResolvedBuild, key: ContainerKey = 'oscontainer', notes: string[] = []): OsImageSide {
  const c = key === 'oscontainer' ? null : resolved.meta.containers[key];
  if (c === null) {
    const hint =
      key === 'oscontainer'
        ? 'there is no OS container to compare with the payload (builds before early 2019 did not publish one)'
        : `there is no OS container to compare with the payload (it has no "${key}" either)`;
    const pullspec = requireOsContainer(resolved, hint);
    if (key !== 'oscontainer')
      notes.push(`RHCOS build ${resolved.build} has no "${key}" in ${resolved.metaUrl}: compared with its "oscontainer"`);
    return { pullspec, digest: resolved.meta.oscontainer?.digest, buildId: resolved.build, buildIdSource: 'meta.json' };
  }
  return {
    pullspec: c.pullspec,
    digest: c.digest ?? undefined,
    buildId: resolved.build,
    buildIdSource: 'meta.json',
    ...(c.manifestListDigest ? { listDigest: c.manifestListDigest } : {}),
  };
}

/**
 * Compare the bootimage the settings name with the payload's OS image. When the digests differ and the
 * payload's build id (or digest) is not in image-references, or the tag is a layered one (a 4.19+ node image
 * is only known by its labels), the OS container itself is read for its labels (from the release's own
 * layout on oci:/oci-archive:); when it cannot be reached, a note says so and the build id stays unknown.
 * The extensions image is compared too; its drift makes the report inconsistent.
 */
export async function verify(req: VerifyRequest): Promise<VerifyReport> {
  const opts = req.sourceOptions ?? {};
  const resolved = await resolveBuild(req.settings);
  const platform = req.filterByOs ?? platformForArch(resolved.arch);

  const source = await openImage(req.release, opts);
  let references: ImageStream;
  let releaseDigest: string;
  let bootimagesFile: Buffer | undefined;
  try {
    // A multi-arch release: the payload of the bootimage's architecture, unless --filter-by-os says otherwise.
    // coreos-bootimages is kept when it is in the layers read for image-references (oc writes both in one).
    // The merged view: what the cluster-version operator sees in the running payload, whatever layer holds it.
    const info = await loadReleaseInfo(req.release, source, {
      layers: 'merged',
      referencesOnly: true,
      filterByOs: platform,
      alsoRead: [BOOTIMAGES_MANIFEST],
    });
    references = info.references;
    releaseDigest = info.listDigest ?? info.digest;
    bootimagesFile = info.raw.files?.[BOOTIMAGES_MANIFEST];
  } finally {
    await source.close();
  }

  let tag: string;
  let extensionsTag: string | undefined;
  let defaultStream = true;
  const notes: string[] = [];
  if (req.osStream !== undefined) {
    const stream = await osStreamOf(req.release, references, req.osStream, { opts, platform, notes });
    defaultStream = stream.isDefault;
    tag = stream.stream.osTag;
    extensionsTag = stream.stream.extensionsTag;
  } else {
    tag = req.tag ?? defaultOsTag(references, req.release);
  }
  const key: ContainerKey = req.osStream !== undefined ? 'base-oscontainer' : (containerKeyForTag(tag) ?? 'oscontainer');
  const layered = key === 'base-oscontainer';
  if (extensionsTag === undefined && layered) extensionsTag = extensionsTagFor(tag);

  const bootimage = bootimageSide(resolved, key, notes);
  let payload = payloadSide(references, tag, req.release);

  // A layered OS image is read whenever it is not the build's own: from 4.19 it is a node image, known by its labels.
  const readLabels = layered || payload.buildId === undefined || payload.digest === undefined;
  if (!sameImage(bootimage, payload.digest) && readLabels) {
    try {
      const facts = await inspectOsImage(req.release, payload.pullspec, opts, platform);
      payload = withLabels({ ...payload, digest: payload.digest ?? facts.digest }, facts.labels);
      if (payload.buildId === undefined) {
        notes.push(
          `the OS container ${payload.pullspec} has no build id label (coreos.build.manifest-list-tag, org.opencontainers.image.version, version): its build is unknown`,
        );
      }
    } catch (err) {
      notes.push(`could not read the OS container ${payload.pullspec} (offline?): ${describe(err)}; its build is unknown`);
    }
  }
  const matched = sameImage(bootimage, payload.digest); // a tag may have resolved to it
  if (matched && payload.buildId === undefined) {
    // The same image as the bootimage's OS container: its build is the bootimage's.
    payload = { ...payload, buildId: bootimage.buildId, buildIdSource: 'digest' };
  } else if (matched && payload.buildId !== bootimage.buildId) {
    notes.push(
      `the payload's ${payload.buildIdSource} says build ${payload.buildId}, but its digest is that of build ${bootimage.buildId}'s OS container`,
    );
  }
  if (bootimage.digest === undefined)
    notes.push(`${resolved.metaUrl} gives no ${key} digest: the bootimage's OS container is only known by tag`);

  const extensions = await extensionsOf(req.release, references, extensionsTag, resolved, payload, { opts, platform, notes });
  const comparison = compareOsImages(bootimage, payload);
  const bootimages = compareBootimages(
    {
      file: bootimagesFile,
      where: `${req.release} (${RELEASE_FOLDER}/${BOOTIMAGES_MANIFEST})`,
      osStream: req.osStream,
      isDefault: defaultStream,
      arch: resolved.arch,
      pinnedBuild: resolved.build,
    },
    notes,
  );
  return {
    ...comparison,
    consistent: comparison.consistent && extensions.verdict !== 'drift' && bootimages.verdict !== 'differs',
    release: req.release,
    tag,
    osStream: req.osStream,
    containerKey: key,
    extensions,
    bootimages,
    releaseDigest,
    build: {
      build: resolved.build,
      channel: resolved.channel,
      arch: resolved.arch,
      baseUrl: resolved.baseUrl,
      metaUrl: resolved.metaUrl,
      pinnedIn: req.pinnedIn,
    },
    notes,
    warnings: resolved.warnings,
  };
}

/**
 * OS stream `name` of the release, found by the images' labels as the MCO finds it; when they cannot be read (an
 * archive without the OS images, no network) by its tag names, with a note, as the default stream degrades.
 */
async function osStreamOf(
  release: string,
  references: ImageStream,
  name: string,
  ctx: { opts: SourceOptions; platform: string; notes: string[] },
): Promise<{ stream: OsStream; isDefault: boolean }> {
  let found: OsStreams;
  try {
    found = await releaseOsStreams(release, references, ctx.opts, ctx.platform);
  } catch (err) {
    const byName = osStreamByTagNames(references, name);
    if (!byName) throw err;
    ctx.notes.push(
      `could not read the OS images' labels to find OS stream ${name} (${describe(err)}); took its tags by name: ${byName.stream.osTag}, ${byName.stream.extensionsTag}`,
    );
    return byName;
  }
  return { stream: findStream(found, name, release), isDefault: found.defaultStream === name };
}

/** The extensions verdict: the payload's extensions tag against the build's `extensions-container`. */
async function extensionsOf(
  release: string,
  references: ImageStream,
  tag: string | undefined,
  resolved: ResolvedBuild,
  payload: OsImageSide,
  ctx: { opts: SourceOptions; platform: string; notes: string[] },
): Promise<ExtensionsReport> {
  const pullspec = tag === undefined ? undefined : imageFor(references, tag);
  const build = tag === undefined ? null : resolved.meta.containers['extensions-container'];
  let base: { extensions: string | undefined; pinned: string } | undefined;
  if (pullspec !== undefined && build !== null && payload.nodeImage !== undefined) {
    try {
      const facts = await inspectOsImage(release, pullspec, ctx.opts, ctx.platform);
      base = { extensions: facts.labels[OCI_VERSION] || undefined, pinned: resolved.build };
    } catch (err) {
      ctx.notes.push(`could not read the extensions image ${pullspec} (offline?): ${describe(err)}; its build is unknown`);
    }
  }
  return compareExtensions(tag, pullspec, build, base);
}
