/**
 * A stream file pinned in git (`data/data/coreos/coreos-rhel-9.json`), rewritten as `plume cosa2stream
 * --target` does: the arches generated replace theirs, the others are kept, the file's own `stream` name is
 * kept. A result that differs only in `metadata` leaves the file as it is, so a rerun gives no diff.
 */
import { isDeepStrictEqual } from 'node:util';
import { OsimageError, describe } from '../errors.js';
import { jsonKind, pathSegment, tooDeep, tooDeepMessage } from '../json.js';
import { formatStreamValue } from './format.js';
import type { StreamJson } from './types.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A stream file's JSON: an object with `stream` and `architectures`; errors name the file. */
export function parseStreamFile(text: string, file: string): StreamJson {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new OsimageError(`${file}: not a stream file: ${describe(err)}`, { code: 'invalid-input' });
  }
  if (!isObject(doc) || typeof doc.stream !== 'string' || !isObject(doc.architectures)) {
    throw new OsimageError(`${file}: not a stream file: expected an object with "stream" and "architectures"`, { code: 'invalid-input' });
  }
  const deep = tooDeep(doc);
  if (deep !== undefined) throw new OsimageError(`${file}: not a stream file: it ${tooDeepMessage(deep)}`, { code: 'invalid-input' });
  const bad = (path: string, what: string) => new OsimageError(`${file}: architectures${path} is ${what}`, { code: 'invalid-input' });
  for (const [arch, a] of Object.entries(doc.architectures)) {
    if (!isObject(a) || !isObject(a.artifacts))
      throw new OsimageError(`${file}: architectures.${arch} has no "artifacts" object`, { code: 'invalid-input' });
    // Every platform and format is a map (the readers walk them), wherever a hand edit left a null or a list.
    for (const [platform, p] of Object.entries(a.artifacts)) {
      const at = `${pathSegment(arch)}.artifacts${pathSegment(platform)}`;
      if (!isObject(p)) throw bad(at, `${jsonKind(p)}, not a map`);
      if (p.formats === undefined) continue;
      if (!isObject(p.formats)) throw bad(`${at}.formats`, `${jsonKind(p.formats)}, not a map`);
      for (const [format, f] of Object.entries(p.formats)) {
        if (!isObject(f)) throw bad(`${at}.formats${pathSegment(format)}`, `${jsonKind(f)}, not a map`);
      }
    }
  }
  return doc as unknown as StreamJson;
}

export interface TargetUpdate {
  /** The new text, or undefined when the file stays as it is. */
  text: string | undefined;
  /** Arches whose content changed (added, or different apart from metadata). */
  changed: string[];
  /** Arches in the file not generated this time, kept as they were. */
  kept: string[];
  /** The stream name written (the file's own). */
  name: string;
}

/** Merge `generated` into the stream file `existing` (text as read; undefined for a new file). */
export function updateTarget(existing: string | undefined, file: string, generated: StreamJson): TargetUpdate {
  if (existing === undefined) {
    return { text: formatStreamValue(generated), changed: Object.keys(generated.architectures).sort(), kept: [], name: generated.stream };
  }
  const old = parseStreamFile(existing, file);
  const architectures: Record<string, unknown> = { ...old.architectures };
  const changed: string[] = [];
  for (const [arch, a] of Object.entries(generated.architectures)) {
    if (!isDeepStrictEqual(old.architectures[arch], a)) changed.push(arch);
    architectures[arch] = a;
  }
  const kept = Object.keys(old.architectures).filter((a) => !(a in generated.architectures));
  // last-modified never goes back: a run for one arch may read builds older than the file's newest.
  const oldStamp = old.metadata?.['last-modified'];
  const newStamp = generated.metadata['last-modified'];
  const metadata = { ...generated.metadata, 'last-modified': typeof oldStamp === 'string' && oldStamp > newStamp ? oldStamp : newStamp };
  const result = { ...old, stream: old.stream, metadata, architectures };
  // Only metadata could differ: the file stays as it is.
  if (changed.length === 0) return { text: undefined, changed, kept: kept.sort(), name: old.stream };
  return { text: formatStreamValue(result), changed: changed.sort(), kept: kept.sort(), name: old.stream };
}
