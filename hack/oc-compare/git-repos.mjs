/**
 * The git repositories that `release extract --git` clones in the extractflag- pairs: a bare repository
 * `oc.git` with three commits on `main`, made the same way every time (fixed names, dates and messages) so its
 * commit ids are the same on every run and machine. The releases of images.mjs `buildRunSet` point at it with
 * `file://` source locations.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Who commits, and no system or user git config: commit ids stay the same from run to run. */
export const FIXED_GIT_ENV = {
  GIT_AUTHOR_NAME: 'osimage',
  GIT_AUTHOR_EMAIL: 'osimage@example.com',
  GIT_COMMITTER_NAME: 'osimage',
  GIT_COMMITTER_EMAIL: 'osimage@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Make `dir/oc.git`; returns `{ dir, commits }`, the commits oldest first. */
export async function makeGitRepos(dir) {
  await mkdir(dir, { recursive: true });
  const work = await mkdtemp(join(dir, 'work-'));
  const git = (args, extra = {}) =>
    run('git', args, { cwd: work, env: { PATH: process.env.PATH, HOME: work, ...FIXED_GIT_ENV, ...extra } }).then((r) => r.stdout.trim());
  try {
    await git(['init', '-q', '-b', 'main']);
    const commits = [];
    for (const [i, day] of ['2023-05-01', '2023-05-02', '2023-05-03'].entries()) {
      await writeFile(join(work, 'VERSION'), `${i}\n`);
      await git(['add', 'VERSION']);
      const date = `${day}T00:00:00Z`;
      await git(['commit', '-q', '-m', `commit ${i}`], { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
      commits.push(await git(['rev-parse', 'HEAD']));
    }
    await git(['clone', '-q', '--bare', work, join(dir, 'oc.git')]);
    return { dir, commits };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
