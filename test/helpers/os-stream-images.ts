/**
 * Release images with OS image streams: OS and extensions images whose config labels carry
 * `io.openshift.os.streamclass` with `containers.bootc` or `io.openshift.os.extensions`, as the
 * machine-config-operator reads them, and a release whose image-references names them.
 */
import type { BuiltImage } from '../../src/release/build-layer.js';
import { baseEntries, image, releaseEntries, type TagSpec } from './oci-builder.js';

export type Kind = 'os' | 'extensions';

export interface StreamImageSpec {
  stream: string;
  kind: Kind;
  /** Extra labels (build ids: org.opencontainers.image.version, coreos.build.manifest-list-tag). */
  labels?: Record<string, string>;
}

/** An OS or extensions image of a stream; its content names it, so every spec has its own digest. */
export function streamImage(spec: StreamImageSpec): Promise<BuiltImage> {
  const kindLabel: Record<string, string> = spec.kind === 'os' ? { 'containers.bootc': '1' } : { 'io.openshift.os.extensions': 'true' };
  return image([{ entries: [{ name: 'usr/lib/os-release', data: `ID=rhel\nSTREAM=${spec.stream}\nKIND=${spec.kind}\n` }] }], {
    labels: { 'io.openshift.os.streamclass': spec.stream, ...kindLabel, ...spec.labels },
  });
}

/** The OS tags of a release, plus `cli` (never a candidate). */
export function osStreamTags(images: Record<string, string>): TagSpec[] {
  return [
    { name: 'cli', pullspec: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'a'.repeat(64)}` },
    ...Object.entries(images).map(([name, pullspec]) => ({
      name,
      pullspec,
      annotations: { 'io.openshift.build.source-location': 'https://github.com/openshift/os' },
    })),
  ];
}

/** A release image named `version` whose image-references has these tags. */
export function streamRelease(version: string, tags: TagSpec[]): Promise<BuiltImage> {
  return image([{ entries: baseEntries() }, { entries: releaseEntries({ name: version, tags }) }]);
}

/** Push each named stream image to `repo:<name>`; its digest is stored under the name in `digests`. */
export async function pushStreamImages(
  repo: string,
  specs: ReadonlyArray<readonly [string, StreamImageSpec]>,
  digests: Record<string, string>,
): Promise<void> {
  const { pushBuilt } = await import('./oci-builder.js');
  for (const [name, spec] of specs) digests[name] = await pushBuilt(`${repo}:${name}`, await streamImage(spec));
}
