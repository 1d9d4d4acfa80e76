/** Where a new release image goes and what it is built on, from the references the user gave. */
import { UsageError } from '../../errors.js';
import { parseImageReference } from '../../oci/reference.js';
import { parseReference } from '../../registry/reference.js';

/** The tag a release is written under: its version, with `+` (not allowed in tags) as `_`. */
export function releaseTag(version: string): string {
  return version.replace(/\+/g, '_');
}

/** Refuse a `--to-image` that names a digest: a pushed release is named by repository or tag. */
export function checkPushTarget(toImage: string): void {
  if (parseReference(toImage).reference.digest) throw new UsageError('--to-image may only point to a repository or tag, not a digest');
}

/** The reference a release is pushed to: the tag the user typed wins, else the release's tag. */
export function pushTarget(toImage: string, version: string): string {
  // The tag as typed: the registry parser would fill in `latest` when there is none.
  const typedTag = parseImageReference(toImage, { dockerTransport: true }).tag !== undefined;
  return typedTag ? toImage : `${toImage}:${releaseTag(version)}`;
}

/** The registry and repository of a base image in a registry (for cross-repository mounts); none for oci: and oci-archive:. */
export function baseRepository(toImageBase: string): { baseRegistry: string; baseRepository: string } | undefined {
  if (toImageBase.startsWith('oci:') || toImageBase.startsWith('oci-archive:')) return undefined;
  const { registry, repository } = parseReference(toImageBase).reference;
  return { baseRegistry: registry, baseRepository: repository };
}
