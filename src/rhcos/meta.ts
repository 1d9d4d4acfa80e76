import { OsimageError } from '../errors.js';

/** An image artifact of a build (`images.<name>` in meta.json). */
export interface Artifact {
  path: string;
  sha256?: string;
  size?: number;
  'uncompressed-sha256'?: string;
  'uncompressed-size'?: number;
}

export interface OsContainer {
  image: string;
  digest?: string;
}

/** meta.json of any era, normalised: AMIs as a region map, sizes as numbers. */
export interface BuildMeta {
  buildid: string;
  /** region → AMI id, in the order the file lists them. */
  amis: Record<string, string>;
  images: Record<string, Artifact>;
  oscontainer?: OsContainer;
  'ostree-commit'?: string;
  'ostree-version'?: string;
  /** `baseURI` as the file states it (the 2019 pinned copy); not used to resolve paths. */
  baseURI?: string;
  /** The document as read. */
  raw: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function toSize(v: unknown, field: string, url: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new OsimageError(`invalid meta.json at ${url}: ${field} is not a size: ${JSON.stringify(v)}`);
  }
  return n;
}

function optString(doc: Record<string, unknown>, key: string, url: string, prefix = ''): string | undefined {
  const v = doc[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new OsimageError(`invalid meta.json at ${url}: ${prefix}${key} must be a string`);
  return v;
}

/**
 * Read meta.json of every shape the release browser has served: 2018 (`amis` a list of {name, hvm}),
 * the 2019 pinned copy (`amis` a map region → {hvm}, sizes as strings, `baseURI`) and coreos-assembler
 * v1 (numeric sizes, `oscontainer`). `buildid` is required; everything else is optional.
 */
export function parseMeta(doc: unknown, url: string): BuildMeta {
  if (!isObject(doc)) throw new OsimageError(`invalid meta.json at ${url}: expected a JSON object`);
  const buildid = doc.buildid;
  if (buildid === undefined) throw new OsimageError(`invalid meta.json at ${url}: missing required field "buildid"`);
  if (typeof buildid !== 'string' || buildid === '')
    throw new OsimageError(`invalid meta.json at ${url}: "buildid" must be a non-empty string`);

  const amis: Record<string, string> = {};
  const rawAmis = doc.amis;
  if (Array.isArray(rawAmis)) {
    rawAmis.forEach((a, i) => {
      if (!isObject(a) || typeof a.name !== 'string' || typeof a.hvm !== 'string') {
        throw new OsimageError(`invalid meta.json at ${url}: amis[${i}] needs "name" and "hvm"`);
      }
      amis[a.name] = a.hvm;
    });
  } else if (isObject(rawAmis)) {
    for (const [region, v] of Object.entries(rawAmis)) {
      if (!isObject(v) || typeof v.hvm !== 'string') throw new OsimageError(`invalid meta.json at ${url}: amis.${region} needs "hvm"`);
      amis[region] = v.hvm;
    }
  } else if (rawAmis !== undefined && rawAmis !== null) {
    throw new OsimageError(`invalid meta.json at ${url}: "amis" must be a list or a map`);
  }

  const images: Record<string, Artifact> = {};
  if (doc.images !== undefined && doc.images !== null) {
    if (!isObject(doc.images)) throw new OsimageError(`invalid meta.json at ${url}: "images" must be an object`);
    for (const [name, a] of Object.entries(doc.images)) {
      if (!isObject(a)) continue; // provenance keys that are not artifacts
      const path = a.path;
      if (typeof path !== 'string' || path === '')
        throw new OsimageError(`invalid meta.json at ${url}: missing required field "images.${name}.path"`);
      const art: Artifact = { path };
      const sha = optString(a, 'sha256', url, `images.${name}.`);
      const usha = optString(a, 'uncompressed-sha256', url, `images.${name}.`);
      const size = toSize(a.size, `images.${name}.size`, url);
      const usize = toSize(a['uncompressed-size'], `images.${name}.uncompressed-size`, url);
      if (sha !== undefined) art.sha256 = sha;
      if (size !== undefined) art.size = size;
      if (usha !== undefined) art['uncompressed-sha256'] = usha;
      if (usize !== undefined) art['uncompressed-size'] = usize;
      images[name] = art;
    }
  }

  const meta: BuildMeta = { buildid, amis, images, raw: doc };
  if (doc.oscontainer !== undefined && doc.oscontainer !== null) {
    const oc = doc.oscontainer;
    if (!isObject(oc) || typeof oc.image !== 'string' || oc.image === '') {
      throw new OsimageError(`invalid meta.json at ${url}: missing required field "oscontainer.image"`);
    }
    const digest = optString(oc, 'digest', url, 'oscontainer.');
    meta.oscontainer = digest ? { image: oc.image, digest } : { image: oc.image };
  }
  for (const key of ['ostree-commit', 'ostree-version', 'baseURI'] as const) {
    const v = optString(doc, key, url);
    if (v !== undefined) meta[key] = v;
  }
  return meta;
}

/** `image@digest` (or the image alone when meta.json gives no digest). */
export function osContainerPullspec(oc: OsContainer): string {
  return oc.digest ? `${oc.image}@${oc.digest}` : oc.image;
}

/** The QEMU image of a build, resolved against its directory, as the installer did. */
export interface QemuImage {
  url: string;
  /** The URL the installer used: with `?sha256=<uncompressed-sha256>` when that is known. */
  installerUrl: string;
  sha256?: string;
  uncompressedSha256?: string;
}

export function qemuImage(meta: BuildMeta, buildDir: string): QemuImage | undefined {
  const q = meta.images.qemu;
  if (!q) return undefined;
  const url = new URL(q.path, buildDir).toString();
  const usha = q['uncompressed-sha256'];
  return {
    url,
    installerUrl: usha ? `${url}?sha256=${usha}` : url,
    ...(q.sha256 ? { sha256: q.sha256 } : {}),
    ...(usha ? { uncompressedSha256: usha } : {}),
  };
}
