import { OsimageError } from '../errors.js';
import { CONTAINER_KEYS, type ContainerKey } from '../oci/os-tags.js';

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

/**
 * A container a build publishes (`oscontainer`, `base-oscontainer`, `extensions-container`), normalised: the
 * digest given as `digest` or inside `image` (`repo@sha256:…`) is `digest`, and `image` is the repository alone.
 */
export interface BuildContainer {
  image: string;
  digest: string | null;
  manifestListDigest: string | null;
  tags: string[];
  /** `image@digest`, or `image` as given when the build names no digest. */
  pullspec: string;
}

/** meta.json of any era, normalised: AMIs as a region map, sizes as numbers. */
export interface BuildMeta {
  buildid: string;
  /** region → AMI id, in the order the file lists them. */
  amis: Record<string, string>;
  images: Record<string, Artifact>;
  oscontainer?: OsContainer;
  /** Every container key, `null` when the build has none. */
  containers: Record<ContainerKey, BuildContainer | null>;
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

  const containers = {} as Record<ContainerKey, BuildContainer | null>;
  for (const key of CONTAINER_KEYS) containers[key] = parseContainer(doc[key], key, url);
  const meta: BuildMeta = { buildid, amis, images, containers, raw: doc };
  const oc = containers.oscontainer;
  if (oc) meta.oscontainer = oc.digest ? { image: oc.image, digest: oc.digest } : { image: oc.image };
  for (const key of ['ostree-commit', 'ostree-version', 'baseURI'] as const) {
    const v = optString(doc, key, url);
    if (v !== undefined) meta[key] = v;
  }
  return meta;
}

function parseContainer(v: unknown, key: ContainerKey, url: string): BuildContainer | null {
  if (v === undefined || v === null) return null;
  const bad = (why: string) => new OsimageError(`invalid meta.json at ${url}: ${why}`);
  if (!isObject(v) || typeof v.image !== 'string' || v.image === '') return failMissing(bad, key);
  const given = optString(v, 'digest', url, `${key}.`) ?? null;
  const at = v.image.indexOf('@');
  const image = at === -1 ? v.image : v.image.slice(0, at);
  const inline = at === -1 ? null : v.image.slice(at + 1);
  // Digests are not checked here (older builds and pins carry what they carry); the commands that write or
  // open a pullspec check it with the one reference grammar.
  if (given !== null && inline !== null && given !== inline) {
    throw bad(`${key} gives two digests that disagree: ${inline} in "image" and ${given} in "digest"`);
  }
  const digest = given ?? inline;
  const manifestListDigest = optString(v, 'manifest-list-digest', url, `${key}.`) ?? null;
  const tags = v.tags ?? [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) throw bad(`${key}.tags must be a list of strings`);
  return { image, digest, manifestListDigest, tags: tags as string[], pullspec: digest ? `${image}@${digest}` : image };
}

function failMissing(bad: (why: string) => OsimageError, key: string): never {
  throw bad(`missing required field "${key}.image"`);
}

/**
 * A container's pullspec: `image@digest`, or with `manifestList` the manifest list's digest (for multi-arch
 * payloads); undefined when the build has no manifest list digest for it.
 */
export function containerPullspec(c: BuildContainer, opts: { manifestList?: boolean } = {}): string | undefined {
  if (!opts.manifestList) return c.pullspec;
  return c.manifestListDigest ? `${c.image}@${c.manifestListDigest}` : undefined;
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
