/**
 * Reading the files osimage works on. Text files are read exactly: a byte-order mark is kept, and bytes that
 * are not UTF-8 are an error naming the file and the byte offset (a replacement character would change bytes
 * an edit must leave alone). A file of ours that is not there is always said the same way: `PATH: no such file`.
 * Only regular files are read (after following symlinks): a FIFO, socket or device is refused before a byte is read,
 * so a FIFO in place of a pin file cannot make osimage wait forever.
 */
import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { OsimageError, describe } from '../errors.js';

/** ENOENT, or ENOTDIR (a path through a file): the thing is not there. */
export function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** The one wording for a missing file or folder of ours: `PATH: no such file` (`… no such directory`). */
export function noSuchFile(path: string, opts: { kind?: 'file' | 'directory'; cause?: unknown } = {}): OsimageError {
  return new OsimageError(`${path}: no such ${opts.kind ?? 'file'}`, { code: 'file-missing', cause: opts.cause });
}

/** The error for a failed read of `path`: {@link noSuchFile} when it is not there, else `cannot read PATH: why`. */
export function readError(path: string, err: unknown, kind: 'file' | 'directory' = 'file'): OsimageError {
  if (err instanceof OsimageError) return err;
  if (isMissing(err)) return noSuchFile(path, { kind, cause: err });
  if ((err as NodeJS.ErrnoException).code === 'EISDIR') return new OsimageError(`${path}: is a directory, not a file`, { cause: err });
  return new OsimageError(`cannot read ${path}: ${describe(err)}`, { cause: err });
}

/** Offset of the first byte that does not start or continue a well-formed UTF-8 sequence, or -1. */
export function invalidUtf8At(data: Uint8Array): number {
  let i = 0;
  while (i < data.length) {
    const b = data[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [n, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [n, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    let cp = b & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const c = data[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}

/** The text of a UTF-8 file's bytes, exactly (a byte-order mark is kept); other bytes are an error naming the offset. */
export function decodeUtf8(data: Uint8Array, path: string): string {
  const at = invalidUtf8At(data);
  if (at >= 0) {
    throw new OsimageError(`${path} is not UTF-8 text (byte offset ${at}); osimage only edits UTF-8 files`, { code: 'invalid-input' });
  }
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(data);
}

/** What a file that is not a regular file is, in words: `a FIFO`, `a socket`, `a character device`, … */
export function fileKind(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a directory';
  return st.isFile() ? 'a regular file' : 'not a file';
}

/**
 * The most a file osimage reads whole may hold: manifests, stream files, pins, mapping and ImageStream files are
 * kilobytes; a file past this is an error, not hundreds of megabytes of memory.
 */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The bytes of the regular file at `path` (symlinks followed). It is opened without blocking and checked before
 * reading: anything else is an error naming the file and what it is (`PATH is a FIFO, not a regular file`), and
 * so is a file larger than `maxBytes` (default {@link MAX_FILE_BYTES}), even one that grows while it is read.
 */
export async function readRegularFile(path: string, maxBytes = MAX_FILE_BYTES): Promise<Buffer> {
  let fh;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it changes nothing for a regular file.
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw readError(path, err);
  }
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw new OsimageError(`${path}: is a directory, not a file`);
    if (!st.isFile()) throw new OsimageError(`${path} is ${fileKind(st)}, not a regular file`, { code: 'invalid-input' });
    const tooBig = () =>
      new OsimageError(`${path} is larger than the ${maxBytes / 1024 / 1024} MiB osimage reads of such a file`, { code: 'invalid-input' });
    if (st.size > maxBytes) throw tooBig();
    // Read no further than the bound plus one byte, whatever the size said (a sparse or growing file).
    let buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (n > maxBytes) throw tooBig();
        const more = Buffer.alloc(Math.min(buf.length * 2, maxBytes + 1));
        buf.copy(more);
        buf = more;
      }
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) return buf.subarray(0, n);
      n += bytesRead;
    }
  } catch (err) {
    throw readError(path, err);
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** Read a UTF-8 text file exactly; a missing file is {@link noSuchFile}, a FIFO or device an error. */
export async function readText(path: string): Promise<string> {
  return decodeUtf8(await readRegularFile(path), path);
}

/** {@link readText}, or undefined when the file does not exist (yet). */
export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readText(path);
  } catch (err) {
    if (err instanceof OsimageError && err.code === 'file-missing') return undefined;
    throw err;
  }
}

/** A folder that must exist: {@link noSuchFile} (as a directory) when it does not, an error when it is a file. */
export async function requireDir(dir: string): Promise<void> {
  let st;
  try {
    st = await stat(dir);
  } catch (err) {
    throw readError(dir, err, 'directory');
  }
  if (!st.isDirectory()) throw new OsimageError(`${dir}: is not a directory`);
}
