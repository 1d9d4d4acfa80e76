/**
 * The bytes of one layer: streamed from its source (which checks the digest while reading) → gunzip when the
 * bytes start with the gzip magic (the media type is not trusted; zstd, bzip2 and xz are refused by name) → tar
 * entries. A reader that stops early still drains the rest of the compressed bytes through the digest check,
 * so that what was used has been verified. What the entries mean across layers is overlay.ts's job.
 */
import { type Readable, type Transform, Writable } from 'node:stream';
import { OsimageError, describe } from '../errors.js';
import type { Descriptor, ImageSource } from '../registry/types.js';
import { lazyRequire } from '../lazy.js';
import type { TarHeader } from '../oci/tar-header.js';
import { type EntryAction, type EntryStream, TarReader } from './tar-reader.js';

export type { EntryAction, EntryStream };

// Loaded when a layer is first read: a query answered from the cache never inflates one.
const zlib = lazyRequire<typeof import('node:zlib')>('node:zlib');

/** Largest single entry we buffer (release manifests are small). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Compressed bytes handed to gunzip at once, and the size of what it gives back. Node's zlib stream makes one trip
 * to the thread pool per chunk written (and per chunkSize of output): the ~100 KiB chunks a socket gives made
 * ~2,500 trips on a 260 MiB layer, each a hand-over between threads that the main thread waited for. Gathering
 * them into 1 MiB makes ~260 (measured: extract --to of the bench's payload 0.8–0.9× the wall time).
 */
const INFLATE_CHUNK = 1024 * 1024;

/**
 * The first piece is small: a file near the start of a layer (image-references is the second entry of a payload's
 * release layer) is then found after inflating a few hundred KiB, not the ~8 MiB that 1 MiB of manifests inflates to,
 * and without waiting for that 1 MiB to arrive.
 */
const FIRST_INFLATE_CHUNK = 64 * 1024;

/** Input buffers the feeder fills in turn: one being inflated, one filling, one spare. */
const FEED_BUFFERS = 3;

/**
 * A writable end that hands gunzip its input in pieces of INFLATE_CHUNK bytes (the first is FIRST_INFLATE_CHUNK, the
 * last may be smaller), copied into a few buffers used again and again instead of a new one per piece: a layer of
 * 100 MiB would otherwise allocate 100 MiB more for the garbage collector to find, and the kernel to fault in page by
 * page. A buffer is filled again only once gunzip's write callback says it has consumed it; until one is free the
 * feeder holds its callback, so the blob stream waits (backpressure).
 */
function feeder(gunzip: Transform): Writable {
  const free: Buffer[] = [];
  let made = 0;
  let current: Buffer | undefined;
  let filled = 0;
  let first = true;
  let waiting: (() => void) | undefined;
  const take = (): Buffer | undefined => {
    if (free.length > 0) return free.pop();
    if (made < FEED_BUFFERS) {
      made++;
      return Buffer.allocUnsafeSlow(INFLATE_CHUNK);
    }
    return undefined;
  };
  const give = (buf: Buffer) => () => {
    free.push(buf);
    const w = waiting;
    waiting = undefined;
    w?.();
  };
  /** Hand the current buffer (or its filled part) to gunzip. */
  const send = () => {
    if (!current || filled === 0) return;
    const buf = current;
    gunzip.write(filled === buf.length ? buf : buf.subarray(0, filled), give(buf));
    current = undefined;
    filled = 0;
    first = false;
  };
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      let at = 0;
      const fill = () => {
        while (at < chunk.length) {
          current ??= take();
          if (!current) {
            waiting = fill;
            return;
          }
          const size = first ? FIRST_INFLATE_CHUNK : current.length;
          const n = chunk.copy(current, filled, at, at + size - filled);
          at += n;
          filled += n;
          if (filled === size) send();
        }
        done();
      };
      fill();
    },
    final(done) {
      send();
      gunzip.end();
      done();
    },
    destroy(err, done) {
      waiting = undefined;
      done(err);
    },
  });
}

/** Wait for at least `n` bytes (or the end) and put them back: the stream is unchanged for the reader. */
async function peek(stream: Readable, n: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let have = 0;
  await new Promise<void>((resolve, reject) => {
    if (stream.errored) {
      reject(stream.errored);
      return;
    }
    const cleanup = () => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onReadable = () => {
      let c: Buffer | null;
      while (have < n && (c = stream.read() as Buffer | null) !== null) {
        chunks.push(c);
        have += c.length;
      }
      if (have >= n) {
        cleanup();
        resolve();
      }
    };
    const onEnd = () => {
      cleanup();
      resolve();
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    stream.on('readable', onReadable);
    stream.on('end', onEnd);
    stream.on('error', onError);
    onReadable();
  });
  const head = Buffer.concat(chunks);
  if (head.length > 0) stream.unshift(head);
  return head;
}

type Decoder = 'gzip' | 'tar';

function sniff(head: Buffer, what: string): Decoder {
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 4 && head.readUInt32BE(0) === 0x28b52ffd)
    throw new OsimageError(`${what} is zstd-compressed, which is not supported yet`);
  if (head[0] === 0x42 && head[1] === 0x5a && head[2] === 0x68)
    throw new OsimageError(`${what} is bzip2-compressed, which is not supported`);
  if (head.length >= 6 && head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) {
    throw new OsimageError(`${what} is xz-compressed, which is not supported`);
  }
  return 'tar';
}

/**
 * Request a layer's blob before it is read (a prefetch while the layer above is read). A failure is reported when
 * readLayer reaches it, not before: a rejected request is kept in the promise, and an error the stream meets while
 * nobody reads it (a short blob that ends and fails its digest check meanwhile) is kept on the stream (`errored`)
 * instead of going unhandled.
 */
