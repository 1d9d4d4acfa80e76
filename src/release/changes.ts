/**
 * The comparison of two releases as oc 4.13's `release info --changes-from OLD NEW` makes it: the image tags
 * whose pullspec differs (or that only one release has), and the manifest files whose bytes differ. Reading
 * is what oc reads: each release's image-references, release-metadata and config, and the manifests' bytes
 * only when the caller shows them (`-o json`, in the same pass over the layers); the text view never needs them.
 *
 * osimage's own report of what changed (machine-os per OS stream, component versions, packages) is
 * release/diff.ts (`release diff`).
 */
import type { TagReference } from '../oci/image-stream.js';
import type { ImageSource } from '../registry/types.js';
import { type LoadOptions, loadReleaseInfo, type ReleaseInfo } from './info.js';

/** A tag that differs: as each release has it, null where a release lacks it. */
export interface ImageChange {
  name: string;
  from: TagReference | null;
  to: TagReference | null;
}

/**
 * A manifest file that differs. oc's quirks are kept: a file that only NEW has comes with its bytes in `from`
 * and `to` null, exactly as a file that only OLD has (oc fills the wrong side), so the two cannot be told apart;
 * and an empty file that only one release has is not reported (oc finds its empty bytes equal to none).
 */
export interface ManifestChange {
  filename: string;
  from: Buffer | null;
  to: Buffer | null;
}

export interface ReleaseChanges {
  from: ReleaseInfo;
  to: ReleaseInfo;
  /** Sorted by tag name. */
  images: ImageChange[];
  /** Sorted by file name; empty unless the manifests were read. */
  manifests: ManifestChange[];
}

export interface ReadChangesOptions {
  filterByOs?: string;
  /** Keep every manifest file's bytes too (the `changedManifests` of `-o json`). */
  manifests?: boolean;
  /**
   * How one release is read (default: loadReleaseInfo from `open`); a caller that also reads the component
   * images (oc's `--include-images`) passes its own, keeping the options it is given.
   */
  load?: (image: string, opts: LoadOptions) => Promise<ReleaseInfo>;
}

interface Side {
  info: ReleaseInfo;
  manifests: Map<string, Buffer>;
}

/**
 * Read both releases at once. As in oc, when both fail the error is NEW's; when only OLD fails it is OLD's.
 */
export async function readReleaseChanges(
  fromImage: string,
  toImage: string,
  open: (ref: string) => Promise<ImageSource>,
  opts: ReadChangesOptions = {},
): Promise<ReleaseChanges> {
  const filter = opts.filterByOs !== undefined ? { filterByOs: opts.filterByOs } : {};
  const load = opts.load ?? (async (image: string, o: LoadOptions) => loadReleaseInfo(image, await open(image), o));
  const side = async (image: string): Promise<Side> => {
    // The text view needs only image-references, release-metadata and the config: the walk stops at them.
    const info = await load(image, { ...filter, ...(opts.manifests ? { keepManifests: true } : { summaryOnly: true }) });
    const files = info.raw.files ?? {};
    const manifests = new Map<string, Buffer>();
    if (opts.manifests) for (const name of info.manifests) if (files[name]) manifests.set(name, files[name]);
    return { info, manifests };
  };
  const [from, to] = await Promise.allSettled([side(fromImage), side(toImage)]);
  if (to.status === 'rejected') throw to.reason;
  if (from.status === 'rejected') throw from.reason;
  return calculateChanges(from.value.info, to.value.info, from.value.manifests, to.value.manifests);
}

/** Go's sort.Strings order (UTF-8 bytes). */
const byName = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** The DockerImage tags oc compares, by name; of a repeated name the last one counts, as in oc's map. */
function dockerTags(r: ReleaseInfo): Map<string, TagReference> {
  const out = new Map<string, TagReference>();
  for (const tag of r.references.spec.tags ?? []) if (tag.from && tag.from.kind === 'DockerImage') out.set(tag.name, tag);
  return out;
}

/**
 * oc's comparison: a tag is kept unless both releases have it with the same `from.name`; a manifest is kept
 * unless both have it with the same bytes (see ManifestChange for the side oc fills). Both lists in Go's order.
 */
export function calculateChanges(
  from: ReleaseInfo,
  to: ReleaseInfo,
  fromManifests: ReadonlyMap<string, Buffer> = new Map(),
  toManifests: ReadonlyMap<string, Buffer> = new Map(),
): ReleaseChanges {
  const a = dockerTags(from);
  const b = dockerTags(to);
  const images: ImageChange[] = [];
  for (const name of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(name) ?? null;
    const y = b.get(name) ?? null;
    if (x && y && (x.from?.name ?? '') === (y.from?.name ?? '')) continue;
    images.push({ name, from: x, to: y });
  }
  const manifests: ManifestChange[] = [];
  for (const filename of new Set([...fromManifests.keys(), ...toManifests.keys()])) {
    const x = fromManifests.get(filename);
    const y = toManifests.get(filename);
    if (x && y) {
      if (!x.equals(y)) manifests.push({ filename, from: x, to: y });
      continue;
    }
    // oc compares the one side's bytes with nothing, and an empty file equals nothing: it is not reported.
    const only = (x ?? y)!;
    if (only.length > 0) manifests.push({ filename, from: only, to: null });
  }
  return {
    from,
    to,
    images: images.sort((p, q) => byName(p.name, q.name)),
    manifests: manifests.sort((p, q) => byName(p.filename, q.filename)),
  };
}
