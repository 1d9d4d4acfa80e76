/**
 * `release new -f/--from-image-stream-file FILE`: the input images are an ImageStream saved from a cluster (`oc get
 * imagestream NAME -o json`) or written by hand, and, with no input at all, `TAG=PULLSPEC` mappings alone. As oc
 * 4.13 does it, each tag is taken by `--reference-mode`: `public` (the default) names the stream's
 * `status.publicDockerImageRepository` with each image's digest, `source` the pullspec the tag names (or the image
 * its status records). The payload is then made from the images as with `--from-release` (from-images.ts): a new
 * ImageStream, stamped with the creation time, whose metadata are its name and time only. Pure of output.
 */
import { OsimageError, describe } from '../../errors.js';
import { goJson } from '../../golang/json.js';
import { imageStreamFromObject, IMAGE_STREAM_API_VERSION, MAX_TAGS, type ImageStream, type TagReference } from '../../oci/image-stream.js';
import { parseImageReference } from '../../oci/reference.js';
import { ocImageStream } from '../../oc/image-stream.js';
import { lazyRequire } from '../../lazy.js';
import type * as Yaml from 'yaml';
import type { PayloadFile } from './assemble.js';
import { readComponentConfigs, type OpenComponent } from './components.js';
import {
  annotateFromLabels,
  applyOverride,
  buildFromOperators,
  byName,
  DEFAULT_BASE_TAG,
  operatorImagesOf,
  OperatorReader,
  overriddenTags,
} from './from-images.js';
import type { Mapping } from './mappings.js';
import type { ReleaseMetadata } from './metadata.js';
import { checkTagNames } from './release-input.js';

const yaml = lazyRequire<typeof Yaml>('yaml');

/** An ImageStream file may not be larger than this (a release's stream is a few hundred KiB). */
export const MAX_STREAM_FILE_BYTES = 64 * 1024 * 1024;

/** oc's words for a document that is not an image.openshift.io/v1 ImageStream. */
const UNRECOGNIZED = 'unrecognized input image stream file, must be an ImageStream in image.openshift.io/v1';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The input file's document: YAML or JSON, an `image.openshift.io/v1` ImageStream, its tags well formed. */
export function parseStreamFile(bytes: Buffer): ImageStream {
  let doc: unknown;
  try {
    doc = yaml().parse(bytes.toString('utf8'), { maxAliasCount: 100 });
  } catch (err) {
    // The YAML parser's messages carry a multi-line excerpt of the text: its first line says what is wrong.
    throw new OsimageError(`unable to load input image stream file: ${describe(err).split('\n')[0]}`, { code: 'invalid-input' });
  }
  if (!isObj(doc) || doc.kind !== 'ImageStream' || doc.apiVersion !== IMAGE_STREAM_API_VERSION) {
    throw new OsimageError(UNRECOGNIZED, { code: 'invalid-input' });
  }
  let stream: ImageStream;
  try {
    stream = imageStreamFromObject(doc);
  } catch (err) {
    throw new OsimageError(`unable to load input image stream file: ${describe(err)}`, { code: 'invalid-input', cause: err });
  }
  checkTagNames([...stream.spec.tags, ...statusTags(stream).map((t) => ({ name: t.tag }))], 'the input image stream file');
  return stream;
}

interface StatusItem {
  dockerImageReference: string;
  image: string;
  generation: number | undefined;
}
interface StatusTag {
  tag: string;
  items: StatusItem[];
  /** An ImportSuccess condition is there (oc then calls the tag "not imported yet", whatever its status). */
  importCondition: boolean;
}

