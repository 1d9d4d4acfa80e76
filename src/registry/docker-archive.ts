/**
 * The `docker-archive:FILE[:REF|:@N]` transport: the tar `docker save` (and `skopeo copy … docker-archive:`)
 * writes. Its `manifest.json` lists images as `{Config, RepoTags, Layers}` with paths inside the tar: a config
 * named by its sha256, layers as `<id>/layer.tar`, `<hex>.tar` or (Docker 25 and later) `blobs/sha256/<hex>`.
 * There is no registry manifest in it, so one is made (Docker schema 2, as containers/image makes one): the
 * config's digest is the sha256 of its bytes, a layer's is the hex of its `blobs/sha256/` name, else its diff ID
 * from the config when the layer is a plain tar (a compressed one is hashed once). Blobs are streamed from where
 * they lie in the tar and verified like any other.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { OsimageError, UsageError, describe } from '../errors.js';
import { isDigest, sha256Digest } from '../oci/digest.js';
import { ImageReference, parseImageReference } from '../oci/reference.js';
import { ArchiveFiles } from './oci-archive.js';
import { requirePath, verifiedBlob } from './oci-layout.js';
import {
  MAX_MANIFEST_BYTES,
  MEDIA_TYPES,
  type Descriptor,
  type FetchedManifest,
  type ImageManifest,
  type ImageSource,
  type SourceOptions,
} from './types.js';

const TRANSPORT = 'docker-archive';
/** An image config is a small document; a larger one is refused as a manifest is. */
const MAX_CONFIG_BYTES = MAX_MANIFEST_BYTES;
const MAX_LAYERS = 1000;
const DOCKER_LAYER_TAR = 'application/vnd.docker.image.rootfs.diff.tar';
const ZSTD_LAYER = 'application/vnd.oci.image.layer.v1.tar+zstd';

interface SaveEntry {
  Config: string;
  RepoTags: string[];
  Layers: string[];
}

/** `docker-archive:FILE`, `docker-archive:FILE:REF` (a name in RepoTags), `docker-archive:FILE:@N` (the N-th image). */
export function parseArchiveReference(ref: string): { path: string; select: { tag: string } | { index: number } | undefined } {
  const rest = ref.slice(TRANSPORT.length + 1);
  const colon = rest.indexOf(':');
  const path = colon >= 0 ? rest.slice(0, colon) : rest;
  if (path === '') throw new UsageError(`invalid reference ${ref}: no path after ${TRANSPORT}:`);
  if (colon < 0) return { path, select: undefined };
  const which = rest.slice(colon + 1);
  if (/^@\d+$/.test(which)) return { path, select: { index: Number(which.slice(1)) } };
  if (which === '' || which.includes('@')) {
    throw new UsageError(`invalid reference ${ref}: after the file name comes a name:tag from the archive, or @N`);
  }
  return { path, select: { tag: normalTag(which) } };
}

/** `busybox:latest`, `docker.io/library/busybox:latest` and `busybox` all name docker.io/library/busybox:latest. */
function normalTag(name: string): string {
  return ImageReference.from(parseImageReference(name)).toString();
}

function readEntries(bytes: Buffer, what: string): SaveEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new OsimageError(`${what} is not valid JSON: ${describe(err)}`);
  }
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
  const ok = (e: unknown): e is SaveEntry => {
    const x = e as Partial<SaveEntry> | null;
    return !!x && typeof x.Config === 'string' && strings(x.Layers) && (x.RepoTags == null || strings(x.RepoTags));
  };
  if (!Array.isArray(doc) || !doc.every(ok))
    throw new OsimageError(`${what} is not a docker save manifest (a list of {Config, RepoTags, Layers})`);
  return doc.map((e) => ({ Config: e.Config, RepoTags: e.RepoTags ?? [], Layers: e.Layers }));
}

/** The tar's entry names are normalised (oci-archive.ts indexTar): so are the paths manifest.json gives. */
const entryPath = (p: string) => p.replace(/^(\.\/|\/)+/, '');

class DockerArchiveSource implements ImageSource {
  readonly name: string;
  private built: Promise<{ manifest: FetchedManifest; paths: Map<string, string> }> | undefined;

  constructor(
    private readonly files: ArchiveFiles,
    private readonly select: ReturnType<typeof parseArchiveReference>['select'],
    written: string,
    private readonly opts: SourceOptions,
  ) {
    this.name = written;
  }

  pullspecFor(digest: string): string {
    return `${this.files.label}@${digest}`;
  }

