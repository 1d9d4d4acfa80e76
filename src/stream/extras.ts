/**
 * The meta.json fields the stream needs beyond what `parseMeta` normalises, read from `meta.raw` and
 * validated with one-line errors naming the meta.json URL: the uploaded cloud images (`gcp`, `azure`,
 * `aliyun`, `ibmcloud`, `powervs`, `kubevirt`, `aws-winli`) and the timestamps.
 */
import { OsimageError } from '../errors.js';

export interface RegionId {
  region: string;
  image: string;
}

export interface RegionBucket {
  region: string;
  object: string;
  bucket: string;
  url: string;
}

export interface MetaExtras {
  gcp?: { image: string; project: string; family?: string };
  azure?: { url: string };
  aliyun?: RegionId[];
  ibmcloud?: RegionBucket[];
  powervs?: RegionBucket[];
  /** `image` is the repository with its floating tag, `digestRef` the repository with the digest. */
  kubevirt?: { image: string; digestRef: string };
  awsWinli?: RegionId[];
  buildTimestamp?: string;
  ostreeTimestamp?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

type Bad = (why: string) => OsimageError;

function str(o: Record<string, unknown>, key: string, where: string, bad: Bad): string {
  const v = o[key];
  if (typeof v !== 'string' || v === '') throw bad(`${where}.${key} must be a non-empty string`);
  return v;
}

function optStr(o: Record<string, unknown>, key: string, where: string, bad: Bad): string | undefined {
  return o[key] === undefined || o[key] === null ? undefined : str(o, key, where, bad);
}

function list(v: unknown, key: string, bad: Bad): Record<string, unknown>[] {
  if (!Array.isArray(v)) throw bad(`"${key}" must be a list`);
  return v.map((e, i) => {
    if (!isObject(e)) throw bad(`${key}[${i}] must be an object`);
    return e;
  });
}

/** `{name, id}` (aliyun) or `{name, hvm}` (aws-winli) per region. */
function regionIds(v: unknown, key: string, idKey: string, bad: Bad): RegionId[] {
  return list(v, key, bad).map((e, i) => ({ region: str(e, 'name', `${key}[${i}]`, bad), image: str(e, idKey, `${key}[${i}]`, bad) }));
}

function regionBuckets(v: unknown, key: string, bad: Bad): RegionBucket[] {
  return list(v, key, bad).map((e, i) => {
    const at = `${key}[${i}]`;
    return {
      region: str(e, 'region', at, bad),
      object: str(e, 'object', at, bad),
      bucket: str(e, 'bucket', at, bad),
      url: str(e, 'url', at, bad),
    };
  });
}

/** A timestamp as RFC 3339 seconds in UTC; a value that is not a date is an error. */
function timestamp(v: unknown, key: string, bad: Bad): string | undefined {
  if (v === undefined || v === null) return undefined;
  const d = typeof v === 'string' ? new Date(v) : new Date(Number.NaN);
  if (Number.isNaN(d.getTime())) throw bad(`"${key}" is not a timestamp: ${JSON.stringify(v)}`);
  return rfc3339(d);
}

export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The stream's extra fields of one meta.json; `url` names it in errors. */
export function readExtras(raw: Record<string, unknown>, url: string): MetaExtras {
  const bad: Bad = (why) => new OsimageError(`invalid meta.json at ${url}: ${why}`, { code: 'invalid-input' });
  const obj = (key: string): Record<string, unknown> | undefined => {
    const v = raw[key];
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) throw bad(`"${key}" must be an object`);
    return v;
  };
  const out: MetaExtras = {};
  const gcp = obj('gcp');
  if (gcp) {
    const family = optStr(gcp, 'family', 'gcp', bad);
    out.gcp = { image: str(gcp, 'image', 'gcp', bad), project: str(gcp, 'project', 'gcp', bad), ...(family ? { family } : {}) };
  }
  const azure = obj('azure');
  if (azure) out.azure = { url: str(azure, 'url', 'azure', bad) };
  const kubevirt = obj('kubevirt');
  if (kubevirt) out.kubevirt = kubevirtImage(kubevirt, String(raw.buildid), bad);
  if (raw.aliyun != null) out.aliyun = regionIds(raw.aliyun, 'aliyun', 'id', bad);
  if (raw['aws-winli'] != null) out.awsWinli = regionIds(raw['aws-winli'], 'aws-winli', 'hvm', bad);
  if (raw.ibmcloud != null) out.ibmcloud = regionBuckets(raw.ibmcloud, 'ibmcloud', bad);
  if (raw.powervs != null) out.powervs = regionBuckets(raw.powervs, 'powervs', bad);
  const built = timestamp(raw['coreos-assembler.build-timestamp'], 'coreos-assembler.build-timestamp', bad);
  if (built) out.buildTimestamp = built;
  const ostree = timestamp(raw['ostree-timestamp'], 'ostree-timestamp', bad);
  if (ostree) out.ostreeTimestamp = ostree;
  return out;
}

/**
 * `kubevirt` `{image, digest, tags}` → the stream's `{image: repo:<floating tag>, digest-ref: repo@digest}`, as
 * coreos-assembler does: the floating tag is the one tag that does not contain the build id.
 */
function kubevirtImage(o: Record<string, unknown>, buildid: string, bad: Bad): { image: string; digestRef: string } {
  const repo = str(o, 'image', 'kubevirt', bad);
  const digest = str(o, 'digest', 'kubevirt', bad);
  const tags = o.tags ?? [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) throw bad('kubevirt.tags must be a list of strings');
  const floating = (tags as string[]).filter((t) => !t.includes(buildid));
  if (floating.length !== 1) {
    throw bad(`kubevirt.tags must hold exactly one floating tag (one without the build id ${buildid}), found [${floating.join(', ')}]`);
  }
  return { image: `${repo}:${floating[0]}`, digestRef: `${repo}@${digest}` };
}
