import { execa } from 'execa';
import { fileURLToPath } from 'node:url';

/**
 * Build dist/ (tsc, then build/bundle.mjs's dist/bundle/ and build/help.mjs's help text) once before the suite, so that the few tests that
 * run bin/osimage as a subprocess run the source being tested, and a fresh clone passes `npm ci && npx vitest run` without `npm run build`.
 * Every other CLI test runs src/ in-process (test/helpers/cli.ts).
 */
export default async function setup(): Promise<void> {
  const repo = fileURLToPath(new URL('..', import.meta.url));
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  // tsconfig.build.json builds incrementally (its build info in dist/, so removing dist/ removes it too). Build mode
  // (-b) first asks whether anything changed since that build info (by content, whoever built it: `npm run build`'s
  // -p writes the same file): when src/ has not changed this takes 0.2 s, where -p reloads every file (3 s here).
  // Both report type errors and fail alike.
  const args = [tsc, '-b', 'tsconfig.build.json'];
  const r = await execa(process.execPath, args, { cwd: repo, reject: false, all: true });
  if (r.exitCode !== 0) throw new Error(`building dist/ for the subprocess tests failed (tsc ${args.slice(1).join(' ')}):\n${r.all}`);
  // The commit `--version` names (build/build-info.mjs), so that a subprocess test never sees a stale one.
  const i = await execa(process.execPath, ['build/build-info.mjs'], { cwd: repo, reject: false, all: true });
  if (i.exitCode !== 0) throw new Error(`writing dist/build-info.json failed (node build/build-info.mjs):\n${i.all}`);
  // Then the launcher's bundle (bin/osimage runs dist/bundle/ when it exists): a stale one would test old code.
  const b = await execa(process.execPath, ['build/bundle.mjs'], { cwd: repo, reject: false, all: true });
  if (b.exitCode !== 0) throw new Error(`building dist/bundle/ for the subprocess tests failed (node build/bundle.mjs):\n${b.all}`);
  // And the help text the launcher prints without loading the CLI, rendered from that bundle.
  const h = await execa(process.execPath, ['build/help.mjs'], { cwd: repo, reject: false, all: true });
  if (h.exitCode !== 0) throw new Error(`writing dist/bundle/help.txt failed (node build/help.mjs):\n${h.all}`);
}