  private async pick(): Promise<SaveEntry> {
    const what = `${this.files.label}/manifest.json`;
    const entries = readEntries(await this.files.readFile('manifest.json', MAX_MANIFEST_BYTES), what);
    const names = () => entries.map((e, i) => (e.RepoTags.length > 0 ? e.RepoTags.join(' ') : `@${i}`)).join(', ');
    const s = this.select;
    if (s === undefined) {
      if (entries.length === 1) return entries[0]!;
      if (entries.length === 0) throw new OsimageError(`${this.files.label} holds no images (manifest.json lists none)`);
      throw new OsimageError(
        `${this.files.label} holds ${entries.length} images; name one as ${this.files.label}:NAME:TAG or :@N (${names()})`,
      );
    }
    if ('index' in s) {
      const e = entries[s.index];
      if (!e) throw new OsimageError(`${this.files.label} has no image @${s.index} (it holds ${entries.length})`, { code: 'not-found' });
      return e;
    }
    const hit = entries.find((e) => e.RepoTags.some((t) => t === s.tag || safeNormal(t) === s.tag));
    if (!hit) {
      throw new OsimageError(`no image tagged "${s.tag}" in ${this.files.label} (${names() || 'it has no tags'})`, { code: 'not-found' });
    }
    return hit;
  }

  /** The layer's digest and media type, from its name, its first bytes and the config's diff IDs. */
  private async layer(path: string, diffId: string | undefined): Promise<Descriptor> {
    const size = await this.files.size(path);
    if (size === undefined) throw new OsimageError(`cannot read ${this.files.label}/${path}: no such file in the archive`);
    const head = await this.files.head(path, 4);
    const gzip = head[0] === 0x1f && head[1] === 0x8b;
    const zstd = head.length === 4 && head.readUInt32LE(0) === 0xfd2fb528;
    const mediaType = gzip ? MEDIA_TYPES.dockerLayerGzip : zstd ? ZSTD_LAYER : DOCKER_LAYER_TAR;
    const named = /(?:^|\/)blobs\/sha256\/([a-f0-9]{64})$/.exec(path)?.[1];
    let digest: string;
    if (named !== undefined) digest = `sha256:${named}`;
    else if (!gzip && !zstd && diffId !== undefined && isDigest(diffId)) digest = diffId;
    else digest = await this.hash(path);
    return { mediaType, digest, size };
  }

  private async hash(path: string): Promise<string> {
    const h = createHash('sha256');
    const { stream } = await this.files.open(path);
    for await (const chunk of stream) h.update(chunk as Buffer);
    return `sha256:${h.digest('hex')}`;
  }

  private build(): Promise<{ manifest: FetchedManifest; paths: Map<string, string> }> {
    this.built ??= (async () => {
      const entry = await this.pick();
      if (entry.Layers.length > MAX_LAYERS)
        throw new OsimageError(`${this.files.label} lists ${entry.Layers.length} layers, more than ${MAX_LAYERS}`);
      const configPath = entryPath(entry.Config);
      const config = await this.files.readFile(configPath, MAX_CONFIG_BYTES);
      let diffIds: unknown;
      try {
        diffIds = (JSON.parse(config.toString('utf8')) as { rootfs?: { diff_ids?: unknown } } | null)?.rootfs?.diff_ids;
      } catch (err) {
        throw new OsimageError(`${this.files.label}/${configPath} is not valid JSON: ${describe(err)}`);
      }
      const ids = Array.isArray(diffIds) ? diffIds : [];
      const paths = new Map<string, string>();
      const configDesc: Descriptor = { mediaType: MEDIA_TYPES.dockerConfig, digest: sha256Digest(config), size: config.length };
      paths.set(configDesc.digest, configPath);
      const layers: Descriptor[] = [];
      for (const [i, raw] of entry.Layers.entries()) {
        const path = entryPath(raw);
        const id = ids[i];
        const desc = await this.layer(path, typeof id === 'string' ? id : undefined);
        paths.set(desc.digest, path);
        layers.push(desc);
      }
      const parsed: ImageManifest = { schemaVersion: 2, mediaType: MEDIA_TYPES.dockerManifest, config: configDesc, layers };
      const bytes = Buffer.from(JSON.stringify(parsed));
      return { manifest: { digest: sha256Digest(bytes), mediaType: MEDIA_TYPES.dockerManifest, bytes, parsed }, paths };
    })();
    return this.built;
  }

  async manifest(): Promise<FetchedManifest> {
    return (await this.build()).manifest;
  }

  async manifestByDigest(digest: string): Promise<FetchedManifest> {
    const { manifest } = await this.build();
    if (manifest.digest !== digest) throw new OsimageError(`${this.name} holds one image, ${manifest.digest}, not ${digest}`);
    return manifest;
  }

  async blob(desc: Descriptor): Promise<Readable> {
    const path = (await this.build()).paths.get(desc.digest);
    if (path === undefined) throw new OsimageError(`${this.name} has no blob ${desc.digest}`);
    return verifiedBlob(this.files, path, desc, this.opts);
  }

  async close(): Promise<void> {}
}

function safeNormal(tag: string): string | undefined {
  try {
    return normalTag(tag);
  } catch {
    return undefined;
  }
}

/** Open `docker-archive:FILE[:REF|:@N]`. */
export async function openDockerArchive(ref: string, opts: SourceOptions = {}): Promise<ImageSource> {
  const { path, select } = parseArchiveReference(ref);
  const label = `${TRANSPORT}:${path}`;
  await requirePath(label, path, 'file');
  return new DockerArchiveSource(new ArchiveFiles(label, path), select, ref, opts);
}
