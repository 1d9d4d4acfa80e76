/**
 * What a `--from-release` payload adds to its output (output.ts): a rebuild that overrides nothing must give the
 * input's payload files, byte for byte (oc's "canonical" check, which oc makes on the image digest: osimage
 * compresses and writes the config its own way, so the digest matches only for a release that osimage built).
 */
import { parseImageReference } from '../../oci/reference.js';
import { IMAGE_REFERENCES } from '../../oci/image-stream.js';
import { RELEASE_METADATA } from '../info.js';
import type { FromReleaseResult } from './from-release.js';
import type { Publishable } from './output.js';

/** Was the release named by tag (not by digest)? oc's canonical info line says so. */
export function releaseByTag(release: string): boolean {
  if (release.startsWith('oci:') || release.startsWith('oci-archive:')) return !release.includes('@');
  try {
    return parseImageReference(release, { dockerTransport: true }).tag !== undefined;
  } catch {
    return false;
  }
}

/** The first payload file whose bytes differ from the input release's, or undefined when they are the same. */
export function firstDifference(result: FromReleaseResult): string | undefined {
  const input = new Map(result.input.files.map((f) => [f.name, f.data]));
  input.set(IMAGE_REFERENCES, result.input.raw.imageReferences);
  if (result.input.raw.releaseMetadata) input.set(RELEASE_METADATA, result.input.raw.releaseMetadata);
  const names = new Set(result.files.map((f) => f.name));
  for (const f of result.files) {
    const had = input.get(f.name);
    if (!had) return `${f.name} (not in the input)`;
    if (!had.equals(f.data)) return f.name;
  }
  for (const name of input.keys()) if (!names.has(name)) return `${name} (missing)`;
  return undefined;
}

/** A --from-release result as output.ts publishes it; a rebuild that changes nothing must reproduce its input. */
export function publishableFromRelease(result: FromReleaseResult): Publishable {
  return {
    version: result.metadata.version,
    imageStream: result.imageStream,
    files: result.files,
    created: result.created,
    folderTime: result.folderTime,
    base: result.base,
    ...(result.canonical ? { reproduces: { digest: result.input.digest, firstDifference: () => firstDifference(result) } } : {}),
  };
}
