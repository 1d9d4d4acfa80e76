/**
 * `release new --from-dir`: turn a folder of operator manifests plus input images into the files of a
 * release payload, as `oc adm release new` does. Pure of output: returns the files and what it decided.
 */
import { isUtf8 } from 'node:buffer';
import { lstat, stat } from 'node:fs/promises';
import { readRegularFile } from '../../files/read.js';
import { join } from 'node:path';
import { OsimageError, describe, hasCode } from '../../errors.js';
import { IMAGE_REFERENCES, parseImageReferences, type ImageStream, type TagReference } from '../../oci/image-stream.js';
import { ocImageStream } from '../../oc/image-stream.js';
import { goJson } from '../../golang/json.js';
import { ocReleaseMetadata } from '../../oc/json.js';
import { checkOperators, type OperatorReferences, type Problem } from '../../payload/check.js';
import { isManifestFile, readOperatorDirs } from '../../payload/operator-dirs.js';
import { osImagePairProblems } from '../../payload/pairs.js';
import { RELEASE_METADATA } from '../info.js';
import { checkManifest } from './check.js';
import type { Mapping } from './mappings.js';
import type { ReleaseMetadata } from './metadata.js';
import { payloadName } from './naming.js';
import { operatorVersions, replaceImageReferences, replaceVersions, type OperatorVersions } from './substitute.js';
import { ANNOTATION_VERSIONS } from '../references.js';

/** The tag oc uses as the payload's base image by default; never pruned. */
export const BASE_TAG = 'cluster-version-operator';
export const OVERRIDE_ANNOTATION = 'io.openshift.release.override';
/** oc's prefix for what goes wrong while the payload's files are made (after the inputs were read). */
export const CREATE_PREFIX = 'unable to create a release: ';

export interface AssembleOptions {
  fromDir: string;
  metadata: ReleaseMetadata;
  mappings: Mapping[];
  /** RFC 3339; becomes the ImageStream's creationTimestamp. */
  created: string;
  allowMissingImages?: boolean;
  skipManifestCheck?: boolean;
  /** Extra tags kept even when no operator references them. */
  include?: string[];
  /** Operator folders and mappings left out (oc's --exclude: the input tags themselves stay). */
  exclude?: string[];
  /** The tag the release is built on, never pruned (default cluster-version-operator; '' for none). */
  toImageBaseTag?: string | undefined;
  /** `-o json`: stop once the ImageStream is settled (oc's, before pruning; no manifest is read). */
  jsonOnly?: boolean;
  /** oc's `info:` lines (without the prefix), told as they happen, so they come before a failure as in oc. */
  onInfo?: (line: string) => void;
  /**
   * Each payload file as it is made, in payload order (image-references, release-metadata, then the manifests),
   * awaited before the next is read; the result's `files` then stay empty, so no file is held once handed on.
   */
  onFile?: ((file: PayloadFile) => Promise<void>) | undefined;
}

export interface PayloadFile {
  /** Name inside release-manifests/. */
  name: string;
  data: Buffer;
  /** `<operator>/<file>` it came from, or undefined for the generated metadata files. */
  source?: string;
  /** The time of the entry it came from in an image layer (oc keeps it); none for files read from disk. */
  mtime?: Date | undefined;
}

export interface AssembledPayload {
  /** image-references first, then release-metadata, then manifests in operator and file order. */
  files: PayloadFile[];
  /** `-o json`: the ImageStream as oc prints it (with the final newline); then nothing else is made. */
  json?: string;
  imageStream: ImageStream;
  operators: string[];
  kept: string[];
  pruned: string[];
}

/** Missing input images, all at once, each in oc's words. */
export class MissingImagesError extends OsimageError {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'MissingImagesError';
    this.problems = problems;
  }
}

/**
 * The most an operator's file may hold: the largest manifests a release ships (CRDs) are a few megabytes, and the
 * manifest check parses each whole, at several times its size in memory.
 */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

