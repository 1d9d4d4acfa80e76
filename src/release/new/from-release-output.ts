/**
 * Where a `--from-release` payload goes: flat files (--to-dir), an oci-archive (--to-file), a registry
 * (--to-image), or oc's dry run (no output: the image is composed and its digest line printed, nothing
 * written). A rebuild that overrides nothing must give the input's payload files, byte for byte (oc's
 * "canonical" check, which oc makes on the image digest: osimage compresses and writes the config its own
 * way, so the digest matches only for a release that osimage built).
 */
import { OsimageError } from '../../errors.js';
import { parseImageReference } from '../../oci/reference.js';
import type { SourceOptions } from '../../registry/types.js';
import { IMAGE_REFERENCES } from '../../oci/image-stream.js';
import { RELEASE_METADATA } from '../info.js';
import type { OpenComponent } from './components.js';
import { DEFAULT_BASE_TAG, type FromReleaseResult } from './from-release.js';
import { composeReleaseImage, loadBase } from './image.js';
import { pushRelease, writeReleaseArchive, writeReleaseDir } from './publish.js';
import { baseRepository, pushTarget, releaseTag } from './target.js';

/** Was the release named by tag (not by digest)? oc's canonical info line says so. */
export function releaseByTag(release: string): boolean {
  if (release.startsWith('oci:') || release.startsWith('oci-archive:')) return !release.includes('@');
  try {
    return parseImageReference(release, { dockerTransport: true }).tag !== undefined;
  } catch {
    return false;
  }
}

export interface PublishOptions {
  toDir?: string | undefined;
  toFile?: string | undefined;
  toImage?: string | undefined;
  dryRun?: boolean | undefined;
  filterByOs?: string | undefined;
  toImageBaseTag?: string | undefined;
  open: OpenComponent;
  sourceOptions: SourceOptions;
  out: (line: string) => void;
  info: (line: string) => void;
}

/** The first payload file whose bytes differ from the input release's, or undefined when they are the same. */
export function firstDifference(result: FromReleaseResult): string | undefined {
  const input = new Map(result.input.files.map((f) => [f.name, f.data]));
  input.set(IMAGE_REFERENCES, result.input.raw.imageReferences);
  if (result.input.raw.releaseMetadata) input.set(RELEASE_METADATA, result.input.raw.releaseMetadata);
  const names = new Set(result.files.map((f) => f.name));
  for (const f of result.files) {
    const had = input.get(f.name);
    if (!had) return `${f.name} (not in the input)`;
    if (!had.equals(f.data)) return f.name;
  }
  for (const name of input.keys()) if (!names.has(name)) return `${name} (missing)`;
  return undefined;
}

/** The image the release layer goes on: the one found by base-image-digest, else the base tag's. */
function baseOf(result: FromReleaseResult, baseTag: string | undefined): string {
  if (result.base !== undefined) return result.base;
  const tag = baseTag ?? DEFAULT_BASE_TAG;
  const t = result.imageStream.spec.tags.find((x) => x.name === tag && x.from?.kind === 'DockerImage' && x.from.name);
  if (!t) throw new OsimageError(`the base image tag ${JSON.stringify(tag)} could not be found in the input, cannot build a release image`);
  return t.from!.name!;
}

export async function publishFromRelease(result: FromReleaseResult, o: PublishOptions): Promise<void> {
  if (o.toDir !== undefined) {
    await writeReleaseDir(result.files, o.toDir);
    return;
  }
  const version = result.metadata.version;
  const baseRef = baseOf(result, o.toImageBaseTag);
  const baseSource = await o.open(baseRef);
  try {
    const base = await loadBase(baseSource, o.filterByOs);
    const image = await composeReleaseImage({
      name: version,
      files: result.files,
      created: result.created,
      folderTime: result.folderTime,
      ...(base ? { base } : {}),
    });
    const digest = image.manifest.descriptor.digest;
    if (o.toFile !== undefined) {
      await writeReleaseArchive(image, o.toFile, releaseTag(version), baseSource);
    } else if (o.toImage !== undefined && !o.dryRun) {
      const s = o.sourceOptions;
      await pushRelease(image, pushTarget(o.toImage, version), baseSource, {
        ...(s.registryConfig ? { registryConfig: s.registryConfig } : {}),
        ...(s.insecure ? { insecure: true } : {}),
        ...(s.caFile ? { caFile: s.caFile } : {}),
        ...(s.onWarning ? { onWarning: s.onWarning } : {}),
        ...(baseRepository(baseRef) ?? {}),
      });
      o.info(`Pushed to ${o.toImage}`);
    }
    o.out(`${digest} ${version} ${result.created}`);
    // oc's check of a rebuild that overrides nothing, made (as in oc) once the image is written: on the payload
    // files, since the gzip bytes and the config are osimage's own.
    if (result.canonical && digest !== result.input.digest) {
      const diff = firstDifference(result);
      if (diff !== undefined) throw new OsimageError(`the release could not be reproduced from its inputs: ${diff} differs`);
      o.info(
        `the payload files are the input's, byte for byte; the image digest is not (${result.input.digest} in, ${digest} out): osimage compresses the layer and writes the config its own way`,
      );
    }
  } finally {
    await baseSource.close();
  }
}
