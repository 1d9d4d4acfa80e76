/**
 * Stream JSON as text. Two writers share one description of coreos/stream-metadata-go's types (field order,
 * which fields are `omitempty`, which are maps):
 *
 * - {@link formatStream} / {@link formatStreamValue}: the stream file of `osimage stream` and `--target`
 *   (2-space indent, struct fields in stream-metadata-go's order, map keys sorted, a final newline); fields
 *   osimage does not know keep their place after the known ones, sorted.
 * - {@link goStreamJson}: the stream exactly as a Go program that decodes it into `stream.Stream` and encodes
 *   it again writes it, which is what the installer's ConfigMap generator and `plume cosa2stream` do: unknown
 *   fields dropped, keys matched without regard to case, Go's zero value for a missing field that is not
 *   `omitempty`, Go's string escaping (`<`, `>`, `&`, U+2028, U+2029 as `\uXXXX`), and one of three layouts.
 */
import { OsimageError } from '../errors.js';
import { goField, goJson, goKeyCompare } from '../golang/json.js';
import type { StreamJson } from './types.js';

/** A Go type as encoding/json sees it. */
type GoType = 'string' | { struct: readonly Field[] } | { map: GoType } | { ptr: GoType };
interface Field {
  key: string;
  type: GoType;
  omitempty?: boolean;
}

const str = (key: string, omitempty = false): Field => ({ key, type: 'string', omitempty });
const ptr = (key: string, struct: readonly Field[]): Field => ({ key, type: { ptr: { struct } }, omitempty: true });

