import { OsimageError } from '../errors.js';

/**
 * Typed failures of pinning. All exit 1 and carry a one-line message naming the file (and line)
 * or the URL that failed; commands print them as they are.
 */

/** The script cannot be read or edited safely (a form osimage does not edit, conflicting assignments). */
export class PinScriptError extends OsimageError {
  readonly file: string;
  readonly line: number | undefined;
  constructor(file: string, line: number | undefined, message: string) {
    super(`${line === undefined ? file : `${file}:${line}`}: ${message}`);
    this.name = 'PinScriptError';
    this.file = file;
    this.line = line;
  }
}

/** A value (build, channel, base URL) that cannot be written safely in the assignment's form. */
export class UnsafeValueError extends PinScriptError {
  constructor(file: string, line: number | undefined, message: string) {
    super(file, line, message);
    this.name = 'UnsafeValueError';
  }
}

/** `pin --check` found the pins unsound. `reason` says which check failed. */
export type CheckReason =
  | 'no-file'
  | 'no-pin'
  | 'misspelt'
  | 'unreadable'
  | 'build-gone'
  | 'meta-missing'
  | 'meta-changed'
  | 'meta-invalid';

export class PinCheckError extends OsimageError {
  readonly reason: CheckReason;
  /** The pins the check had defaulted before it failed (RHCOS_DEFAULT_CHANNEL, RHCOS_BASE_URL), as a pass reports them. */
  readonly defaulted: readonly string[];
  constructor(reason: CheckReason, message: string, cause?: unknown, defaulted: readonly string[] = []) {
    super(message, cause === undefined ? {} : { cause });
    this.name = 'PinCheckError';
    this.reason = reason;
    this.defaulted = defaulted;
  }
}

/** Another promotion holds the lock (or a dead one left it behind). */
export class LockError extends OsimageError {
  readonly lockFile: string;
  readonly pid: number | undefined;
  readonly stale: boolean;
  constructor(lockFile: string, pid: number | undefined, stale: boolean, message: string) {
    super(message);
    this.name = 'LockError';
    this.lockFile = lockFile;
    this.pid = pid;
    this.stale = stale;
  }
}

/** The promotion test command failed: nothing was pinned. */
export class TestFailedError extends OsimageError {
  readonly commandExitCode: number | undefined;
  readonly signal: string | undefined;
  constructor(message: string, exitCode: number | undefined, signal: string | undefined) {
    super(message);
    this.name = 'TestFailedError';
    this.commandExitCode = exitCode;
    this.signal = signal;
  }
}

/** git refused, or the files to commit have uncommitted changes. */
export class GitError extends OsimageError {
  constructor(message: string) {
    super(message);
    this.name = 'GitError';
  }
}