function statusTags(is: ImageStream): StatusTag[] {
  const status = isObj(is.status) ? is.status : {};
  const tags = Array.isArray(status.tags) ? status.tags : [];
  return tags.filter(isObj).map((t) => ({
    tag: str(t.tag),
    items: (Array.isArray(t.items) ? t.items : []).filter(isObj).map((i) => ({
      dockerImageReference: str(i.dockerImageReference),
      image: str(i.image),
      generation: typeof i.generation === 'number' ? i.generation : undefined,
    })),
    // oc compares the condition's status with metav1's "Success", which a condition's True or False never is.
    importCondition: (Array.isArray(t.conditions) ? t.conditions : []).some(
      (c) => isObj(c) && c.type === 'ImportSuccess' && c.status !== 'Success',
    ),
  }));
}

const notImported = (tag: string) =>
  new OsimageError(`the tag ${JSON.stringify(tag)} in the source input stream has not been imported yet`);

/**
 * The tags of the input stream as pullspecs by digest, by `--reference-mode` (`public`, the default, or `source`),
 * the excluded left out: spec tags first (in order), then status tags no spec tag gave. Each spec tag keeps its
 * other fields (annotations and all); a status tag is its name and image only.
 */
export function tagsFromStream(is: ImageStream, mode: string | undefined, exclude: ReadonlySet<string>): TagReference[] {
  if (mode !== undefined && mode !== '' && mode !== 'public' && mode !== 'source') {
    throw new OsimageError('supported reference modes are: "public" (default) and "source"', { exitCode: 2 });
  }
  const forcePublic = mode !== 'source';
  const status = isObj(is.status) ? is.status : {};
  const internal = str(status.dockerImageRepository);
  const external = str(status.publicDockerImageRepository);
  if (forcePublic && external === '') {
    throw new OsimageError(
      'only image streams or releases with public image repositories can be the source for releases when using the default --reference-mode',
    );
  }
  // The pullspec of an image: the public repository with its digest, or where it came from (never the cluster's
  // internal registry).
  const pick = (source: string, image: string): string => {
    const from = internal !== '' && source.startsWith(internal) ? '' : source;
    if ((forcePublic || from === '') && external !== '') return `${external}@${image}`;
    return from;
  };
  const byStatus = new Map(statusTags(is).map((t) => [t.tag, t]));
  const out: TagReference[] = [];
  const covered = new Set<string>();
  for (const ref of is.spec.tags) {
    if (exclude.has(ref.name)) continue;
    const st = byStatus.get(ref.name);
    if (typeof ref.generation === 'number' && st && st.items.length > 0) {
      // A spec tag waiting for its import holds the release back; an imported one is taken from its status.
      if (ref.generation > (st.items[0]!.generation ?? 0)) throw notImported(st.tag);
      continue;
    }
    if (ref.from?.kind !== 'DockerImage') continue;
    const name = ref.from.name ?? '';
    let parsed;
    try {
      parsed = parseImageReference(name);
    } catch (err) {
      throw new OsimageError(describe(err), { cause: err });
    }
    let source: string;
    if (parsed.digest !== undefined) {
      source = pick(name, parsed.digest);
      if (source === '') continue;
    } else if (parsed.tag !== undefined) {
      if (!st) continue;
      if (st.items.length === 0) {
        if (st.importCondition) throw notImported(st.tag);
        continue;
      }
      const item = st.items[0]!;
      if (item.image === '') throw new OsimageError(`the tag ${JSON.stringify(st.tag)} in the source input stream has no image id`);
      source = pick(item.dockerImageReference, item.image);
    } else continue;
    out.push({ ...JSON.parse(JSON.stringify(ref)), from: { kind: 'DockerImage', name: source } } as TagReference);
    covered.add(ref.name);
  }
  for (const st of byStatus.values()) {
    if (covered.has(st.tag) || exclude.has(st.tag)) continue;
    if (st.items.length === 0) {
      if (st.importCondition) throw notImported(st.tag);
      continue;
    }
    const item = st.items[0]!;
    if (item.image === '') continue;
    const source = pick(item.dockerImageReference, item.image);
    if (source === '') continue;
    let repository: string;
    try {
      repository = parseImageReference(source).name;
    } catch {
      throw new OsimageError(`the tag ${JSON.stringify(st.tag)} points to source ${JSON.stringify(source)} which is not valid`);
    }
    out.push({ name: st.tag, from: { kind: 'DockerImage', name: `${repository}@${item.image}` } });
  }
  // Each is read: status tags count as much as spec tags.
  if (out.length > MAX_TAGS)
    throw new OsimageError(`the input image stream names ${out.length} images, more than the ${MAX_TAGS} osimage reads`);
  return out;
}