async function readInputs(fromDir: string): Promise<ImageStream> {
  const file = join(fromDir, IMAGE_REFERENCES);
  // As for the operator folders: the payload is the folder's own bytes, so a link is refused, never followed,
  // and a FIFO or a device is refused before it is read (one bounded read).
  const st = await lstat(file).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)));
  if (st === undefined) return { kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', metadata: {}, spec: { tags: [] } };
  if (st.isSymbolicLink()) throw new OsimageError(`${file}: a symbolic link is not read as the input image-references`);
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(file);
  } catch (err) {
    throw new OsimageError(`cannot read ${file}: ${describe(err)}`);
  }
  let stream: ImageStream;
  try {
    stream = parseImageReferences(bytes);
  } catch (err) {
    // oc's words for this file differ from its words for a release image's copy of it.
    const why = hasCode(err, 'invalid-image-references') ? 'invalid kind/apiVersion' : describe(err);
    throw new OsimageError(`could not parse images: ${file}: ${why}`);
  }
  return stream;
}

/**
 * Input tags with the mappings applied: an override replaces the pullspec (`from` becomes exactly
 * `{kind: DockerImage, name}`), clears the annotations and marks it; the tag's other fields stay, as in oc.
 */
function applyMappings(inputs: TagReference[], mappings: Mapping[]): TagReference[] {
  const byName = new Map(inputs.map((t) => [t.name, t]));
  for (const m of mappings) {
    byName.set(m.source, {
      ...byName.get(m.source),
      name: m.source,
      annotations: { [OVERRIDE_ANNOTATION]: 'true' },
      from: { kind: 'DockerImage', name: m.target },
    });
  }
  return [...byName.values()];
}

