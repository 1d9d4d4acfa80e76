/**
 * `release new --from-release`: the payload of an existing release rebuilt from its own image-references,
 * with tags overridden, added or excluded, as oc 4.13 does it (pkg/cli/admin/release/new.go). Every component
 * image's config is read (its commit and version labels become the tag's annotations); operator images give
 * their `/manifests`, substituted as with `--from-dir`; unreferenced tags are pruned. Where the payload files
 * of operators cannot change, they are taken from the input release instead of pulling the operator images
 * (reuse.ts), unless `fullRebuild`. Pure of output: returns the files and what it decided.
 */
import { OsimageError, UsageError } from '../../errors.js';
import { forEachLimit } from '../../files/parallel.js';
import { digestOf } from '../../oci/digest.js';
import { IMAGE_REFERENCES, type ImageStream, type TagReference } from '../../oci/image-stream.js';
import { ocImageStream } from '../../oc/image-stream.js';
import { goJson } from '../../golang/json.js';
import { RELEASE_METADATA } from '../info.js';
import { ANNOTATION_DISPLAY_NAMES, ANNOTATION_VERSIONS } from '../references.js';
import { serializeReleaseMetadata, type PayloadFile } from './assemble.js';
import { readComponentConfigs, readOperatorReferences, type OpenComponent } from './components.js';
import {
  annotateFromLabels,
  applyOverride,
  buildFromOperators,
  byName,
  DEFAULT_BASE_TAG,
  latest,
  operatorImagesOf,
  OperatorReader,
  overriddenTags,
  serializeStream,
} from './from-images.js';
import type { Mapping } from './mappings.js';
import { releaseMetadata, type ReleaseMetadata } from './metadata.js';
import { readInputRelease, type InputRelease } from './release-input.js';
import { loadComponents, saveComponents } from './component-cache.js';
import type { CacheStore } from '../../cache/store.js';
import { planReuse, type ReusePlan } from './reuse.js';
import type { ImageSource } from '../../registry/types.js';

export const FROM_RELEASE_ANNOTATION = 'release.openshift.io/from-release';
/** An OS tag set from an RHCOS build: an override whose version annotations come from the build. */
export interface OsOverride {
  tag: string;
  pullspec: string;
  /** `io.openshift.build.versions` to set (e.g. `machine-os=416.94.…`), when the build id is known. */
  versions?: string | undefined;
  displayNames?: string | undefined;
}

export interface FromReleaseOptions {
  /** The release as the user typed it (recorded in release.openshift.io/from-release). */
  release: string;
  source: ImageSource;
  /** Opens a component image (or the base) by its pullspec. */
  open: OpenComponent;
  /** Where the component images read are kept, as one entry for the release (component-cache.ts). */
  cache?: CacheStore | undefined;
  filterByOs?: string | undefined;
  mappings: Mapping[];
  /** Called once the release's tags are known; returns the OS tags to set (the OS swap). */
  osOverrides?: ((input: InputRelease) => Promise<OsOverride[]>) | undefined;
  exclude: string[];
  include: string[];
  name?: string | undefined;
  previous: string[];
  next: string[];
  metadataJson?: string | undefined;
  toImageBase?: string | undefined;
  toImageBaseTag?: string | undefined;
  keepManifestList?: boolean | undefined;
  allowMissingImages?: boolean | undefined;
  skipManifestCheck?: boolean | undefined;
  /** The creation time of a release that changes something (osimage's reproducible default). */
  created: string;
  /** --component-versions or its display names were given: oc counts them as a change (nothing else reads them). */
  componentVersions?: boolean | undefined;
  /** Read every operator image's manifests, as oc does, even where the release's own files could be kept. */
  fullRebuild?: boolean | undefined;
  /** Whether the release was named by tag (oc then names its digest in the canonical rebuild's info line). */
  releaseByTag?: boolean | undefined;
  /** `-o json`: stop once the ImageStream is settled (nothing else is read). */
  jsonOnly?: boolean | undefined;
  onInfo?: ((line: string) => void) | undefined;
  /** Something the user should know, without failing. */
  onWarning?: ((line: string) => void) | undefined;
  /** Why the fast path did not hold (the command shows it with OSIMAGE_DEBUG). */
  onDebug?: ((line: string) => void) | undefined;
}