export interface FromStreamOptions {
  /** The input tags (tagsFromStream), or none for mappings alone. */
  tags: TagReference[];
  mappings: Mapping[];
  exclude: string[];
  include: string[];
  /** The tag the release is built on (default cluster-version-operator; '' for none): never pruned. */
  toImageBaseTag?: string | undefined;
  metadata: ReleaseMetadata;
  created: string;
  open: OpenComponent;
  filterByOs?: string | undefined;
  allowMissingImages?: boolean | undefined;
  skipManifestCheck?: boolean | undefined;
  /** `-o json`: stop once the ImageStream is settled (no image is read). */
  jsonOnly?: boolean | undefined;
  onInfo?: ((line: string) => void) | undefined;
}

export interface FromStreamResult {
  metadata: ReleaseMetadata;
  imageStream: ImageStream;
  /** `-o json`: the ImageStream as oc prints it (with the final newline). */
  json?: string;
  files: PayloadFile[];
  created: string;
  /** The time oc gives the release-manifests folder, image-references and release-metadata: the newest manifest's. */
  folderTime: Date | undefined;
}

/** The payload of the input images; missing images come out as MissingImagesError, as with the other inputs. */
export async function assembleFromStream(o: FromStreamOptions): Promise<FromStreamResult> {
  const exclude = new Set(o.exclude);
  const tags = o.tags.map((t) => JSON.parse(JSON.stringify(t)) as TagReference);
  const ordered = tags.map((t) => t.name);
  const byTag = new Map(tags.map((t) => [t.name, t]));
  for (const m of o.mappings) {
    if (exclude.has(m.source)) continue;
    ordered.push(m.source);
    applyOverride(tags, byTag, m.source, m.target);
  }
  tags.sort(byName);
  const stream: ImageStream = {
    kind: 'ImageStream',
    apiVersion: IMAGE_STREAM_API_VERSION,
    metadata: { name: o.metadata.version, creationTimestamp: o.created },
    spec: { tags },
  };
  const result = (files: PayloadFile[], folderTime?: Date): FromStreamResult => ({
    metadata: o.metadata,
    imageStream: stream,
    files,
    created: o.created,
    folderTime,
  });
  if (o.jsonOnly) return { ...result([]), json: `${goJson(ocImageStream(stream))}\n` };
  if (tags.length === 0) throw new OsimageError('no component images defined, unable to build a release payload');

  const images = await readComponentConfigs(
    tags.filter((t) => t.from?.kind === 'DockerImage' && t.from.name).map((t) => ({ tag: t.name, pullspec: t.from!.name! })),
    o.open,
    o.filterByOs,
  );
  for (const tag of tags) {
    const img = images.get(tag.name);
    if (img) annotateFromLabels(tag, img);
  }
  const operatorImages = operatorImagesOf(images);
  const reader = new OperatorReader(o.open, overriddenTags(tags), o.onInfo);
  const baseTag = o.toImageBaseTag ?? DEFAULT_BASE_TAG;
  const built = await buildFromOperators({
    stream,
    ordered,
    operatorImages,
    reader,
    include: [...o.include, ...(baseTag !== '' ? [baseTag] : [])],
    metadata: o.metadata,
    allowMissingImages: o.allowMissingImages,
    skipManifestCheck: o.skipManifestCheck,
    onInfo: o.onInfo,
  });
  return result(built.files, built.folderTime);
}
