/**
 * The git work behind `release info --changelog DIR / --bugs DIR`, as oc does it: each source repository is
 * cloned once under DIR (at DIR/<host>/<path>, `.git` dropped) or found there already, given a remote for its
 * URL, and asked for the merges between two commits (`git log --merges`; for repositories that squash, the
 * plain commits that name a pull request as `(#123)`). git runs as a subprocess with the user's settings; it
 * never prompts (a repository that needs credentials it does not have fails instead of waiting).
 */
import { createHash } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { OsimageError, describe } from '../errors.js';
import { extractRefs, type BugRef } from './bug-refs.js';

export interface MergeCommit {
  /** Commit time, seconds since the epoch (`%ct`). */
  commitDate: number;
  commit: string;
  parents: string[];
  /** The pull request the merge (or squashed commit) names; commits that name none are left out. */
  pullRequest: number;
  refs: BugRef[];
  /** The first line of the merge's body (the pull request's title), references removed; `Merge` when empty. */
  subject: string;
}

export interface SourceUrl {
  scheme: string;
  host: string;
  /** The path, decoded (`/openshift/oc`; `openshift/oc` for the scp form `git@github.com:openshift/oc`). */
  path: string;
}

/** What git prints while it clones (oc passes it through to stderr). */
export type GitOutput = (text: string) => void;

const SCP_LIKE = /^([a-zA-Z0-9\-_]+)@([^:]+):(.+)$/;

/**
 * A source location as oc reads it: the scp form `user@host:path`, else Go's url.Parse (a scheme, an optional
 * `//authority`, a path; no scheme is a plain path). Bad percent-escapes are an error, as in Go.
 */
export function parseSourceLocation(location: string): SourceUrl {
  const scp = SCP_LIKE.exec(location);
  if (scp) return { scheme: 'git', host: scp[2]!, path: scp[3]! };
  const fail = (why: string) => new OsimageError(`parse ${JSON.stringify(location)}: ${why}`);
  if (/[\x00-\x1f\x7f]/.test(location)) throw fail('net/url: invalid control character in URL');
  let rest = location.replace(/#.*$/, '');
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (/^[^/]*:/.test(rest)) throw fail('first path segment in URL cannot contain colon');
  rest = rest.replace(/\?.*$/, '');
  let host = '';
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/]/);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, 2 + end);
    rest = end < 0 ? '' : rest.slice(2 + end);
    host = authority.slice(authority.lastIndexOf('@') + 1);
  } else if (scheme !== '' && !rest.startsWith('/')) {
    // An opaque URL (`mailto:x`) has no path.
    return { scheme, host: '', path: '' };
  }
  let path: string;
  try {
    path = decodeURIComponent(rest);
  } catch {
    throw fail('invalid URL escape');
  }
  return { scheme, host, path };
}

/** Where a repository is kept under DIR: DIR/<host>/<path without .git>, which must stay inside DIR. */
export function clonePath(dir: string, location: string): string {
  const u = parseSourceLocation(location);
  const clean = posix.normalize(u.path.replace(/\.git$/, '') || '.');
  const base = resolve(dir);
  const full = resolve(base, u.host, clean.replace(/^\/+/, ''));
  const rel = relative(base, full);
  if (rel.startsWith('..') || (u.host === '' && rel === '')) {
    throw new OsimageError(`the source repository ${location} would be kept outside ${dir}; refusing it`);
  }
  // oc joins DIR, host and path as written (relative DIR stays relative in git's messages).
  return join(dir, u.host, clean);
}

/** oc's remote name for a repository URL: `up-` and the first 10 characters of its MD5 in unpadded base64url. */
export function remoteName(repo: string): string {
  return `up-${createHash('md5').update(repo).digest('base64url').slice(0, 10)}`;
}