/** The folder must be there, in oc's words (Go's errors for reading a folder). */
async function checkFromDir(dir: string): Promise<void> {
  let st;
  try {
    st = await stat(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new OsimageError(`open ${dir}: no such file or directory`, { code: 'file-missing' });
    if (code === 'ENOTDIR') throw new OsimageError(`open ${dir}: not a directory`, { code: 'file-missing' });
    throw new OsimageError(`open ${dir}: ${describe(err)}`);
  }
  if (!st.isDirectory()) throw new OsimageError(`readdirent ${dir}: not a directory`);
}

/**
 * The image-references oc writes: the input ImageStream (its metadata kept) named after the version, created
 * at `created`, with `tags` sorted by name, as oc's Go type encodes it (json.MarshalIndent, 2-space indent,
 * sorted annotations, no final newline).
 */
export function serializeImageReferences(input: ImageStream, name: string, created: string, tags: TagReference[]): Buffer {
  const sorted = [...tags].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const doc: ImageStream = {
    ...input,
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { ...input.metadata, name, creationTimestamp: created },
    spec: { ...input.spec, tags: sorted },
  };
  return Buffer.from(goJson(ocImageStream(doc)));
}

/** release-metadata as oc writes it: json.MarshalIndent of its CincinnatiMetadata, no final newline. */
export function serializeReleaseMetadata(md: ReleaseMetadata): Buffer {
  return Buffer.from(goJson(ocReleaseMetadata(md)));
}

/** A failure while the payload's files are made, in oc's words (`unable to create a release: …`). */
export function creating(err: unknown): unknown {
  if (err instanceof OsimageError && !(err instanceof MissingImagesError) && !err.message.startsWith(CREATE_PREFIX)) {
    return new OsimageError(`${CREATE_PREFIX}${err.message}`, { code: err.code, exitCode: err.exitCode, cause: err });
  }
  return err;
}

export async function assemblePayload(opts: AssembleOptions): Promise<AssembledPayload> {
  await checkFromDir(opts.fromDir);
  const exclude = new Set(opts.exclude ?? []);
  const mappings = opts.mappings.filter((m) => !exclude.has(m.source));
  const inputStream = await readInputs(opts.fromDir);
  const ops = (await readOperatorDirs(opts.fromDir)).filter((op) => !exclude.has(op.operator));
  const operators = ops.map((o) => o.operator);
  opts.onInfo?.(`Found ${ops.length} operator manifest directories on disk`);
  const inputs = applyMappings(inputStream.spec.tags, mappings);
  if (opts.jsonOnly) {
    const doc = serializeImageReferences(inputStream, opts.metadata.version, opts.created, inputs);
    return { files: [], json: `${doc.toString('utf8')}\n`, imageStream: parseImageReferences(doc), operators, kept: [], pruned: [] };
  }

  // oc keeps a tag some operator's image-references names, an --include, the base tag, or one named like an
  // operator folder or a mapping.
  const baseTag = opts.toImageBaseTag ?? BASE_TAG;
  const keep = new Set<string>([
    ...(opts.include ?? []),
    ...(baseTag !== '' ? [baseTag] : []),
    ...operators,
    ...mappings.map((m) => m.source),
  ]);
  for (const op of ops) for (const tag of op.references?.spec.tags ?? []) keep.add(tag.name);
  const kept = inputs.filter((t) => keep.has(t.name));
  const pruned = inputs
    .filter((t) => !keep.has(t.name))
    .map((t) => t.name)
    .sort();
  if (pruned.length > 0) opts.onInfo?.(`Included ${kept.length} images from ${ops.length} input operators into the release`);

  const references = serializeImageReferences(inputStream, opts.metadata.version, opts.created, kept);
  const head: PayloadFile[] = [
    { name: IMAGE_REFERENCES, data: references },
    { name: RELEASE_METADATA, data: serializeReleaseMetadata(opts.metadata) },
  ];
  let manifests: PayloadFile[];
  try {
    const sources = ops.map((op) => ({
      ...op,
      read: (file: string) => readRegularFile(join(opts.fromDir, op.operator, file), MAX_MANIFEST_BYTES),
    }));
    // The checks of every operator's references come first (buildOperatorFiles): what a failure says and when is
    // the same whether the files are kept or handed on.
    const emit = opts.onFile;
    const first = emit
      ? async () => {
          for (const f of head) await emit(f);
        }
      : undefined;
    manifests = await buildOperatorFiles({ ...opts, onFile: emit, beforeFiles: first }, sources, {
      ...inputStream,
      spec: { ...inputStream.spec, tags: inputs },
    });
  } catch (err) {
    throw creating(err);
  }
  return {
    files: opts.onFile ? [] : [...head, ...manifests],
    imageStream: parseImageReferences(references),
    operators,
    kept: kept.map((t) => t.name).sort(),
    pruned,
  };
}

/** How many of an operator's files are being read ahead of the one in hand. */
const READ_AHEAD = 8;

/**
 * The files' contents in order, each read started up to READ_AHEAD files before it is needed: a manifest is a few
 * KiB, so reading one is mostly waiting (open, stat, read, close), which the checks of the files before it fill.
 * A read that fails is reported when its file's turn comes, as if read in turn.
 */
function readAhead(files: string[], read: (file: string) => Promise<Buffer>): () => Promise<Buffer> {
  const queue: Promise<Buffer>[] = [];
  let started = 0;
  return () => {
    while (started < files.length && queue.length < READ_AHEAD) {
      const p = read(files[started++]!);
      p.catch(() => undefined);
      queue.push(p);
    }
    const p = queue.shift();
    return p ?? Promise.reject(new OsimageError('internal: read past the last file'));
  };
}

/** An operator's manifests wherever they come from: a folder on disk, or an operator image's /manifests. */
export interface OperatorSource extends OperatorReferences {
  /** Regular files other than image-references, sorted by name. */
  files: string[];
  read(file: string): Promise<Buffer>;
  /** The time of the file's entry in its layer, when it came from an image. */
  mtime?(file: string): Date | undefined;
  /** The newest entry time of its folder (image-references included), when it came from an image. */
  newest?: Date | undefined;
}

export interface OperatorFileOptions {
  metadata: ReleaseMetadata;
  allowMissingImages?: boolean | undefined;
  skipManifestCheck?: boolean | undefined;
  onInfo?: ((line: string) => void) | undefined;
  /** Each file handed on as it is made instead of returned (see AssembleOptions.onFile). */
  onFile?: ((file: PayloadFile) => Promise<void>) | undefined;
  /** Run once the references are checked, before the first manifest is read. */
  beforeFiles?: (() => Promise<void>) | undefined;
}

/**
 * The operators' files, checked and with images and versions substituted, named as in the payload. `taken`
 * carries the payload names used so far (image-references and release-metadata at least).
 */
export async function buildOperatorFiles(
  opts: OperatorFileOptions,
  ops: OperatorSource[],
  stream: ImageStream,
  taken: Set<string> = new Set([IMAGE_REFERENCES, RELEASE_METADATA]),
): Promise<PayloadFile[]> {
  const inputs = stream.spec.tags;
  const inputByName = new Map(inputs.map((t) => [t.name, t]));
  const check = checkOperators(ops, stream);
  const fatal = check.problems.filter((p) => !(opts.allowMissingImages && p.kind === 'missing-tag'));
  if (fatal.length) throw new MissingImagesError(fatal);
  for (const p of check.problems.filter((p) => p.kind === 'missing-tag')) {
    opts.onInfo?.(
      `Image file ${JSON.stringify(`${p.operator}/${IMAGE_REFERENCES}`)} referenced an image ${JSON.stringify(p.tag)} that is not part of the input images, skipping`,
    );
  }

  await opts.beforeFiles?.();
  const releaseName = opts.metadata.version;
  const defaults = stream.metadata.annotations?.[ANNOTATION_VERSIONS] ?? '';
  const manifests: PayloadFile[] = [];
  for (const op of ops) {
    const replacements = new Map<string, string>();
    const referenced = new Set<string>();
    for (const tag of op.references?.spec.tags ?? []) {
      const source = tag.from?.kind === 'DockerImage' ? tag.from.name : undefined;
      const input = inputByName.get(tag.name);
      const target = input?.from?.kind === 'DockerImage' ? input.from.name : undefined;
      if (!source || !target) continue;
      replacements.set(source, target);
      referenced.add(tag.name);
    }
    // oc transforms only the manifests of an operator that has an image-references file.
    let versions: OperatorVersions | undefined;
    if (op.references) {
      try {
        versions = operatorVersions(inputs, referenced, defaults);
      } catch (err) {
        throw new OsimageError(`operator ${JSON.stringify(op.operator)} contained an invalid image-references file: ${describe(err)}`);
      }
    }
    const nextRead = readAhead(op.files, (file) => op.read(file));
    for (const file of op.files) {
      const label = `${op.operator}/${file}`;
      const raw = await nextRead();
      let data = raw;
      // Checked in place (no decoded copy to compare), and decoded once, only when something reads the text.
      const utf8 = isUtf8(raw);
      const manifest = isManifestFile(file);
      const text = utf8 && (manifest || versions) ? raw.toString('utf8') : '';
      // oc checks the manifest as the operator ships it, before any substitution.
      if (!opts.skipManifestCheck && manifest) {
        if (!utf8) throw new OsimageError(`${label}: invalid YAML/JSON: not UTF-8 text`);
        checkManifest(label, text);
      }
      // A ConfigMap OS key that oc's substitution would leave apart from its tag ships a second OS image.
      if (op.references && utf8 && manifest) {
        const pairs = osImagePairProblems(label, text, `${op.operator}/${IMAGE_REFERENCES}`, op.references, replaceImageReferences);
        if (pairs.length > 0) throw new OsimageError(pairs.map((p) => p.message).join('; '));
      }
      if (versions && utf8) {
        // Most manifests name no image and no version: they keep the bytes read, not a second copy of them.
        const out = replaceVersions(replaceImageReferences(text, replacements), releaseName, versions);
        if (out !== text) data = Buffer.from(out, 'utf8');
      }
      const made = { name: payloadName(op.operator, file, taken), data, source: label, mtime: op.mtime?.(file) };
      if (opts.onFile) await opts.onFile(made);
      else manifests.push(made);
    }
  }
  return manifests;
}
