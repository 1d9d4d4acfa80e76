/**
 * Tar headers as Go's archive/tar reads them (the reader of oc, containerd and containers/storage, so what a
 * cluster sees in a layer): ustar, pax and GNU long names, octal or base-256 numbers, signed or unsigned
 * checksums, and old (V7) headers without a magic. Shared by the layer reader (release/tar-reader.ts) and the
 * oci-archive index (registry/oci-archive.ts).
 */

export const BLOCK = 512;

/** Bytes of a pax extended header or a GNU long name held at once; a larger one is refused. */
export const MAX_EXTENDED_HEADER_BYTES = 1024 * 1024;

export type TarEntryType = 'file' | 'link' | 'symlink' | 'character-device' | 'block-device' | 'directory' | 'fifo' | 'contiguous-file';

/** One entry's header, once pax records and GNU long names are applied. */
export interface TarHeader {
  name: string;
  /** undefined for a type flag outside the list (a GNU sparse file, a vendor extension): the entry is not a file. */
  type: TarEntryType | undefined;
  /** The bytes of data that follow the header (0 for types that carry none, whatever the field says). */
  size: number;
  mode: number;
  mtime: Date;
  /** The link target (hard or symbolic), when the header has one. */
  linkname: string | undefined;
}

/** Text of a NUL-terminated field. */
export function cString(buf: Buffer, start: number, end: number): string {
  const nul = buf.indexOf(0, start);
  return buf.toString('utf8', start, nul >= 0 && nul < end ? nul : end);
}

/**
 * A numeric header field: octal text (NULs and spaces around it allowed, as Go allows them), or GNU base-256
 * (two's complement) when the top bit of the first byte is set. Text that is not octal gives NaN, a negative
 * value (`-` text or base-256) a negative number: callers that take a size check it.
 */
export function numeric(buf: Buffer, start: number, end: number): number {
  const first = buf[start]!;
  if (first & 0x80) {
    // The marker bit dropped, bit 6 of the first byte is the sign.
    let n = (first & 0x7f) - (first & 0x40 ? 0x80 : 0);
    for (let i = start + 1; i < end; i++) n = n * 256 + buf[i]!;
    return n;
  }
  let i = start;
  let j = end;
  while (i < j && (buf[i] === 0x20 || buf[i] === 0)) i++;
  while (j > i && (buf[j - 1] === 0x20 || buf[j - 1] === 0)) j--;
  // A sign is kept (so that a negative size is named as one); Go's reader refuses it with the rest.
  const negative = i < j && buf[i] === 0x2d;
  if (negative) i++;
  if (negative && i === j) return Number.NaN;
  let n = 0;
  for (let k = i; k < j; k++) {
    const d = buf[k]! - 0x30;
    if (d < 0 || d > 7) return Number.NaN;
    n = n * 8 + d;
  }
  return negative ? -n : n;
}

/** Whether the header's checksum field matches its bytes (summed unsigned, or signed as some old tars did). */
export function checksumOk(h: Buffer): boolean {
  let unsigned = 8 * 0x20;
  let signed = 8 * 0x20;
  for (let i = 0; i < BLOCK; i++) {
    if (i === 148) i = 156;
    const b = h[i]!;
    unsigned += b;
    signed += b < 128 ? b : b - 256;
  }
  const want = numeric(h, 148, 156);
  return want === unsigned || want === signed;
}

/** Whether a 512-byte block is all zeros (half of the end-of-archive marker). */
export function isZeroBlock(h: Buffer): boolean {
  for (let i = 0; i < BLOCK; i++) if (h[i] !== 0) return false;
  return true;
}

/**
 * `len key=value\n` records of a pax extended header, refused as Go refuses them: a length that is not a number of
 * at least 5 or runs past the end, a record not ending in a newline or without `=`, a NUL in a key, or in the value
 * of a name (path, linkpath, uname, gname).
 */
export function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < data.length) {
    const bad = (why: string) => new Error(`invalid pax record at byte ${i} of an extended header: ${why}`);
    const space = data.indexOf(0x20, i);
    if (space < 0) throw bad('no length');
    const lenText = data.toString('latin1', i, space);
    const len = /^\d+$/.test(lenText) ? Number(lenText) : Number.NaN;
    if (!(len >= 5) || i + len > data.length) throw bad(`length ${JSON.stringify(lenText)}`);
    if (data[i + len - 1] !== 0x0a) throw bad('it does not end with a newline');
    const record = data.toString('utf8', space + 1, i + len - 1);
    const eq = record.indexOf('=');
    if (eq < 0) throw bad('no =');
    const key = record.slice(0, eq);
    const value = record.slice(eq + 1);
    if (key.includes('\0') || (NAME_KEYS.has(key) && value.includes('\0'))) throw bad(`a NUL in ${key}`);
    out.set(key, value);
    i += len;
  }
  return out;
}

