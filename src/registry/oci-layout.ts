/**
 * The `oci:DIR[:TAG]` transport: an OCI image layout on disk (oci-layout, index.json, blobs/<algorithm>/<hex>).
 * The same reader serves `oci-archive:` through a different file store (see oci-archive.ts).
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { OsimageError, UsageError, describe } from '../errors.js';
import { isMissing, noSuchFile } from '../files/read.js';
import {
  MAX_MANIFEST_BYTES,
  MEDIA_TYPES,
  isIndex,
  type Descriptor,
  type FetchedManifest,
  type ImageIndex,
  type ImageManifest,
  type ImageSource,
  type SourceOptions,
} from './types.js';
import { isDigest, sha256Digest, verifyBytes, verifyingStream } from '../oci/digest.js';
import { checkManifest } from './documents.js';

export const REF_NAME_ANNOTATION = 'org.opencontainers.image.ref.name';

/** Files of a layout, wherever they live: a folder, or entries of a tar. Paths are layout-relative (`blobs/sha256/…`). */
export interface LayoutFiles {
  /** What to call the layout in messages (`oci:/path`, `oci-archive:/file.tar`). */
  readonly label: string;
  readFile(path: string, maxBytes: number): Promise<Buffer>;
  /** A stream of the file; `size` is known when the store can tell it cheaply. */
  open(path: string): Promise<{ stream: Readable; size: number }>;
  close(): Promise<void>;
}

/** `oci:DIR[:TAG]` → { dir, tag } (the first colon separates, as containers/image does). */
export function parseLayoutReference(ref: string, transport: 'oci' | 'oci-archive'): { path: string; tag: string | undefined } {
  const rest = ref.slice(transport.length + 1);
  // A digest selector (`DIR@sha256:…`) may follow the path.
  const at = rest.lastIndexOf('@');
  if (at > 0 && isDigest(rest.slice(at + 1))) return { path: rest.slice(0, at), tag: rest.slice(at + 1) };
  const colon = rest.indexOf(':');
  const path = colon >= 0 ? rest.slice(0, colon) : rest;
  const tag = colon >= 0 ? rest.slice(colon + 1) : undefined;
  if (path === '') throw new UsageError(`invalid reference ${ref}: no path after ${transport}:`);
  if (tag === '') throw new UsageError(`invalid reference ${ref}: empty tag`);
  return { path, tag };
}

function blobPath(digest: string): string {
  if (!isDigest(digest)) throw new OsimageError(`unsupported or invalid digest ${digest}`);
  return `blobs/${digest.replace(':', '/')}`;
}

export function parseManifestJson(bytes: Buffer, what: string): ImageManifest | ImageIndex {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new OsimageError(`${what} is not valid JSON: ${describe(err)}`);
  }
  const m = parsed as Partial<ImageManifest & ImageIndex> | null;
  if (!m || typeof m !== 'object') throw new OsimageError(`${what} is not a manifest`);
  if (
    m.mediaType === MEDIA_TYPES.dockerSchema1 ||
    m.mediaType === MEDIA_TYPES.dockerSchema1Signed ||
    (m as { schemaVersion?: number }).schemaVersion === 1
  ) {
    throw new OsimageError(`${what} is a schema1 manifest, which is unsupported`);
  }
  if (!Array.isArray(m.manifests) && !(m.config && Array.isArray(m.layers)))
    throw new OsimageError(`${what} is neither an image manifest nor an index`);
  return checkManifest(m as Record<string, unknown>, what);
}

export function mediaTypeOf(parsed: ImageManifest | ImageIndex, desc?: Descriptor): string {
  return parsed.mediaType ?? desc?.mediaType ?? (isIndex(parsed) ? MEDIA_TYPES.ociIndex : MEDIA_TYPES.ociManifest);
}

/** An ImageSource over layout files. */
export class LayoutSource implements ImageSource {
  readonly name: string;
  private index: ImageIndex | undefined;
  private indexBytes: Buffer | undefined;

  constructor(
    private readonly files: LayoutFiles,
    private readonly tag: string | undefined,
    private readonly opts: SourceOptions,
  ) {
    this.name = tag === undefined ? files.label : isDigest(tag) ? `${files.label}@${tag}` : `${files.label}:${tag}`;
  }

  pullspecFor(digest: string): string {
    return `${this.files.label}@${digest}`;
  }

  private async readIndex(): Promise<ImageIndex> {
    if (this.index) return this.index;
    const bytes = await this.files.readFile('index.json', MAX_MANIFEST_BYTES);
    const parsed = parseManifestJson(bytes, `${this.files.label}/index.json`);
    if (!isIndex(parsed)) throw new OsimageError(`${this.files.label}/index.json is not an image index`);
    this.indexBytes = bytes;
    this.index = parsed;
    return parsed;
  }

  private verifyOpts(what: string) {
    return {
      what,
      ...(this.opts.skipVerification ? { skipVerification: true } : {}),
      ...(this.opts.onWarning ? { onWarning: this.opts.onWarning } : {}),
    };
  }

