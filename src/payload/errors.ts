import { OsimageError } from '../errors.js';

/** A payload manifest problem: a bad value, or a file that cannot be used. Exit 1. */
export class PayloadError extends OsimageError {
  /** The file it is about, when there is one. */
  readonly file: string | undefined;
  /** 1-based line in that file, when known. */
  readonly line: number | undefined;
  constructor(message: string, opts: { file?: string; line?: number; cause?: unknown } = {}) {
    const where = opts.file === undefined ? '' : opts.line === undefined ? `${opts.file}: ` : `${opts.file}:${opts.line}: `;
    super(`${where}${message}`, opts.cause === undefined ? {} : { cause: opts.cause });
    this.name = 'PayloadError';
    this.file = opts.file;
    this.line = opts.line;
  }
}
