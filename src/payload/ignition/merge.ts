/**
 * Merging two Ignition spec 3 configs the way github.com/coreos/ignition/v2 config/merge does it
 * (MergeStructTranscribe, the engine behind config/v3_x Merge(parent, child)), which the machine-config-operator
 * runs over a pool's MachineConfigs in MergeMachineConfigs. The rules, by the Go type of each field:
 *
 * - a string, int or bool: the child's value, always (even "" or 0; only keys and `ignition.version` are such);
 * - a pointer (`overwrite`, `mode`, `contents.source`, …): the child's when the child sets it, so an explicit
 *   `false`, `0` or `""` wins; the parent's when the child leaves it out (or gives null);
 * - a struct: the parent's when the child's is entirely zero, the child's when the parent's is, else merged
 *   field by field;
 * - a list whose struct marks it IgnoreDuplicates (a file's `append`, a filesystem's `options` and
 *   `mountOptions`, raid and luks `options`): the parent's entries, then the child's;
 * - any other list: entries are matched by key (Key(): a node's path, a unit's, dropin's, user's, group's,
 *   raid's or luks device's name, a disk's or filesystem's device, a partition's `number:N` or `label:L`, a
 *   resource's source, a header's name, a tang server's url, a string itself). Walking the parent's list in
 *   order, an entry the child has in the same list is merged with it in place (for HTTP headers, a child entry
 *   without a value deletes it), an entry the child has in another list that shares the key space (files,
 *   directories and links share paths; kernelArguments shouldExist and shouldNotExist share arguments) is
 *   dropped, any other is kept; then the child's entries whose key the parent's same list lacks are appended in
 *   the child's order. So `sshAuthorizedKeys` comes out as the parent's keys then the child's new ones.
 *
 * The result is marshalled as the MCO marshals it (github.com/clarketm/json, since 2020-04): fields tagged
 * omitempty are left out when empty, and that includes structs, so an empty `passwd`, `storage`, `systemd`,
 * `kernelArguments`, `contents` or `user` does not appear (plain encoding/json would write `"passwd":{}`);
 * `ignition` and `ignition.version` always appear, and so do a list entry's untagged key fields (`path`,
 * `name`, `device`) even when empty. Keys not in the spec are dropped, as Go's decoder drops them.
 *
 * Era notes: the zero-struct shortcut came in Ignition in 2021-02 (before, structs always merged field by
 * field, which differs only for a child with no `ignition.version`); the rest has not changed since 2019-12.
 */
import { PayloadError } from '../errors.js';
import {
  decode,
  encode,
  type GoStruct,
  type GoType,
  type GoValue,
  isStruct,
  isZero,
  type Minor3,
  type StructDef,
  spec3Types,
  structs,
  sv,
} from './schema.js';

/** Where a child list entry was found: its list (Go field name) and index. */
interface ChildEntry {
  value: GoValue;
  list: string;
  index: number;
}

const keyOf = (v: GoValue, elem: GoType): string => {
  if (elem.kind === 'struct' && isStruct(v)) return elem.struct.key?.(v) ?? '';
  return typeof v === 'string' ? v : String(v);
};

/** The child's list entries by (handle, key); a later entry with the same key replaces an earlier one, as in Go's map. */
function childIndex(child: GoStruct, s: StructDef): Map<string, ChildEntry> {
  const out = new Map<string, ChildEntry>();
  for (const fd of s.fields) {
    const t = fd.type;
    if (t.kind !== 'slice' || s.ignoreDups?.has(fd.go)) continue;
    const handle = s.mergedKeys?.[fd.go] ?? fd.go;
    const items = child[fd.go];
    if (!Array.isArray(items)) continue;
    for (const [index, v] of items.entries()) out.set(`${handle}\u0000${keyOf(v, t.elem)}`, { value: v, list: fd.go, index });
  }
  return out;
}

/** Merges two Go values of struct type `s` (parent first); neither is modified. */
export function mergeStruct(parent: GoStruct, child: GoStruct, s: StructDef): GoStruct {
  const result: GoStruct = {};
  const index = childIndex(child, s);
  for (const fd of s.fields) {
    const p = parent[fd.go] ?? null;
    const c = child[fd.go] ?? null;
    const t = fd.type;
    switch (t.kind) {
      case 'scalar':
        result[fd.go] = c ?? (t.scalar === 'string' ? '' : t.scalar === 'int' ? 0 : false);
        break;
      case 'ptrStruct':
        result[fd.go] = isStruct(p) && isStruct(c) ? mergeStruct(p, c, t.struct) : c === null ? p : c;
        break;
      case 'ptr':
        result[fd.go] = c === null ? p : c;
        break;
      case 'struct':
        if (isZero(c, t)) result[fd.go] = p;
        else if (isZero(p, t)) result[fd.go] = c;
        else result[fd.go] = mergeStruct(isStruct(p) ? p : {}, isStruct(c) ? c : {}, t.struct);
        break;
      case 'slice':
        result[fd.go] = mergeList(fd.go, Array.isArray(p) ? p : [], Array.isArray(c) ? c : [], t.elem, s, index);
        break;
    }
  }
  return result;
}

