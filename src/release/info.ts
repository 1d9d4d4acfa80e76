/**
 * The release info model: what `release info` shows, read from a release image's `release-manifests/`, top
 * down with whiteouts honoured, stopping as soon as the question asked is answered: by default at the first
 * layer that holds the folder (the layer a payload's builder writes, and all oc reads), or across every layer
 * (the merged view a running container sees) when asked.
 */
import { posix } from 'node:path';
import { OsimageError, describe } from '../errors.js';
import { checkImageConfig } from '../registry/documents.js';
import { resolveImage } from '../registry/platform.js';
import type { Descriptor, ImageConfig, ImageManifest, ImageSource } from '../registry/types.js';
import { walkLayers, type UnsafeEntry } from './overlay.js';
import { cachedFolderRead, type FolderRead } from './info-cache.js';
import { getByDigest, putByDigest } from '../cache/by-digest.js';
import { IMAGE_REFERENCES, parseImageReferences, type ImageStream } from '../oci/image-stream.js';
import { componentVersions, parseReleaseMetadata, type CincinnatiMetadata, type ComponentVersion } from './references.js';

export const RELEASE_FOLDER = 'release-manifests';
export const RELEASE_METADATA = 'release-metadata';

export interface ReleaseInfo {
  /** The image as the user typed it. */
  image: string;
  /** The image manifest's digest (the chosen entry's, for a list). */
  digest: string;
  /** The manifest list's digest, when the reference named a list. */
  listDigest?: string;
  /** The image config (empty when only image-references was asked for). */
  config: ImageConfig;
  /** The sum of the image's layer sizes (oc's `config.size`). */
  size: number;
  /** `linux/amd64`, or `multi (linux/arm64)` for a list. */
  platform: string;
  /** `<repository>@<digest>` (the list digest for a list). */
  pullFrom: string;
  references: ImageStream;
  metadata?: CincinnatiMetadata;
  /** The raw bytes of image-references and release-metadata, as stored. */
  raw: { imageReferences: Buffer; releaseMetadata?: Buffer; files?: Record<string, Buffer> };
  /** Manifest files (`*.yaml`, `*.yml`, `*.json`), sorted. Empty when only image-references was asked for. */
  manifests: string[];
  /** Other files under release-manifests/, sorted. */
  metadataFiles: string[];
  /** The default OS stream's component versions (all of them in a release with one OS stream). */
  componentVersions: Map<string, ComponentVersion>;
  /** The other OS streams' component versions (`rhel-10` → `machine-os` → …); empty with one stream. */
  streamVersions: Map<string, Map<string, ComponentVersion>>;
  warnings: string[];
  /** Whether the whole folder was read (false when the query stopped at image-references or release-metadata). */
  complete: boolean;
  /** Layer indexes read, top first, and the number of layers. */
  layersRead: number[];
  layerCount: number;
}

/**
 * Which layers answer: `release-layer` (default) ends at the first layer, top down, holding a file under
 * release-manifests/, with whiteouts above it honoured; `merged` reads on through every layer as a container
 * runtime merges them.
 */
export type LayerView = 'release-layer' | 'merged';

export interface LoadOptions {
  filterByOs?: string;
  /** Which layers answer (default `release-layer`). */
  layers?: LayerView;
  /** Only image-references is needed (--image-for, -o name|pullspec|digest): stop as soon as it is settled. */
  referencesOnly?: boolean;
  /**
   * Only image-references, release-metadata and the config are needed (the text view of a comparison): stop as
   * soon as both files are settled; the manifests are not listed.
   */
  summaryOnly?: boolean;
  onLayer?: (layer: number, desc: Descriptor) => void;
  onUnsafe?: (entry: UnsafeEntry) => void;
  /**
   * Other files of release-manifests/ whose bytes to keep (`raw.files`) when they are in the layers the query
   * reads anyway: they never make it read another layer (verify reads coreos-bootimages this way).
   */
  alsoRead?: string[];
  /**
   * Keep the bytes of every manifest file (`raw.files`) too, for `--contents` and the comparison's `-o json`
   * (at most MAX_KEPT_MANIFEST_BYTES in all); such a read bypasses the cache.
   */
  keepManifests?: boolean;
}

