/**
 * The JSON documents an image is made of (index, image manifest, image config), checked once where every
 * transport parses them (registry, `oci:`, `oci-archive:`), so the code that reads them never meets a null
 * descriptor, a digest that is a number or a negative size. A refusal is one line: the document (`what`:
 * the image reference or file), the JSON path (`layers[0].size`) and what is wrong with it.
 */
import { OsimageError } from '../errors.js';
import { digestProblem, isValidSize } from '../oci/digest.js';
import { isJsonObject as isRecord, jsonKind } from '../json.js';
import type { ImageConfig, ImageIndex, ImageManifest } from './types.js';

type Fail = (path: string, problem: string) => never;

const failer =
  (what: string): Fail =>
  (path, problem) => {
    throw new OsimageError(`${what}: ${path} ${problem}`, { code: 'invalid-input' });
  };

function optionalString(v: unknown, path: string, fail: Fail): void {
  if (v !== undefined && v !== null && typeof v !== 'string') fail(path, `is ${jsonKind(v)}, not a string`);
}

function stringList(v: unknown, path: string, fail: Fail): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) fail(path, `is ${jsonKind(v)}, not a list`);
  (v as unknown[]).forEach((s, i) => {
    if (typeof s !== 'string') fail(`${path}[${i}]`, `is ${jsonKind(s)}, not a string`);
  });
}

/** A map of strings (annotations, labels); absent or null is fine. */
export function checkStringMap(v: unknown, path: string, fail: Fail): void {
  if (v === undefined || v === null) return;
  if (!isRecord(v)) fail(path, `is ${jsonKind(v)}, not a map of strings`);
  for (const [k, s] of Object.entries(v as Record<string, unknown>)) {
    if (typeof s !== 'string') fail(`${path}[${JSON.stringify(k)}]`, `is ${jsonKind(s)}, not a string`);
  }
}

/** A content descriptor: a map with a mediaType, a digest we accept and a size that is a whole number of bytes. */
function checkDescriptor(d: unknown, path: string, fail: Fail): void {
  if (!isRecord(d)) fail(path, `is ${jsonKind(d)}, not a descriptor (a map with mediaType, digest and size)`);
  const desc = d as Record<string, unknown>;
  if (typeof desc.mediaType !== 'string')
    fail(`${path}.mediaType`, desc.mediaType === undefined ? 'is missing' : `is ${jsonKind(desc.mediaType)}, not a string`);
  if (typeof desc.digest !== 'string')
    fail(`${path}.digest`, desc.digest === undefined ? 'is missing' : `is ${jsonKind(desc.digest)}, not a digest`);
  const problem = digestProblem(desc.digest as string);
  if (problem) fail(`${path}.digest`, `${JSON.stringify(desc.digest)} is not a valid digest: ${problem}`);
  // The message helper 7's blob-size checks gave first (test/registry/blob-size.test.ts).
  if (!isValidSize(desc.size))
    fail(
      path,
      `(${desc.digest}) has size ${desc.size === undefined ? '(none)' : JSON.stringify(desc.size).slice(0, 40)}, not a whole number of bytes`,
    );
  checkStringMap(desc.annotations, `${path}.annotations`, fail);
  stringList(desc.urls, `${path}.urls`, fail);
  if (desc.platform !== undefined && desc.platform !== null) {
    if (!isRecord(desc.platform)) fail(`${path}.platform`, `is ${jsonKind(desc.platform)}, not a map`);
    for (const k of ['os', 'architecture', 'variant'])
      optionalString((desc.platform as Record<string, unknown>)[k], `${path}.platform.${k}`, fail);
  }
}

/**
 * Check a parsed index or image manifest (an index when it has a `manifests` list) and return it typed.
 * `what` names the document in the message: `manifest quay.io/x/y:tag`, `oci:/path/index.json`.
 */
export function checkManifest(doc: Record<string, unknown>, what: string): ImageManifest | ImageIndex {
  const fail = failer(what);
  checkStringMap(doc.annotations, 'annotations', fail);
  if (Array.isArray(doc.manifests)) {
    for (const [i, d] of doc.manifests.entries()) checkDescriptor(d, `manifests[${i}]`, fail);
    return doc as unknown as ImageIndex;
  }
  checkDescriptor(doc.config, 'config', fail);
  if (!Array.isArray(doc.layers)) fail('layers', `is ${jsonKind(doc.layers)}, not a list`);
  for (const [i, d] of (doc.layers as unknown[]).entries()) checkDescriptor(d, `layers[${i}]`, fail);
  return doc as unknown as ImageManifest;
}

/**
 * Check a parsed image config (the fields osimage reads: created, os/architecture/variant, config.Labels
 * and Env, rootfs.diff_ids, history) and return it typed. Absent or null fields are fine.
 */
export function checkImageConfig(doc: unknown, what: string): ImageConfig {
  const fail = failer(what);
  if (!isRecord(doc)) throw new OsimageError(`${what} is ${jsonKind(doc)}, not a JSON object`, { code: 'invalid-input' });
  for (const k of ['created', 'os', 'architecture', 'variant']) optionalString(doc[k], k, fail);
  if (doc.config !== undefined && doc.config !== null) {
    if (!isRecord(doc.config)) fail('config', `is ${jsonKind(doc.config)}, not a map`);
    const c = doc.config as Record<string, unknown>;
    checkStringMap(c.Labels, 'config.Labels', fail);
    stringList(c.Env, 'config.Env', fail);
  }
  if (doc.rootfs !== undefined && doc.rootfs !== null) {
    if (!isRecord(doc.rootfs)) fail('rootfs', `is ${jsonKind(doc.rootfs)}, not a map`);
    stringList((doc.rootfs as Record<string, unknown>).diff_ids, 'rootfs.diff_ids', fail);
  }
  if (doc.history !== undefined && doc.history !== null && !Array.isArray(doc.history))
    fail('history', `is ${jsonKind(doc.history)}, not a list`);
  return doc as ImageConfig;
}
