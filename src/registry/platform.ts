/**
 * Choosing one image from a manifest list, as oc does: `--filter-by-os REGEX` is matched against
 * `os/arch[/variant]` and the first match wins; the default is linux/amd64; a list with a single entry is
 * always accepted. No match is oc's error (`unable to read image REF: filtered all images from manifest list`)
 * followed by the platforms the list has.
 */
import { OsimageError, UsageError, describe } from '../errors.js';
import { compileGoRegexp } from '../golang/regexp.js';
import {
  isIndex,
  type Descriptor,
  type FetchedManifest,
  type ImageIndex,
  type ImageManifest,
  type ImageSource,
  type Platform,
} from './types.js';

export const DEFAULT_PLATFORM = 'linux/amd64';

export function platformString(p: Platform | undefined): string {
  if (!p) return 'unknown';
  return [p.os || 'unknown', p.architecture || 'unknown', ...(p.variant ? [p.variant] : [])].join('/');
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The compiled filter: the user's regex, read as Go reads it (oc compiles it with Go's regexp), or the quoted
 * default. A bad regex is a usage error in oc's words: `--filter-by-os was not a valid regular expression:
 * error parsing regexp: missing closing ]: `[``. Commands check it before any network (readImages).
 */
export function platformFilter(filterByOs: string | undefined): { test(text: string): boolean } {
  const key = filterByOs ?? '';
  let filter = compiled.get(key);
  if (filter) return filter;
  if (key === '') filter = new RegExp(escapeRegex(DEFAULT_PLATFORM));
  else {
    try {
      filter = compileGoRegexp(key);
    } catch (err) {
      throw new UsageError(`--filter-by-os was not a valid regular expression: ${describe(err)}`);
    }
  }
  compiled.set(key, filter);
  return filter;
}

/** Filters compiled so far: a command checks its --filter-by-os once, then every list it reads uses it. */
const compiled = new Map<string, { test(text: string): boolean }>();

/** The entry of the list to use, or an error naming the image and the platforms there are. */
export function selectPlatform(index: ImageIndex, ref: string, filterByOs?: string): Descriptor {
  const entries = index.manifests;
  if (entries.length === 1) return entries[0]!;
  const filter = platformFilter(filterByOs);
  const hit = entries.find((d) => d.platform && filter.test(platformString(d.platform)));
  if (hit) return hit;
  const available = [...new Set(entries.map((d) => platformString(d.platform)))];
  const wanted = filterByOs === undefined || filterByOs === '' ? DEFAULT_PLATFORM : filterByOs;
  throw new OsimageError(
    `unable to read image ${ref}: filtered all images from manifest list (no platform matches ${wanted}; the list has ${available.join(', ') || 'no entries'})`,
  );
}

export interface ResolvedImage {
  /** The list the reference named, if it named one. */
  list?: FetchedManifest;
  /** The image manifest chosen (the reference's own manifest when it is not a list). */
  manifest: FetchedManifest & { parsed: ImageManifest };
  /** The chosen list entry's platform, when there was a list. */
  platform?: Platform;
}

/** The reference's manifest, with a manifest list resolved to one image for the platform filter. */
export async function resolveImage(source: ImageSource, filterByOs?: string): Promise<ResolvedImage> {
  const top = await source.manifest();
  if (!isIndex(top.parsed)) return { manifest: top as ResolvedImage['manifest'] };
  const entry = selectPlatform(top.parsed, source.name, filterByOs);
  const child = await source.manifestByDigest(entry.digest);
  if (isIndex(child.parsed))
    throw new OsimageError(`image ${source.name}: the manifest list entry ${entry.digest} is itself a list, which is unsupported`);
  return { list: top, manifest: child as ResolvedImage['manifest'], ...(entry.platform ? { platform: entry.platform } : {}) };
}
