/**
 * `release info --changes-from OLD NEW --changelog DIR / --bugs DIR`: what oc's changelog and bug listing are
 * made of. From the images that differ between the releases (release/changes.ts, oc's comparison) come the
 * images added and removed, those rebuilt without a code change, and the code changes: per source repository
 * and commit range, the images built from it. Each code change's merges come from a clone of its repository
 * under DIR (release/git-log.ts): local git data, cloned from the repository's URL only when DIR lacks it.
 * Looking the bugs up in Bugzilla or Jira is not done here (it needs those services; see docs/release.md).
 */
import { describe } from '../errors.js';
import { digestOf } from '../oci/digest.js';
import type { TagReference } from '../oci/image-stream.js';
import { parseReference } from '../registry/reference.js';
import { isBug, type BugRef } from './bug-refs.js';
import type { ImageChange } from './changes.js';
import { ensureClone, mergeLog, parseSourceLocation, type GitOutput, type MergeCommit, type SourceUrl } from './git-log.js';
import { ANNOTATION_COMMIT, ANNOTATION_SOURCE_LOCATION } from './references.js';

/** The commits of one repository between the two releases, and the images built from it. */
export interface CodeChange {
  repo: string;
  from: string;
  to: string;
  /** The repository OLD's image came from, when it moved. */
  alternateRepos: string[];
  /** Tag names, sorted. */
  imagesAffected: string[];
}

export interface ContentChanges {
  codeChanges: CodeChange[];
  /** Images whose digest changed with no commit change (rebuilt), by name. */
  rebuilt: string[];
  /** Images whose change cannot be told (a pullspec that does not parse), by name. */
  unexpected: string[];
}

const annotation = (t: TagReference | null | undefined, key: string) => t?.annotations?.[key] ?? '';

/** The digest part of a pullspec (`''` for a tag); undefined when the pullspec does not parse. */
function idOf(pullspec: string): string | undefined {
  try {
    parseReference(pullspec);
  } catch {
    return undefined;
  }
  return digestOf(pullspec) ?? '';
}

/** oc's split of the changed images into code changes (grouped by repository and range) and rebuilds. */
export function contentChanges(images: readonly ImageChange[]): ContentChanges {
  const rebuilt: string[] = [];
  const unexpected: string[] = [];
  const keys: string[] = [];
  const ranges = new Map<string, Map<string, string[] | null>>();
  for (const d of images) {
    const { from, to } = d;
    if (!from || !to) continue;
    const newRepo = annotation(to, ANNOTATION_SOURCE_LOCATION);
    const oldCommit = annotation(from, ANNOTATION_COMMIT);
    const newCommit = annotation(to, ANNOTATION_COMMIT);
    if (oldCommit === '' || oldCommit === newCommit) {
      const a = idOf(from.from?.name ?? '');
      const b = idOf(to.from?.name ?? '');
      if (a === undefined || b === undefined) unexpected.push(d.name);
      // Only the location moved (same digest): nothing changed.
      else if (!(a !== '' && a === b)) rebuilt.push(d.name);
      continue;
    }
    let byRange = ranges.get(newRepo);
    if (!byRange) ranges.set(newRepo, (byRange = new Map()));
    const range = `${oldCommit}..${newCommit}`;
    byRange.set(range, [...(byRange.get(range) ?? []), d.name]);
    keys.push(d.name);
  }
  const byName = new Map(images.map((d) => [d.name, d]));
  const codeChanges: CodeChange[] = [];
  for (const key of keys.sort()) {
    const { from, to } = byName.get(key)!;
    const oldRepo = annotation(from, ANNOTATION_SOURCE_LOCATION);
    const newRepo = annotation(to, ANNOTATION_SOURCE_LOCATION);
    if (newRepo === '' || oldRepo === '') continue;
    const range = `${annotation(from, ANNOTATION_COMMIT)}..${annotation(to, ANNOTATION_COMMIT)}`;
    const byRange = ranges.get(newRepo)!;
    const affected = byRange.get(range);
    // Each range of a repository is shown once, under all the images built from it.
    if (!affected || affected.length === 0) continue;
    byRange.set(range, null);
    codeChanges.push({
      repo: newRepo,
      from: annotation(from, ANNOTATION_COMMIT),
      to: annotation(to, ANNOTATION_COMMIT),
      alternateRepos: oldRepo !== newRepo ? [oldRepo] : [],
      imagesAffected: [...affected].sort(),
    });
  }
  return { codeChanges, rebuilt: rebuilt.sort(), unexpected: unexpected.sort() };
}

/** A code change with its commits, or why they could not be had (oc's sentences). */
export type CodeChangeLog = CodeChange & ({ url: SourceUrl; commits: MergeCommit[] } | { error: string });

/**
 * Each code change's commits, one repository after the other (clones are made under `dir` as needed; git's
 * clone output goes to `onOutput`). A repository that fails is reported in its entry and the others go on.
 */
export async function codeChangeLogs(dir: string, changes: readonly CodeChange[], onOutput: GitOutput): Promise<CodeChangeLog[]> {
  const out: CodeChangeLog[] = [];
  for (const change of changes) {
    let url: SourceUrl;
    try {
      url = parseSourceLocation(change.repo);
    } catch (err) {
      out.push({ ...change, error: `The source repository cannot be parsed ${change.repo}: ${describe(err)}` });
      continue;
    }
    let path: string;
    try {
      path = await ensureClone(dir, change.repo, change.alternateRepos, onOutput);
    } catch (err) {
      out.push({ ...change, error: describe(err) });
      continue;
    }
    try {
      out.push({ ...change, url, commits: await mergeLog(path, change.from, change.to) });
    } catch (err) {
      out.push({ ...change, error: `Could not load commits for ${change.repo}: ${describe(err)}` });
    }
  }
  return out;
}

/**
 * The bugs `--bugs` lists: each Bugzilla bug and OCPBUGS issue named by the commits, once, sorted by id
 * (other Jira issues are features or tasks, not bugs).
 */
export function bugsOf(logs: readonly CodeChangeLog[]): BugRef[] {
  const seen = new Map<string, BugRef>();
  for (const log of logs) {
    if (!('commits' in log)) continue;
    for (const c of log.commits) for (const r of c.refs) if (isBug(r) && !seen.has(r.id)) seen.set(r.id, r);
  }
  return [...seen.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
