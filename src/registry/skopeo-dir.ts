/**
 * The `dir:DIR` transport: the folder `skopeo copy … dir:DIR` writes (containers/image's directory transport):
 *
 *   DIR/version                 `Directory Transport Version: 1.1`
 *   DIR/manifest.json           the manifest (or, after `copy --all`, the image index)
 *   DIR/<hex>.manifest.json     an index's images, by the hex of their digest
 *   DIR/<hex>                   configs and layers, by the hex of their sha256 digest
 *
 * Everything is verified against its digest as from a registry; manifest.json's digest is the sha256 of its bytes.
 */
import type { Readable } from 'node:stream';
import { OsimageError, UsageError } from '../errors.js';
import { isDigest, sha256Digest, verifyBytes } from '../oci/digest.js';
import { DirectoryFiles, mediaTypeOf, parseManifestJson, requirePath, verifiedBlob } from './oci-layout.js';
import { MAX_MANIFEST_BYTES, type Descriptor, type FetchedManifest, type ImageSource, type SourceOptions } from './types.js';

const VERSION_PREFIX = 'Directory Transport Version: 1.';

/** The file a digest's blob or manifest is kept in: the hex alone for sha256, `<algorithm>-<hex>` otherwise. */
function fileOf(digest: string, suffix = ''): string {
  if (!isDigest(digest)) throw new OsimageError(`unsupported or invalid digest ${digest}`);
  const [algorithm, hex] = digest.split(':') as [string, string];
  return `${algorithm === 'sha256' ? hex : `${algorithm}-${hex}`}${suffix}`;
}

class SkopeoDirSource implements ImageSource {
  readonly name: string;
  private top: FetchedManifest | undefined;

  constructor(
    private readonly files: DirectoryFiles,
    private readonly opts: SourceOptions,
  ) {
    this.name = files.label;
  }

  pullspecFor(digest: string): string {
    return `${this.name}@${digest}`;
  }

  async manifest(): Promise<FetchedManifest> {
    if (this.top) return this.top;
    const bytes = await this.files.readFile('manifest.json', MAX_MANIFEST_BYTES);
    const parsed = parseManifestJson(bytes, `${this.name}/manifest.json`);
    this.top = { digest: sha256Digest(bytes), mediaType: mediaTypeOf(parsed), bytes, parsed };
    return this.top;
  }

  async manifestByDigest(digest: string): Promise<FetchedManifest> {
    const top = await this.manifest();
    if (top.digest === digest) return top;
    const file = fileOf(digest, '.manifest.json');
    const bytes = await this.files.readFile(file, MAX_MANIFEST_BYTES);
    const what = `manifest ${this.name}@${digest}`;
    verifyBytes(bytes, digest, {
      what,
      ...(this.opts.skipVerification ? { skipVerification: true } : {}),
      ...(this.opts.onWarning ? { onWarning: this.opts.onWarning } : {}),
    });
    const parsed = parseManifestJson(bytes, what);
    return { digest, mediaType: mediaTypeOf(parsed), bytes, parsed };
  }

  blob(desc: Descriptor): Promise<Readable> {
    return verifiedBlob(this.files, fileOf(desc.digest), desc, this.opts);
  }

  async close(): Promise<void> {}
}

/** Open `dir:DIR`: a folder skopeo wrote (its `version` file says so). */
export async function openSkopeoDir(ref: string, opts: SourceOptions = {}): Promise<ImageSource> {
  const path = ref.slice('dir:'.length);
  if (path === '') throw new UsageError(`invalid reference ${ref}: no path after dir:`);
  const label = `dir:${path}`;
  await requirePath(label, path, 'directory');
  const files = new DirectoryFiles(label, path);
  const version = (await files.readFile('version', 256)).toString('utf8').trim();
  if (!version.startsWith(VERSION_PREFIX)) {
    throw new OsimageError(`${label}/version says ${JSON.stringify(version)}: not a folder skopeo's dir: transport wrote (version 1.x)`);
  }
  return new SkopeoDirSource(files, opts);
}
