/**
 * The registry transport of ImageSource: manifests (full Accept list, verified, capped) and blobs
 * (streamed, verified, following redirects without credentials, resumed with Range from the registry URL).
 */
import { Readable } from 'node:stream';
import { FetchError, OsimageError, describe } from '../errors.js';
import {
  RetryLoop,
  TransientError,
  defaultRetryPolicy,
  discard,
  isResumableBodyError,
  isTransientNetworkError,
  readCapped,
  statusText,
  type Response,
  type RetryPolicy,
} from '../http/client.js';
import { redactUrl } from '../http/redact.js';
import { connect, type ConnectOptions } from './connect.js';
import { checkManifest } from './documents.js';
import type { ImageReference } from './reference.js';
import { RegistryError, UnauthorizedError, UnreachableRegistryError, statusFrom } from './errors.js';
import type { RegistryTransport } from './transport.js';
import {
  MAX_MANIFEST_BYTES,
  MEDIA_TYPES,
  type Descriptor,
  type FetchedManifest,
  type ImageIndex,
  type ImageManifest,
  type ImageSource,
  type SourceOptions,
} from './types.js';
import { isDigest, isValidSize, sha256Digest, verifyBytes, verifyingStream } from '../oci/digest.js';
import { getByDigest, putByDigest } from '../cache/by-digest.js';
import { tagKey } from '../cache/keys.js';
import type { CacheStore } from '../cache/store.js';

/** What we ask for: OCI index and manifest, Docker list and schema2. Never schema1. */
export const MANIFEST_ACCEPT = [MEDIA_TYPES.ociIndex, MEDIA_TYPES.ociManifest, MEDIA_TYPES.dockerList, MEDIA_TYPES.dockerManifest].join(
  ', ',
);

const INDEX_TYPES: string[] = [MEDIA_TYPES.ociIndex, MEDIA_TYPES.dockerList];
const MANIFEST_TYPES: string[] = [MEDIA_TYPES.ociManifest, MEDIA_TYPES.dockerManifest];
const SCHEMA1_TYPES: string[] = [MEDIA_TYPES.dockerSchema1, MEDIA_TYPES.dockerSchema1Signed];

/** Options beyond the contract: an environment for auth-file lookup, a retry policy, a pool. */
/** How a manifest request names its image in the transport's messages (`<what>: <why>`). */
const imageWhat = (display: string) => `image "${display}"`;

export interface RemoteOptions extends SourceOptions, ConnectOptions {}

