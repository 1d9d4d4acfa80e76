/**
 * The ImageStream (`image.openshift.io/v1`) of `image-references`: an operator's list of the images its
 * manifests name, and a release payload's list of every component image. One model for the whole tool, the
 * Kubernetes object itself (so `release info -o json` shows it as the release holds it), read either
 *
 * - leniently (`release info`, `release new`, `verify`): kind and apiVersion must match and `spec.tags`
 *   must be a list; anything else passes through as written, with oc's words when it does not; or
 * - strictly (`payload write`, `payload check`): every tag needs a name, `from` must be a map whose kind
 *   and name are strings, and each message names the file and the rule.
 *
 * The byte-preserving edit that `payload write` does lives beside the manifest text editor
 * (src/payload/image-stream.ts); it reads files with this model.
 */
import type * as Yaml from 'yaml';
import { type ErrorCode, OsimageError, describe } from '../errors.js';
import { lazyRequire } from '../lazy.js';
import { MAX_JSON_DEPTH, bracketDepth, jsonKind, tooDeep, tooDeepMessage } from '../json.js';

export const IMAGE_REFERENCES = 'image-references';
export const IMAGE_STREAM_API_VERSION = 'image.openshift.io/v1';

export interface TagReference {
  name: string;
  annotations?: Record<string, string> | null;
  from?: { kind?: string; name?: string; namespace?: string } | null;
  [k: string]: unknown;
}

export interface ImageStream {
  kind: 'ImageStream';
  apiVersion: typeof IMAGE_STREAM_API_VERSION;
  metadata: { name?: string; creationTimestamp?: string | null; annotations?: Record<string, string> | null; [k: string]: unknown };
  spec: { lookupPolicy?: { local?: boolean }; tags: TagReference[]; [k: string]: unknown };
  status?: unknown;
  [k: string]: unknown;
}

/** A document that is not a usable ImageStream. Its message names the source, when there is one. */
export class InvalidImageStreamError extends OsimageError {
  /** The file (or image) it came from, when known. */
  readonly file: string | undefined;
  constructor(reason: string, file?: string, code: ErrorCode = 'invalid-input') {
    super(file === undefined ? reason : `${file}: ${reason}`, { code });
    this.name = 'InvalidImageStreamError';
    this.file = file;
  }
}

export interface ReadOptions {
  /** Check every tag (see the module comment); messages are prefixed with `source`. */
  strict?: boolean;
  /** Where the document came from: prefixes the messages of the strict rules and of the tag checks both readings make. */
  source?: string;
}

/** What lenient reading says about a document that is not an ImageStream (oc's words). */
const UNRECOGNIZED = 'unrecognized image-references in release payload';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The tags every reader relies on (lenient reading too): each is a map; name, annotation values and
 * from.kind/from.name are strings when present; annotations and from are maps when present. Strict reading
 * also wants a name on every tag.
 */
function checkTags(tags: unknown[], strict: boolean, fail: (reason: string) => never): void {
  tags.forEach((t, i) => {
    const at = `spec.tags[${i}]`;
    if (!isRecord(t)) fail(strict ? `${at} has no name` : `${at} is ${jsonKind(t)}, not a map`);
    const tag = t as Record<string, unknown>;
    if (strict ? typeof tag.name !== 'string' || tag.name === '' : tag.name !== undefined && typeof tag.name !== 'string')
      fail(strict ? `${at} has no name` : `${at}.name is ${jsonKind(tag.name)}, not a string`);
    const named = typeof tag.name === 'string' && tag.name !== '' ? `${at} (${tag.name})` : at;
    if (tag.annotations !== undefined && tag.annotations !== null) {
      if (!isRecord(tag.annotations)) fail(`${named}: annotations must be a map`);
      // YAML turns an unquoted commit id or `true` into something else.
      for (const [k, v] of Object.entries(tag.annotations as Record<string, unknown>))
        if (typeof v !== 'string') fail(`${named}: annotation ${k} is not a string (${JSON.stringify(v)}); quote it`);
    }
    if (tag.from === undefined || tag.from === null) return;
    if (!isRecord(tag.from)) fail(`${named}: from must be a map`);
    const from = tag.from as Record<string, unknown>;
    if ((from.kind !== undefined && typeof from.kind !== 'string') || (from.name !== undefined && typeof from.name !== 'string')) {
      fail(`${named}: from.kind and from.name must be strings`);
    }
  });
}

