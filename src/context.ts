import { AsyncLocalStorage } from 'node:async_hooks';
import type { Writable } from 'node:stream';

/**
 * What a run of the CLI talks to: its output streams, its environment and its working folder.
 * `main(argv, io)` runs a command inside one of these, so tests can run the source in-process with
 * their own streams and environment; outside a run (the launcher, scripts in hack/) the process's own
 * are used. Core modules read the environment through `env()`, never `process.env`.
 */
/** A stream a run writes to: a terminal (isTTY, columns), a pipe, or a test's capture. */
export type OutputStream = Writable & { isTTY?: boolean; columns?: number };

export interface Io {
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const storage = new AsyncLocalStorage<Io>();
/**
 * The run on the process's own streams and environment (bin/osimage's), kept here rather than in `storage`:
 * Node 20's AsyncLocalStorage installs promise hooks the first time it runs anything, and they then cost every
 * promise and every async resource of the process (about a tenth of a release query's CPU time). Such a run
 * needs nothing told apart from other runs, so the hooks are left off; runs with their own Io (tests) use storage.
 */
let processRun: Io | undefined;
const current = (): Io | undefined => storage.getStore() ?? processRun;

/** The current run's streams, environment and folder (the process's own outside a run). */
export function io(): Io {
  return current() ?? { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/** The current run's environment. */
export function env(): NodeJS.ProcessEnv {
  return current()?.env ?? process.env;
}

/** Run `fn` with `value` as the current run's Io. */
export function withIo<T>(value: Io, fn: () => T): T {
  const own = value.stdout === process.stdout && value.stderr === process.stderr && value.env === process.env;
  if (!own || current() !== undefined) return storage.run(value, fn);
  processRun = value;
  const end = () => {
    if (processRun === value) processRun = undefined;
  };
  try {
    const result = fn();
    if (result instanceof Promise) return result.finally(end) as T;
    end();
    return result;
  } catch (err) {
    end();
    throw err;
  }
}

const exitCodes = new WeakMap<Io, number>();

/**
 * Ask for a non-zero exit without throwing (a verdict of "drift", a list printed before an error).
 * `main` returns it. Outside a run, and in a run that writes to the process's own streams, it also sets
 * `process.exitCode`: a closed pipe (`osimage builds | head`) ends the process in the launcher before
 * `main` returns, and the launcher exits with `process.exitCode`.
 */
export function setExitCode(code: number): void {
  const store = current();
  if (store) exitCodes.set(store, code);
  if (!store || store.stdout === process.stdout || store.stderr === process.stderr) process.exitCode = code;
}

/** The exit code a run asked for with `setExitCode`, if any. */
export function requestedExitCode(value: Io): number | undefined {
  return exitCodes.get(value);
}
