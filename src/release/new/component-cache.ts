/**
 * The component images of a release, kept in the cache as one entry (keyed by the release's digest) instead of a
 * manifest and a config per image: a full-size payload names about 190 images, and 380 small files cost more to
 * write than the requests they save. What is read back is verified as the per-image entries are: each manifest
 * against its digest (which the release names), each config against the digest its manifest names. Images named
 * through a manifest list are not kept (the list itself is not stored, so the choice could not be checked).
 */
import { componentsKey } from '../../cache/keys.js';
import type { CacheStore } from '../../cache/store.js';
import { digestOf, verifyBytes } from '../../oci/digest.js';
import { checkManifest } from '../../registry/documents.js';
import { isIndex, type ImageManifest } from '../../registry/types.js';
import { parseImageConfig } from '../info.js';
import type { ComponentImage, KnownImage } from './components.js';

interface Stored {
  pullspec: string;
  mediaType: string;
  manifest: string;
  config: string;
}

/** The images the cache holds for this release, by pullspec; empty when there is no usable entry. */
export async function loadComponents(
  cache: CacheStore | undefined,
  releaseDigest: string,
  filterByOs: string | undefined,
): Promise<Map<string, KnownImage>> {
  const out = new Map<string, KnownImage>();
  const entry = cache ? await cache.get(componentsKey(releaseDigest, filterByOs)) : undefined;
  if (!entry) return out;
  try {
    const stored = JSON.parse(entry.data.toString('utf8')) as { images?: Stored[] };
    for (const s of stored.images ?? []) {
      const digest = digestOf(s.pullspec);
      if (!digest) continue;
      const manifestBytes = Buffer.from(s.manifest, 'base64');
      const config = Buffer.from(s.config, 'base64');
      verifyBytes(manifestBytes, digest);
      const parsed = checkManifest(JSON.parse(manifestBytes.toString('utf8')) as Record<string, unknown>, s.pullspec);
      if (isIndex(parsed)) continue;
      const manifest = parsed as ImageManifest;
      verifyBytes(config, manifest.config.digest);
      const labels = parseImageConfig(config, s.pullspec).config?.Labels ?? {};
      out.set(s.pullspec, { digest, labels, manifest, raw: { manifest: manifestBytes, mediaType: s.mediaType, config } });
    }
  } catch {
    // A damaged entry is as good as none: the images are read from their registries.
    await cache?.discard(componentsKey(releaseDigest, filterByOs));
    return new Map();
  }
  return out;
}

/** Keep the images read for this release (those named by their own manifest's digest). */
export function saveComponents(
  cache: CacheStore | undefined,
  releaseDigest: string,
  filterByOs: string | undefined,
  images: Iterable<ComponentImage>,
): void {
  if (!cache) return;
  const stored: Stored[] = [];
  for (const img of images) {
    if (!img.raw || digestOf(img.pullspec) !== img.digest) continue;
    stored.push({
      pullspec: img.pullspec,
      mediaType: img.raw.mediaType,
      manifest: img.raw.manifest.toString('base64'),
      config: img.raw.config.toString('base64'),
    });
  }
  if (stored.length === 0) return;
  cache.putSoon(componentsKey(releaseDigest, filterByOs), Buffer.from(JSON.stringify({ images: stored })));
}
