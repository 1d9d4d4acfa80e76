/**
 * How much a run tells on stderr beyond its answer, as oc's `-v N` / `--loglevel N` (klog levels):
 *
 *   >= 4  debug notes (why a cache entry could not be used, why a fast path did not hold, stack traces)
 *   >= 6  one line per HTTP exchange (method, URL without secrets, status, time)
 *   >= 8  also the request and response headers, credentials masked
 *
 * The level is the run's (tests run several in-process at once), set by the CLI from its flags; a run without
 * one reads `OSIMAGE_DEBUG` (on: level 6, as `--debug`). Lines go to the sink the CLI gives, so core modules
 * that log never write to a stream themselves. Imports nothing heavy: start-up loads this and no more.
 */
import { env, io } from './context.js';
import { envFlag } from './env-flag.js';

export const DEBUG_LEVEL = 4;
export const HTTP_LEVEL = 6;
export const HEADERS_LEVEL = 8;
/** What `--debug` and `OSIMAGE_DEBUG` mean. */
export const DEBUG_SWITCH_LEVEL = HTTP_LEVEL;

interface RunLog {
  level: number | undefined;
  write: (line: string) => void;
}

const runs = new WeakMap<object, RunLog>();

/** Start a run's log: lines go to `write`; the level is OSIMAGE_DEBUG's until setVerbosity says otherwise. */
export function beginLog(write: (line: string) => void): void {
  runs.set(io(), { level: undefined, write });
}

/** The level the flags asked for (the last of `-v`, `--loglevel`, `--debug` wins over OSIMAGE_DEBUG). */
export function setVerbosity(level: number): void {
  const run = runs.get(io());
  if (run) run.level = level;
}

/** The current run's level: its flags', else OSIMAGE_DEBUG's (on: 6), else 0. */
export function verbosity(): number {
  return runs.get(io())?.level ?? (envFlag(env().OSIMAGE_DEBUG) ? DEBUG_SWITCH_LEVEL : 0);
}

/** Whether lines of `level` are shown in this run. */
export const logs = (level: number): boolean => verbosity() >= level;

/** Write one line (`debug: …` is added) when the run's level is at least `level`; nothing outside a run. */
export function debugLog(level: number, line: string): void {
  const run = runs.get(io());
  if (run && verbosity() >= level) run.write(`debug: ${line}`);
}
