/**
 * The `oci-archive:FILE[:TAG]` transport: a tar of an OCI image layout. The tar's headers are read once
 * (seeking past the data) to index where each entry's bytes are; blobs are then streamed straight from
 * those offsets. Nothing is extracted to disk, and a large archive is not read end to end to be indexed.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { OsimageError, describe } from '../errors.js';
import { LayoutSource, parseLayoutReference, requirePath, type LayoutFiles } from './oci-layout.js';
import type { ImageSource, SourceOptions } from './types.js';
import { BLOCK, checksumOk, cString, decodeHeader, numeric, paxNumber, paxRecords } from '../oci/tar-header.js';

interface Span {
  offset: number;
  size: number;
}

/**
 * A size read from a header must be a whole number of bytes that fits in what is left of the archive:
 * a negative size would send the reader back to the same header forever, an absurd one past the end.
 */
function checkSize(size: number, what: string, at: number, left: number): number {
  if (!Number.isSafeInteger(size)) throw new Error(`${what} at offset ${at} has an invalid size (${size})`);
  if (size < 0) throw new Error(`${what} at offset ${at} has a negative size (${size})`);
  if (size > left) throw new Error(`${what} at offset ${at} has a size of ${size} bytes, past the end of the archive (${left} bytes left)`);
  return size;
}

/**
 * Entry name → where its bytes are, for the regular files of a tar. Only the headers are read (the reader
 * seeks past file data), so indexing a large archive costs one small read per entry. Names are normalised
 * (`./` and leading `/` dropped). Understands ustar, pax (`path`, `size`) and GNU long names.
 */
export async function indexTar(file: string): Promise<Map<string, Span>> {
  const entries = new Map<string, Span>();
  const fh = await open(file, 'r');
  try {
    const total = (await fh.stat()).size;
    const header = Buffer.alloc(BLOCK);
    let offset = 0;
    let longName: string | undefined;
    let pax = new Map<string, string>();
    const readData = async (at: number, size: number): Promise<Buffer> => {
      if (size > 1024 * 1024) throw new Error(`an extended header at offset ${at} is too large (${size} bytes)`);
      const buf = Buffer.alloc(size);
      const { bytesRead } = await fh.read(buf, 0, size, at);
      if (bytesRead !== size) throw new Error(`truncated at offset ${at}`);
      return buf;
    };
    while (offset + BLOCK <= total) {
      const { bytesRead } = await fh.read(header, 0, BLOCK, offset);
      if (bytesRead !== BLOCK) throw new Error(`truncated header at offset ${offset}`);
      if (header.every((b) => b === 0)) break; // end-of-archive marker
      if (!checksumOk(header)) throw new Error(`bad tar header checksum at offset ${offset}`);
      const type = String.fromCharCode(header[156]!);
      const data = offset + BLOCK;
      let size = checkSize(numeric(header, 124, 136), 'tar header', offset, total - data);
      const next = () => data + Math.ceil(size / BLOCK) * BLOCK;
      if (type === 'x' || type === 'g') {
        const records = paxRecords(await readData(data, size));
        const paxSize = records.get('size');
        // Checked here to name this header; its fit in the archive is checked on the entry it sizes.
        if (paxSize !== undefined) checkSize(paxNumber(paxSize), 'pax header', offset, Number.POSITIVE_INFINITY);
        if (type === 'x') pax = records;
        offset = next();
        continue;
      }
      if (type === 'L') {
        longName = cString(await readData(data, size), 0, size);
        offset = next();
        continue;
      }
      if (type === 'K') {
        offset = next();
        continue;
      }
      const { header: decoded } = decodeHeader(header);
      let name = decoded.name;
      // As Go applies them: the pax path, then a GNU long name over it.
      if (pax.has('path')) name = pax.get('path')!;
      if (longName !== undefined) name = longName;
      if (pax.has('size')) size = checkSize(paxNumber(pax.get('size')!), `tar header (sized by pax)`, offset, total - data);
      longName = undefined;
      pax = new Map();
      if (decoded.type === 'file' || decoded.type === 'contiguous-file') {
        entries.set(posix.normalize(name.replace(/^(\.\/|\/)+/, '')), { offset: data, size });
      }
      offset = next();
    }
  } finally {
    await fh.close();
  }
  return entries;
}

/** Files of a tar (an OCI layout's, or `docker save`'s), read where they lie in it. */
export class ArchiveFiles implements LayoutFiles {
  private spans: Promise<Map<string, Span>> | undefined;

  constructor(
    readonly label: string,
    private readonly file: string,
  ) {}

  private index(): Promise<Map<string, Span>> {
    this.spans ??= indexTar(this.file).catch((err: unknown) => {
      throw new OsimageError(`cannot read ${this.label}: ${describe(err)}`);
    });
    return this.spans;
  }

  private async span(path: string): Promise<Span> {
    const s = (await this.index()).get(path);
    if (!s) throw new OsimageError(`cannot read ${this.label}/${path}: no such entry in the archive`);
    return s;
  }

  /** Whether the archive has a regular file at `path`, and its size. */
  async size(path: string): Promise<number | undefined> {
    return (await this.index()).get(path)?.size;
  }

  /** The first `n` bytes of a file (fewer when it is shorter): enough to tell a compressed layer from a tar. */
  async head(path: string, n: number): Promise<Buffer> {
    const s = await this.span(path);
    return this.readSpan(path, { offset: s.offset, size: Math.min(n, s.size) });
  }

  async readFile(path: string, maxBytes: number): Promise<Buffer> {
    const s = await this.span(path);
    if (s.size > maxBytes) throw new OsimageError(`${this.label}/${path} is too large (${s.size} bytes)`);
    return this.readSpan(path, s);
  }

  private async readSpan(path: string, s: Span): Promise<Buffer> {
    const fh = await open(this.file, 'r');
    try {
      const buf = Buffer.alloc(s.size);
      const { bytesRead } = await fh.read(buf, 0, s.size, s.offset);
      if (bytesRead !== s.size) throw new OsimageError(`cannot read ${this.label}/${path}: the archive is truncated`);
      return buf;
    } finally {
      await fh.close();
    }
  }

  async open(path: string): Promise<{ stream: Readable; size: number }> {
    const s = await this.span(path);
    // An empty range: createReadStream with end < start reads nothing.
    return { stream: createReadStream(this.file, { start: s.offset, end: s.offset + s.size - 1 }), size: s.size };
  }

  async close(): Promise<void> {}
}

/** Open `oci-archive:FILE[:TAG]` (also `oci-archive:FILE@sha256:…`). */
export async function openOciArchive(ref: string, opts: SourceOptions = {}): Promise<ImageSource> {
  const { path, tag } = parseLayoutReference(ref, 'oci-archive');
  const label = `oci-archive:${path}`;
  await requirePath(label, path, 'file');
  return new LayoutSource(new ArchiveFiles(label, path), tag, opts);
}