function mergeList(
  field: string,
  parent: GoValue[],
  child: GoValue[],
  elem: GoType,
  s: StructDef,
  index: Map<string, ChildEntry>,
): GoValue[] | null {
  if (parent.length + child.length === 0) return null;
  if (s.ignoreDups?.has(field)) return [...parent, ...child];
  const handle = s.mergedKeys?.[field] ?? field;
  const parentKeys = new Set(parent.map((v) => keyOf(v, elem)));
  const out: GoValue[] = [];
  for (const item of parent) {
    const hit = index.get(`${handle}\u0000${keyOf(item, elem)}`);
    if (hit === undefined) out.push(item);
    else if (hit.list === field) {
      if (elem.kind === 'struct') {
        // A child header without a value removes the parent's header of that name.
        if (field === 'HTTPHeaders' && isStruct(hit.value) && hit.value.Value === null) continue;
        out.push(mergeStruct(isStruct(item) ? item : {}, isStruct(hit.value) ? hit.value : {}, elem.struct));
      } else out.push(hit.value);
    }
    // else: the child holds this key in a list sharing the key space, and that list brings it.
  }
  for (const item of child) if (!parentKeys.has(keyOf(item, elem))) out.push(item);
  return out;
}

function decodeSpec3(config: unknown, minor: Minor3, what: string): GoStruct {
  const { config: def } = spec3Types(minor);
  const { value, typeError } = decode(config, { kind: 'struct', struct: def });
  if (typeError !== undefined) throw new PayloadError(`cannot merge the ${what} Ignition config: ${typeError}`);
  if (!isStruct(value)) throw new PayloadError(`cannot merge the ${what} Ignition config: it is not a map`);
  return value;
}

const encodeSpec3 = (v: GoStruct, minor: Minor3): Record<string, unknown> =>
  encode(v, { kind: 'struct', struct: spec3Types(minor).config }) as Record<string, unknown>;

/**
 * Ignition's Merge(parent, child) on two spec 3 configs given as JSON values (the `spec.config` of
 * MachineConfigs already in spec 3, e.g. from toSpec3). Both are read with the Go types of spec 3.<minor>
 * (3.5 by default, what the MCO uses since 2025-03); the result is marshalled as the MCO marshals it.
 */
export function mergeIgnition3(parent: unknown, child: unknown, minor: Minor3 = 5): Record<string, unknown> {
  const def = spec3Types(minor).config;
  return encodeSpec3(mergeStruct(decodeSpec3(parent, minor, 'parent'), decodeSpec3(child, minor, 'child'), def), minor);
}

export interface RenderOptions {
  /** The spec 3 minor version the MCO merged in: 5 (2025-03 on, the default), 4 (2023-07), 2 (2020-11), 1 (2020-07). */
  minor?: Minor3;
  /**
   * Give every child file without `compression` an empty one for the merge and drop the empty ones after it,
   * so that new contents do not inherit an old `gzip` (the MCO does this since 2025-04). Default true.
   */
  compressionReset?: boolean;
  /** Set `overwrite: true` on every file that leaves it unset after merging (the MCO does this since 2023-01). Default true. */
  overwriteDefault?: boolean;
}

/**
 * The Ignition half of the MCO's MergeMachineConfigs: the configs (already in spec 3, in the MCO's order:
 * worker-pool configs first, each group sorted by name) merged left to right. A config that is null or
 * undefined (a MachineConfig without `spec.config`) is skipped, and if it is the first the merge starts from
 * `{"ignition":{"version":"3.<minor>.0"}}`.
 */
export function mergeRenderedIgnition(configs: readonly unknown[], opts: RenderOptions = {}): Record<string, unknown> {
  const minor = opts.minor ?? 5;
  const def = spec3Types(minor).config;
  const [first, ...rest] = configs;
  let out: GoStruct =
    first === null || first === undefined
      ? decodeSpec3({ ignition: { version: `3.${minor}.0` } }, minor, 'first')
      : decodeSpec3(first, minor, 'first');
  rest.forEach((config, i) => {
    if (config === null || config === undefined) return;
    const child = decodeSpec3(config, minor, `#${i + 2}`);
    if (opts.compressionReset ?? true) for (const file of structs(sv(child, 'Storage'), 'Files')) setCompression(file, (c) => c ?? '');
    out = mergeStruct(out, child, def);
    if (opts.compressionReset ?? true)
      for (const file of structs(sv(out, 'Storage'), 'Files')) setCompression(file, (c) => (c === '' ? null : c));
  });
  if (opts.overwriteDefault ?? true) {
    for (const file of structs(sv(out, 'Storage'), 'Files')) {
      const node = sv(file, 'Node');
      if (node.Overwrite === null) node.Overwrite = true;
    }
  }
  return encodeSpec3(out, minor);
}

/** Rewrites a file's contents.compression in place (the values here are the merge's own copies). */
function setCompression(file: GoStruct, next: (c: string | null) => string | null): void {
  const embedded = sv(file, 'FileEmbedded1');
  const contents = { ...sv(embedded, 'Contents') };
  const c = contents.Compression;
  contents.Compression = next(typeof c === 'string' ? c : null);
  embedded.Contents = contents;
}
