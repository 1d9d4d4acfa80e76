/**
 * The archives `release extract --tools` writes: a gzipped tar (README.md, the binary, hard links such as kubectl
 * to it) or, for Windows, a zip (README.md with CR LF line ends, the binary as NAME.exe). Both come out as one
 * byte stream, the binary streamed from its file, so a 500 MB installer never sits in memory. Times are the
 * binary's time in its image; modes are those oc gives (README 0644 in a tar, 0755 in a zip; binaries 0755).
 */
import { createReadStream } from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDeflateRaw, createGzip, crc32 } from 'node:zlib';
import { pack as tarPack } from 'tar-stream';

export interface ArchivedFile {
  name: string;
  /** The bytes, or a file to stream them from. */
  data: Buffer | { path: string; size: number };
  mode: number;
}

export interface ArchiveSpec {
  mtime: Date;
  files: ArchivedFile[];
  /** Hard links (tar only): name -> the file it links to. */
  links: Array<{ name: string; target: string }>;
}

const sourceOf = (f: ArchivedFile): Readable => (Buffer.isBuffer(f.data) ? PassThrough.from([f.data]) : createReadStream(f.data.path));
const sizeOf = (f: ArchivedFile): number => (Buffer.isBuffer(f.data) ? f.data.length : f.data.size);

/** A tar of the files and links, gzipped (level 3, as oc's). */
export function tarGz(spec: ArchiveSpec): Readable {
  const p = tarPack();
  const gz = createGzip({ level: 3 });
  void (async () => {
    try {
      for (const f of spec.files) {
        const entry = p.entry({ name: f.name, mode: f.mode, size: sizeOf(f), mtime: spec.mtime, type: 'file', uid: 0, gid: 0 });
        await pipeline(sourceOf(f), entry as unknown as NodeJS.WritableStream);
      }
      for (const l of spec.links) {
        await new Promise<void>((resolve, reject) =>
          p.entry({ name: l.name, mode: 0o755, size: 0, mtime: spec.mtime, type: 'link', linkname: l.target, uid: 0, gid: 0 }, (err) =>
            err ? reject(err) : resolve(),
          ),
        );
      }
      p.finalize();
    } catch (err) {
      gz.destroy(err as Error);
    }
  })();
  return (p as unknown as Readable).pipe(gz);
}

/** MS-DOS date and time fields of `d` (local time, two-second steps), as zip headers keep them. */
function dosDateTime(d: Date): { date: number; time: number } {
  const year = Math.max(1980, d.getFullYear());
  return {
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
  };
}

/** The extended-timestamp extra field (0x5455): the modification time in seconds since the epoch, UTC. */
function timeExtra(d: Date): Buffer {
  const b = Buffer.alloc(9);
  b.writeUInt16LE(0x5455, 0);
  b.writeUInt16LE(5, 2);
  b[4] = 1;
  b.writeInt32LE(Math.floor(d.getTime() / 1000), 5);
  return b;
}

const S_IFREG = 0o100000;

/**
 * A zip of the files, each deflated and streamed: sizes and CRC follow each file's data (a data descriptor),
 * as Go's zip writer does. Files and the archive stay below 4 GiB (no zip64).
 */
export function zip(spec: ArchiveSpec): Readable {
  const out = new PassThrough();
  void (async () => {
    try {
      let offset = 0;
      const central: Buffer[] = [];
      const write = async (b: Buffer) => {
        offset += b.length;
        if (!out.write(b)) await new Promise((r) => out.once('drain', r));
      };
      const { date, time } = dosDateTime(spec.mtime);
      const extra = timeExtra(spec.mtime);
      for (const f of spec.files) {
        const name = Buffer.from(f.name);
        const flags = 0x8 | (/[^\x20-\x7e]/.test(f.name) ? 0x800 : 0);
        const local = Buffer.alloc(30);
        local.writeUInt32LE(0x04034b50, 0);
        local.writeUInt16LE(20, 4);
        local.writeUInt16LE(flags, 6);
        local.writeUInt16LE(8, 8);
        local.writeUInt16LE(time, 10);
        local.writeUInt16LE(date, 12);
        local.writeUInt16LE(name.length, 26);
        local.writeUInt16LE(extra.length, 28);
        const start = offset;
        await write(Buffer.concat([local, name, extra]));
        let crc = 0;
        let size = 0;
        let csize = 0;
        const deflate = createDeflateRaw();
        const src = sourceOf(f);
        src.on('data', (c: Buffer) => {
          crc = crc32(c, crc);
          size += c.length;
        });
        src.pipe(deflate);
        for await (const c of deflate) {
          csize += (c as Buffer).length;
          await write(c as Buffer);
        }
        const desc = Buffer.alloc(16);
        desc.writeUInt32LE(0x08074b50, 0);
        desc.writeUInt32LE(crc >>> 0, 4);
        desc.writeUInt32LE(csize, 8);
        desc.writeUInt32LE(size, 12);
        await write(desc);
        const c = Buffer.alloc(46);
        c.writeUInt32LE(0x02014b50, 0);
        c.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix
        c.writeUInt16LE(20, 6);
        c.writeUInt16LE(flags, 8);
        c.writeUInt16LE(8, 10);
        c.writeUInt16LE(time, 12);
        c.writeUInt16LE(date, 14);
        c.writeUInt32LE(crc >>> 0, 16);
        c.writeUInt32LE(csize, 20);
        c.writeUInt32LE(size, 24);
        c.writeUInt16LE(name.length, 28);
        c.writeUInt16LE(extra.length, 30);
        c.writeUInt32LE(((S_IFREG | f.mode) << 16) >>> 0, 38);
        c.writeUInt32LE(start, 42);
        central.push(Buffer.concat([c, name, extra]));
      }
      const cdStart = offset;
      const cd = Buffer.concat(central);
      await write(cd);
      const end = Buffer.alloc(22);
      end.writeUInt32LE(0x06054b50, 0);
      end.writeUInt16LE(central.length, 8);
      end.writeUInt16LE(central.length, 10);
      end.writeUInt32LE(cd.length, 12);
      end.writeUInt32LE(cdStart, 16);
      await write(end);
      out.end();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return out;
}
