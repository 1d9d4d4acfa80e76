/**
 * The names of the cache's entries. Everything cached is immutable by digest: a manifest or an image config
 * under its own digest, and what a release query read from release-manifests/ under the digests of the layers
 * it came from. The one exception is a tag's last digest, which is only a hint (it decides whether a HEAD
 * request can answer a repeat by tag) and never used as content. Package lists are kept by build, whose files a
 * release browser never changes.
 */
import { createHash } from 'node:crypto';
import { isDigest } from '../oci/digest.js';

/** A cache entry: a folder per kind and a file name made of `[a-z0-9-]` only. */
export interface CacheKey {
  kind: 'manifests' | 'configs' | 'release' | 'tags' | 'commitmeta';
  name: string;
}

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** `sha256:abc…` → `sha256-abc…`; anything that is not a digest has no key. */
function digestName(digest: string): string | undefined {
  return isDigest(digest) ? digest.toLowerCase().replace(':', '-') : undefined;
}

/** Content by its own digest: a manifest (image, index or list) or an image config blob. */
export function digestKey(kind: 'manifests' | 'configs', digest: string): CacheKey | undefined {
  const name = digestName(digest);
  return name ? { kind, name } : undefined;
}

/**
 * What a walk of `folder` read from the layers `layers` (bottom first, as in the manifest): the file index and
 * the small files kept. `query` names what was asked (the whole folder, or only image-references), since a walk
 * that stops early reads less.
 */
export function releaseFilesKey(
  folder: string,
  layers: readonly string[],
  query: 'full' | 'references',
  files?: readonly string[],
): CacheKey {
  // Files kept beside the query (LoadOptions.alsoRead) make another entry; without them the key is as before.
  const also = files?.length ? `\n+${[...files].sort().join('\n+')}` : '';
  return { kind: 'release', name: `${query}-${hex(`${folder}\n${layers.join('\n')}${also}`)}` };
}

/** The digest a tag named when it was last read: a hint only (see the module note). */
export function tagKey(registry: string, repository: string, tag: string): CacheKey {
  return { kind: 'tags', name: hex(`${registry}/${repository}:${tag}`) };
}

/**
 * The component images of one release (by its manifest digest) as `release new --from-release` read them: one
 * entry instead of a manifest and a config per image. Each image's bytes are verified again when read.
 */
export function componentsKey(releaseDigest: string, filterByOs: string | undefined): CacheKey {
  return { kind: 'release', name: `components-${hex(`${releaseDigest}\n${filterByOs ?? ''}`)}` };
}

/**
 * The pkglist of a build's commitmeta.json, by where it came from (a hash: a base URL's userinfo never lands in a
 * file name).
 */
export function commitmetaKey(build: { baseUrl: string; channel: string; build: string; arch: string }): CacheKey {
  return { kind: 'commitmeta', name: hex(JSON.stringify([build.baseUrl, build.channel, build.build, build.arch])) };
}
