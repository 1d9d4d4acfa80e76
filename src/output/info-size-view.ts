/**
 * The Images section of `release info --size`, laid out as oc 4.13 lays it out: per image its age, layer
 * count, size and the size of the layers no other image shares (an image that shares all of them is credited
 * with its top layer, the first time that layer is shown), a BASE column that letters the images' different
 * base layers when there are several, and a total of the distinct layers.
 */
import { GoFloat, GoInt } from '../golang/value.js';
import { sprintf } from '../golang/fmt.js';
import { humanSize, shortHumanDuration } from '../golang/human.js';
import { dockerImage, type TagReference } from '../oci/image-stream.js';
import type { ComponentImage } from '../release/components.js';

const MB = 1024 * 1024;

/** 0001-01-01T00:00:00Z, Go's zero time, which oc does not show an age for. */
const GO_ZERO_TIME = -62135596800000;

/** An image config's `created` as a time, or undefined for Go's zero time (absent, unparseable, year 1). */
function createdAt(created: string | undefined): number | undefined {
  if (!created) return undefined;
  const t = Date.parse(created.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(t) || t === GO_ZERO_TIME ? undefined : t;
}

/**
 * The section's text with tabs between cells (the caller's tabwriter aligns it): a blank line, `Images:`, the
 * header, one row per DockerImage tag (a tag whose image was not read gets an empty row), a blank line and the
 * total.
 */
export function renderSizeSection(tags: readonly TagReference[], images: ReadonlyMap<string, ComponentImage>, now: number): string {
  const layerCount = new Map<string, number>();
  const baseLayer = new Map<string, number>();
  let totalSize = 0;
  for (const image of images.values()) {
    image.layers.forEach((layer, i) => {
      if (i === 0) baseLayer.set(layer.digest, 0);
      const count = layerCount.get(layer.digest) ?? 0;
      if (count === 0) totalSize += layer.size;
      layerCount.set(layer.digest, count + 1);
    });
  }
  const manyBases = baseLayer.size > 1;
  let t = `\nImages:\n  NAME\t AGE\t LAYERS\t SIZE MB\t UNIQUE MB\t ${manyBases ? 'BASE' : ''}\n`;
  const covered = new Set<string>();
  let currentBase = 1;
  for (const tag of tags) {
    if (!dockerImage(tag)) continue;
    const image = images.get(tag.name);
    if (!image) {
      t += `  ${tag.name}\t\t\t\t\t\n`;
      continue;
    }
    let base = '';
    const first = image.layers[0];
    if (manyBases && first) {
      let index = baseLayer.get(first.digest) ?? 0;
      if (index === 0) {
        index = currentBase++;
        baseLayer.set(first.digest, index);
      }
      // A few bases get a letter each, shifted right so that each has a column of its own; many get numbers.
      base = baseLayer.size <= 5 ? ' '.repeat(index - 1) + String.fromCharCode(65 + index - 1) : String(index);
    }
    let size = 0;
    let unshared = 0;
    for (const layer of image.layers) {
      size += layer.size;
      if ((layerCount.get(layer.digest) ?? 0) > 1) continue;
      unshared += layer.size;
    }
    const top = image.layers[image.layers.length - 1];
    if (unshared === 0 && top && !covered.has(top.digest)) {
      unshared = top.size;
      covered.add(top.digest);
    }
    const created = createdAt(image.config.created);
    const age = created === undefined ? '' : shortHumanDuration(now - created);
    t += sprintf('  %s\t%4s\t%7d\t%8.1f\t%10.1f\t %s\n', [
      tag.name,
      age,
      new GoInt(image.layers.length),
      new GoFloat(size / MB),
      new GoFloat(unshared / MB),
      base,
    ]);
  }
  t += '\n';
  t += manyBases
    ? `  ${humanSize(totalSize)} across ${layerCount.size} layers, ${baseLayer.size} different base images\n`
    : `  ${humanSize(totalSize)} across ${layerCount.size} layers\n`;
  return t;
}
