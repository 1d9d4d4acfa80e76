/**
 * The `file://REPOSITORY[:TAG|@DIGEST]` transport: the folder layout `oc image mirror --dir DIR` and
 * `oc adm release mirror --to-dir DIR` write, read under `--dir DIR` (default: the current folder), as
 * `oc adm release info --dir DIR file://…` reads it:
 *
 *   DIR/v2/<repository>/manifests/<tag>      a symlink whose name of target is the manifest's digest
 *   DIR/v2/<repository>/manifests/<digest>   the manifest's bytes
 *   DIR/v2/<repository>/blobs/<digest>       configs and layers
 *
 * The repository is the reference's, normalised as for a registry (`busybox` is `library/busybox`). The media
 * type of a manifest is read from its bytes (there is no Content-Type on disk). Everything is verified against
 * its digest as it would be from a registry.
 */
import { createReadStream } from 'node:fs';
import { lstat, readFile, readlink, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { OsimageError, describe } from '../errors.js';
import { isMissing } from '../files/read.js';
import { isDigest, verifyBytes, verifyingStream } from '../oci/digest.js';
import { ImageReference, parseImageReference } from '../oci/reference.js';
import { parseManifest } from './remote.js';
import { MAX_MANIFEST_BYTES, type Descriptor, type FetchedManifest, type ImageSource, type SourceOptions } from './types.js';

export const FILE_TRANSPORT = 'file://';

/** `file://ocp/release:4.13.1` (one leading `/` after the scheme is dropped, as oc does). */
export function parseFileReference(ref: string): { reference: ImageReference; written: string; repository: string } {
  let rest = ref.slice(FILE_TRANSPORT.length);
  if (rest.startsWith('/')) rest = rest.slice(1);
  const parsed = parseImageReference(rest);
  const reference = ImageReference.from(parsed);
  return { reference, written: rest, repository: parsed.name };
}

/** Go's text for a failed open, which oc prints as the cause: `open PATH: no such file or directory`. */
function openError(path: string, err: unknown): string {
  return `open ${path}: ${isMissing(err) ? 'no such file or directory' : describe(err)}`;
}

export class FileDirSource implements ImageSource {
  readonly name: string;
  readonly cache = undefined;
  private readonly root: string;

  constructor(
    private readonly ref: ReturnType<typeof parseFileReference>,
    dir: string,
    private readonly opts: SourceOptions,
  ) {
    this.name = `${FILE_TRANSPORT}${ref.written}`;
    this.root = join(dir, 'v2', ...ref.reference.repository.split('/'));
  }

  pullspecFor(digest: string): string {
    return `${FILE_TRANSPORT}${this.ref.repository}@${digest}`;
  }

  private fail(why: string): OsimageError {
    return new OsimageError(`unable to read image ${this.name}: ${why}`);
  }

  async manifest(): Promise<FetchedManifest> {
    const { digest, tag } = this.ref.reference;
    if (digest) return this.read(digest);
    const link = join(this.root, 'manifests', tag ?? 'latest');
    // oc's file store answers a tag that is not a symlink to a digest as a registry answers an unknown one.
    const st = await lstat(link).catch(() => undefined);
    if (!st) throw this.fail('unknown blob');
    if (!st.isSymbolicLink()) throw this.fail('not a symlink');
    const target = basename(await readlink(link));
    if (!isDigest(target)) throw this.fail(`the tag ${tag} points to ${target}, not a digest`);
    return this.read(target);
  }

  manifestByDigest(digest: string): Promise<FetchedManifest> {
    return this.read(digest);
  }

  private async read(digest: string): Promise<FetchedManifest> {
    if (!isDigest(digest)) throw this.fail(`unsupported or invalid digest ${digest}`);
    const path = join(this.root, 'manifests', digest);
    let bytes: Buffer;
    try {
      const st = await stat(path);
      if (st.size > MAX_MANIFEST_BYTES) throw this.fail(`${path} is too large for a manifest (${st.size} bytes)`);
      bytes = await readFile(path);
    } catch (err) {
      if (err instanceof OsimageError) throw err;
      throw this.fail(openError(path, err));
    }
    const what = `manifest ${this.pullspecFor(digest)}`;
    verifyBytes(bytes, digest, { what, skipVerification: this.opts.skipVerification, onWarning: this.opts.onWarning });
    const { mediaType, parsed } = parseManifest(bytes, '', what);
    return { digest, mediaType, bytes, parsed };
  }

  async blob(desc: Descriptor): Promise<Readable> {
    if (!isDigest(desc.digest)) throw this.fail(`unsupported or invalid digest ${desc.digest}`);
    const path = join(this.root, 'blobs', desc.digest);
    try {
      await stat(path);
    } catch (err) {
      throw new OsimageError(`blob ${desc.digest} of ${this.name}: ${openError(path, err)}`);
    }
    const verify = verifyingStream(
      { digest: desc.digest, size: desc.size },
      {
        what: `blob ${desc.digest} in ${this.name}`,
        skipVerification: this.opts.skipVerification,
        onWarning: this.opts.onWarning,
      },
    );
    const stream = createReadStream(path);
    const onProgress = this.opts.onProgress;
    if (onProgress) {
      let done = 0;
      stream.on('data', (c) => onProgress(desc.digest, (done += (c as Buffer).length), desc.size));
    }
    stream.on('error', (err) => verify.destroy(err));
    verify.on('close', () => stream.destroy());
    return stream.pipe(verify);
  }

  async close(): Promise<void> {}
}

/** Open `file://REF` under `dir` (oc's `--dir`; default: the current folder). */
export async function openFileDir(ref: string, opts: SourceOptions & { fileDir?: string }): Promise<ImageSource> {
  return new FileDirSource(parseFileReference(ref), opts.fileDir ?? '', opts);
}
