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

const MiB = 1024 * 1024;

/**
 * The most data an entry of each kind holds: a larger file in the cache is not read (a huge or sparse file would
 * cost its size in memory), and larger data is not written. Each is at least the bound on what is fetched for it,
 * repeated here because the cache sits below the modules that fetch (test/cache/hostile.test.ts compares them): a
 * manifest 4 MiB (src/registry/types.ts), an image config 8 MiB (src/release/info.ts), a commitmeta.json 16 MiB
 * (src/packages/commitmeta.ts); release files hold
 * image-references and release-metadata (a full payload's are a few hundred KiB) or a release's component
 * manifests and configs (about 5 MiB for 190 images); a tag's digest is a line.
 */
export const MAX_ENTRY_BYTES: Readonly<Record<CacheKey['kind'], number>> = {
  manifests: 4 * MiB,
  configs: 8 * MiB,
  release: 128 * MiB,
  tags: 1024,
  commitmeta: 16 * MiB,
};

/**
 * Kinds whose entries are sealed with the user's key (src/cache/user-key.ts) instead of a plain checksum. A manifest
 * or config is named by its own digest and hashed against it when read (by-digest.ts), and a release's components
 * are each checked against the digests that name them, so whoever wrote such an entry cannot make it say
 * anything else. A tag's digest is only a hint (a HEAD asks the registry). But release files are named by the
 * layers they were read from, and a package list by where it came from: nothing in what is read back can be
 * checked against that name, so a checksum beside the data proves nothing (anyone who can write the file can
 * recompute it), and re-deriving them means reading the layers the cache exists to skip. The seal, an HMAC of the
 * entry's kind, name and bytes under a key only this user can read, can be made only by this user's osimage, and
 * it covers the name, so that a genuine entry moved under another release's name fails too.
 * (`release` holds the components entries as well: they are sealed as a matter of course.)
 */
export const SEALED_KINDS: ReadonlySet<CacheKey['kind']> = new Set(['release', 'commitmeta']);

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
 * the small files kept. `query` names what was asked (the whole folder, image-references and release-metadata,
 * or only image-references), since a walk that stops early reads less; `view` which layers answer (the first
 * that holds the folder, or all of them merged), since the two can differ on the same layers.
 */
export function releaseFilesKey(
  folder: string,
  layers: readonly string[],
  query: 'full' | 'summary' | 'references',
  files?: readonly string[],
  view: 'release-layer' | 'merged' = 'release-layer',
): CacheKey {
  // Files kept beside the query (LoadOptions.alsoRead) make another entry; without them the key is as before.
  const also = files?.length ? `\n+${[...files].sort().join('\n+')}` : '';
  return { kind: 'release', name: `${view === 'merged' ? 'merged-' : ''}${query}-${hex(`${folder}\n${layers.join('\n')}${also}`)}` };
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