export interface FromReleaseResult {
  input: InputRelease;
  metadata: ReleaseMetadata;
  imageStream: ImageStream;
  /** `-o json`: the ImageStream as oc prints it (with the final newline). */
  json?: string;
  files: PayloadFile[];
  created: string;
  /** The pullspec of the image the release layer goes on, when there is one. */
  base: string | undefined;
  /** True when nothing was overridden: oc's "canonical" rebuild, which must reproduce the input. */
  canonical: boolean;
  /** The time oc gives the release-manifests folder, image-references and release-metadata: the newest manifest's. */
  folderTime: Date | undefined;
}

/** The base image: the tag whose digest the release's base-image-digest label names (oc's rule). */
function baseFromLabel(o: FromReleaseOptions, input: InputRelease, tags: TagReference[]): { base?: string; overridesBase: boolean } {
  if (o.toImageBase !== undefined || !input.baseDigest) return { overridesBase: false };
  for (const t of tags) {
    if (t.from?.kind !== 'DockerImage' || !t.from.name) continue;
    if (digestOf(t.from.name) === input.baseDigest) return { base: t.from.name, overridesBase: false };
  }
  if (!o.keepManifestList) {
    throw new OsimageError(
      `unable to find an image within the release that matches the base image manifest ${JSON.stringify(input.baseDigest)}, please specify --to-image-base`,
    );
  }
  return { base: o.release, overridesBase: true };
}