function checkStrict(doc: unknown, fail: (reason: string) => never): void {
  if (!isRecord(doc)) fail('expected an ImageStream object');
  const d = doc as Record<string, unknown>;
  if (d.kind !== 'ImageStream') fail(`kind ${JSON.stringify(d.kind ?? '')} is not ImageStream`);
  if (d.apiVersion !== IMAGE_STREAM_API_VERSION)
    fail(`API version ${JSON.stringify(d.apiVersion ?? '')} is not ${IMAGE_STREAM_API_VERSION}`);
  if (d.spec !== undefined && d.spec !== null && !isRecord(d.spec)) fail('spec must be a map');
  const tags = isRecord(d.spec) ? d.spec.tags : undefined;
  if (tags !== undefined && tags !== null && !Array.isArray(tags)) fail('spec.tags must be a list');
}

/**
 * The most tags an ImageStream may have: a release has a few hundred; every view and `-o json` holds each tag's
 * text, so a small layer of 200,000 tags would take gigabytes.
 */
export const MAX_TAGS = 10_000;

/** Read a parsed document as an ImageStream (metadata and spec.tags always present). */
export function imageStreamFromObject(doc: unknown, opts: ReadOptions = {}): ImageStream {
  const fail = (reason: string): never => {
    throw new InvalidImageStreamError(reason, opts.source);
  };
  // Before anything walks it: JSON.stringify (`-o json`) and the views recurse.
  const deep = tooDeep(doc);
  if (deep !== undefined) fail(`image-references ${tooDeepMessage(deep)}`);
  if (opts.strict) checkStrict(doc, fail);
  const is = doc as Partial<ImageStream> | null;
  if (!isRecord(is) || is.kind !== 'ImageStream' || is.apiVersion !== IMAGE_STREAM_API_VERSION)
    throw new InvalidImageStreamError(UNRECOGNIZED, undefined, 'invalid-image-references');
  const tags = is.spec?.tags;
  if (tags != null && !Array.isArray(tags)) throw new InvalidImageStreamError(UNRECOGNIZED, undefined, 'invalid-image-references');
  if (tags != null && tags.length > MAX_TAGS) {
    fail(`image-references has ${tags.length} tags, more than the ${MAX_TAGS} osimage reads (a release has a few hundred)`);
  }
  checkTags(tags ?? [], opts.strict === true, fail);
  return { ...is, metadata: is.metadata ?? {}, spec: { ...(is.spec ?? {}), tags: tags ?? [] } } as ImageStream;
}

const yaml = lazyRequire<typeof Yaml>('yaml');

/**
 * Parse image-references bytes as oc does (JSON, else YAML) and read them leniently. `source` (the image and
 * file, `quay.io/x:4.16 (release-manifests/image-references)`) prefixes what is wrong with a tag.
 */
export function parseImageReferences(bytes: Buffer, source?: string): ImageStream {
  let doc: unknown;
  const text = bytes.toString('utf8');
  try {
    // oc writes JSON: take the fast path, and the YAML parser only for what JSON cannot read.
    doc = JSON.parse(text);
  } catch {
    if (bracketDepth(text) > MAX_JSON_DEPTH) {
      throw new InvalidImageStreamError(`image-references is nested more than ${MAX_JSON_DEPTH} levels deep`, source);
    }
    try {
      doc = yaml().parse(text);
    } catch (err) {
      // The YAML parser's messages carry a multi-line excerpt of the text: its first line says what is wrong.
      throw new InvalidImageStreamError(`unable to read release image-references: ${describe(err).split('\n')[0]}`, source);
    }
  }
  return imageStreamFromObject(doc, source === undefined ? {} : { source });
}

/** The pullspec of a tag, if it points at a DockerImage with a name. */
export function dockerImage(tag: TagReference): string | undefined {
  return tag.from && tag.from.kind === 'DockerImage' && tag.from.name ? tag.from.name : undefined;
}

/** The pullspec `--image-for TAG` prints: a DockerImage tag with a name. */
export function imageFor(is: ImageStream, tag: string): string | undefined {
  for (const t of is.spec.tags) if (t.name === tag && dockerImage(t)) return dockerImage(t);
  return undefined;
}
