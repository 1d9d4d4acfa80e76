/** Exit codes: 0 success, 1 failure, 2 usage error. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * The one error type for user-facing failures. The message names the thing that failed
 * (URL and status, file path, image reference) and is printed as `error: <message>`.
 */
export class OsimageError extends Error {
  readonly exitCode: number;
  /** What kind of failure this is, for code that must tell failures apart (never match on the message). */
  readonly code: ErrorCode;
  constructor(message: string, options: { exitCode?: number; cause?: unknown; code?: ErrorCode } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OsimageError';
    this.exitCode = options.exitCode ?? EXIT_FAILURE;
    this.code = options.code ?? (this.exitCode === EXIT_USAGE ? 'usage' : 'failure');
  }
}

/**
 * Codes for errors and warnings that callers tell apart, as npm's `er.code` and regclient's named errors.
 * Add a code here when code needs to branch on a failure; the message stays free text for people. The union is
 * closed: a code not listed here does not type-check.
 */
export type ErrorCode =
  // Any failure, and bad flags or values (exit 2).
  | 'failure'
  | 'usage'
  | 'deprecated-flag'
  // Files and input documents.
  | 'not-found'
  | 'file-missing'
  | 'read-only'
  | 'invalid-input'
  // Registries, HTTP and content.
  | 'digest-mismatch'
  | 'size-mismatch'
  | 'unauthorized'
  | 'http'
  | 'network'
  | 'registry-unreachable'
  | 'registry-notice'
  | 'content-length'
  | 'credential-helper'
  | 'auth-entry'
  | 'invalid-reference'
  // Release browser, builds and pins.
  | 'build-not-found'
  | 'meta-buildid'
  | 'meta-field-unrecorded'
  | 'meta-snapshot-stale'
  | 'pin-defaulted'
  | 'misspelt-pin'
  | 'env-over-pin'
  | 'latest-ignores-env'
  | 'no-manifest-list'
  | 'no-os-image'
  // Payload manifests and release images.
  | 'invalid-image-references'
  | 'invalid-version-annotation'
  | 'multiple-versions'
  | 'no-os-image-url'
  | 'osimageurl-unmatched'
  | 'osimageurl-disagreed'
  | 'payload-undeclared'
  | 'credentials-not-written'
  | 'marketplace-arch'
  // Bootimage streams.
  | 'stream-arch-newest'
  | 'stream-unknown-image';

/** A warning a core module reports (through an `onWarning` callback or a returned list); printed as `warning: …`. */
export interface Warning {
  code: ErrorCode;
  message: string;
}

/** Where a core module reports warnings: the command prints them, tests collect them. */
export type OnWarning = (warning: Warning) => void;

/** True for a thrown OsimageError with this code. */
export function hasCode(err: unknown, code: ErrorCode): err is OsimageError {
  return err instanceof OsimageError && err.code === code;
}

/** A usage error: bad flags, bad values, conflicting options. Exit 2. */
export class UsageError extends OsimageError {
  /** For a flag error, the command whose help to point at: the CLI then prints pflag's `See 'CMD --help' for usage.` */
  seeHelpOf?: string;
  /** For a misspelt flag, the flag meant (`--channel`): the CLI prints `(Did you mean --channel?)` under the error. */
  didYouMean?: string;
  constructor(message: string) {
    super(message, { exitCode: EXIT_USAGE });
    this.name = 'UsageError';
  }
}

/**
 * A failed fetch: carries the URL and, when there was a response, its status. `code` is 'network' when no
 * answer came (no such host, refused, reset, timeout, TLS), so the CLI can add a hint (src/output/hints.ts).
 */
export class FetchError extends OsimageError {
  readonly url: string;
  readonly status: number | undefined;
  constructor(message: string, url: string, status?: number, cause?: unknown, code?: ErrorCode) {
    super(message, code === undefined ? { cause } : { cause, code });
    this.name = 'FetchError';
    this.url = url;
    this.status = status;
  }
}

/** A short description of any thrown value, for wrapping into a one-line message. */
export function describe(err: unknown): string {
  if (err instanceof Error) {
    // Node's errno codes (ENOENT) help; an OsimageError's own code (`invalid-input`) is for code, not people.
    const code = err instanceof OsimageError ? undefined : (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}
