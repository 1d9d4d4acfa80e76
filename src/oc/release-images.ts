/**
 * The `images` of `release info -o json --include-images` (and of the object the -o templates see with
 * --size or --verify): each DockerImage tag's image as oc's `Image` type encodes it: `name` (the pull spec),
 * `digest`, `contentDigest`, `listDigest` (`""` unless the pull spec named a manifest list), `mediaType` (the
 * manifest's), `layers` (distribution descriptors: empty fields left out) and `config` (as the release's own,
 * src/oc/json.ts, with `size` the sum of the layers). Keyed by tag name in Go's map order.
 */
import { goKeyCompare } from '../golang/json.js';
import { ocImageConfig } from './json.js';

export interface ImageFields {
  name: string;
  digest: string;
  contentDigest: string;
  listDigest: string;
  mediaType: string;
  layers: ReadonlyArray<{ mediaType?: string; size?: number; digest?: string; urls?: string[]; annotations?: Record<string, string> }>;
  config: Readonly<Record<string, unknown>>;
}

/** A distribution.Descriptor: every field omitempty. */
function descriptor(d: ImageFields['layers'][number]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (d.mediaType) out.mediaType = d.mediaType;
  if (d.size) out.size = d.size;
  if (d.digest) out.digest = d.digest;
  if (d.urls && d.urls.length > 0) out.urls = d.urls;
  if (d.annotations && Object.keys(d.annotations).length > 0) {
    out.annotations = Object.fromEntries(
      Object.keys(d.annotations)
        .sort(goKeyCompare)
        .map((k) => [k, d.annotations![k]]),
    );
  }
  return out;
}

export function ocReleaseImages(images: ReadonlyMap<string, ImageFields>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of [...images.keys()].sort(goKeyCompare)) {
    const i = images.get(name)!;
    out[name] = {
      name: i.name,
      digest: i.digest,
      contentDigest: i.contentDigest,
      listDigest: i.listDigest,
      mediaType: i.mediaType,
      layers: i.layers.map(descriptor),
      config: ocImageConfig(
        i.config,
        i.layers.reduce((s, l) => s + (l.size ?? 0), 0),
      ),
    };
  }
  return out;
}
