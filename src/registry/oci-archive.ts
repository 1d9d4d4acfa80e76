/**
 * The `oci-archive:FILE[:TAG]` transport: a tar of an OCI image layout. The archive is read once with
 * tar-stream to index where each entry's bytes are; blobs are then streamed straight from those offsets.
 * Nothing is extracted to disk.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { extract as tarExtract, type Header } from 'tar-stream';
import { OsimageError, describe } from '../errors.js';
import { LayoutSource, parseLayoutReference, type LayoutFiles } from './oci-layout.js';
import type { ImageSource, SourceOptions } from './types.js';

interface Span {
  offset: number;
  size: number;
}

/** Entry name → where its bytes are. Names are normalised (`./` and leading `/` dropped). */
export async function indexTar(file: string): Promise<Map<string, Span>> {
  const entries = new Map<string, Span>();
  const ex = tarExtract();
  ex.on('entry', (header: Header & { byteOffset?: number }, stream, next) => {
    if ((header.type === 'file' || header.type === 'contiguous-file') && header.byteOffset !== undefined) {
      const name = posix.normalize(header.name.replace(/^(\.\/|\/)+/, ''));
      entries.set(name, { offset: header.byteOffset, size: header.size ?? 0 });
    }
    stream.on('end', () => next());
    stream.resume();
  });
  await new Promise<void>((resolve, reject) => {
    const input = createReadStream(file);
    input.on('error', reject);
    ex.on('error', reject);
    ex.on('finish', resolve);
    input.pipe(ex);
  });
  return entries;
}

class ArchiveFiles implements LayoutFiles {
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

  async readFile(path: string, maxBytes: number): Promise<Buffer> {
    const s = await this.span(path);
    if (s.size > maxBytes) throw new OsimageError(`${this.label}/${path} is too large (${s.size} bytes)`);
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
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new OsimageError(`${label}: ${path} is not a file`);
  } catch (err) {
    if (err instanceof OsimageError) throw err;
    throw new OsimageError(`cannot open ${label}: ${describe(err)}`);
  }
  return new LayoutSource(new ArchiveFiles(label, path), tag, opts);
}
