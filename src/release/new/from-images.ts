/**
 * A payload made from component images, as oc 4.13 makes it for every input that names images rather than
 * folders (`--from-release`, `-f/--from-image-stream-file`, or `TAG=PULLSPEC` mappings alone): every image's
 * config gives its tag's annotations; the `/manifests` of the operator images (label io.openshift.release.operator)
 * are substituted under their tag's name; tags nobody references are pruned. Pure of output.
 */
import { OsimageError, describe } from '../../errors.js';
import { forEachLimit } from '../../files/parallel.js';
import { IMAGE_REFERENCES, type ImageStream, type TagReference } from '../../oci/image-stream.js';
import { ocImageStream } from '../../oc/image-stream.js';
import { goJson } from '../../golang/json.js';
import { RELEASE_METADATA } from '../info.js';
import {
  ANNOTATION_COMMIT,
  ANNOTATION_DISPLAY_NAMES,
  ANNOTATION_SOURCE_LOCATION,
  ANNOTATION_VERSIONS,
  parseComponentVersions,
} from '../references.js';
import {
  buildOperatorFiles,
  creating,
  MissingImagesError,
  OVERRIDE_ANNOTATION,
  serializeReleaseMetadata,
  type OperatorSource,
  type PayloadFile,
} from './assemble.js';
import { readOperatorManifests, type ComponentImage, type OpenComponent } from './components.js';
import type { ReleaseMetadata } from './metadata.js';
import { MAX_PAYLOAD_BYTES } from './release-input.js';

export const ANNOTATION_COMMIT_REF = 'io.openshift.build.commit.ref';
/** oc's default --to-image-base-tag: always kept in the payload, and the base when none is given. */
export const DEFAULT_BASE_TAG = 'cluster-version-operator';
/**
 * Components a version label may name. oc 4.13 knows the first four; kubectl and kubernetes-tests were added in
 * oc 4.16, and every release since carries them on its cli images, so refusing them would refuse today's releases.
 */
export const ALLOWED_COMPONENTS = ['kubernetes', 'machine-os', 'kernel', 'crio', 'kubectl', 'kubernetes-tests'];

export const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Copy the labels oc copies into a tag's annotations (commit always, versions only when labelled). */
export function annotateFromLabels(tag: TagReference, img: ComponentImage): void {
  const labels = img.labels;
  const a: Record<string, string> = { ...(tag.annotations ?? {}) };
  a[ANNOTATION_COMMIT] = labels[ANNOTATION_COMMIT] ?? '';
  a[ANNOTATION_COMMIT_REF] = labels[ANNOTATION_COMMIT_REF] ?? '';
  a[ANNOTATION_SOURCE_LOCATION] = labels[ANNOTATION_SOURCE_LOCATION] ?? '';
  const versions = labels[ANNOTATION_VERSIONS] ?? '';
  if (versions !== '') {
    let components: Map<string, unknown>;
    try {
      components = parseComponentVersions(versions, labels[ANNOTATION_DISPLAY_NAMES] ?? '');
    } catch (err) {
      throw new OsimageError(
        `unable to check whether to include image ${img.pullspec}: tag ${JSON.stringify(tag.name)} has an invalid ${ANNOTATION_VERSIONS} or ${ANNOTATION_DISPLAY_NAMES} label: ${describe(err)}`,
      );
    }
    for (const c of components.keys()) {
      if (!ALLOWED_COMPONENTS.includes(c)) {
        throw new OsimageError(
          `unable to check whether to include image ${img.pullspec}: tag ${JSON.stringify(tag.name)} references a component version ${JSON.stringify(c)} which is not in the allowed list`,
        );
      }
    }
    a[ANNOTATION_VERSIONS] = versions;
    a[ANNOTATION_DISPLAY_NAMES] = labels[ANNOTATION_DISPLAY_NAMES] ?? '';
  }
  tag.annotations = a;
}

/** The tags oc marked as overrides (their operator images are read across every layer). */
export function overriddenTags(tags: TagReference[]): Set<string> {
  return new Set(tags.filter((t) => t.annotations?.[OVERRIDE_ANNOTATION] === 'true').map((t) => t.name));
}

/** The operator images among the components, by tag name. */
export function operatorImagesOf(images: Map<string, ComponentImage>): ComponentImage[] {
  return [...images.values()].filter((i) => i.operator).sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
}

/** Reads operator images' `/manifests` (6 at a time, within one memory budget), each once, with oc's `Loading` lines. */
export class OperatorReader {
  readonly read = new Map<string, OperatorSource>();
  private readonly budget = { left: MAX_PAYLOAD_BYTES };
  constructor(
    private readonly open: OpenComponent,
    private readonly overridden: Set<string>,
    private readonly onInfo: ((line: string) => void) | undefined,
  ) {}