export async function assembleFromRelease(o: FromReleaseOptions): Promise<FromReleaseResult> {
  const input = await readInputRelease(o.source, o.filterByOs);
  const exclude = new Set(o.exclude);
  const copy = (t: TagReference): TagReference => JSON.parse(JSON.stringify(t)) as TagReference;
  const tags = input.stream.spec.tags.filter((t) => !exclude.has(t.name)).map(copy);
  const ordered = tags.map((t) => t.name);

  const osOverrides = o.osOverrides ? await o.osOverrides(input) : [];
  for (const m of o.mappings) {
    const clash = osOverrides.find((x) => x.tag === m.source);
    if (clash) {
      throw new UsageError(
        `${m.source}=${m.target} and the OS settings both set tag ${JSON.stringify(m.source)} (the build gives ${clash.pullspec}): give one`,
      );
    }
  }

  const userBase = o.toImageBase;
  const fromLabel = baseFromLabel(o, input, tags);
  const hasOverrides =
    o.name !== undefined ||
    o.metadataJson !== undefined ||
    o.previous.length > 0 ||
    o.next.length > 0 ||
    userBase !== undefined ||
    fromLabel.overridesBase ||
    o.mappings.length > 0 ||
    osOverrides.length > 0 ||
    o.exclude.length > 0 ||
    o.include.length > 0 ||
    o.componentVersions === true;

  const inputName = input.stream.metadata.name ?? '';
  const metadata = releaseMetadata({
    name: o.name ?? inputName,
    previous: o.previous.length > 0 ? o.previous : input.metadata.previous,
    next: o.next.length > 0 ? o.next : input.metadata.next,
    ...(o.metadataJson !== undefined
      ? { metadataJson: o.metadataJson }
      : input.metadata.metadata
        ? { metadataJson: JSON.stringify(input.metadata.metadata) }
        : {}),
  });
  const created = hasOverrides ? o.created : (input.stream.metadata.creationTimestamp ?? o.created);
  if (hasOverrides) o.onInfo?.(`Found ${tags.length} images in release`);
  else if (o.releaseByTag) o.onInfo?.(`Release ${input.digest} built from ${tags.length} images`);
  else o.onInfo?.(`Release built from ${tags.length} images`);

  const annotations: Record<string, string> = { ...(input.stream.metadata.annotations ?? {}) };
  if (hasOverrides) annotations[FROM_RELEASE_ANNOTATION] = o.release;
  const byTag = new Map(tags.map((t) => [t.name, t]));
  const overrides = [
    ...o.mappings.map((m) => ({ source: m.source, target: m.target })),
    ...osOverrides.map((x) => ({ source: x.tag, target: x.pullspec })),
  ];
  for (const m of overrides) {
    if (exclude.has(m.source)) continue;
    ordered.push(m.source);
    applyOverride(tags, byTag, m.source, m.target);
  }
  tags.sort(byName);
  const stream: ImageStream = {
    ...input.stream,
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { ...input.stream.metadata, name: metadata.version, creationTimestamp: created, annotations },
    spec: { ...input.stream.spec, tags },
  };
  const base = userBase ?? fromLabel.base;
  const result = (files: PayloadFile[], folderTime?: Date): FromReleaseResult => ({
    folderTime,
    input,
    metadata,
    imageStream: stream,
    files,
    created,
    base,
    canonical: !hasOverrides,
  });
  if (o.jsonOnly) return { ...result([]), json: `${goJson(ocImageStream(stream))}\n` };

  // Every image's config, for its labels (from the cache's entry for this release, when it has them).
  const known = await loadComponents(o.cache, input.digest, o.filterByOs);
  const images = await readComponentConfigs(
    tags.filter((t) => t.from?.kind === 'DockerImage' && t.from.name).map((t) => ({ tag: t.name, pullspec: t.from!.name! })),
    o.open,
    o.filterByOs,
    known,
  );
  if ([...images.values()].some((i) => !known.has(i.pullspec))) saveComponents(o.cache, input.digest, o.filterByOs, images.values());
  for (const tag of tags) {
    const img = images.get(tag.name);
    if (img) annotateFromLabels(tag, img);
  }
  for (const x of osOverrides) {
    const tag = byTag.get(x.tag);
    if (!tag || x.versions === undefined) continue;
    const labelled = tag.annotations?.[ANNOTATION_VERSIONS];
    if (labelled && labelled.split(',')[0] !== x.versions.split(',')[0]) {
      o.onWarning?.(
        `${x.tag}: the image says ${labelled} in its labels; the build says ${x.versions.split(',')[0]}, which is what is written`,
      );
    }
    tag.annotations = { ...(tag.annotations ?? {}), [ANNOTATION_VERSIONS]: x.versions, [ANNOTATION_DISPLAY_NAMES]: x.displayNames ?? '' };
  }

  const operatorImages = operatorImagesOf(images);
  const overridden = overriddenTags(tags);
  const reader = new OperatorReader(o.open, overridden, o.onInfo);
  const read = reader.read;

  let plan: ReusePlan | undefined;
  if (!o.fullRebuild) {
    plan = await planReuse({
      input,
      stream,
      inputName,
      version: metadata.version,
      images,
      excluded: o.exclude.length > 0,
      include: new Set([...o.include, o.toImageBaseTag ?? DEFAULT_BASE_TAG]),
      overridden,
      readOperators: async (names) => {
        await reader.readOperators(operatorImages.filter((i) => names.includes(i.tag)));
        return read;
      },
      readReferences: async (list) => {
        const out: Array<Set<string>> = new Array(list.length);
        await forEachLimit([...list.entries()], 6, async ([i, img]) => {
          out[i] = await readOperatorReferences(img, o.open);
        });
        return out;
      },
      open: o.open,
      filterByOs: o.filterByOs,
      fileOptions: { metadata, allowMissingImages: o.allowMissingImages, skipManifestCheck: o.skipManifestCheck },
    });
  }

  if (plan?.reason) o.onDebug?.(`every operator image is read: ${plan.reason}`);
  if (plan?.files && plan.keep) {
    const keep = plan.keep;
    const kept = tags.filter((t) => keep.has(t.name));
    if (kept.length !== tags.length) {
      o.onInfo?.(`Included ${kept.length} images from ${operatorImages.length} input operators into the release`);
      stream.spec.tags = kept;
    }
    o.onInfo?.(
      `Kept the payload files of ${operatorImages.length - read.size} of ${operatorImages.length} operators from the release; read ${read.size} operator image${read.size === 1 ? '' : 's'} (--full-rebuild reads all)`,
    );
    // The kept operators' files come from the release; the re-read operators' files were rebuilt.
    const newest = latest([input.referencesTime, ...[...read.values()].map((op) => op.newest)]);
    const files = [
      { name: IMAGE_REFERENCES, data: serializeStream(stream), mtime: newest },
      { name: RELEASE_METADATA, data: serializeReleaseMetadata(metadata), mtime: newest },
      ...plan.files,
    ];
    return result(files, newest);
  }

  const built = await buildFromOperators({
    stream,
    ordered,
    operatorImages,
    reader,
    include: [...o.include, o.toImageBaseTag ?? DEFAULT_BASE_TAG],
    metadata,
    allowMissingImages: o.allowMissingImages,
    skipManifestCheck: o.skipManifestCheck,
    onInfo: o.onInfo,
  });
  return result(built.files, built.folderTime);
}
