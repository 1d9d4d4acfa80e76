/**
 * Stream JSON as the installer keeps its stream files (`data/data/coreos/*.json`, written by Go's
 * encoding/json with a 2-space indent): struct fields in stream-metadata-go's order, map keys sorted,
 * a final newline. Fields osimage does not know keep their place after the known ones, sorted.
 */
import type { StreamJson } from './types.js';

/** A struct's field order, and what each field holds. */
interface Shape {
  fields: string[];
  /** Field → the shape of its value; a field not here holds a scalar or a map of `mapOf`. */
  of: Record<string, Kind>;
}
type Kind = Shape | { map: Kind } | 'scalar';

const artifact: Shape = { fields: ['location', 'signature', 'sha256', 'uncompressed-sha256'], of: {} };
const format: Shape = {
  fields: ['disk', 'kernel', 'initramfs', 'rootfs'],
  of: { disk: artifact, kernel: artifact, initramfs: artifact, rootfs: artifact },
};
const platform: Shape = { fields: ['release', 'formats'], of: { formats: { map: format } } };
const single: Shape = { fields: ['release', 'image'], of: {} };
const object: Shape = { fields: ['release', 'object', 'bucket', 'url'], of: {} };
const replicated: Shape = { fields: ['regions'], of: { regions: { map: single } } };
const replicatedObject: Shape = { fields: ['regions'], of: { regions: { map: object } } };
const images: Shape = {
  fields: ['aliyun', 'aws', 'gcp', 'ibmcloud', 'kubevirt', 'powervs'],
  of: {
    aliyun: replicated,
    aws: replicated,
    gcp: { fields: ['release', 'project', 'family', 'name'], of: {} },
    ibmcloud: replicatedObject,
    kubevirt: { fields: ['release', 'image', 'digest-ref'], of: {} },
    powervs: replicatedObject,
  },
};
const marketImage: Shape = { fields: ['publisher', 'offer', 'sku', 'version'], of: {} };
const marketImages: Shape = { fields: ['hyperVGen1', 'hyperVGen2'], of: { hyperVGen1: marketImage, hyperVGen2: marketImage } };
const offers = ['no-purchase-plan', 'ocp', 'opp', 'oke', 'ocp-emea', 'opp-emea', 'oke-emea'];
const marketplace: Shape = {
  fields: ['azure'],
  of: { azure: { fields: offers, of: Object.fromEntries(offers.map((o) => [o, marketImages])) } },
};
const extensions: Shape = {
  fields: ['aws-winli', 'azure-disk', 'marketplace'],
  of: { 'aws-winli': replicated, 'azure-disk': { fields: ['release', 'url'], of: {} }, marketplace },
};
const arch: Shape = {
  fields: ['artifacts', 'images', 'rhel-coreos-extensions'],
  of: { artifacts: { map: platform }, images, 'rhel-coreos-extensions': extensions },
};
const STREAM: Shape = {
  fields: ['stream', 'metadata', 'architectures'],
  of: { metadata: { fields: ['last-modified', 'generator'], of: {} }, architectures: { map: arch } },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const sorted = (keys: string[]) => [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** A copy of `value` with its keys in the order of `kind`: struct fields in order, map keys and unknown fields sorted. */
function ordered(value: unknown, kind: Kind): unknown {
  if (Array.isArray(value)) return value.map((v) => ordered(v, 'scalar'));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  if (kind !== 'scalar' && 'map' in kind) {
    for (const k of sorted(Object.keys(value))) out[k] = ordered(value[k], kind.map);
    return out;
  }
  const shape = kind === 'scalar' ? { fields: [], of: {} } : kind;
  const known = shape.fields.filter((f) => f in value);
  const rest = sorted(Object.keys(value).filter((k) => !shape.fields.includes(k)));
  for (const k of [...known, ...rest]) out[k] = ordered(value[k], shape.of[k] ?? 'scalar');
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
