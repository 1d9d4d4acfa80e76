/**
 * `release info --changes-from OLD NEW` (and `release info OLD NEW`) as oc 4.13 prints it: the texts of its
 * comparison (relative ages, source links) and its `-o json` object `{from, to, changedImages,
 * changedManifests}`. The view that lays the text out is output/changes-view.ts; the model is
 * release/changes.ts (oc/ sits below release/, so it names what it reads rather than importing it).
 */
import { shortHumanDuration } from '../golang/human.js';
import { goJson, goKeyCompare } from '../golang/json.js';
import type { TagReference } from '../oci/image-stream.js';
import { ocTagReference } from './image-stream.js';
import { type ReleaseInfoFields, toJson } from './release-info.js';

/** Go's time.Duration is int64 nanoseconds: a difference past it (Go's zero time, year 1) saturates here. */
const MAX_DURATION_MS = 9_223_372_036_854.775;

/**
 * The age oc shows for an image config's `created` at `now` (ShortHumanDuration: `45s`, `5h`, `3d`, `2y`). A
 * config without one (or with a time Go would not parse, which oc never gets this far with) is Go's zero time:
 * the difference saturates, `292y`.
 */
export function createdAge(created: string | undefined, now: Date): string {
  const t = created ? Date.parse(created.replace(/(\.\d{3})\d+/, '$1')) : Number.NaN;
  const ms = Number.isNaN(t) ? MAX_DURATION_MS : now.getTime() - t;
  return shortHumanDuration(Math.max(-MAX_DURATION_MS, Math.min(MAX_DURATION_MS, ms)));
}

const GITHUB = 'https://github.com/';
const CONTROL = /[\u0000-\u001f\u007f]/;
const UNRESERVED_IN_PATH = /[A-Za-z0-9\-_.~$&+,/:;=@]/;
const UNRESERVED_IN_FRAGMENT = /[A-Za-z0-9\-_.~$&+,/:;=?@!()*]/;
/** A fragment Go writes back as it was given (its validEncoded check). */
const FRAGMENT_AS_GIVEN = /^[A-Za-z0-9\-_.~$&+,/:;=?@!()*'[\]%]*$/;

/** Go's url unescape of a path: `%XX` decoded byte-wise; a bad escape is an error (undefined). */
function unescapePath(s: string): string | undefined {
  if (/%(?![0-9A-Fa-f]{2})/.test(s)) return undefined;
  const bytes = Buffer.from(s, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x25) {
      out.push(Number.parseInt(bytes.subarray(i + 1, i + 3).toString('latin1'), 16));
      i += 2;
    } else {
      out.push(bytes[i]!);
    }
  }
  return Buffer.from(out).toString('latin1');
}

/** Go's url escape of a decoded path or fragment (one byte a character): what `keep` allows stays, the rest is `%XX`. */
function escapeBytes(latin1: string, keep: RegExp): string {
  let out = '';
  for (const ch of latin1) out += keep.test(ch) ? ch : `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** Go's path.Join: the non-empty elements joined by `/` and cleaned (`.`/`..` resolved, no trailing slash). */
function joinPath(...elems: string[]): string {
  const parts: string[] = [];
  const rooted = elems.filter((e) => e !== '')[0]?.startsWith('/') ?? false;
  for (const seg of elems.join('/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!rooted) parts.push('..');
      continue;
    }
    parts.push(seg);
  }
  const p = parts.join('/');
  return rooted ? `/${p}` : p || '.';
}

/**
 * A GitHub repository URL with path elements added as oc adds them (Go's url.Parse, path.Join on the
 * decoded path, String): the query and fragment are kept. Undefined when the repository is not on GitHub or
 * its URL would not parse, and oc falls back to plain words.
 */
function githubUrl(repo: string, ...elems: string[]): string | undefined {
  if (!repo.startsWith(GITHUB) || CONTROL.test(repo)) return undefined;
  let rest = repo.slice(GITHUB.length - 1);
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    const raw = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
    const decoded = unescapePath(raw);
    if (decoded === undefined) return undefined;
    fragment = decoded === '' ? '' : FRAGMENT_AS_GIVEN.test(raw) ? raw : escapeBytes(decoded, UNRESERVED_IN_FRAGMENT);
  }
  let query: string | undefined;
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  const path = unescapePath(rest);
  if (path === undefined) return undefined;
  const joined = joinPath(path, ...elems.map((e) => Buffer.from(e, 'utf8').toString('latin1')));
  return `https://github.com${escapeBytes(joined, UNRESERVED_IN_PATH)}${query !== undefined ? `?${query}` : ''}${fragment ? `#${fragment}` : ''}`;
}

