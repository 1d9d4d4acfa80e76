/**
 * The entries of a .tar.gz or .zip file, for comparing what two tools archived when the archive bytes themselves
 * may differ (compression level, zip field order): name, type, mode, size, modification time, link target and
 * the bytes. Types: archives.d.mts.
 */
import { inflateRawSync, gunzipSync } from 'node:zlib';
import { extract as tarExtract } from 'tar-stream';

/** `[{name, type, mode, size, mtime, linkname?, data}]` of a gzipped tar, in order. */
export async function tarGzEntries(bytes) {
  const ex = tarExtract();
  const out = [];
  const done = new Promise((resolve, reject) => {
    ex.on('entry', (h, stream, next) => {
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      stream.on('end', () => {
        out.push({
          name: h.name,
          type: h.type,
          mode: (h.mode ?? 0).toString(8).padStart(4, '0'),
          size: h.size ?? 0,
          mtime: h.mtime ? h.mtime.toISOString() : null,
          ...(h.linkname ? { linkname: h.linkname } : {}),
          data: Buffer.concat(chunks),
        });
        next();
      });
    });
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  ex.end(gunzipSync(bytes));
  await done;
  return out;
}

/** The DOS date and time of a zip header as a UTC ISO time (no zone is stored: read as UTC). */
function dosTime(date, time) {
  const d = new Date(Date.UTC(1980 + (date >> 9), ((date >> 5) & 0xf) - 1, date & 0x1f, time >> 11, (time >> 5) & 0x3f, (time & 0x1f) * 2));
  return d.toISOString();
}

/** The modification time of the extended-timestamp extra field (0x5455), if any. */
function extendedTime(extra) {
  for (let i = 0; i + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(i);
    const size = extra.readUInt16LE(i + 2);
    if (id === 0x5455 && size >= 5 && extra[i + 4] & 1) return new Date(extra.readInt32LE(i + 5) * 1000).toISOString();
    i += 4 + size;
  }
  return undefined;
}

/** `[{name, mode, size, mtime, data}]` of a zip file, in central directory order (stored and deflated entries). */
export function zipEntries(bytes) {
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (bytes.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file: no end of central directory');
  const count = bytes.readUInt16LE(eocd + 10);
  let p = bytes.readUInt32LE(eocd + 16);
  const out = [];
  for (let n = 0; n < count; n++) {
    if (bytes.readUInt32LE(p) !== 0x02014b50) throw new Error('zip: bad central directory entry');
    const method = bytes.readUInt16LE(p + 10);
    const time = bytes.readUInt16LE(p + 12);
    const date = bytes.readUInt16LE(p + 14);
    const csize = bytes.readUInt32LE(p + 20);
    const usize = bytes.readUInt32LE(p + 24);
    const nameLen = bytes.readUInt16LE(p + 28);
    const extraLen = bytes.readUInt16LE(p + 30);
    const commentLen = bytes.readUInt16LE(p + 32);
    const external = bytes.readUInt32LE(p + 38);
    const local = bytes.readUInt32LE(p + 42);
    const name = bytes.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    const extra = bytes.subarray(p + 46 + nameLen, p + 46 + nameLen + extraLen);
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const raw = bytes.subarray(start, start + csize);
    const data = method === 0 ? Buffer.from(raw) : method === 8 ? inflateRawSync(raw) : null;
    if (!data) throw new Error(`zip: ${name}: compression method ${method} is not read here`);
    out.push({
      name,
      mode: ((external >>> 16) & 0o7777).toString(8).padStart(4, '0'),
      size: usize,
      mtime: extendedTime(extra) ?? dosTime(date, time),
      data,
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}
