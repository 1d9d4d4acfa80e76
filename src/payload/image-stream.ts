/**
 * `image-references`: a bare ImageStream (`image.openshift.io/v1`) whose `spec.tags[]` name the images
 * an operator's manifests refer to. oc reads it as YAML or JSON; oc itself writes JSON with a 2-space
 * indent and no final newline.
 */
import { PayloadError } from './errors.js';
import { appendToSeq, parseManifestText, setStringAt, yamlScalar, type ManifestText } from './text.js';

export const IMAGE_REFERENCES = 'image-references';
export const OS_CONTENT_TAG = 'machine-os-content';
export const IMAGE_STREAM_API_VERSION = 'image.openshift.io/v1';

export interface ImageStreamTag {
  name: string;
  /** `from`, when the tag has one. */
  from?: { kind: string; name: string };
}

/** The parts of an ImageStream the payload code needs. */
export interface ImageStream {
  /** metadata.name, when set (a release's image-references names the release). */
  name?: string;
  tags: ImageStreamTag[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Check and read a parsed ImageStream object (from a file, or from a release image's
 * `release-manifests/image-references`). `source` names where it came from, for errors.
 */
export function imageStreamFromObject(doc: unknown, source: string): ImageStream {
  if (!isRecord(doc)) throw new PayloadError('expected an ImageStream object', { file: source });
  if (doc.kind !== 'ImageStream') throw new PayloadError(`kind ${JSON.stringify(doc.kind ?? '')} is not ImageStream`, { file: source });
  if (doc.apiVersion !== IMAGE_STREAM_API_VERSION) {
    throw new PayloadError(`API version ${JSON.stringify(doc.apiVersion ?? '')} is not ${IMAGE_STREAM_API_VERSION}`, { file: source });
  }
  const spec = doc.spec;
  if (spec !== undefined && spec !== null && !isRecord(spec)) throw new PayloadError('spec must be a map', { file: source });
  const rawTags = isRecord(spec) ? spec.tags : undefined;
  if (rawTags !== undefined && rawTags !== null && !Array.isArray(rawTags))
    throw new PayloadError('spec.tags must be a list', { file: source });
  const tags = ((rawTags as unknown[] | null | undefined) ?? []).map((t, i): ImageStreamTag => {
    if (!isRecord(t) || typeof t.name !== 'string' || t.name === '')
      throw new PayloadError(`spec.tags[${i}] has no name`, { file: source });
    const tag: ImageStreamTag = { name: t.name };
    if (t.from !== undefined && t.from !== null) {
      if (!isRecord(t.from)) throw new PayloadError(`spec.tags[${i}] (${t.name}): from must be a map`, { file: source });
      const kind = t.from.kind ?? '';
      const name = t.from.name ?? '';
      if (typeof kind !== 'string' || typeof name !== 'string') {
        throw new PayloadError(`spec.tags[${i}] (${t.name}): from.kind and from.name must be strings`, { file: source });
      }
      tag.from = { kind, name };
    }
    return tag;
  });
  const meta = doc.metadata;
  const stream: ImageStream = { tags };
  if (isRecord(meta) && typeof meta.name === 'string') stream.name = meta.name;
  return stream;
}

/** Parse an image-references file (YAML or JSON). */
export function parseImageStream(text: string, file: string): ImageStream {
  return imageStreamFromObject(parseManifestText(text, file).value, file);
}

/** The value a DockerImage tag points at, or undefined. */
export function dockerImage(tag: ImageStreamTag): string | undefined {
  return tag.from && tag.from.kind === 'DockerImage' ? tag.from.name : undefined;
}

/** A new image-references file holding one tag, in the MCO's YAML layout. */
export function newImageReferences(tag: string, pullspec: string): string {
  return [
    'kind: ImageStream',
    `apiVersion: ${IMAGE_STREAM_API_VERSION}`,
    'spec:',
    '  tags:',
    `  - name: ${yamlScalar(tag, 'PLAIN')}`,
    '    from:',
    '      kind: DockerImage',
    `      name: ${yamlScalar(pullspec, 'PLAIN')}`,
    '',
  ].join('\n');
}

export interface TagEdit {
  text: string;
  changed: boolean;
  /** The tag's previous value; undefined when the tag (or the file) is new. */
  previous: string | undefined;
  action: 'created' | 'appended' | 'updated' | 'unchanged';
}

/**
 * Point one DockerImage tag at `pullspec`: replace its `from.name` in place, or append the tag when
 * the stream lacks it. Refuses what oc would refuse: another tag already using the same source
 * repository (`from.name`), the tag listed twice, or the tag pointing at something not a DockerImage.
 */
export function setImageReferenceTag(existing: string | undefined, file: string, tag: string, pullspec: string): TagEdit {
  if (existing === undefined) return { text: newImageReferences(tag, pullspec), changed: true, previous: undefined, action: 'created' };
  const m: ManifestText = parseManifestText(existing, file);
  const stream = imageStreamFromObject(m.value, file);
  const indices = stream.tags.flatMap((t, i) => (t.name === tag ? [i] : []));
  if (indices.length > 1)
    throw new PayloadError(`tag ${JSON.stringify(tag)} is listed ${indices.length} times; leave one and run again`, { file });
  for (const t of stream.tags) {
    if (t.name !== tag && t.from?.name === pullspec) {
      throw new PayloadError(
        `the source repository ${JSON.stringify(pullspec)} was defined more than once (for ${JSON.stringify(t.name)} and ${JSON.stringify(tag)})`,
        { file },
      );
    }
  }
  const idx = indices[0];
  if (idx !== undefined) {
    const cur = stream.tags[idx]!;
    if (cur.from && cur.from.kind !== 'DockerImage' && cur.from.kind !== '') {
      throw new PayloadError(`tag ${JSON.stringify(tag)} points at kind ${cur.from.kind}, not DockerImage`, { file });
    }
    let text = m.text;
    if (cur.from?.kind !== 'DockerImage') text = setStringAt(m, ['spec', 'tags', idx, 'from', 'kind'], 'DockerImage');
    const m2 = text === m.text ? m : parseManifestText(text, file);
    text = setStringAt(m2, ['spec', 'tags', idx, 'from', 'name'], pullspec);
    const changed = text !== existing;
    return { text, changed, previous: cur.from?.name, action: changed ? 'updated' : 'unchanged' };
  }
  const item = { name: tag, from: { kind: 'DockerImage', name: pullspec } };
  const text = appendToSeq(m, ['spec', 'tags'], item, ({ dash, pad, step }) =>
    [
      `${dash}name: ${yamlScalar(tag, 'PLAIN')}`,
      `${pad}from:`,
      `${pad}${step}kind: DockerImage`,
      `${pad}${step}name: ${yamlScalar(pullspec, 'PLAIN')}`,
      '',
    ].join('\n'),
  );
  return { text, changed: true, previous: undefined, action: 'appended' };
}
