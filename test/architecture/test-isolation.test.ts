/**
 * Most test files share their worker's module graph (test/vitest-projects.ts). A file that mocks a module must be
 * in ISOLATED, or the mock (or the unmocked module it meets) would leak into files it never names. A file that
 * changes the process (its working folder, umask, environment, exit code, listeners, a spy) may share only when it
 * puts the process back itself, in a `finally` or an `afterAll`, whatever its tests do: RESTORES lists those, each
 * with how. This finds both kinds by what they call, so a new one is put in one list or the other.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.js';
import { HEAVY, ISOLATED } from '../vitest-projects.js';

/** What replaces a module for the rest of the module graph. */
const MODULE_MOCKS = [/\bvi\.(mock|doMock|stubGlobal)\(/];

/** What changes the process beyond the test that does it. */
const PROCESS_WIDE = [
  /\bvi\.(spyOn|stubEnv|useFakeTimers)\(/,
  /\bprocess\.(chdir|umask|on|once|prependListener|setMaxListeners|setUncaughtExceptionCaptureCallback)\(/,
  /\bprocess\.exitCode\s*=[^=]/,
  /\bprocess\.env(\.\w+|\[[^\]]+\])\s*=[^=]/,
  /\bdelete\s+process\.env\b/,
  /Object\.assign\(\s*process\.env\b/,
  /\bsyncBuiltinESMExports\(/,
];

/** Shared files that change the process and put it back themselves, and how (reviewed by reading them). */
const RESTORES: Record<string, string> = {
  'test/cache/put-cost.test.ts': 'vi.spyOn on a store of its own; vitest restores every spy after each file',
  'test/cli/run-context.test.ts': 'process.exitCode, put back in a finally',
  'test/docs/drift.test.ts': 'process.chdir, back in a finally and in afterAll',
  'test/docs/help-examples.test.ts': 'process.chdir, back in a finally',
  'test/release/extract-memory.test.ts': 'none in this process: process.on is in the script its subprocess runs',
  'test/release/extract-modes.test.ts': 'process.umask, put back in afterAll',
  'test/release/os-stream-versions.test.ts': "a 'warning' listener, removed in a finally",
  'test/verify/core.test.ts': 'process.env.RHCOS_BUILD_NAME, put back in a finally',
};

/** Helpers that patch the process they are loaded into, which is never the test's. */
const PRELOADS: Record<string, string> = {
  'test/helpers/unlink-barrier.cjs': 'preloaded into osimage subprocesses (NODE_OPTIONS=--require)',
};

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'fixtures') files(p, out);
    } else if (/\.(ts|mts|mjs|cjs)$/.test(e.name)) out.push(relative(REPO, p));
  }
  return out;
}

/** The source without its comments (a doc comment may show a vi.mock line). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');

const all = files(join(REPO, 'test'));
const matching = (patterns: RegExp[]) => all.filter((f) => patterns.some((re) => re.test(code(readFileSync(join(REPO, f), 'utf8')))));
const THIS = 'test/architecture/test-isolation.test.ts';

describe('test files that mock modules run isolated; those that change the process put it back (test/vitest-projects.ts)', () => {
  it('every test file that mocks a module is in ISOLATED', () => {
    expect(matching(MODULE_MOCKS).filter((f) => f.endsWith('.test.ts') && !ISOLATED.includes(f))).toEqual([]);
  });

  it('every other test file that changes the process is in RESTORES, read and found to put it back', () => {
    const unreviewed = matching(PROCESS_WIDE).filter(
      (f) => f.endsWith('.test.ts') && f !== THIS && !ISOLATED.includes(f) && !(f in RESTORES),
    );
    expect(unreviewed, 'put them back in a finally or afterAll and add them to RESTORES, or add them to ISOLATED').toEqual([]);
  });

  it('no helper does either for the files that import it', () => {
    expect(matching([...MODULE_MOCKS, ...PROCESS_WIDE]).filter((f) => !f.endsWith('.test.ts') && !(f in PRELOADS))).toEqual([]);
  });

  it('every ISOLATED and RESTORES entry is a test file, in one list only', () => {
    const listed = [...ISOLATED, ...Object.keys(RESTORES)];
    expect(listed.filter((f) => !all.includes(f) || !f.endsWith('.test.ts'))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('every file the order starts first (HEAVY) is a test file', () => {
    expect(HEAVY.filter((f) => !all.includes(f) || !f.endsWith('.test.ts'))).toEqual([]);
  });
});
