/**
 * Editing `image-references` files for `payload write`, keeping every byte that is not being changed. The
 * ImageStream model and its strict reading are in src/oci/image-stream.ts; this module adds the manifest
 * text (YAML or JSON, with line numbers in errors) and the edits. oc itself writes JSON with a 2-space
 * indent and no final newline; the MCO's files are YAML.
 */
import { IMAGE_STREAM_API_VERSION, imageStreamFromObject, type ImageStream, type TagReference } from '../oci/image-stream.js';
import { PayloadError } from './errors.js';
import { appendToSeq, parseManifestText, setStringAt, yamlScalar, type ManifestText } from './text.js';

/** Parse an image-references file (YAML or JSON) and read it strictly; errors name the file. */
export function parseImageStream(text: string, file: string): ImageStream {
  return imageStreamFromObject(parseManifestText(text, file).value, { strict: true, source: file });
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
  const tags = imageStreamFromObject(m.value, { strict: true, source: file }).spec.tags;
  const indices = tags.flatMap((t, i) => (t.name === tag ? [i] : []));
  if (indices.length > 1)
    throw new PayloadError(`tag ${JSON.stringify(tag)} is listed ${indices.length} times; leave one and run again`, { file });
  for (const t of tags) {
    if (t.name !== tag && t.from?.name === pullspec) {
      throw new PayloadError(
        `the source repository ${JSON.stringify(pullspec)} was defined more than once (for ${JSON.stringify(t.name)} and ${JSON.stringify(tag)})`,
        { file },
      );
    }
  }
  const idx = indices[0];
  if (idx !== undefined) {
    const cur = tags[idx]!;
    if (cur.from?.kind && cur.from.kind !== 'DockerImage') {
      throw new PayloadError(`tag ${JSON.stringify(tag)} points at kind ${cur.from.kind}, not DockerImage`, { file });
    }
    let text = m.text;
    if (cur.from?.kind !== 'DockerImage') text = setStringAt(m, ['spec', 'tags', idx, 'from', 'kind'], 'DockerImage');
    const m2 = text === m.text ? m : parseManifestText(text, file);
    text = setStringAt(m2, ['spec', 'tags', idx, 'from', 'name'], pullspec);
    const changed = text !== existing;
    return { text, changed, previous: cur.from ? (cur.from.name ?? '') : undefined, action: changed ? 'updated' : 'unchanged' };
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

/** The annotation a release input stream's tags carry: `component=version` pairs, e.g. `machine-os=418.94.202605101521-0`. */
export const BUILD_VERSIONS_ANNOTATION = 'io.openshift.build.versions';
const MACHINE_OS = /(^|,)(\s*machine-os=)([^,]*)/;

/** The `machine-os=` build id a tag's build-versions annotation names, or undefined. */
export function machineOsVersionOf(tag: TagReference): string | undefined {
  const v = tag.annotations?.[BUILD_VERSIONS_ANNOTATION];
  return typeof v === 'string' ? MACHINE_OS.exec(v)?.[3] : undefined;
}

/**
 * Set the `machine-os=` id in one tag's build-versions annotation, changing only those bytes (other components
 * of the annotation, and the rest of the file, stay). The tag must carry it (see {@link machineOsVersionOf}).
 */
export function setMachineOsVersion(existing: string, file: string, tag: string, id: string): string {
  const m = parseManifestText(existing, file);
  const tags = imageStreamFromObject(m.value, { strict: true, source: file }).spec.tags;
  const idx = tags.findIndex((t) => t.name === tag);
  const v = tags[idx]?.annotations?.[BUILD_VERSIONS_ANNOTATION];
  if (typeof v !== 'string' || !MACHINE_OS.test(v))
    throw new PayloadError(`tag ${JSON.stringify(tag)} has no machine-os= build version`, { file });
  const next = v.replace(MACHINE_OS, (_all, lead: string, key: string) => `${lead}${key}${id}`);
  return setStringAt(m, ['spec', 'tags', idx, 'annotations', BUILD_VERSIONS_ANNOTATION], next);
}