export function requestLayer(source: ImageSource, desc: Descriptor): Promise<Readable> {
  const p = source.blob(desc).then((stream) => stream.on('error', () => undefined));
  p.catch(() => undefined);
  return p;
}

/**
 * Stream one layer's tar entries to `onEntry` (header, then the entry's bytes if `wants` says so). An entry that
 * `wants` answers 'stream' for is not buffered: onEntry gets its bytes as a stream to consume (a large binary);
 * whatever it leaves unread is drained before the next entry.
 * Resolves once the layer has been read to its end (so it has been verified), also when onEntry stops early:
 * then the rest of the compressed bytes are drained through the digest check without being decompressed.
 */
export async function readLayer(
  source: ImageSource,
  desc: Descriptor,
  handlers: {
    wants: (header: TarHeader) => boolean | 'stream';
    /** May return a promise: the next entry is read once it settles (a writer to disk keeps memory flat). */
    onEntry: (header: TarHeader, data: Buffer | undefined, stream?: EntryStream) => EntryAction | Promise<EntryAction>;
  },
  opened: {
    /** The layer's blob, already requested (a prefetch); by default it is requested here. */
    raw?: Promise<Readable>;
    /** Told the compressed bytes read so far, as they arrive. */
    onBytes?: (total: number) => void;
  } = {},
): Promise<{ stopped: boolean }> {
  const what = `layer ${desc.digest} of ${source.name}`;
  const raw = await (opened.raw ?? source.blob(desc));
  let rawEnded = false;
  raw.once('end', () => (rawEnded = true));
  // Listened to from the start: a short blob can end, and fail its digest check, while we still wait for its head.
  let rawError: unknown;
  let onRawError = (err: unknown) => {
    rawError ??= err;
  };
  raw.on('error', (err) => onRawError(err));
  let head: Buffer;
  try {
    head = await peek(raw, 6);
  } catch (err) {
    raw.destroy();
    throw err instanceof OsimageError ? err : new OsimageError(`cannot read ${what}: ${describe(err)}`);
  }
  let kind: Decoder;
  try {
    kind = sniff(head, what);
  } catch (err) {
    raw.destroy();
    throw err;
  }
  // zlib's default 16 KiB output chunks would cost a thread-pool trip each, as small input chunks do (INFLATE_CHUNK).
  const gunzip = kind === 'gzip' ? zlib().createGunzip({ chunkSize: INFLATE_CHUNK }) : undefined;
  const batch = gunzip ? feeder(gunzip) : undefined;

  return new Promise((resolve, reject) => {
    let settled = false;
    let stopping = false;
    let exFinished = false;
    const fail = (err: unknown, prefix: string) => {
      if (settled) return;
      settled = true;
      raw.destroy();
      batch?.destroy();
      gunzip?.destroy();
      ex.destroy();
      reject(err instanceof OsimageError ? err : new OsimageError(`${prefix} ${what}: ${describe(err)}`));
    };
    const maybeDone = () => {
      if (settled) return;
      if (rawEnded && (stopping || exFinished)) {
        settled = true;
        resolve({ stopped: stopping });
      }
    };
    const stopEarly = () => {
      stopping = true;
      if (gunzip && batch) {
        raw.unpipe(batch);
        batch.destroy();
        gunzip.unpipe(ex);
        gunzip.destroy();
      } else {
        raw.unpipe(ex);
      }
      ex.destroy();
      // Keep the remaining compressed bytes flowing through the digest check.
      raw.resume();
      maybeDone();
    };
    /** The caller's onEntry; what it throws or rejects with fails the read under its own words. */
    const onEntry = (header: TarHeader, data: Buffer | undefined, stream?: EntryStream): EntryAction | Promise<EntryAction> => {
      const failed = (err: unknown): EntryAction => {
        fail(err, 'cannot read');
        return 'stop';
      };
      try {
        const result = handlers.onEntry(header, data, stream);
        return result instanceof Promise ? result.catch(failed) : result;
      } catch (err) {
        return failed(err);
      }
    };
    const ex = new TarReader({
      wants: (header) => {
        const take = handlers.wants(header);
        if (take === true && header.size > MAX_FILE_BYTES)
          throw new OsimageError(`${what}: ${header.name} is too large to read (${header.size} bytes)`);
        return take;
      },
      onEntry: (header, data, stream) => (stopping || settled ? 'stop' : onEntry(header, data, stream)),
      onStop: () => {
        if (!settled && !stopping) stopEarly();
      },
    });
    onRawError = (err) => fail(err, 'cannot read');
    if (rawError !== undefined) {
      fail(rawError, 'cannot read');
      return;
    }
    raw.on('end', () => setImmediate(maybeDone));
    gunzip?.on('error', (err) => {
      if (!stopping) fail(err, 'cannot decompress');
    });
    ex.on('error', (err: Error) => {
      if (!stopping) fail(err, 'cannot read the tar of');
    });
    ex.on('finish', () => {
      exFinished = true;
      maybeDone();
    });

    if (opened.onBytes) {
      const onBytes = opened.onBytes;
      let total = 0;
      // The peeked bytes were put back, so they come through here too. A second 'data' listener next to the pipe's: it sees the same chunks and does not change the flow.
      raw.on('data', (c: Buffer) => {
        total += c.length;
        onBytes(total);
      });
    }
    if (gunzip && batch) {
      raw.pipe(batch);
      gunzip.pipe(ex as unknown as NodeJS.WritableStream);
    } else raw.pipe(ex as unknown as NodeJS.WritableStream);
  });
}