interface GitRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function git(cwd: string | undefined, args: string[], env: Record<string, string> = {}): Promise<GitRun> {
  const { execa } = await import('execa');
  const r = await execa('git', args, {
    ...(cwd !== undefined ? { cwd } : {}),
    reject: false,
    stdin: 'ignore',
    stripFinalNewline: false,
    env: { GIT_TERMINAL_PROMPT: '0', ...env },
  });
  if (r.failed && r.exitCode === undefined) throw new OsimageError(`cannot run git: ${describe(r.originalMessage ?? r.message)}`);
  return { exitCode: r.exitCode ?? 1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}

/** oc's reading of a failed git: its message without `fatal: `, else `exit status N`. */
function gitError(r: GitRun, out = r.stderr): OsimageError {
  let text = out.trim();
  if (text.startsWith('fatal: ')) text = text.slice('fatal: '.length);
  return new OsimageError(text === '' ? `exit status ${r.exitCode}` : text);
}

/** Add a remote for `repo` unless one of that name is there. */
async function ensureRemote(path: string, repo: string): Promise<void> {
  const r = await git(path, ['remote', 'add', '--', remoteName(repo), repo]);
  if (r.exitCode !== 0 && !r.stderr.includes('already exists')) throw gitError(r);
}

/**
 * The clone of `repo` under `dir` (cloned now when it is not there; git's progress goes to `onOutput`), with
 * remotes for `repo` and each of `alternates` (a repository the image came from before). Returns its path.
 */
export async function ensureClone(dir: string, repo: string, alternates: string[], onOutput: GitOutput): Promise<string> {
  const path = clonePath(dir, repo);
  const st = await stat(path).catch(() => undefined);
  if (st && !st.isDirectory()) throw new OsimageError(`repo path ${path} is not a directory`);
  if (!st) await mkdir(path, { recursive: true });
  // A folder inside some other work tree is not that tree: git must not look above the folder.
  const probe = await git(path, ['rev-parse', '--git-dir'], { GIT_CEILING_DIRECTORIES: dirname(resolve(path)) });
  if (probe.exitCode !== 0) {
    if (!probe.stderr.toLowerCase().includes('not a git repository')) throw gitError(probe);
    const clone = await git(undefined, ['clone', '--', repo, path]);
    if (clone.stdout) onOutput(clone.stdout);
    if (clone.stderr) onOutput(clone.stderr);
    if (clone.exitCode !== 0) throw new OsimageError(`exit status ${clone.exitCode}`);
  } else {
    await ensureRemote(path, repo);
  }
  for (const alt of alternates) if (alt !== repo) await ensureRemote(path, alt);
  return path;
}

const PRETTY = '--pretty=format:%H %P%x1E%ct%x1E%s%x1E%b';
const MERGE_PR = /^Merge pull request #(\d+) from/;
const SQUASH_PR = /[(]#(\d+)[)]/;

/** A commit id or range end must not read as an option. */
function revision(rev: string): string {
  if (rev.startsWith('-')) throw new OsimageError(`${JSON.stringify(rev)} is not a commit`);
  return rev;
}

const trimSpace = (s: string) => s.replace(/^[\t\n\v\f\r \u0085\u00a0]+|[\t\n\v\f\r \u0085\u00a0]+$/g, '');

/** Parse `git log -z` with oc's format into the commits that name a pull request. */
export function parseMergeLog(out: string, squash: boolean): MergeCommit[] {
  if (out === '') return [];
  const commits: MergeCommit[] = [];
  for (const entry of out.split('\x00')) {
    const records = entry.split('\x1e');
    if (records.length !== 4) throw new OsimageError(`unexpected git log output width ${records.length} columns`);
    if (!/^[+-]?\d+$/.test(records[1]!))
      throw new OsimageError(`unexpected timestamp: strconv.ParseInt: parsing ${JSON.stringify(records[1])}: invalid syntax`);
    const [commit = '', ...parents] = records[0]!.split(' ');
    const body = squash ? records[2]! : records[3]!;
    const { refs, message } = extractRefs(body);
    const subject = trimSpace(message).split('\n', 1)[0]!;
    const pr = (squash ? SQUASH_PR : MERGE_PR).exec(records[2]!);
    if (!pr) continue;
    const pullRequest = Number(pr[1]);
    if (!Number.isSafeInteger(pullRequest)) throw new OsimageError(`could not extract PR number from ${JSON.stringify(records[2])}`);
    commits.push({ commitDate: Number(records[1]), commit, parents, pullRequest, refs, subject: subject === '' ? 'Merge' : subject });
  }
  return commits;
}

/**
 * The merges from `from` to `to` (newest first, topological), or for a squashing repository the commits.
 * A range git does not know is fetched once (`git fetch --all`) and asked again.
 */
export async function mergeLog(path: string, from: string, to: string): Promise<MergeCommit[]> {
  if (from === to) return [];
  const range = `${revision(from)}..${revision(to)}`;
  const log = (merges: string) => git(path, ['log', merges, '--topo-order', '-z', PRETTY, '--end-of-options', range]);
  let r = await log('--merges');
  if (r.exitCode !== 0) {
    if (!r.stderr.includes('Invalid revision range')) throw gitError(r);
    const fetched = await git(path, ['fetch', '--all']);
    if (fetched.exitCode !== 0) throw gitError(fetched, r.stderr);
    if ((await git(path, ['cat-file', '-e', '--end-of-options', `${from}^{commit}`])).exitCode !== 0)
      throw new OsimageError(`from commit ${from} does not exist`);
    if ((await git(path, ['cat-file', '-e', '--end-of-options', `${to}^{commit}`])).exitCode !== 0)
      throw new OsimageError(`to commit ${to} does not exist`);
    r = await log('--merges');
    if (r.exitCode !== 0) throw gitError(r);
  }
  if (r.stdout !== '') return parseMergeLog(r.stdout, false);
  // Repositories that squash (no merge commits in the range): their commits name the pull request.
  const squashed = await log('--no-merges');
  if (squashed.exitCode !== 0) throw gitError(squashed);
  return parseMergeLog(squashed.stdout, true);
}