const MANIFEST_EXT = new Set(['.yaml', '.yml', '.json']);

/** Past this many bytes of manifest files (keepManifests) a release is refused rather than held in memory. */
export const MAX_KEPT_MANIFEST_BYTES = 256 * 1024 * 1024;

/** `name` is the reference as typed; `source` has been opened from it. */
export async function loadReleaseInfo(image: string, source: ImageSource, opts: LoadOptions = {}): Promise<ReleaseInfo> {
  const resolved = await resolveImage(source, opts.filterByOs);
  const manifest = resolved.manifest.parsed;
  // The config gives Created and OS/Arch; a query that needs only image-references does not fetch it. It is
  // asked for alongside the layers, not before them.
  const configRead = opts.referencesOnly ? undefined : readImageConfig(source, manifest.config);
  configRead?.catch(() => undefined); // a failed layer read is reported first; this one is awaited below

  const folder = await cachedFolderRead(
    opts.keepManifests ? undefined : source.cache,
    {
      folder: RELEASE_FOLDER,
      layers: manifest.layers.map((l) => l.digest),
      view: opts.layers ?? 'release-layer',
      query: opts.referencesOnly ? 'references' : opts.summaryOnly ? 'summary' : 'full',
      ...(opts.alsoRead?.length ? { files: opts.alsoRead } : {}),
    },
    () => readFolder(source, manifest, opts),
  );
  const config: ImageConfig = configRead ? await configRead : {};
  if (source.cache) for (const u of folder.unsafe) opts.onUnsafe?.(u);
  const { imageReferences: rawRefs, releaseMetadata: rawMeta, manifests, metadataFiles } = folder;

  const errors: string[] = [];
  let references: ImageStream | undefined;
  let metadata: CincinnatiMetadata | undefined;
  if (rawRefs) {
    try {
      references = parseImageReferences(rawRefs, `${source.name} (${RELEASE_FOLDER}/${IMAGE_REFERENCES})`);
    } catch (err) {
      errors.push(describe(err));
    }
  }
  if (rawMeta && !opts.referencesOnly) {
    try {
      metadata = parseReleaseMetadata(rawMeta, `${source.name} (${RELEASE_FOLDER}/${RELEASE_METADATA})`);
    } catch (err) {
      errors.push(describe(err));
    }
  }
  if (errors.length === 1) throw new OsimageError(`release image could not be read: ${errors[0]}`);
  if (errors.length > 1) throw new OsimageError(`release image could not be read: ${errors.map((e) => `* ${e}`).join(' ')}`);
  if (!references || !rawRefs) throw new OsimageError('release image did not contain an image-references file');

  references.spec.tags = [...(references.spec.tags ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // Component versions belong to the full view; the referencesOnly queries never show them.
  const cv = opts.referencesOnly ? { versions: new Map(), streams: new Map(), warnings: [] } : componentVersions(references);
  const os = config.os || 'unknown';
  const arch = config.architecture || 'unknown';
  const listDigest = resolved.list?.digest;
  return {
    image,
    digest: resolved.manifest.digest,
    ...(listDigest ? { listDigest } : {}),
    config,
    size: manifest.layers.reduce((sum, l) => sum + (l.size ?? 0), 0),
    platform: listDigest ? `multi (${os}/${arch})` : `${os}/${arch}`,
    pullFrom: source.pullspecFor(listDigest ?? resolved.manifest.digest),
    references,
    ...(metadata ? { metadata } : {}),
    raw: { imageReferences: rawRefs, ...(rawMeta ? { releaseMetadata: rawMeta } : {}), ...(folder.files ? { files: folder.files } : {}) },
    manifests: manifests.sort(),
    metadataFiles: metadataFiles.sort(),
    componentVersions: cv.versions,
    streamVersions: cv.streams,
    warnings: cv.warnings.map((w) => w.message).sort(),
    complete: !opts.referencesOnly && !opts.summaryOnly,
    layersRead: folder.layersRead,
    layerCount: manifest.layers.length,
  };
}

/** image-references and release-metadata's bytes and the other files' names, from the layers top down. */
async function readFolder(source: ImageSource, manifest: ImageManifest, opts: LoadOptions): Promise<FolderRead> {
  const read: FolderRead = { manifests: [], metadataFiles: [], unsafe: [], layersRead: [] };
  let kept = 0;
  const also = new Set(opts.alsoRead ?? []);
  const walk = await walkLayers(source, manifest, {
    folder: RELEASE_FOLDER,
    // Only these files' bytes are kept; the others are listed by name, so a large payload costs no memory.
    wantData: (path) =>
      path === IMAGE_REFERENCES ||
      path === RELEASE_METADATA ||
      also.has(path) ||
      (opts.keepManifests === true && MANIFEST_EXT.has(posix.extname(path))),
    ...(opts.referencesOnly ? { only: [IMAGE_REFERENCES], alsoWant: [...also] } : {}),
    ...(opts.summaryOnly && !opts.referencesOnly ? { only: [IMAGE_REFERENCES, RELEASE_METADATA], alsoWant: [...also] } : {}),
    ...((opts.layers ?? 'release-layer') === 'release-layer' ? { stopAtHolder: true } : {}),
    ...(opts.onLayer ? { onLayer: opts.onLayer } : {}),
    onUnsafe: (entry) => {
      read.unsafe.push(entry);
      // From the cache, the command is told after the read (loadReleaseInfo); without one, as it happens.
      if (!source.cache) opts.onUnsafe?.(entry);
    },
    onFile: (f) => {
      if (f.type !== 'file') return;
      const keep = opts.keepManifests === true && MANIFEST_EXT.has(posix.extname(f.path));
      if (keep && (kept += f.data.length) > MAX_KEPT_MANIFEST_BYTES) {
        throw new OsimageError(
          `the manifests of ${source.name} are larger than ${MAX_KEPT_MANIFEST_BYTES / (1024 * 1024)} MiB: too large to hold`,
        );
      }
      if (also.has(f.path) || keep) (read.files ??= {})[f.path] = f.data;
      if (f.path === IMAGE_REFERENCES) read.imageReferences = f.data;
      else if (f.path === RELEASE_METADATA) read.releaseMetadata = f.data;
      else if (MANIFEST_EXT.has(posix.extname(f.path))) read.manifests.push(f.path);
      else read.metadataFiles.push(f.path);
    },
  });
  read.layersRead = walk.layersRead;
  return read;
}

const MAX_CONFIG_BYTES = 8 * 1024 * 1024;

/** The image config: its blob read (verified by the transport's blob stream, capped), parsed and checked. */
export async function readImageConfig(source: ImageSource, desc: Descriptor): Promise<ImageConfig> {
  return parseImageConfig(await readConfig(source, desc), source.name);
}

/** An image config's bytes, parsed and checked; errors name the image. */
export function parseImageConfig(bytes: Buffer, name: string): ImageConfig {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new OsimageError(`the image configuration of ${name} is not valid JSON`);
  }
  return checkImageConfig(doc, `the image configuration of ${name}`);
}

/** The config blob's bytes, verified by the transport's blob stream (or found in the cache by its digest). */
export async function readConfig(source: ImageSource, desc: Descriptor): Promise<Buffer> {
  if (desc.size > MAX_CONFIG_BYTES) throw new OsimageError(`the image configuration of ${source.name} is too large (${desc.size} bytes)`);
  const cached = await getByDigest(source.cache, 'configs', desc.digest);
  if (cached) return cached.data;
  const stream = await source.blob(desc);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    chunks.push(c as Buffer);
    size += (c as Buffer).length;
    if (size > MAX_CONFIG_BYTES) {
      stream.destroy();
      throw new OsimageError(`the image configuration of ${source.name} is too large`);
    }
  }
  const bytes = Buffer.concat(chunks);
  void putByDigest(source.cache, 'configs', desc.digest, bytes, {}, { soon: true });
  return bytes;
}

/** `Created:` as oc prints it: UTC, RFC 3339, whole seconds; Go's zero time when absent. */
export function createdString(created: string | undefined): string {
  if (!created) return '0001-01-01T00:00:00Z';
  const d = new Date(created.replace(/(\.\d{3})\d+/, '$1'));
  if (Number.isNaN(d.getTime())) return created;
  return `${d.toISOString().slice(0, 19)}Z`;
}
