/**
 * Which generation a folder of MCO manifests is, and which payload tags `payload write` fills there (reference §1):
 *
 * - legacy (2019 → 2023-09 without layered tags): `machine-os-content` ← the build's `oscontainer`;
 * - mixed (4.12–4.14): `machine-os-content` ← `oscontainer`, plus `rhel-coreos-8`/`rhel-coreos` ←
 *   `base-oscontainer` and their `-extensions` ← `extensions-container`, all from one build;
 * - layered (2023-09 on): `rhel-coreos` and `rhel-coreos-extensions` only;
 * - an OS stream (`--os-stream rhel-10`, 2025-12 on): that stream's tags (`rhel-coreos-10`, `…-10-extensions`).
 *
 * The pairing of tags and meta.json containers is src/oci/os-tags.ts; this module only picks the tags.
 */
import { containerKeyForTag, MACHINE_OS_CONTENT, streamOfTag, streamTags, type ContainerKey } from '../oci/os-tags.js';
import { PayloadError } from './errors.js';

export type Generation = 'legacy' | 'mixed' | 'layered';

/** Where a tag's value comes from when no build is used: which flag sets it. */
export type Slot = 'os' | 'extensions' | 'legacy';

export interface PlannedTag {
  tag: string;
  container: ContainerKey;
  slot: Slot;
}

export interface Plan {
  generation: Generation;
  stream: string | undefined;
  /** The OS tags the folder declares, in the order they are written. */
  tags: PlannedTag[];
  /**
   * Tags the generation pairs with the declared ones but the folder does not declare (an extensions tag the MCO
   * of mid-2022 still had commented out, machine-os-content of a folder from before 2019-01-15): written only
   * when asked, since the MCO of that folder would not read them.
   */
  missing: PlannedTag[];
}

/**
 * The generation of a folder from its image-references tag names and the ConfigMap's keys: `machine-os-content`
 * with no layered tag is legacy, with one mixed; layered tags alone (or none, and a ConfigMap that has
 * `baseOSContainerImage`) layered; nothing at all is legacy (a new folder gets what 2019 wrote).
 */
export function generationOf(tagNames: readonly string[], configMapKeys: readonly string[]): Generation {
  const moc = tagNames.includes(MACHINE_OS_CONTENT);
  const layered =
    tagNames.some((t) => t !== MACHINE_OS_CONTENT && containerKeyForTag(t) && !streamOfTag(t)) ||
    (!moc && configMapKeys.includes('baseOSContainerImage'));
  return moc ? (layered ? 'mixed' : 'legacy') : layered ? 'layered' : 'legacy';
}

/** The tags to write, for the default stream or for `stream`. Errors name the folder's image-references. */
export function planTags(tagNames: readonly string[], configMapKeys: readonly string[], file: string, stream?: string): Plan {
  const generation = generationOf(tagNames, configMapKeys);
  if (stream !== undefined) {
    const st = streamTags(stream);
    if (!st) throw new PayloadError(`unknown OS stream ${JSON.stringify(stream)}: OS streams are named rhel-N (e.g. rhel-10)`);
    const missing = [st.os, st.extensions].filter((t) => !tagNames.includes(t));
    if (missing.length > 0) {
      const streams = [...new Set(tagNames.flatMap((t) => streamOfTag(t) ?? []))];
      throw new PayloadError(
        `has no tag ${missing.map((t) => JSON.stringify(t)).join(' or ')} for OS stream ${stream} (streams it declares besides the default: ${streams.length ? streams.join(', ') : 'none'})`,
        { file },
      );
    }
    return {
      generation,
      stream,
      missing: [],
      tags: [
        { tag: st.os, container: 'base-oscontainer', slot: 'os' },
        { tag: st.extensions, container: 'extensions-container', slot: 'extensions' },
      ],
    };
  }
  const tags: PlannedTag[] = [];
  const missing: PlannedTag[] = [];
  const os = (tag: string): PlannedTag => ({ tag, container: 'base-oscontainer', slot: 'os' });
  const ext = (tag: string): PlannedTag => ({ tag, container: 'extensions-container', slot: 'extensions' });
  if (generation !== 'legacy') {
    const own = tagNames.filter((t) => t !== MACHINE_OS_CONTENT && !streamOfTag(t));
    const base = own.filter((t) => containerKeyForTag(t) === 'base-oscontainer');
    const exts = own.filter((t) => containerKeyForTag(t) === 'extensions-container');
    tags.push(...base.map(os));
    if (base.length === 0) missing.push(os(exts[0]?.replace(/-extensions$/, '') ?? streamTags()!.os));
    tags.push(...exts.map(ext));
    if (exts.length === 0) missing.push(ext(`${base[0] ?? missing[0]!.tag}-extensions`));
  }
  if (generation !== 'layered') {
    const moc: PlannedTag = { tag: MACHINE_OS_CONTENT, container: 'oscontainer', slot: generation === 'legacy' ? 'os' : 'legacy' };
    (tagNames.includes(MACHINE_OS_CONTENT) ? tags : missing).push(moc);
  }
  return { generation, stream: undefined, tags, missing };
}
