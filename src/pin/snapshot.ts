import type { BuildMeta } from '../rhcos/meta.js';
import { isJsonObject, sortKeys, type Json } from '../json.js';
import { withoutUserinfo } from '../http/redact.js';

/**
 * The pinned metadata snapshot: the subset of a build's meta.json a release ships, in the shape the
 * installer's hack/update-rhcos-bootimage.py wrote to data/data/rhcos.json (amis as a region map,
 * baseURI = the build directory), serialised with sorted keys and 4-space indent so a reviewer sees
 * exactly what changed in one diff.
 */

/** Sorted keys (recursively), 4-space indent, trailing newline. */
export function stableJson(v: unknown): string {
  return `${JSON.stringify(sortKeys(v), null, 4)}\n`;
}

/** Fields copied as meta.json has them, in the order they came: the installer's copy (2019-04), its cloud images (2019-07), the layered OS containers (4.12+). */
const COPIED = [
  'images',
  'oscontainer',
  'ostree-commit',
  'ostree-version',
  'azure',
  'gcp',
  'base-oscontainer',
  'extensions-container',
] as const;

/**
 * Fields a snapshot written by an older osimage (or the installer's rhcos.json before 2019-07) may lack although
 * the build has them: `pin --check --meta` warns about them instead of failing.
 */
export const LATER_FIELDS: readonly string[] = ['azure', 'gcp', 'base-oscontainer', 'extensions-container'];

/**
 * The snapshot of a build: buildid, baseURI, amis, images, oscontainer, ostree-commit, ostree-version, the cloud
 * images azure and gcp, base-oscontainer and extensions-container (whichever it has).
 */
export function snapshotOf(meta: BuildMeta, buildDir: string): { [key: string]: Json } {
  // The snapshot is committed to git: the build folder without any userinfo (credentials live in ~/.netrc).
  const snap: Record<string, unknown> = { buildid: meta.buildid, baseURI: withoutUserinfo(buildDir) };
  if (meta.raw.amis !== undefined && meta.raw.amis !== null) {
    snap.amis = Object.fromEntries(Object.entries(meta.amis).map(([region, hvm]) => [region, { hvm }]));
  }
  for (const key of COPIED) {
    const v = meta.raw[key];
    if (v !== undefined && v !== null) snap[key] = v;
  }
  return sortKeys(snap) as { [key: string]: Json };
}

/** One field that differs between two snapshots; `undefined` means absent. */
export interface FieldChange {
  field: string;
  old: Json | undefined;
  new: Json | undefined;
}

function fieldPath(parent: string, key: string): string {
  const k = /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
  return parent === '' ? k : `${parent}.${k}`;
}

/** Every leaf field (objects are descended into; arrays and scalars compared whole) that differs. */
export function changedFields(oldV: Json | undefined, newV: Json | undefined, path = ''): FieldChange[] {
  if (isJsonObject(oldV) && isJsonObject(newV)) {
    const keys = [...new Set([...Object.keys(oldV), ...Object.keys(newV)])].sort();
    return keys.flatMap((k) => changedFields(oldV[k], newV[k], fieldPath(path, k)));
  }
  if (JSON.stringify(oldV === undefined ? undefined : sortKeys(oldV)) === JSON.stringify(newV === undefined ? undefined : sortKeys(newV)))
    return [];
  return [{ field: path === '' ? '(document)' : path, old: oldV, new: newV }];
}

/** `field: old → new`, with `(absent)` for a missing side. */
export function describeChange(c: FieldChange): string {
  const show = (v: Json | undefined) => (v === undefined ? '(absent)' : typeof v === 'string' ? v : JSON.stringify(v));
  return `${c.field}: ${show(c.old)} → ${show(c.new)}`;
}
