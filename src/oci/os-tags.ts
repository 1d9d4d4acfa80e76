/**
 * Which payload tag carries which of a build's containers: the fixed pairing ART uses between the tags of a
 * release's image-references and the container keys of an RHCOS build's meta.json.
 *
 * - `machine-os-content` ↔ `oscontainer` (the ostree-in-container OS image, up to 4.14);
 * - `rhel-coreos-8`, `rhel-coreos` ↔ `base-oscontainer` (the layered, bootable OS image, 4.12+);
 * - `rhel-coreos-8-extensions`, `rhel-coreos-extensions` ↔ `extensions-container`;
 * - OS image streams add tags per stream: stream `rhel-10` ↔ `rhel-coreos-10` and `rhel-coreos-10-extensions`;
 *   the default stream has the unsuffixed tags.
 */

/** The container keys of a build's meta.json that a payload can carry. */
export type ContainerKey = 'oscontainer' | 'base-oscontainer' | 'extensions-container';
export const CONTAINER_KEYS: readonly ContainerKey[] = ['oscontainer', 'base-oscontainer', 'extensions-container'];

export const MACHINE_OS_CONTENT = 'machine-os-content';

const FIXED: Record<string, ContainerKey> = {
  'machine-os-content': 'oscontainer',
  'rhel-coreos-8': 'base-oscontainer',
  'rhel-coreos': 'base-oscontainer',
  'rhel-coreos-8-extensions': 'extensions-container',
  'rhel-coreos-extensions': 'extensions-container',
};

const STREAM_TAG = /^rhel-coreos-(\d+)(-extensions)?$/;

/** The meta.json container a payload tag pairs with, or undefined for a tag that carries no OS image. */
export function containerKeyForTag(tag: string): ContainerKey | undefined {
  const fixed = FIXED[tag];
  if (fixed) return fixed;
  const m = STREAM_TAG.exec(tag);
  if (!m) return undefined;
  return m[2] ? 'extensions-container' : 'base-oscontainer';
}

/** The OS stream a stream-suffixed tag belongs to (`rhel-coreos-10` → `rhel-10`); undefined for other tags. */
export function streamOfTag(tag: string): string | undefined {
  if (tag in FIXED) return undefined;
  const m = STREAM_TAG.exec(tag);
  return m ? `rhel-${m[1]}` : undefined;
}

/**
 * The layered tags of an OS stream: the default stream (undefined) has `rhel-coreos` and `rhel-coreos-extensions`;
 * stream `rhel-N` has `rhel-coreos-N` and `rhel-coreos-N-extensions`. Undefined for a stream with no known tags.
 */
export function streamTags(stream?: string): { os: string; extensions: string } | undefined {
  if (stream === undefined) return { os: 'rhel-coreos', extensions: 'rhel-coreos-extensions' };
  const m = /^rhel-(\d+)$/.exec(stream);
  if (!m) return undefined;
  return { os: `rhel-coreos-${m[1]}`, extensions: `rhel-coreos-${m[1]}-extensions` };
}

/** The payload's OS tag to verify by default, in order of preference. */
export const OS_TAG_PREFERENCE = ['rhel-coreos', 'rhel-coreos-8', 'machine-os-content'] as const;
