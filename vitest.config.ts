import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once for the subprocess smoke tests of bin/osimage.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One worker per CPU, not vitest's CPUs - 1 (a single worker on a 2-CPU machine): most tests wait on a
    // subprocess, a registry or a file server, so a second worker halves the suite there (103 s -> 57 s measured).
    maxWorkers: '100%',
    env: { NO_COLOR: '1' },
  },
});