const NAME_KEYS = new Set(['path', 'linkpath', 'uname', 'gname']);

/** A pax decimal number (negative ones kept, for the caller to refuse); anything else (a fraction, text) is NaN. */
export const paxNumber = (text: string): number => (/^-?\d+$/.test(text) ? Number(text) : Number.NaN);

/** Type flags that are headers of their own, applied to the next entry (or ignored), never entries. */
export type ExtendedKind = 'pax' | 'pax-global' | 'long-name' | 'long-link';

const EXTENDED: Record<string, ExtendedKind> = { x: 'pax', g: 'pax-global', L: 'long-name', K: 'long-link' };

const TYPES: Record<string, TarEntryType> = {
  '0': 'file',
  '\0': 'file',
  '1': 'link',
  '2': 'symlink',
  '3': 'character-device',
  '4': 'block-device',
  '5': 'directory',
  '6': 'fifo',
  '7': 'contiguous-file',
};

/** Types whose size field is not followed by data (Go's isHeaderOnlyType). */
const HEADER_ONLY = new Set<TarEntryType>(['link', 'symlink', 'character-device', 'block-device', 'directory', 'fifo']);

/** The raw fields of one header block, before extended headers apply. */
export interface RawHeader {
  flag: string;
  extended: ExtendedKind | undefined;
  /** The size field: the data bytes that follow (NaN when it is not a number). */
  size: number;
  header: TarHeader;
}

/**
 * Decode one header block whose checksum has been checked. The name joins the ustar prefix (a GNU header's prefix
 * area holds times, not a name); a regular file of the old form whose name ends in `/` is a directory.
 */
export function decodeHeader(h: Buffer): RawHeader {
  const flag = String.fromCharCode(h[156]!);
  const size = numeric(h, 124, 136);
  let name = cString(h, 0, 100);
  // "ustar\0" + "00" is POSIX ustar (with a name prefix); "ustar  \0" is GNU (no prefix).
  if (h[257] === 0x75 && h[258] === 0x73 && h[259] === 0x74 && h[260] === 0x61 && h[261] === 0x72 && h[262] === 0 && h[345] !== 0) {
    name = `${cString(h, 345, 500)}/${name}`;
  }
  let type: TarEntryType | undefined = TYPES[flag];
  if (flag === '\0' && name.endsWith('/')) type = 'directory';
  const mode = numeric(h, 100, 108);
  const mtime = numeric(h, 136, 148);
  return {
    flag,
    extended: EXTENDED[flag],
    size,
    header: {
      name,
      type,
      size: type !== undefined && HEADER_ONLY.has(type) ? 0 : size,
      mode: Number.isFinite(mode) ? mode : 0,
      mtime: new Date(1000 * (Number.isFinite(mtime) ? mtime : 0)),
      linkname: h[157] === 0 ? undefined : cString(h, 157, 257),
    },
  };
}

/** Apply a pax header's records (path, linkpath, size, mtime) and GNU long names to the entry they precede. */
export function applyExtended(
  raw: RawHeader,
  ext: { pax?: Map<string, string> | undefined; longName?: string | undefined; longLink?: string | undefined },
): TarHeader {
  const h = raw.header;
  const pax = ext.pax;
  if (pax) {
    const path = pax.get('path');
    if (path !== undefined) h.name = path;
    const link = pax.get('linkpath');
    if (link !== undefined) h.linkname = link;
    const size = pax.get('size');
    if (size !== undefined && (h.type === undefined || !HEADER_ONLY.has(h.type))) h.size = paxNumber(size);
    const mtime = pax.get('mtime');
    if (mtime !== undefined && /^-?\d+(\.\d+)?$/.test(mtime)) h.mtime = new Date(Math.trunc(Number(mtime) * 1000));
  }
  // After the pax records, as Go applies them: a GNU long name or link wins.
  if (ext.longName !== undefined) h.name = ext.longName;
  if (ext.longLink !== undefined) h.linkname = ext.longLink;
  return h;
}
