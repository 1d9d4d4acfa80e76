/**
 * The release `release new --from-release` starts from: its image-references and release-metadata (oc's inputs),
 * the base-image-digest label of its config, and every other payload file's bytes (what a rebuild can reuse).
 * Files are read top down across layers with whiteouts honoured, as `release info` reads them.
 */
import { OsimageError, describe } from '../../errors.js';
import { IMAGE_REFERENCES, parseImageReferences, type ImageStream } from '../../oci/image-stream.js';
import { resolveImage } from '../../registry/platform.js';
import type { ImageSource } from '../../registry/types.js';
import { readImageConfig, RELEASE_FOLDER, RELEASE_METADATA } from '../info.js';
import { walkLayers } from '../overlay.js';
import { BASE_DIGEST_LABEL } from './image.js';
import type { PayloadFile } from './assemble.js';

/** A payload's files together may not hold more than this in memory (real payloads are a few MiB). */
export const MAX_PAYLOAD_BYTES = 512 * 1024 * 1024;
/** A tag name (Docker's grammar: a word character, then up to 127 of word characters, `.` and `-`). */
const TAG_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * A tag's name becomes part of payload file names (0000_50_<tag>_<file>): only a tag name as Docker's grammar has
 * it, never a path. `where` names the input.
 */
export function checkTagNames(tags: Array<{ name?: string }>, where: string): void {
  const bad = tags.find((t) => !TAG_NAME.test(t.name ?? ''));
  if (bad) throw new OsimageError(`${where}: image-references names tag ${JSON.stringify(bad.name)}, which is no tag name`);
}

export interface InputMetadata {
  previous: string[];
  next: string[];
  metadata: Record<string, unknown> | undefined;
}

export interface InputRelease {
  /** The release image's manifest digest (oc's content digest of the input). */
  digest: string;
  /** The config's io.openshift.release.base-image-digest label, if any. */
  baseDigest: string | undefined;
  stream: ImageStream;
  metadata: InputMetadata;
  /** Every other file of release-manifests/ (no sub-folders), in the order the top layer lists them. */
  files: PayloadFile[];
  /** image-references and release-metadata as stored. */
  raw: { imageReferences: Buffer; releaseMetadata: Buffer | undefined };
  /** The time of image-references' entry (oc stamps it with the newest manifest time). */
  referencesTime: Date | undefined;
}

function parseMetadata(bytes: Buffer | undefined): InputMetadata {
  let doc: unknown;
  try {
    // oc unmarshals whatever it found: a missing file is Go's "unexpected end of JSON input".
    if (bytes === undefined || bytes.length === 0) throw new Error('unexpected end of JSON input');
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new OsimageError(`unable to load release-metadata from release contents: ${describe(err)}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new OsimageError('unable to load release-metadata from release contents: not a JSON object');
  }
  const o = doc as Record<string, unknown>;
  const list = (k: string): string[] => {
    const v = o[k];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      throw new OsimageError(`unable to load release-metadata from release contents: "${k}" is not a list of strings`);
    }
    return v as string[];
  };
  const md = o.metadata;
  if (md !== undefined && md !== null && (typeof md !== 'object' || Array.isArray(md))) {
    throw new OsimageError('unable to load release-metadata from release contents: "metadata" is not an object');
  }
  return { previous: list('previous'), next: list('next'), metadata: (md as Record<string, unknown> | null) ?? undefined };
}

export async function readInputRelease(source: ImageSource, filterByOs: string | undefined): Promise<InputRelease> {
  const resolved = await resolveImage(source, filterByOs);
  const manifest = resolved.manifest.parsed;
  const config = await readImageConfig(source, manifest.config);
  const baseDigest = config.config?.Labels?.[BASE_DIGEST_LABEL] || undefined;

  let refs: Buffer | undefined;
  let referencesTime: Date | undefined;
  let meta: Buffer | undefined;
  let files: PayloadFile[] = [];
  let total = 0;
  const walk = (layers: typeof manifest.layers) =>
    walkLayers(
      source,
      { ...manifest, layers },
      {
        folder: RELEASE_FOLDER,
        onFile: (f) => {
          if (f.type !== 'file' || f.path.includes('/')) return;
          total += f.data.length;
          if (total > MAX_PAYLOAD_BYTES) {
            throw new OsimageError(`${source.name}: release-manifests/ holds more than ${MAX_PAYLOAD_BYTES / (1024 * 1024)} MiB`);
          }
          if (f.path === IMAGE_REFERENCES) {
            refs = f.data;
            referencesTime = f.mtime;
          } else if (f.path === RELEASE_METADATA) meta = f.data;
          else files.push({ name: f.path, data: f.data, mtime: f.mtime });
        },
      },
    );
  // The payload is the top layer in every release oc or osimage builds: read the base layers only when it is not
  // all there (as oc stops once it has image-references and release-metadata).
  await walk(manifest.layers.slice(-1));
  if ((refs === undefined || meta === undefined) && manifest.layers.length > 1) {
    refs = meta = referencesTime = undefined;
    files = [];
    total = 0;
    await walk(manifest.layers);
  }
  if (refs === undefined || refs.length === 0) throw new OsimageError('release image did not contain any image-references content');
  let stream: ImageStream;
  try {
    stream = parseImageReferences(refs);
  } catch (err) {
    throw new OsimageError(`unable to load image-references from release contents: ${describe(err)}`);
  }
  checkTagNames(stream.spec.tags, source.name);
  return {
    digest: resolved.manifest.digest,
    baseDigest,
    stream,
    metadata: parseMetadata(meta),
    files,
    raw: { imageReferences: refs, releaseMetadata: meta },
    referencesTime,
  };
}
