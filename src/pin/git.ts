import { dirname, relative } from 'node:path';
import { GitError } from './errors.js';

/** git, run with execa in the folder of the files it is about. */
async function git(cwd: string, args: string[]): Promise<string> {
  const { execa } = await import('execa');
  const r = await execa('git', args, { cwd, reject: false, stdin: 'ignore' });
  if (r.exitCode !== 0) {
    const why =
      String(r.stderr || r.stdout || (r.message ?? ''))
        .trim()
        .split('\n')[0] ?? '';
    throw new GitError(`git ${args[0]} failed in ${cwd}: ${why}`);
  }
  return r.stdout;
}

/** The top folder of the work tree holding `file`. */
export async function repoRoot(file: string): Promise<string> {
  return (await git(dirname(file), ['rev-parse', '--show-toplevel'])).trim();
}

/** `git status --porcelain` lines for the files (staged, unstaged or untracked changes). */
export async function uncommitted(root: string, files: string[]): Promise<string[]> {
  const out = await git(root, ['status', '--porcelain', '--untracked-files=all', '--', ...files.map((f) => relative(root, f))]);
  return out.split('\n').filter((l) => l.trim() !== '');
}

/** Commit exactly these files (other staged changes stay staged) and return the new commit id. */
export async function commitFiles(root: string, files: string[], message: string): Promise<string> {
  const rel = files.map((f) => relative(root, f));
  await git(root, ['add', '--', ...rel]);
  await git(root, ['commit', '--quiet', '-m', message, '--only', '--', ...rel]);
  return (await git(root, ['rev-parse', 'HEAD'])).trim();
}