  async readOperators(list: ComponentImage[]): Promise<void> {
    const todo = list.filter((i) => !this.read.has(i.tag));
    await forEachLimit(todo, 6, async (img) => {
      this.read.set(img.tag, await readOperatorManifests(img, this.open, this.overridden.has(img.tag), this.budget));
    });
    for (const img of todo) {
      this.onInfo?.(this.overridden.has(img.tag) ? `Loading override ${img.pullspec} ${img.tag}` : `Loading ${img.digest} ${img.tag}`);
    }
  }
}

export interface OperatorBuildOptions {
  /** The ImageStream written; its tags are pruned in place. */
  stream: ImageStream;
  /** oc's list of tag names in input order, a mapped tag once more (its operator's files are then written twice). */
  ordered: string[];
  operatorImages: ComponentImage[];
  reader: OperatorReader;
  /** Kept even when no operator references them (--include, and the base tag). */
  include: string[];
  metadata: ReleaseMetadata;
  allowMissingImages?: boolean | undefined;
  skipManifestCheck?: boolean | undefined;
  onInfo?: ((line: string) => void) | undefined;
}

/**
 * Every operator image read, the unreferenced tags pruned (`Included N images from M input operators`), and the
 * payload files made: image-references, release-metadata (both stamped with the newest manifest's time, as oc
 * does) and the operators' files.
 */
export async function buildFromOperators(o: OperatorBuildOptions): Promise<{ files: PayloadFile[]; folderTime: Date | undefined }> {
  const { stream, reader } = o;
  const tags = stream.spec.tags;
  const operatorNames = new Set(o.operatorImages.map((i) => i.tag));
  await reader.readOperators(o.operatorImages);
  // oc keeps a tag that an operator's image-references names, an operator's own tag, --include and the base tag.
  const keep = new Set<string>([...o.include, ...o.ordered.filter((n) => operatorNames.has(n))]);
  for (const op of reader.read.values()) for (const t of op.references?.spec.tags ?? []) keep.add(t.name);
  const kept = tags.filter((t) => keep.has(t.name));
  if (kept.length !== tags.length) {
    o.onInfo?.(`Included ${kept.length} images from ${reader.read.size} input operators into the release`);
    stream.spec.tags = kept;
  }
  // oc walks its list of operator tags, where a tag given as a mapping comes twice: its files are written twice.
  const walk = o.ordered.filter((n) => operatorNames.has(n)).sort();
  const ops = walk.map((n) => reader.read.get(n)!).filter((op) => op.files.length > 0);
  const newest = latest(ops.map((op) => op.newest));
  let manifests: PayloadFile[];
  try {
    manifests = await buildOperatorFiles(
      { metadata: o.metadata, allowMissingImages: o.allowMissingImages, skipManifestCheck: o.skipManifestCheck, onInfo: o.onInfo },
      ops,
      stream,
    );
  } catch (err) {
    if (err instanceof MissingImagesError) throw err;
    throw creating(err);
  }
  const files = [
    { name: IMAGE_REFERENCES, data: serializeStream(stream), mtime: newest },
    { name: RELEASE_METADATA, data: serializeReleaseMetadata(o.metadata), mtime: newest },
    ...manifests,
  ];
  return { files, folderTime: newest };
}

/** The latest of some times, to the second (tar keeps seconds). */
export function latest(times: Array<Date | undefined>): Date | undefined {
  let max: number | undefined;
  for (const t of times) if (t && (max === undefined || t.getTime() > max)) max = t.getTime();
  return max === undefined ? undefined : new Date(Math.floor(max / 1000) * 1000);
}

/** image-references as oc writes it: json.MarshalIndent of the ImageStream, no final newline. */
export function serializeStream(stream: ImageStream): Buffer {
  return Buffer.from(goJson(ocImageStream(stream)));
}

/**
 * A mapping applied as oc applies it: the tag (added when missing) gets exactly `{kind: DockerImage, name}` as
 * `from`, its annotations replaced by `io.openshift.release.override: "true"`; its other fields stay.
 */
export function applyOverride(tags: TagReference[], byTag: Map<string, TagReference>, source: string, target: string): void {
  let tag = byTag.get(source);
  if (!tag) {
    tag = { name: source };
    tags.push(tag);
    byTag.set(source, tag);
  }
  tag.annotations = { [OVERRIDE_ANNOTATION]: 'true' };
  tag.from = { kind: 'DockerImage', name: target };
}
