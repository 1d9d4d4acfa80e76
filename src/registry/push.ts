/**
 * Pushing to a registry (OCI distribution spec, "Pushing"): blob existence (HEAD), cross-repository
 * mount, monolithic or chunked uploads streamed from the source, and manifest PUT.
 */
import { Readable } from 'node:stream';
import { FetchError, OsimageError, UsageError } from '../errors.js';
import { statusText, type Response } from '../http/client.js';
import { redactUrl } from '../http/redact.js';
import { connect, type ConnectOptions } from './connect.js';
import type { ImageReference } from './reference.js';
import type { RegistryTransport } from './transport.js';
import { sha256Digest } from '../oci/digest.js';

export type PushOptions = ConnectOptions;

/** Bytes to push: whole (small: configs, manifests) or a stream opened on demand (layers). */
export type BlobContent = Buffer | (() => Readable);

export interface BlobPushOptions {
  /** Upload in PATCH chunks of this many bytes (each buffered); default: one streamed PUT. */
  chunkSize?: number;
  /** Another repository on the same registry that has the blob: try a cross-repository mount first. */
  mountFrom?: string;
}

export type BlobPushResult = 'exists' | 'mounted' | 'uploaded';

/** Read a stream in chunks of `size` bytes (the last may be shorter); only one chunk is held at a time. */
async function* rechunk(stream: Readable, size: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let have = 0;
  for await (const c of stream) {
    let chunk = c as Buffer;
    while (chunk.length > 0) {
      const take = Math.min(size - have, chunk.length);
      parts.push(chunk.subarray(0, take));
      have += take;
      chunk = chunk.subarray(take);
      if (have === size) {
        yield Buffer.concat(parts, have);
        parts = [];
        have = 0;
      }
    }
  }
  if (have > 0) yield Buffer.concat(parts, have);
}

export class RegistryDestination {
  readonly reference: ImageReference;
  readonly transport: RegistryTransport;

  constructor(reference: ImageReference, transport: RegistryTransport) {
    this.reference = reference;
    this.transport = transport;
  }

  private get repo(): string {
    return this.reference.repository;
  }

  private scopes(extra: string[] = []): string[] {
    return [`repository:${this.repo}:pull,push`, ...extra];
  }

  /** Whether the repository already has the blob (HEAD). */
  async hasBlob(digest: string): Promise<boolean> {
    const res = await this.transport.request(`/v2/${this.repo}/blobs/${digest}`, {
      method: 'HEAD',
      scopes: this.scopes(),
      accept: [404],
      followRedirects: true,
      what: `blob ${digest} in ${this.reference.name}`,
    });
    await res.body.dump().catch(() => undefined);
    return res.status >= 200 && res.status < 300;
  }

  private location(res: Response, what: string): string {
    const loc = res.headers.location;
    const l = Array.isArray(loc) ? loc[0] : loc;
    if (!l)
      throw new FetchError(`${what}: ${redactUrl(res.url)} answered ${statusText(res.status)} without a Location`, res.url, res.status);
    return new URL(l, res.url).toString();
  }

  private withDigest(url: string, digest: string): string {
    const u = new URL(url);
    u.searchParams.set('digest', digest);
    return u.toString();
  }

