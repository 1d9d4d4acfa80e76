#!/usr/bin/env node
/**
 * Writes dist/build-info.json: the git commit built (and whether the checkout had uncommitted changes), which
 * `osimage version` and `--version` print (src/package-info.ts reads it). Outside a git checkout of this repository
 * (an unpacked tarball, a folder inside another repository) it records nothing, and the version says no commit.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../', import.meta.url));
const git = (...args) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

const info = {};
try {
  if (realpathSync(git('rev-parse', '--show-toplevel')) === realpathSync(repo)) {
    info.commit = git('rev-parse', 'HEAD');
    if (git('status', '--porcelain', '--untracked-files=no') !== '') info.modified = true;
  }
} catch {
  // no git, or not a checkout: no commit to tell
}
mkdirSync(`${repo}dist`, { recursive: true });
writeFileSync(`${repo}dist/build-info.json`, `${JSON.stringify(info)}\n`);