/** A link to one commit: `<repo>/commit/<id>` on GitHub, else `<repo> <id>`. */
export function commitUrl(repo: string, commit: string): string {
  return githubUrl(repo, 'commit', commit) ?? `${repo} ${commit}`;
}

/** A link to the commits between two: `<repo>/compare/<a>...<b>` on GitHub, else `<repo> <a> <b>`. */
export function compareUrl(repo: string, from: string, to: string): string {
  return githubUrl(repo, 'compare', `${from}...${to}`) ?? `${repo} ${from} ${to}`;
}

/** Where an image's source is: its repository (`io.openshift.build.source-location`) and commit. */
export interface SourceRef {
  repo: string;
  commit: string;
}

/** `--commits`, an image in both releases: a compare link, a commit link, or both sides when the repository moved. */
export function sourceChange(from: SourceRef, to: SourceRef): string {
  if (to.repo === '' || to.commit === '') return '<unknown>';
  if (from.repo === to.repo) return from.commit === to.commit ? commitUrl(to.repo, to.commit) : compareUrl(to.repo, from.commit, to.commit);
  if (from.commit === '') return `${from.repo} <unknown> -> ${commitUrl(to.repo, to.commit)}`;
  if (from.commit === to.commit) return `${from.repo} -> ${commitUrl(to.repo, to.commit)}`;
  return `${commitUrl(from.repo, from.commit)} -> ${commitUrl(to.repo, to.commit)}`;
}

/** `--commits`, an image only in the new release: its commit link. */
export function sourceOf(s: SourceRef): string {
  return s.repo === '' || s.commit === '' ? '<unknown>' : commitUrl(s.repo, s.commit);
}

/**
 * The `To see the differences…` hint oc prints for `--contents` with two releases instead of comparing them:
 * `program` is how the user runs the tool (oc prints its own argv[0] followed by `adm release`).
 */
export function contentsHint(program: string, from: string, to: string): string {
  return (
    'To see the differences between these releases, run:\n\n' +
    `  ${program} extract ${from} --to=/tmp/old\n` +
    `  ${program} extract ${to} --to=/tmp/new\n` +
    '  diff /tmp/old /tmp/new\n\n'
  );
}

/** One image tag that differs: as each release has it (null when a release lacks the tag). */
export interface ImageChangeFields {
  name: string;
  from: TagReference | null;
  to: TagReference | null;
}

/** One manifest file that differs: its bytes on each side, as the model hands them over (oc's quirk included). */
export interface ManifestChangeFields {
  filename: string;
  from: Uint8Array | null;
  to: Uint8Array | null;
}

/** A release as the comparison shows it: with `images` (oc's JSON of its component images) when they were read. */
export type ComparedRelease = ReleaseInfoFields & { images?: Record<string, unknown> };

export interface ChangesFields {
  from: ComparedRelease;
  to: ComparedRelease;
  images: readonly ImageChangeFields[];
  manifests: readonly ManifestChangeFields[];
}

/**
 * A release as oc's comparison prints it: oc's ReleaseInfo fields only (osimage's `release info -o json` adds
 * more), `versions` null as oc never fills it, `images` null unless the component images were read.
 */
function ocRelease(r: ComparedRelease): Record<string, unknown> {
  const j = toJson(r);
  return {
    image: j.image,
    digest: j.digest,
    contentDigest: j.contentDigest,
    listDigest: j.listDigest,
    config: j.config,
    metadata: j.metadata,
    references: j.references,
    versions: null,
    displayVersions: j.displayVersions,
    images: r.images ?? null,
    warnings: j.warnings,
  };
}

const base64 = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64'));

/** Go's map: keys in Go's order. */
function goMap<T>(entries: Array<[string, T]>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, v] of [...entries].sort(([a], [b]) => goKeyCompare(a, b)))
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/** The `-o json` object of the comparison, as oc's types hold it (manifest bytes in base64, as Go writes []byte). */
export function changesJson(c: ChangesFields): Record<string, unknown> {
  return {
    from: ocRelease(c.from),
    to: ocRelease(c.to),
    changedImages: goMap(
      c.images.map((i) => [i.name, { name: i.name, from: i.from ? ocTagReference(i.from) : null, to: i.to ? ocTagReference(i.to) : null }]),
    ),
    changedManifests: goMap(c.manifests.map((m) => [m.filename, { filename: m.filename, from: base64(m.from), to: base64(m.to) }])),
  };
}

/** `-o json`: the object as oc's json.MarshalIndent writes it, and a newline. */
export function renderChangesJson(c: ChangesFields): string {
  return `${goJson(changesJson(c))}\n`;
}