/** The media type from a Content-Type header, without parameters. */
export function mediaTypeOf(contentType: string | string[] | undefined): string {
  const v = Array.isArray(contentType) ? contentType[0] : contentType;
  return (v ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Check a manifest's bytes and parse them: schema1 is refused, the body's mediaType must agree with the
 * Content-Type, and the shape must be an index or an image manifest.
 */
export function parseManifest(bytes: Buffer, contentType: string, what: string): { mediaType: string; parsed: ImageManifest | ImageIndex } {
  if (SCHEMA1_TYPES.includes(contentType)) {
    throw new OsimageError(
      `${what} is a Docker schema1 manifest (${contentType}): schema1 is unsupported; push the image again with a current client`,
    );
  }
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new OsimageError(`${what} is not valid JSON: ${describe(err)}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new OsimageError(`${what} is not a JSON object`);
  if (doc.schemaVersion === 1) {
    throw new OsimageError(`${what} is a Docker schema1 manifest: schema1 is unsupported; push the image again with a current client`);
  }
  const bodyType = typeof doc.mediaType === 'string' ? doc.mediaType : undefined;
  const known = INDEX_TYPES.includes(contentType) || MANIFEST_TYPES.includes(contentType);
  if (known && bodyType !== undefined && bodyType !== contentType) {
    throw new OsimageError(`${what}: the registry sent Content-Type ${contentType} but the manifest says mediaType ${bodyType}`);
  }
  const isIdx = Array.isArray(doc.manifests);
  const isImg = typeof doc.config === 'object' && doc.config !== null && Array.isArray(doc.layers);
  const mediaType = known ? contentType : (bodyType ?? (isIdx ? MEDIA_TYPES.ociIndex : MEDIA_TYPES.ociManifest));
  if (INDEX_TYPES.includes(mediaType) ? !isIdx : MANIFEST_TYPES.includes(mediaType) ? !isImg : true) {
    throw new OsimageError(`${what} has media type ${mediaType || '(none)'} and is not an image index or image manifest osimage can read`);
  }
  if (doc.schemaVersion !== 2) throw new OsimageError(`${what} has schemaVersion ${String(doc.schemaVersion)}, expected 2`);
  return { mediaType, parsed: checkManifest(doc, what) };
}

export class RemoteImageSource implements ImageSource {
  readonly name: string;
  readonly reference: ImageReference;
  readonly transport: RegistryTransport;
  /** Manifests by digest; off under --skip-verification (nothing unverified is stored, nothing stands in for a fetch). */
  readonly cache: CacheStore | undefined;
  private readonly opts: RemoteOptions;
  private readonly policy: RetryPolicy;

  constructor(reference: ImageReference, transport: RegistryTransport, opts: RemoteOptions) {
    this.reference = reference;
    this.name = reference.toString();
    this.transport = transport;
    this.opts = opts;
    this.policy = opts.retry ?? defaultRetryPolicy(opts.env);
    this.cache = opts.skipVerification ? undefined : opts.cache;
  }

  pullspecFor(digest: string): string {
    return this.reference.withDigest(digest);
  }

  private get scopes(): string[] {
    return [`repository:${this.reference.repository}:pull`];
  }

  manifest(): Promise<FetchedManifest> {
    if (this.reference.digest) return this.fetchManifest(this.reference.digest, this.reference.digest, this.name);
    return this.manifestByTag();
  }

  /**
   * A tag read before (the cache has its last digest) is asked with HEAD: a digest the cache holds answers
   * without a GET. A new tag, a registry without HEAD or Docker-Content-Digest, or a moved tag: GET.
   */
  private async manifestByTag(): Promise<FetchedManifest> {
    const { registry, repository, identifier } = this.reference;
    const hint = this.cache && tagKey(registry, repository, identifier);
    const last = hint && (await this.cache!.get(hint))?.data.toString();
    if (last) {
      const digest = await this.headDigest();
      const hit = digest && (await this.cachedManifest(digest, this.name));
      if (hit) return hit;
    }
    const fetched = await this.fetchManifest(identifier, undefined, this.name);
    // Written while the caller goes on (a layer request next): CacheStore.putSoon.
    if (hint && last !== fetched.digest) this.cache!.putSoon(hint, Buffer.from(fetched.digest));
    return fetched;
  }

  /** The digest a HEAD of the reference's manifest gives, or undefined (any failure: the GET will tell). */
  private async headDigest(): Promise<string | undefined> {
    try {
      const res = await this.transport.request(`/v2/${this.reference.repository}/manifests/${this.reference.identifier}`, {
        method: 'HEAD',
        headers: { accept: MANIFEST_ACCEPT },
        scopes: this.scopes,
        what: imageWhat(this.name),
      });
      await res.body.dump().catch(() => undefined);
      const header = res.headers['docker-content-digest'];
      const digest = Array.isArray(header) ? header[0] : header;
      return digest && isDigest(digest) ? digest : undefined;
    } catch {
      return undefined;
    }
  }

  /** A manifest from the cache: its bytes hash to `digest` and parse as they did when fetched. */
  private async cachedManifest(digest: string, display: string): Promise<FetchedManifest | undefined> {
    const entry = await getByDigest(this.cache, 'manifests', digest);
    if (!entry) return undefined;
    try {
      const { mediaType, parsed } = parseManifest(entry.data, entry.meta.mediaType ?? '', `manifest ${display}`);
      return { digest, mediaType, bytes: entry.data, parsed };
    } catch {
      return undefined; // fetched again, and stored over
    }
  }

  manifestByDigest(digest: string): Promise<FetchedManifest> {
    return this.fetchManifest(digest, digest, this.pullspecFor(digest));
  }

  private async fetchManifest(identifier: string, expected: string | undefined, display: string): Promise<FetchedManifest> {
    const what = `manifest ${display}`;
    const hit = expected && (await this.cachedManifest(expected, display));
    if (hit) return hit;
    // One retry loop around the request and the read of its body: a 503 and a dropped body share the policy.
    const loop = new RetryLoop(this.policy);
    for (;;) {
      let res: Response;
      try {
        res = await this.transport.request(`/v2/${this.reference.repository}/manifests/${identifier}`, {
          headers: { accept: MANIFEST_ACCEPT },
          scopes: this.scopes,
          what: imageWhat(display),
          retry: false,
        });
      } catch (err) {
        await loop.failed(err).catch((final: unknown) => {
          throw this.manifestError(final, display, identifier);
        });
        continue;
      }
      let bytes: Buffer;
      try {
        bytes = await readCapped(res, MAX_MANIFEST_BYTES, what);
      } catch (err) {
        await loop.failed(err);
        continue;
      }
      // Verify the exact bytes first: a tampered manifest is a digest error, whatever it parses to.
      const verify = { skipVerification: this.opts.skipVerification, onWarning: this.opts.onWarning, what };
      const header = res.headers['docker-content-digest'];
      const claimed = Array.isArray(header) ? header[0] : header;
      if (expected) verifyBytes(bytes, expected, verify);
      else if (claimed && isDigest(claimed)) verifyBytes(bytes, claimed, verify);
      const contentType = mediaTypeOf(res.headers['content-type']);
      const { mediaType, parsed } = parseManifest(bytes, contentType, what);
      const digest = expected ?? sha256Digest(bytes);
      // Verified above (or hashed here): the bytes are what the digest names.
      await putByDigest(this.cache, 'manifests', digest, bytes, { mediaType }, { soon: true });
      return { digest, mediaType, bytes, parsed };
    }
  }

  /**
   * oc's wording for the common cases: no answer (`unable to read image REF: Get "URL": …`), credentials missing
   * or refused (`unable to read image REF: unauthorized: authentication required`), not found, denied.
   */
  private manifestError(err: unknown, display: string, identifier: string): unknown {
    if (err instanceof UnreachableRegistryError) return err.forImage(this.name);
    // oc's client asks for a manifest by tag with HEAD first (by digest with GET): its message names that request.
    if (err instanceof UnauthorizedError) return err.forImage(display, isDigest(identifier) ? 'GET' : 'HEAD');
    if (!(err instanceof RegistryError)) return err;
    if (err.code === 'not-found') {
      const status = err.status ?? 404;
      return new RegistryError(
        // oc: `image "REF" not found: manifest unknown: manifest unknown` (the registry's error as Go words it).
        `${imageWhat(display)} not found: ${err.goDetail ?? statusFrom(status, err.url, err.detail)}`,
        err.url,
        status,
        err.codes,
        err.detail,
        err.goDetail,
      );
    }
    if (err.status === 403 || err.codes.includes('DENIED')) {
      return new RegistryError(
        `${imageWhat(display)} does not exist or you don't have permission to access the repository (${statusFrom(err.status ?? 403, err.url)})`,
        err.url,
        err.status ?? 403,
        err.codes,
        err.detail,
      );
    }
    return err;
  }

  /**
   * Open the blob at an offset: 200 from the start, or 206 with a Content-Range from `offset` to the end. `loop`
   * is the blob's one retry loop: a 503 on this request and a dropped body before it count against one policy.
   */
  private async openBlob(desc: Descriptor, offset: number, loop: RetryLoop): Promise<Response> {
    const what = `blob ${desc.digest} of ${this.reference.name}`;
    const res = await this.transport.request(`/v2/${this.reference.repository}/blobs/${desc.digest}`, {
      headers: offset > 0 ? { range: `bytes=${offset}-` } : {},
      scopes: this.scopes,
      followRedirects: true,
      what,
      retry: loop,
    });
    const length = Number(res.headers['content-length']);
    if (offset === 0) {
      if (res.status !== 200) {
        discard(res.body);
        throw new FetchError(`${what}: unexpected ${statusText(res.status)} from ${redactUrl(res.url)}`, res.url, res.status);
      }
      if (Number.isFinite(length) && res.headers['content-length'] !== undefined && desc.size >= 0 && length !== desc.size) {
        const msg = `${what}: ${redactUrl(res.url)} sent Content-Length ${length} but the descriptor says ${desc.size} bytes`;
        if (!this.opts.skipVerification) {
          discard(res.body);
          throw new FetchError(msg, res.url, res.status);
        }
        this.opts.onWarning?.({ code: 'content-length', message: `${msg} (continuing: --skip-verification)` });
      }
      return res;
    }
    if (res.status !== 206) {
      discard(res.body);
      throw new FetchError(
        `${what}: cannot resume at byte ${offset}: ${redactUrl(res.url)} answered ${statusText(res.status)} to a Range request`,
        res.url,
        res.status,
      );
    }
    const range = String(res.headers['content-range'] ?? '');
    const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(range);
    const end = desc.size >= 0 ? desc.size - 1 : undefined;
    if (!m || Number(m[1]) !== offset || (end !== undefined && Number(m[2]) !== end)) {
      discard(res.body);
      throw new FetchError(
        `${what}: cannot resume at byte ${offset}: ${redactUrl(res.url)} sent Content-Range "${range}"`,
        res.url,
        res.status,
      );
    }
    return res;
  }

  async blob(desc: Descriptor): Promise<Readable> {
    const what = `blob ${desc.digest} of ${this.reference.name}`;
    if (!isValidSize(desc.size)) {
      throw new OsimageError(`${what}: the descriptor's size ${String(desc.size)} is not a whole number of bytes`, {
        code: 'invalid-input',
      });
    }
    const verifier = verifyingStream(
      { digest: desc.digest, size: desc.size },
      { skipVerification: this.opts.skipVerification, onWarning: this.opts.onWarning, what },
    );
    const loop = new RetryLoop(this.policy);
    const first = await this.openBlob(desc, 0, loop);
    const onProgress = this.opts.onProgress;
    const self = this;
    let current: Response = first;
    const registry = this.reference.registry;
    async function* chunks(): AsyncGenerator<Buffer> {
      let offset = 0;
      let resumes = 0;
      onProgress?.(desc.digest, 0, desc.size);
      for (;;) {
        let failure: unknown;
        try {
          for await (const chunk of current.body) {
            offset += (chunk as Buffer).length;
            // A registry that sends more than the descriptor's size (or never stops) is not read further.
            if (offset > desc.size) break;
            onProgress?.(desc.digest, offset, desc.size);
            yield chunk as Buffer;
          }
        } catch (err) {
          failure = err;
        }
        if (offset > desc.size) {
          discard(current.body);
          throw new OsimageError(
            `${what}: registry ${registry} sent more than the ${desc.size} bytes the descriptor gives; stopped reading ${redactUrl(current.url)}`,
            { code: 'size-mismatch' },
          );
        }
        const resumable =
          failure === undefined ? desc.size >= 0 && offset < desc.size : isTransientNetworkError(failure) || isResumableBodyError(failure);
        if (!resumable) {
          if (failure !== undefined)
            throw new FetchError(
              `${what}: reading from ${redactUrl(current.url)} failed: ${describe(failure)}`,
              current.url,
              current.status,
              failure,
            );
          return;
        }
        const dropped = `${what}: the connection dropped at byte ${offset} of ${desc.size}, ${resumes} resumes tried: ${describe(failure ?? 'early end')}`;
        if (loop.spent) throw new FetchError(dropped, current.url, current.status, failure);
        discard(current.body);
        // A resume is a retry in the blob's one loop: its backoff, and one count with the requests' retries.
        await loop.failed(new TransientError(dropped, current.url, current.status, undefined, failure));
        resumes++;
        // From the registry URL again: a redirect's presigned URL may have expired.
        current = await self.openBlob(desc, offset, loop);
      }
    }
    const source = Readable.from(chunks(), { objectMode: false, highWaterMark: 64 * 1024 });
    source.on('error', (err) => verifier.destroy(err));
    verifier.on('close', () => {
      if (!source.destroyed) source.destroy();
      if (!current.body.destroyed) discard(current.body);
    });
    source.pipe(verifier);
    return verifier;
  }

  async close(): Promise<void> {
    // The connection pool is shared by the process and closed at shutdown.
  }
}

/**
 * Open an image in a registry. The reference is parsed and credentials are
 * looked up now, so a bad reference or auth file fails before any request.
 */
export async function openRemote(ref: string, opts: RemoteOptions = {}): Promise<RemoteImageSource> {
  const { reference, transport } = await connect(ref, opts);
  return new RemoteImageSource(reference, transport, opts);
}
