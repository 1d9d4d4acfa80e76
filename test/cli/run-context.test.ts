/**
 * The run context (src/context.ts): a run on the process's own streams and environment (bin/osimage's) is kept
 * without AsyncLocalStorage, whose promise hooks would otherwise cost every promise of the run; a run with its
 * own streams (tests, in-process callers) is kept apart as before, also inside the process's own run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { build } from 'esbuild';
import { describe, expect, test } from 'vitest';
import { env, io, requestedExitCode, setExitCode, withIo, type Io } from '../../src/context.js';

const own = (): Io => ({ stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });

describe('the run context', () => {
  test("a run on the process's own streams is the current one until it settles", async () => {
    const run = own();
    const before = process.exitCode;
    try {
      await withIo(run, async () => {
        await new Promise((r) => setTimeout(r, 1));
        expect(io()).toBe(run);
        expect(env()).toBe(process.env);
        setExitCode(3);
      });
      expect(requestedExitCode(run)).toBe(3);
    } finally {
      process.exitCode = before;
    }
    expect(io()).not.toBe(run);
  });

  test("no promise hooks track the promises of a run on the process's own streams", async () => {
    // In a process of its own: promise hooks, once installed by any AsyncLocalStorage, stay for the process.
    const dir = await mkdtemp(join(tmpdir(), 'osimage-context-'));
    try {
      const script = join(dir, 'run.mjs');
      await build({
        stdin: {
          contents: `
            import { executionAsyncId } from 'node:async_hooks';
            import { withIo } from './src/context.ts';
            const ids = [];
            await withIo({ stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() }, async () => {
              for (let i = 0; i < 3; i++) {
                await new Promise((r) => setTimeout(r, 1));
                ids.push(executionAsyncId());
              }
            });
            process.stdout.write(JSON.stringify(ids));`,
          resolveDir: join(import.meta.dirname, '../..'),
          loader: 'ts',
        },
        bundle: true,
        format: 'esm',
        platform: 'node',
        outfile: script,
        logLevel: 'silent',
      });
      const ids = JSON.parse(execFileSync(process.execPath, [script], { encoding: 'utf8' })) as number[];
      // With AsyncLocalStorage's hooks installed, each promise reaction runs under an async id of its own.
      expect(new Set(ids).size).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a run with its own streams is kept apart, also inside the process run', async () => {
    const outer = own();
    const inner: Io = { stdout: new PassThrough(), stderr: new PassThrough(), env: { X: '1' }, cwd: '/' };
    await withIo(outer, async () => {
      await Promise.all([
        withIo(inner, async () => {
          await new Promise((r) => setTimeout(r, 1));
          expect(io()).toBe(inner);
          expect(env()).toEqual({ X: '1' });
          setExitCode(5);
        }),
        (async () => {
          await new Promise((r) => setTimeout(r, 2));
          expect(io()).toBe(outer);
        })(),
      ]);
    });
    expect(requestedExitCode(inner)).toBe(5);
    expect(requestedExitCode(outer)).toBeUndefined();
  });
});
