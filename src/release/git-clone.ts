/**
 * `release extract --git DIR`: the source of every component of a release, cloned into DIR/<host>/<path> from
 * the `io.openshift.build.source-location` and `io.openshift.build.commit.id` annotations of image-references,
 * and checked out at that commit (with `-o commit`, only checked to exist). As oc does: one clone per
 * repository (a repository named again at another commit is warned about and taken at its first commit), a tag
 * without source info is warned about, an existing clone gets the repository as a remote and is fetched only
 * when the commit is missing, and nothing is changed but the clone's checkout. Needs `git` on the PATH.
 */
import { mkdir } from 'node:fs/promises';
import { OsimageError, describe } from '../errors.js';
import { forEachLimit } from '../files/parallel.js';
import type { ImageStream } from '../oci/image-stream.js';
import { ensureClone, remoteName } from './git-log.js';

const SOURCE_LOCATION = 'io.openshift.build.source-location';
const COMMIT = 'io.openshift.build.commit.id';
/** Clones at once, as oc's. */
const PARALLEL = 8;

export interface GitMessage {
  stream: 'stdout' | 'stderr';
  /** The exact text, newlines included (some of oc's texts end without one). */
  text: string;
}

/** Run git in `cwd`; it never prompts. */
async function git(cwd: string, args: string[]): Promise<{ ok: boolean; stderr: string; exitCode: number }> {
  const { execa } = await import('execa');
  const r = await execa('git', args, { cwd, reject: false, stdin: 'ignore', env: { GIT_TERMINAL_PROMPT: '0' } });
  if (r.failed && r.exitCode === undefined) throw new OsimageError(`cannot run git: ${describe(r.originalMessage ?? r.message)}`);
  return { ok: r.exitCode === 0, stderr: String(r.stderr ?? ''), exitCode: r.exitCode ?? 1 };
}

/** oc's reading of a failed git: its message without `fatal: `, else the exit status. */
function gitError(r: { stderr: string; exitCode: number }): string {
  const text = r.stderr.trim().replace(/^fatal: /, '');
  return text === '' ? `exit status ${r.exitCode}` : text;
}

/** Ask git about a commit only when it cannot read as an option; one that could is no commit. */
async function gitCommit(path: string, args: string[], commit: string): Promise<boolean> {
  if (commit.startsWith('-')) return false;
  return (await git(path, [...args, commit])).ok;
}

/** Fetch `location` into the clone (as the remote oc names for it); git's complaint when that fails. */
async function fetchRemote(path: string, location: string): Promise<string | undefined> {
  const name = remoteName(location);
  const add = await git(path, ['remote', 'add', '--', name, location]);
  if (!add.ok && !add.stderr.includes('already exists')) return gitError(add);
  const fetch = await git(path, ['fetch', '--', name]);
  return fetch.ok ? undefined : gitError(fetch);
}

export interface GitExtractResult {
  /** What oc prints, in order: warnings first, then each repository's line or error (in tag order). */
  messages: GitMessage[];
  /** Some repository failed: the command exits 1 (its errors are among the messages). */
  failed: boolean;
}

/** Clone (or update) and check out the sources of the release's tags under `dir`. */
export async function extractGit(references: ImageStream, dir: string, opts: { output: '' | 'commit' }): Promise<GitExtractResult> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new OsimageError(`cannot create ${dir}: ${describe(err)}`);
  }
  const messages: GitMessage[] = [];
  const jobs: Array<{ location: string; commit: string; result: GitMessage[] }> = [];
  const first = new Map<string, string>();
  for (const tag of references.spec.tags ?? []) {
    const location = tag.annotations?.[SOURCE_LOCATION] ?? '';
    const commit = tag.annotations?.[COMMIT] ?? '';
    if (location === '' || commit === '') {
      messages.push({ stream: 'stderr', text: `warning: Tag ${tag.name} has no source info\n` });
      continue;
    }
    const earlier = first.get(location);
    if (earlier !== undefined) {
      if (earlier !== commit) {
        messages.push({
          stream: 'stderr',
          text: `warning: Repo ${location} referenced more than once with different commits, only checking out the first reference\n`,
        });
      }
      continue;
    }
    first.set(location, commit);
    jobs.push({ location, commit, result: [] });
  }
  let failed = false;
  await forEachLimit(jobs, PARALLEL, async (job) => {
    const { location, commit, result } = job;
    const fail = (text: string) => {
      failed = true;
      result.push({ stream: 'stderr', text });
    };
    let path: string;
    let output = '';
    try {
      path = await ensureClone(dir, location, [], (text) => {
        output += text;
      });
    } catch (err) {
      fail(`error: cloning ${location}: ${describe(err)}\n${output}\n`);
      return;
    }
    if (opts.output === 'commit') {
      let found = await gitCommit(path, ['rev-parse'], commit);
      if (!found) {
        const err = await fetchRemote(path, location);
        if (err !== undefined) {
          fail(`error: could not find commit ${commit} in ${location}: ${err}\n\n`);
          return;
        }
        found = await gitCommit(path, ['rev-parse'], commit);
      }
      // oc's words, without a line end.
      if (!found) fail(`error: could not find commit ${commit} in ${location}`);
      else result.push({ stream: 'stdout', text: `${path} ${commit}\n` });
      return;
    }
    let checkedOut = await gitCommit(path, ['checkout'], commit);
    if (!checkedOut && (await fetchRemote(path, location)) === undefined) checkedOut = await gitCommit(path, ['checkout'], commit);
    if (!checkedOut) fail(`error: checking out commit for ${location}: could not locate commit ${commit}\n\n`);
    else result.push({ stream: 'stdout', text: `${path}\n` });
  });
  for (const j of jobs) messages.push(...j.result);
  return { messages, failed };
}