  /**
   * Make the blob present in the repository: nothing if it is there, a mount if `mountFrom` has it
   * (falling back to an upload when the registry answers 202), else an upload. Streams, never buffers a layer.
   */
  async pushBlob(desc: { digest: string; size: number }, content: BlobContent, opts: BlobPushOptions = {}): Promise<BlobPushResult> {
    const what = `blob ${desc.digest} to ${this.reference.name}`;
    if (await this.hasBlob(desc.digest)) return 'exists';
    let start: Response;
    if (opts.mountFrom && opts.mountFrom !== this.repo) {
      const q = new URLSearchParams({ mount: desc.digest, from: opts.mountFrom });
      start = await this.transport.request(`/v2/${this.repo}/blobs/uploads/?${q}`, {
        method: 'POST',
        scopes: this.scopes([`repository:${opts.mountFrom}:pull`]),
        what: `mounting ${desc.digest} from ${opts.mountFrom} into ${this.reference.name}`,
      });
      if (start.status === 201) {
        await start.body.dump().catch(() => undefined);
        return 'mounted';
      }
    } else {
      start = await this.transport.request(`/v2/${this.repo}/blobs/uploads/`, {
        method: 'POST',
        scopes: this.scopes(),
        what: `starting upload of ${what}`,
      });
    }
    await start.body.dump().catch(() => undefined);
    if (start.status !== 202)
      throw new FetchError(
        `starting upload of ${what}: unexpected ${statusText(start.status)} from ${redactUrl(start.url)}`,
        start.url,
        start.status,
      );
    let location = this.location(start, what);

    if (!opts.chunkSize) {
      const body = Buffer.isBuffer(content) ? content : content();
      const res = await this.transport.request(this.withDigest(location, desc.digest), {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(desc.size) },
        body,
        scopes: this.scopes(),
        what: `uploading ${what}`,
      });
      await res.body.dump().catch(() => undefined);
      return 'uploaded';
    }

    const stream = Buffer.isBuffer(content) ? Readable.from([content]) : content();
    let offset = 0;
    for await (const chunk of rechunk(stream, opts.chunkSize)) {
      const res = await this.transport.request(location, {
        method: 'PATCH',
        headers: {
          'content-type': 'application/octet-stream',
          'content-length': String(chunk.length),
          'content-range': `${offset}-${offset + chunk.length - 1}`,
        },
        body: chunk,
        scopes: this.scopes(),
        what: `uploading ${what} (bytes ${offset}-${offset + chunk.length - 1})`,
      });
      await res.body.dump().catch(() => undefined);
      offset += chunk.length;
      location = this.location(res, what);
    }
    if (desc.size >= 0 && offset !== desc.size) {
      throw new OsimageError(`uploading ${what}: the content was ${offset} bytes, the descriptor says ${desc.size}`);
    }
    const res = await this.transport.request(this.withDigest(location, desc.digest), {
      method: 'PUT',
      headers: { 'content-length': '0' },
      body: Buffer.alloc(0),
      scopes: this.scopes(),
      what: `completing upload of ${what}`,
    });
    await res.body.dump().catch(() => undefined);
    return 'uploaded';
  }

  /**
   * PUT a manifest under a tag (or its digest when no tag is given). Returns its digest, checked
   * against the Docker-Content-Digest the registry answers with.
   */
  async pushManifest(bytes: Buffer, mediaType: string, tag?: string): Promise<string> {
    const digest = sha256Digest(bytes);
    const target = tag ?? this.reference.tag ?? digest;
    const what = `manifest ${this.reference.name}:${target}`;
    const res = await this.transport.request(`/v2/${this.repo}/manifests/${target}`, {
      method: 'PUT',
      headers: { 'content-type': mediaType },
      body: bytes,
      scopes: this.scopes(),
      what: `pushing ${what}`,
    });
    await res.body.dump().catch(() => undefined);
    const header = res.headers['docker-content-digest'];
    const claimed = Array.isArray(header) ? header[0] : header;
    if (claimed && claimed !== digest) {
      throw new OsimageError(`pushing ${what}: the registry stored digest ${claimed} but the manifest is ${digest}`);
    }
    return digest;
  }
}

/** A push target in a registry; the reference's tag is where pushManifest puts the manifest by default. */
export async function openPushTarget(ref: string, opts: PushOptions = {}): Promise<RegistryDestination> {
  const { reference, transport } = await connect(ref, opts);
  if (reference.digest) throw new UsageError(`cannot push to ${ref}: a push target needs a tag, not a digest`);
  return new RegistryDestination(reference, transport);
}
