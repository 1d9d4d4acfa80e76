/**
 * The suite's two vitest projects and its file order, for vitest.config.ts (and a local config without its build).
 *
 * Most files share their worker's module graph (`isolate: false`): src/ is loaded once per worker rather than
 * once per file (about 0.45 s of import per file on 2 cores; on 51 files of the suite, CPU time fell from 30–34 s
 * to 16–19 s). The source is made for that: every run carries its own Io (src/context.ts), and tests already run
 * `main` many times in one process.
 *
 * The files in ISOLATED get a fresh module graph, as vitest gives by default: they mock modules (`vi.mock` of
 * node:fs/promises, of src/ modules) or patch Node's own modules, which a module graph shared with later files
 * would keep. An isolated file costs its worker a second load of src/ (about 1.5 s on 2 busy cores), so files that
 * change the process and put it back themselves (a working folder, a umask, an environment variable, a spy vitest
 * restores after each file) share: test/architecture/test-isolation.test.ts lists them, and keeps both lists
 * complete.
 */
import { relative } from 'node:path';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const ISOLATED = [
  'test/cli/first-run.test.ts',
  'test/files/hostile-files.test.ts',
  'test/payload/generations.test.ts',
  'test/payload/machineconfig.test.ts',
  'test/payload/write.test.ts',
  'test/pin/interrupted.test.ts',
  // Spies on FileHandle.prototype.sync and fs.fsync, with syncBuiltinESMExports: a failure before it puts them back
  // would leave node:fs patched for the files after it.
  'test/release/extract-durable.test.ts',
];

const common = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
  env: { NO_COLOR: '1' },
} as const;

export const projects: TestProjectInlineConfiguration[] = [
  { test: { ...common, name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false } },
  { test: { ...common, name: 'isolated', include: ISOLATED, isolate: true } },
];

/**
 * The files that take longest (4 s and more on 2 busy cores), longest first. Vitest starts the files it has timings
 * for longest first, but without its cache of them (a fresh clone, as CI runs) it starts the largest files first,
 * and the longest file is a small one: in such a run side-by-side.test.ts (28 s) started 116 s into a 165 s run.
 * Started first, the long files run beside the many short ones, and no long file is left for the end.
 */
export const HEAVY = [
  'test/oc/side-by-side.test.ts',
  'test/oc/from-release.test.ts',
  'test/release/signatures/verify-signatures-cli.test.ts',
  'test/pin/promote-signals.test.ts',
  'test/release/signatures/review-attacks.test.ts',
  'test/pin/cli-promote.test.ts',
  'test/release/extract-tools-cli.test.ts',
  'test/release/signatures/cosign-key-cli.test.ts',
  'test/pin/cli-pin.test.ts',
  'test/release/extract-memory.test.ts',
  'test/release/new/from-release/swap.test.ts',
  'test/cache/hostile.test.ts',
  'test/registry/open-registry.test.ts',
  'test/release/new/transform.test.ts',
];

/** Vitest's order (projects in turn; within one, longest or largest first), with the HEAVY files first. */
export class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (s: TestSpecification) => {
      const i = HEAVY.indexOf(relative(s.project.config.root, s.moduleId));
      return i < 0 ? HEAVY.length : i;
    };
    const byProject = (a: TestSpecification, b: TestSpecification) =>
      a.project.name === b.project.name ? 0 : a.project.name < b.project.name ? -1 : 1;
    const sorted = await super.sort(files);
    return sorted
      .map((s, i) => ({ s, i }))
      .sort((a, b) => byProject(a.s, b.s) || rank(a.s) - rank(b.s) || a.i - b.i)
      .map(({ s }) => s);
  }
}