  async manifest(): Promise<FetchedManifest> {
    const index = await this.readIndex();
    const tag = this.tag;
    if (tag !== undefined && isDigest(tag)) return this.manifestByDigest(tag);
    if (tag !== undefined) {
      const hits = index.manifests.filter((d) => d.annotations?.[REF_NAME_ANNOTATION] === tag);
      if (hits.length === 0) {
        const tags = index.manifests.map((d) => d.annotations?.[REF_NAME_ANNOTATION]).filter((t): t is string => !!t);
        throw new OsimageError(
          `no image tagged "${tag}" in ${this.files.label}${tags.length ? ` (tags: ${[...new Set(tags)].sort().join(', ')})` : ' (it has no tags)'}`,
          { code: 'not-found' },
        );
      }
      return this.fetchDescriptor(hits[0]!);
    }
    if (index.manifests.length === 1) return this.fetchDescriptor(index.manifests[0]!);
    if (index.manifests.length === 0) throw new OsimageError(`${this.files.label} holds no images (index.json lists no manifests)`);
    // index.json itself may be the multi-arch list: every entry has a platform and none is named.
    if (index.manifests.every((d) => d.platform && !d.annotations?.[REF_NAME_ANNOTATION])) {
      const bytes = this.indexBytes!;
      return { digest: sha256Digest(bytes), mediaType: MEDIA_TYPES.ociIndex, bytes, parsed: index };
    }
    const tags = index.manifests.map((d) => d.annotations?.[REF_NAME_ANNOTATION] ?? d.digest);
    throw new OsimageError(
      `${this.files.label} holds ${index.manifests.length} images; name one as ${this.files.label}:TAG (${tags.join(', ')})`,
    );
  }

  async manifestByDigest(digest: string): Promise<FetchedManifest> {
    const index = await this.readIndex();
    const desc = index.manifests.find((d) => d.digest === digest);
    return this.fetchDescriptor(desc ?? { mediaType: '', digest, size: -1 });
  }

  private async fetchDescriptor(desc: Descriptor): Promise<FetchedManifest> {
    const what = `manifest ${this.files.label}@${desc.digest}`;
    const bytes = await this.files.readFile(blobPath(desc.digest), MAX_MANIFEST_BYTES);
    verifyBytes(bytes, desc.digest, this.verifyOpts(what));
    const parsed = parseManifestJson(bytes, what);
    return { digest: desc.digest, mediaType: mediaTypeOf(parsed, desc.mediaType ? desc : undefined), bytes, parsed };
  }

  blob(desc: Descriptor): Promise<Readable> {
    return verifiedBlob(this.files, blobPath(desc.digest), desc, this.opts);
  }

  close(): Promise<void> {
    return this.files.close();
  }
}

/**
 * A blob read from local files (`path` in `files`), streamed through a check of `desc`'s digest and size (a
 * mismatch fails at the end, or warns with skipVerification), with progress.
 */
export async function verifiedBlob(files: LayoutFiles, path: string, desc: Descriptor, opts: SourceOptions): Promise<Readable> {
  const { stream, size } = await files.open(path);
  if (size >= 0 && desc.size >= 0 && size !== desc.size && !opts.skipVerification) {
    stream.destroy();
    throw new OsimageError(`size mismatch for blob ${desc.digest} in ${files.label}: expected ${desc.size} bytes, the file has ${size}`);
  }
  const verify = verifyingStream(
    { digest: desc.digest, size: desc.size },
    {
      what: `blob ${desc.digest} in ${files.label}`,
      ...(opts.skipVerification ? { skipVerification: true } : {}),
      ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
    },
  );
  const onProgress = opts.onProgress;
  if (onProgress) {
    let done = 0;
    stream.on('data', (c: Buffer) => onProgress(desc.digest, (done += c.length), desc.size));
  }
  stream.on('error', (err) => verify.destroy(err));
  verify.on('close', () => stream.destroy());
  return stream.pipe(verify);
}

/** Files of a folder (an OCI layout, or skopeo's `dir:`). */
export class DirectoryFiles implements LayoutFiles {
  constructor(
    readonly label: string,
    private readonly dir: string,
  ) {}

  async readFile(path: string, maxBytes: number): Promise<Buffer> {
    const full = join(this.dir, path);
    try {
      const st = await stat(full);
      if (st.size > maxBytes) throw new OsimageError(`${this.label}/${path} is too large (${st.size} bytes)`);
      return await readFile(full);
    } catch (err) {
      if (err instanceof OsimageError) throw err;
      throw new OsimageError(`cannot read ${this.label}/${path}: ${isMissing(err) ? 'no such file' : describe(err)}`, { cause: err });
    }
  }

  async open(path: string): Promise<{ stream: Readable; size: number }> {
    const full = join(this.dir, path);
    try {
      const st = await stat(full);
      return { stream: createReadStream(full), size: st.size };
    } catch (err) {
      throw new OsimageError(`cannot read ${this.label}/${path}: ${isMissing(err) ? 'no such file' : describe(err)}`, { cause: err });
    }
  }

  async close(): Promise<void> {}
}

/** The path of an `oci:` / `oci-archive:` reference must exist and be of the right kind. */
export async function requirePath(label: string, path: string, kind: 'file' | 'directory'): Promise<void> {
  try {
    const st = await stat(path);
    if (kind === 'file' ? !st.isFile() : !st.isDirectory()) throw new OsimageError(`${label}: ${path} is not a ${kind}`);
  } catch (err) {
    if (err instanceof OsimageError) throw err;
    throw new OsimageError(`cannot open ${label}: ${isMissing(err) ? noSuchFile(path, { kind }).message : describe(err)}`, { cause: err });
  }
}

/** Open `oci:DIR[:TAG]` (also `oci:DIR@sha256:…`). */
export async function openOciLayout(ref: string, opts: SourceOptions = {}): Promise<ImageSource> {
  const { path, tag } = parseLayoutReference(ref, 'oci');
  const label = `oci:${path}`;
  await requirePath(label, path, 'directory');
  return new LayoutSource(new DirectoryFiles(label, path), tag, opts);
}
