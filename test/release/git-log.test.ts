/**
 * The git side of `release info --changelog/--bugs`: oc's reading of source locations and of `git log`
 * output, where clones are kept (never outside DIR), and the real git work on repositories made here.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clonePath, ensureClone, mergeLog, parseMergeLog, parseSourceLocation, remoteName } from '../../src/release/git-log.js';
import { tempDir, type Temp } from '../helpers/oci-builder.js';

const run = promisify(execFile);

describe('source locations', () => {
  test.each([
    ['https://github.com/openshift/oc', { scheme: 'https', host: 'github.com', path: '/openshift/oc' }],
    ['https://user@github.com:443/openshift/oc.git?x=1#frag', { scheme: 'https', host: 'github.com:443', path: '/openshift/oc.git' }],
    ['git@github.com:openshift/oc', { scheme: 'git', host: 'github.com', path: 'openshift/oc' }],
    ['file:///srv/git/oc.git', { scheme: 'file', host: '', path: '/srv/git/oc.git' }],
    ['/srv/git/oc', { scheme: '', host: '', path: '/srv/git/oc' }],
    ['https://example.com/a%20b', { scheme: 'https', host: 'example.com', path: '/a b' }],
    ['', { scheme: '', host: '', path: '' }],
  ])('%s', (location, url) => {
    expect(parseSourceLocation(location)).toEqual(url);
  });

  test('what Go refuses is an error naming the location', () => {
    expect(() => parseSourceLocation('https://example.com/%zz')).toThrow('parse "https://example.com/%zz": invalid URL escape');
    expect(() => parseSourceLocation('a:b/c')).not.toThrow();
    expect(() => parseSourceLocation('https://x/\u0001')).toThrow('invalid control character');
  });

  test('clones are kept at DIR/host/path without .git, and never outside DIR', () => {
    expect(clonePath('/d', 'https://github.com/openshift/oc.git')).toBe('/d/github.com/openshift/oc');
    expect(clonePath('d', 'git@github.com:openshift/oc')).toBe('d/github.com/openshift/oc');
    expect(clonePath('/d', 'file:///srv/oc.git')).toBe('/d/srv/oc');
    expect(clonePath('/d', 'https://github.com/../../etc')).toBe('/d/github.com/etc');
    expect(() => clonePath('/d', 'git@github.com:../../../etc/x')).toThrow('would be kept outside /d');
    expect(() => clonePath('/d', 'file:///')).toThrow('outside');
  });

  test("a repository's remote is named by the MD5 of its URL, as oc names it", () => {
    // Go: "up-" + base64.RawURLEncoding(md5.Sum(url))[:10].
    expect(remoteName('https://github.com/openshift/oc')).toBe('up-qaHLVMGHLP');
    expect(remoteName('https://github.com/openshift/oc')).not.toBe(remoteName('https://github.com/openshift/origin'));
  });
});

describe('parseMergeLog', () => {
  const rec = (...fields: string[]) => fields.join('\x1e');
  test('merges: the pull request from the subject, the title from the body, references taken off', () => {
    const out = [
      rec('abc1234567 p1 p2', '1', 'Merge pull request #145 from a/b', '[release-4.1] Bug 1743564: test\nmore\n'),
      rec('def', '2', "Merge branch 'x'", 'ignored'),
      rec('0123456789', '3', 'Merge pull request #7 from c/d', ''),
    ].join('\x00');
    expect(parseMergeLog(out, false)).toEqual([
      {
        commitDate: 1,
        commit: 'abc1234567',
        parents: ['p1', 'p2'],
        pullRequest: 145,
        refs: [{ id: '1743564', source: 'bugzilla' }],
        subject: 'test',
      },
      { commitDate: 3, commit: '0123456789', parents: [], pullRequest: 7, refs: [], subject: 'Merge' },
    ]);
  });

  test('squashed commits: the pull request is `(#N)` in the subject, which is also the title', () => {
    const out = rec('abc p', '10', 'OCPBUGS-3: fix it (#55)', 'body');
    expect(parseMergeLog(out, true)).toEqual([
      {
        commitDate: 10,
        commit: 'abc',
        parents: ['p'],
        pullRequest: 55,
        refs: [{ id: 'OCPBUGS-3', source: 'jira' }],
        subject: 'fix it (#55)',
      },
    ]);
    expect(parseMergeLog(rec('abc', '1', 'no pull request', ''), true)).toEqual([]);
  });

  test("output of another shape is oc's error", () => {
    expect(() => parseMergeLog('a\x1eb', false)).toThrow('unexpected git log output width 2 columns');
    expect(() => parseMergeLog(rec('a', 'x', 's', 'b'), false)).toThrow('unexpected timestamp');
    expect(parseMergeLog('', false)).toEqual([]);
  });
});

const FIXED = {
  PATH: process.env.PATH ?? '',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

describe('clones and logs (real git)', () => {
  let tmp: Temp;
  let merges: string;
  let squashes: string;
  const commits: Record<string, string> = {};
  const git = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd, env: { ...FIXED, HOME: cwd } })).stdout.trim();

  beforeAll(async () => {
    tmp = await tempDir('osimage-gitlog-');
    const work = join(tmp.dir, 'work');
    await mkdir(work);
    await git(work, 'init', '-q', '-b', 'main');
    await writeFile(join(work, 'a'), 'a');
    await git(work, 'add', 'a');
    await git(work, 'commit', '-q', '-m', 'Initial');
    commits.first = await git(work, 'rev-parse', 'HEAD');
    await git(work, 'checkout', '-q', '-b', 'topic');
    await writeFile(join(work, 'b'), 'b');
    await git(work, 'add', 'b');
    await git(work, 'commit', '-q', '-m', 'Work');
    await git(work, 'checkout', '-q', 'main');
    await git(work, 'merge', '-q', '--no-ff', '-m', 'Merge pull request #9 from x/topic\n\nOCPBUGS-1: The title', 'topic');
    commits.merged = await git(work, 'rev-parse', 'HEAD');
    merges = join(tmp.dir, 'merges.git');
    await git(tmp.dir, 'clone', '-q', '--bare', work, merges);
    // A repository that squashes: no merge commit after the first.
    await writeFile(join(work, 'c'), 'c');
    await git(work, 'add', 'c');
    await git(work, 'commit', '-q', '-m', 'Bug 3: squashed (#10)');
    commits.squashed = await git(work, 'rev-parse', 'HEAD');
    squashes = join(tmp.dir, 'squashes.git');
    await git(tmp.dir, 'clone', '-q', '--bare', work, squashes);
  });
  afterAll(async () => {
    await tmp.cleanup();
  });

  test('a repository DIR lacks is cloned there (git says so), then found again with a remote for its URL', async () => {
    const dir = join(tmp.dir, 'changelog1');
    const said: string[] = [];
    const path = await ensureClone(dir, `file://${merges}`, [], (t) => said.push(t));
    expect(path).toBe(join(dir, merges.replace(/\.git$/, '')));
    expect(said.join('')).toContain('Cloning into');
    expect(await mergeLog(path, commits.first!, commits.merged!)).toEqual([
      expect.objectContaining({
        commit: commits.merged,
        pullRequest: 9,
        refs: [{ id: 'OCPBUGS-1', source: 'jira' }],
        subject: 'The title',
      }),
    ]);
    said.length = 0;
    await ensureClone(dir, `file://${merges}`, ['https://example.com/old/repo'], (t) => said.push(t));
    expect(said).toEqual([]);
    const config = await readFile(join(path, '.git', 'config'), 'utf8');
    expect(config).toContain(`[remote "${remoteName(`file://${merges}`)}"]`);
    expect(config).toContain(`[remote "${remoteName('https://example.com/old/repo')}"]`);
  });

  test('a range without merges is read as squashed commits; the same commit on both sides has no log', async () => {
    const path = await ensureClone(join(tmp.dir, 'changelog2'), `file://${squashes}`, [], () => undefined);
    expect(await mergeLog(path, commits.merged!, commits.squashed!)).toEqual([
      expect.objectContaining({ pullRequest: 10, refs: [{ id: '3', source: 'bugzilla' }], subject: 'squashed (#10)' }),
    ]);
    expect(await mergeLog(path, commits.first!, commits.first!)).toEqual([]);
  });

  test("a commit the repository does not have: fetched once, then oc's words", async () => {
    const path = await ensureClone(join(tmp.dir, 'changelog3'), `file://${merges}`, [], () => undefined);
    await expect(mergeLog(path, commits.first!, 'f'.repeat(40))).rejects.toThrow(`to commit ${'f'.repeat(40)} does not exist`);
    await expect(mergeLog(path, '--output=/tmp/x', commits.merged!)).rejects.toThrow('is not a commit');
  });

  test("a repository that cannot be cloned is git's message, then oc's exit status", async () => {
    const said: string[] = [];
    await expect(ensureClone(join(tmp.dir, 'changelog4'), `file://${tmp.dir}/nothere.git`, [], (t) => said.push(t))).rejects.toThrow(
      'exit status 128',
    );
    expect(said.join('')).toContain('does not appear to be a git repository');
  });

  test('a folder inside another work tree is not taken for a clone of that tree', async () => {
    const outer = join(tmp.dir, 'outer');
    await mkdir(outer);
    await git(outer, 'init', '-q');
    const path = await ensureClone(join(outer, 'changelog'), `file://${merges}`, [], () => undefined);
    expect(await git(path, 'rev-parse', '--show-toplevel')).toBe(path);
  });
});
