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
  tags: PlannedTag[];
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
      tags: [
        { tag: st.os, container: 'base-oscontainer', slot: 'os' },
        { tag: st.extensions, container: 'extensions-container', slot: 'extensions' },
      ],
    };
  }
  const tags: PlannedTag[] = [];
  if (generation !== 'legacy') {
    const own = tagNames.filter((t) => t !== MACHINE_OS_CONTENT && !streamOfTag(t));
    const base = own.filter((t) => containerKeyForTag(t) === 'base-oscontainer');
    const ext = own.filter((t) => containerKeyForTag(t) === 'extensions-container');
    if (base.length === 0) base.push(ext[0]?.replace(/-extensions$/, '') ?? streamTags()!.os);
    if (ext.length === 0) ext.push(`${base[0]}-extensions`);
    tags.push(...base.map((tag) => ({ tag, container: 'base-oscontainer' as const, slot: 'os' as const })));
    tags.push(...ext.map((tag) => ({ tag, container: 'extensions-container' as const, slot: 'extensions' as const })));
  }
  if (generation !== 'layered') {
    tags.push({ tag: MACHINE_OS_CONTENT, container: 'oscontainer', slot: generation === 'legacy' ? 'os' : 'legacy' });
  }
  return { generation, stream: undefined, tags };
}
