/**
 * The component images a release references, read as `oc adm release info --size / --verify /
 * --include-images` reads them: for each `DockerImage` tag, its manifest (a manifest list resolved to the one
 * entry the platform filter leaves) and its config, each verified against its digest. At most
 * `--max-per-registry` reads are in flight. One image that cannot be read fails the whole query, as in oc; a
 * pull spec that is not a valid reference is only a warning.
 */
import { OsimageError, describe } from '../errors.js';
import { dockerImage, type ImageStream } from '../oci/image-stream.js';
import { DEFAULT_PLATFORM, platformFilter, platformString } from '../registry/platform.js';
import { parseReference } from '../registry/reference.js';
import {
  isIndex,
  type Descriptor,
  type FetchedManifest,
  type ImageConfig,
  type ImageManifest,
  type ImageSource,
} from '../registry/types.js';
import { readImageConfig } from './info.js';

export interface ComponentImage {
  /** The pull spec, as the release names it. */
  name: string;
  /** The image manifest's digest (the chosen entry's, for a list). */
  digest: string;
  /** The digest the manifest's bytes hash to (they were verified: the same as `digest`). */
  contentDigest: string;
  /** The list's digest when the pull spec named a manifest list, else `''`. */
  listDigest: string;
  mediaType: string;
  layers: Descriptor[];
  config: ImageConfig;
}

export interface ComponentsRead {
  /** By tag name. */
  images: Map<string, ComponentImage>;
  /** oc's `tag "NAME" has an invalid reference: …` for pull specs that do not parse. */
  warnings: string[];
}

export interface ComponentOptions {
  /** `--max-per-registry` (oc's default 4); below 1 means 1. */
  maxPerRegistry?: number;
  filterByOs?: string;
}

export const DEFAULT_MAX_PER_REGISTRY = 4;

/**
 * The one entry of a component's manifest list: those the filter matches (a one-entry list is taken as it is
 * when no --filter-by-os was given), which must be exactly one. oc's words when not.
 */
function componentEntry(entries: Descriptor[], filterByOs: string | undefined): Descriptor {
  const explicit = filterByOs !== undefined && filterByOs !== '';
  const filter = platformFilter(explicit ? filterByOs : undefined);
  const kept = entries.filter((d) => (!explicit && entries.length === 1) || filter.test(platformString(d.platform)));
  if (kept.length !== 1) {
    const wanted = explicit ? filterByOs : DEFAULT_PLATFORM;
    throw new OsimageError(`no matching image found in manifest list (${kept.length} entries match ${wanted})`);
  }
  return kept[0]!;
}

async function readComponent(name: string, source: ImageSource, opts: ComponentOptions): Promise<ComponentImage> {
  const top = await source.manifest();
  let manifest: FetchedManifest = top;
  let listDigest = '';
  if (isIndex(top.parsed)) {
    const entry = componentEntry(top.parsed.manifests, opts.filterByOs);
    manifest = await source.manifestByDigest(entry.digest);
    listDigest = top.digest;
    if (isIndex(manifest.parsed)) throw new OsimageError(`image ${name}: the manifest list entry ${entry.digest} is itself a list`);
  }
  const parsed = manifest.parsed as ImageManifest;
  const config = await readImageConfig(source, parsed.config);
  return {
    name,
    digest: manifest.digest,
    contentDigest: manifest.digest,
    listDigest,
    mediaType: manifest.mediaType,
    layers: parsed.layers,
    config,
  };
}

/**
 * Read every `DockerImage` tag's image. `open` opens a pull spec with the command's registry settings (and
 * closes it when the command ends). The first image that fails, in tag order, is the error.
 */
export async function readComponentImages(
  references: ImageStream,
  open: (ref: string) => Promise<ImageSource>,
  opts: ComponentOptions = {},
): Promise<ComponentsRead> {
  const warnings: string[] = [];
  const work: Array<{ tag: string; pullspec: string }> = [];
  for (const tag of references.spec.tags ?? []) {
    const pullspec = dockerImage(tag);
    if (!pullspec) continue;
    try {
      parseReference(pullspec);
    } catch (err) {
      warnings.push(`tag ${JSON.stringify(tag.name)} has an invalid reference: ${describe(err)}`);
      continue;
    }
    work.push({ tag: tag.name, pullspec });
  }
  const images = new Map<string, ComponentImage>();
  const failures = new Map<number, unknown>();
  let next = 0;
  const worker = async () => {
    // Once one image has failed no new read starts (the answer is that error); those in flight finish.
    while (failures.size === 0 && next < work.length) {
      const i = next++;
      const { tag, pullspec } = work[i]!;
      try {
        images.set(tag, await readComponent(pullspec, await open(pullspec), opts));
      } catch (err) {
        failures.set(i, err);
      }
    }
  };
  const limit = Math.max(1, Math.trunc(opts.maxPerRegistry ?? DEFAULT_MAX_PER_REGISTRY));
  await Promise.all(Array.from({ length: Math.min(limit, Math.max(1, work.length)) }, worker));
  if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
  return { images, warnings };
}