const artifact = [str('location'), str('signature', true), str('sha256'), str('uncompressed-sha256', true)];
const imageFormat = ['disk', 'kernel', 'initramfs', 'rootfs'].map((k) => ptr(k, artifact));
const platformArtifacts = [str('release'), { key: 'formats', type: { map: { struct: imageFormat } } }];
const singleImage = [str('release'), str('image')];
const replicatedImage = [{ key: 'regions', type: { map: { struct: singleImage } }, omitempty: true }];
const singleObject = [str('release'), str('object'), str('bucket'), str('url')];
const replicatedObject = [{ key: 'regions', type: { map: { struct: singleObject } }, omitempty: true }];
const images = [
  ptr('aliyun', replicatedImage),
  ptr('aws', replicatedImage),
  ptr('gcp', [str('release'), str('project'), str('family', true), str('name')]),
  ptr('ibmcloud', replicatedObject),
  ptr('kubevirt', [str('release'), str('image'), str('digest-ref')]),
  ptr('powervs', replicatedObject),
];
const marketImage = [str('publisher'), str('offer'), str('sku'), str('version')];
const marketImages = [ptr('hyperVGen1', marketImage), ptr('hyperVGen2', marketImage)];
const offers = ['no-purchase-plan', 'ocp', 'opp', 'oke', 'ocp-emea', 'opp-emea', 'oke-emea'];
/** rhcos.Marketplace: one arch's entry of a marketplace file, and `rhel-coreos-extensions.marketplace`. */
const marketplace = [
  ptr(
    'azure',
    offers.map((o) => ptr(o, marketImages)),
  ),
];
const extensions = [
  ptr('aws-winli', replicatedImage),
  ptr('azure-disk', [str('release'), str('url', true)]),
  ptr('marketplace', marketplace),
];
const arch = [
  { key: 'artifacts', type: { map: { struct: platformArtifacts } } },
  // `omitempty` on a struct value has no effect in encoding/json: images is always written, `{}` when empty.
  { key: 'images', type: { struct: images } },
  ptr('rhel-coreos-extensions', extensions),
];
const STREAM: GoType = {
  struct: [
    str('stream'),
    { key: 'metadata', type: { struct: [str('last-modified'), str('generator', true)] } },
    { key: 'architectures', type: { map: { struct: arch } } },
  ],
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const sorted = (keys: string[]) => [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** A key set on a fresh object as data: a `__proto__` key from a file is a key like any other. */
function put(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** A copy of `value` with its keys in the order of `type`: struct fields in order, map keys and unknown fields sorted. */
function ordered(value: unknown, type: GoType): unknown {
  if (Array.isArray(value)) return value.map((v) => ordered(v, 'string'));
  if (!isObject(value)) return value;
  if (typeof type !== 'string' && 'ptr' in type) return ordered(value, type.ptr);
  const out: Record<string, unknown> = {};
  if (typeof type !== 'string' && 'map' in type) {
    for (const k of sorted(Object.keys(value))) put(out, k, ordered(value[k], type.map));
    return out;
  }
  const fields = typeof type === 'string' ? [] : type.struct;
  const names = fields.map((f) => f.key);
  const known = fields.filter((f) => f.key in value);
  for (const f of known) put(out, f.key, ordered(value[f.key], f.type));
  for (const k of sorted(Object.keys(value).filter((k) => !names.includes(k)))) put(out, k, ordered(value[k], 'string'));
  return out;
}

/** The stream as a stream file: 2-space indent, stream-metadata's field order, map keys sorted, final newline. */
export function formatStream(stream: StreamJson): string {
  return `${JSON.stringify(ordered(stream, STREAM), null, 2)}\n`;
}

/** The same, for any stream-shaped value read from a file (unknown fields kept, sorted after known ones). */
export function formatStreamValue(value: unknown): string {
  return `${JSON.stringify(ordered(value, STREAM), null, 2)}\n`;
}

/**
 * How the text is laid out:
 * - `file`: 2-space indent and a final newline, as `plume cosa2stream` writes a stream file (a json.Encoder
 *   with a 2-space indent);
 * - `indented`: 2-space indent, no final newline (json.MarshalIndent);
 * - `compact`: one line, no spaces, no final newline (json.Marshal).
 */
export type StreamLayout = 'file' | 'indented' | 'compact';

export interface GoStreamOptions {
  layout: StreamLayout;
  /**
   * Write Go's zero value (`""`, `null`) for a field the value lacks that is not `omitempty`, as decoding into
   * today's stream-metadata-go types and encoding again does (default true). False keeps such fields absent:
   * a stream file written by an older stream-metadata-go (a 2021 `gcp` without `release`) stays as it was.
   */
  zeroValues?: boolean;
  /** What the value is, for errors (a file name, `--marketplace FILE`). */
  source?: string;
}

/** Go turns a lone UTF-16 surrogate (a `\ud800` escape) into U+FFFD when it decodes a string. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const kindOf = (v: unknown) => (Array.isArray(v) ? 'an array' : v === null ? 'null' : `a ${typeof v}`);

/**
 * `value` as Go holds it after decoding into `type`, ready for {@link goJson}: undefined for a field that
 * encoding/json leaves out, null for a nil map or pointer it writes.
 */
function goValue(value: unknown, type: GoType, path: string, o: Required<Omit<GoStreamOptions, 'layout'>>): unknown {
  const wrong = (what: string): never => {
    throw new OsimageError(`${o.source}: ${path || 'the stream'}: ${kindOf(value)} where stream-metadata has ${what}`, {
      code: 'invalid-input',
    });
  };
  if (type === 'string') {
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value.replace(LONE_SURROGATE, '\uFFFD') : wrong('a string');
  }
  if ('ptr' in type) return value === undefined || value === null ? null : goValue(value, type.ptr, path, o);
  if ('map' in type) {
    if (value === undefined || value === null) return null;
    if (!isObject(value)) return wrong('an object');
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort(goKeyCompare)) put(out, k, goValue(value[k], type.map, path ? `${path}.${k}` : k, o));
    return out;
  }
  if (value !== undefined && value !== null && !isObject(value)) return wrong('an object');
  const from = isObject(value) ? value : {};
  const out: Record<string, unknown> = {};
  for (const f of type.struct) {
    const raw = goField(from, f.key);
    if (raw === undefined && !o.zeroValues) continue;
    const v = goValue(raw, f.type, path ? `${path}.${f.key}` : f.key, o);
    const empty = v === '' || v === null || (isObject(v) && f.type !== 'string' && 'map' in f.type && Object.keys(v).length === 0);
    if (f.omitempty && empty) continue;
    put(out, f.key, v);
  }
  return out;
}

/** A stream's JSON text as Go writes it after decoding it into stream-metadata-go's `stream.Stream`. */
export function goStreamJson(value: unknown, opts: GoStreamOptions): string {
  return layoutJson(goStreamValue(value, opts), opts.layout);
}

/**
 * The stream as Go holds it after decoding (see {@link goStreamJson}), for a caller that writes it inside
 * another document (`data.streams`, a map of streams). Errors name `source` and the field.
 */
export function goStreamValue(value: unknown, opts: Omit<GoStreamOptions, 'layout'> = {}): unknown {
  return goValue(value, STREAM, '', { zeroValues: opts.zeroValues ?? true, source: opts.source ?? 'stream' });
}

/** A value made by {@link goStreamValue} (or a map of them) in one of the layouts. */
export function layoutJson(value: unknown, layout: StreamLayout): string {
  if (layout === 'compact') return goJson(value, null);
  return layout === 'file' ? `${goJson(value, '  ')}\n` : goJson(value, '  ');
}
