/**
 * `verify`: is the OS image the payload ships (the release's `machine-os-content`, or `rhel-coreos`) the
 * bootimage's own OS container? Core only: it resolves, reads and compares, and returns a report.
 */
import { OsimageError, type Warning, describe } from '../errors.js';
import { openImage } from '../registry/open.js';
import { resolveImage } from '../registry/platform.js';
import type { SourceOptions } from '../registry/types.js';
import { loadReleaseInfo, readImageConfig } from '../release/info.js';
import { digestOf } from '../oci/digest.js';
import { dockerImage, OS_CONTENT_TAG, type ImageStream } from '../oci/image-stream.js';
import { ANNOTATION_VERSIONS } from '../release/references.js';
import { requireOsContainer, resolveBuild, type ResolvedBuild } from '../rhcos/resolve.js';
import type { Settings } from '../rhcos/settings.js';
import { buildIdFromLabels, machineOsFromVersions } from '../rhcos/build-id.js';
import { compareOsImages, type Comparison, type OsImageSide } from './compare.js';

export interface VerifyRequest {
  /** The release image as the user typed it. */
  release: string;
  /** The payload tag naming the OS image: machine-os-content, or rhel-coreos for 4.12+ payloads. */
  tag?: string;
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
  /** The release image's manifest digest. */
  releaseDigest: string;
  build: BootimageInfo;
  /** Things that do not change the verdict but that the reader should know (an unreachable OS container). */
  notes: string[];
  /** Warnings from resolving the build (meta.json naming another build id). */
  warnings: Warning[];
}

/** RHCOS architectures as image platforms. */
const PLATFORMS: Record<string, string> = {
  x86_64: 'linux/amd64',
  aarch64: 'linux/arm64',
  ppc64le: 'linux/ppc64le',
  s390x: 'linux/s390x',
};

export function platformForArch(arch: string): string {
  return PLATFORMS[arch] ?? `linux/${arch}`;
}

/** The bootimage side: the build's meta.json `oscontainer`. A build without one is an error naming it and its meta.json. */
export function bootimageSide(resolved: ResolvedBuild): OsImageSide {
  const pullspec = requireOsContainer(
    resolved,
    'there is no OS container to compare with the payload (builds before early 2019 did not publish one)',
  );
  return { pullspec, digest: resolved.meta.oscontainer?.digest, buildId: resolved.build, buildIdSource: 'meta.json' };
}

/** The payload side from image-references: the tag's pullspec and, when annotated, its `machine-os=<id>`. */
export function payloadSide(references: ImageStream, tag: string, release: string): OsImageSide {
  const ref = (references.spec.tags ?? []).find((t) => t.name === tag && dockerImage(t));
  const pullspec = ref ? dockerImage(ref) : undefined;
  if (!ref || !pullspec) throw new OsimageError(`no image tag "${tag}" exists in the release image ${release}`);
  const buildId = machineOsFromVersions(ref.annotations?.[ANNOTATION_VERSIONS]);
  return { pullspec, digest: digestOf(pullspec), buildId, buildIdSource: buildId ? 'annotation' : undefined };
}

export interface OsContainerFacts {
  /** The digest the pullspec names (the list's, for a manifest list). */
  digest: string;
  labels: Record<string, string>;
}

/** Read an OS container's digest and config labels from its registry (or oci: layout). */
export async function inspectOsContainer(pullspec: string, opts: SourceOptions, filterByOs: string): Promise<OsContainerFacts> {
  const source = await openImage(pullspec, opts);
  try {
    const resolved = await resolveImage(source, filterByOs);
    const config = await readImageConfig(source, resolved.manifest.parsed.config);
    return { digest: resolved.list?.digest ?? resolved.manifest.digest, labels: config.config?.Labels ?? {} };
  } finally {
    await source.close();
  }
}

/**
 * Compare the bootimage the settings name with the payload's OS image. When the digests differ and the
 * payload's build id (or digest) is not in image-references, the OS container itself is read for its
 * labels; when it cannot be reached, a note says so and the build id stays unknown.
 */
export async function verify(req: VerifyRequest): Promise<VerifyReport> {
  const tag = req.tag ?? OS_CONTENT_TAG;
  const opts = req.sourceOptions ?? {};
  const resolved = await resolveBuild(req.settings);
  const bootimage = bootimageSide(resolved);

  const source = await openImage(req.release, opts);
  let references: ImageStream;
  let releaseDigest: string;
  try {
    // A multi-arch release: the payload of the bootimage's architecture, unless --filter-by-os says otherwise.
    const info = await loadReleaseInfo(req.release, source, {
      referencesOnly: true,
      filterByOs: req.filterByOs ?? platformForArch(resolved.arch),
    });
    references = info.references;
    releaseDigest = info.listDigest ?? info.digest;
  } finally {
    await source.close();
  }
  let payload = payloadSide(references, tag, req.release);

  const notes: string[] = [];
  const sameDigest = bootimage.digest !== undefined && bootimage.digest === payload.digest;
  if (!sameDigest && (payload.buildId === undefined || payload.digest === undefined)) {
    const platform = req.filterByOs ?? platformForArch(resolved.arch);
    try {
      const facts = await inspectOsContainer(payload.pullspec, opts, platform);
      const fromLabels = buildIdFromLabels(facts.labels);
      payload = {
        ...payload,
        digest: payload.digest ?? facts.digest,
        ...(payload.buildId === undefined && fromLabels !== undefined ? { buildId: fromLabels, buildIdSource: 'labels' } : {}),
      };
      if (payload.buildId === undefined) {
        notes.push(
          `the OS container ${payload.pullspec} has no build id label (coreos.build.manifest-list-tag, org.opencontainers.image.version, version): its build is unknown`,
        );
      }
    } catch (err) {
      notes.push(`could not read the OS container ${payload.pullspec} (offline?): ${describe(err)}; its build is unknown`);
    }
  }
  const matched = bootimage.digest !== undefined && bootimage.digest === payload.digest; // a tag may have resolved to it
  if (matched && payload.buildId === undefined) {
    // The same image as the bootimage's OS container: its build is the bootimage's.
    payload = { ...payload, buildId: bootimage.buildId, buildIdSource: 'digest' };
  } else if (matched && payload.buildId !== bootimage.buildId) {
    notes.push(
      `the payload's ${payload.buildIdSource} says build ${payload.buildId}, but its digest is that of build ${bootimage.buildId}'s OS container`,
    );
  }
  if (bootimage.digest === undefined)
    notes.push(`${resolved.metaUrl} gives no oscontainer digest: the bootimage's OS container is only known by tag`);

  const comparison = compareOsImages(bootimage, payload);
  return {
    ...comparison,
    release: req.release,
    tag,
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
