import { defineConfig } from 'vitest/config';
import { HeavyFirst, projects } from './test/vitest-projects.js';

export default defineConfig({
  test: {
    // Builds dist/ once for the subprocess smoke tests of bin/osimage (here, not in the projects: each project
    // would run it again).
    globalSetup: ['test/global-setup.ts'],
    // Most files share their worker's module graph, a few are isolated: test/vitest-projects.ts.
    projects,
    // The longest files first, with or without vitest's cache of timings: test/vitest-projects.ts.
    sequence: { sequencer: HeavyFirst },
    pool: 'forks',
    // One worker per CPU, not vitest's CPUs - 1 (a single worker on a 2-CPU machine): most tests wait on a
    // subprocess, a registry or a file server, so a second worker halves the suite there (103 s -> 57 s measured).
    maxWorkers: '100%',
  },
});
