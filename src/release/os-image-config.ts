/**
 * Reading an OS image a release names (its digest and config labels), for `release os-streams` and `verify`.
 * A release read from `oci:DIR` or `oci-archive:FILE` is offline: the images it names by digest are looked
 * up by that digest in the same layout, never in their registries.
 */
import { digestOf } from '../oci/digest.js';
import { openImage } from '../registry/open.js';
import { parseLayoutReference } from '../registry/oci-layout.js';
import { resolveImage } from '../registry/platform.js';
import type { SourceOptions } from '../registry/types.js';
import type { ImageStream } from '../oci/image-stream.js';
import { readImageConfig } from './info.js';
import { discoverOsStreams, type OsStreams } from './os-streams.js';

export interface OsImageFacts {
  /** The digest the reference names (the list's, for a manifest list). */
  digest: string;
  labels: Record<string, string>;
}

/** Where to open `pullspec` from for a release read from `release`: the same layout by digest, or its registry. */
export function osImageLocation(release: string, pullspec: string): string {
  const transport = release.startsWith('oci:') ? 'oci' : release.startsWith('oci-archive:') ? 'oci-archive' : undefined;
  const digest = digestOf(pullspec);
  if (!transport || !digest) return pullspec;
  return `${transport}:${parseLayoutReference(release, transport).path}@${digest}`;
}

/** An image's digest and config labels; a manifest list is resolved for `filterByOs`. */
export async function inspectImage(ref: string, opts: SourceOptions, filterByOs: string | undefined): Promise<OsImageFacts> {
  const source = await openImage(ref, opts);
  try {
    const resolved = await resolveImage(source, filterByOs);
    const config = await readImageConfig(source, resolved.manifest.parsed.config);
    return { digest: resolved.list?.digest ?? resolved.manifest.digest, labels: config.config?.Labels ?? {} };
  } finally {
    await source.close();
  }
}

/** A release's OS image, opened where {@link osImageLocation} says. */
export function inspectOsImage(
  release: string,
  pullspec: string,
  opts: SourceOptions,
  filterByOs: string | undefined,
): Promise<OsImageFacts> {
  return inspectImage(osImageLocation(release, pullspec), opts, filterByOs);
}

/** The OS image streams of a release whose image-references were read from `release`: labels read 4 at a time. */
export async function releaseOsStreams(
  release: string,
  references: ImageStream,
  opts: SourceOptions,
  filterByOs: string | undefined,
): Promise<OsStreams> {
  return discoverOsStreams(references, async (pullspec) => (await inspectOsImage(release, pullspec, opts, filterByOs)).labels);
}
