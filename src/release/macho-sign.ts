/**
 * Ad-hoc re-signing of a Mach-O binary after its bytes changed (the release markers written into a macOS arm64
 * oc or openshift-install): macOS on Apple silicon refuses to run a binary whose code signature no longer
 * matches its pages. The signature is rebuilt the way the Go linker writes one: a SuperBlob holding one
 * CodeDirectory (ad-hoc, identifier `a.out`) with a SHA-256 hash of every 4 KiB page before the signature. As oc
 * does, only a 64-bit Mach-O whose LC_CODE_SIGNATURE has exactly the size such a signature needs is re-signed
 * (anything else, including a file that is no Mach-O, is left alone): then no load command has to move.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

const MH_MAGIC_64 = 0xfeedfacf;
const MH_EXECUTE = 2;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const PAGE_BITS = 12;
const PAGE = 1 << PAGE_BITS;
const ID = 'a.out';

const SUPER_BLOB = 12;
const BLOB_INDEX = 8;
const CODE_DIRECTORY = 13 * 4 + 4 + 4 * 8;
const HASH = 32;

/** The bytes a signature of `codeSize` bytes takes. */
export function signatureSize(codeSize: number): number {
  const pages = Math.ceil(codeSize / PAGE);
  return SUPER_BLOB + BLOB_INDEX + CODE_DIRECTORY + ID.length + 1 + pages * HASH;
}

interface MachO {
  dataoff: number;
  datasize: number;
  textOff: number;
  textSize: number;
  executable: boolean;
}

/** The fields signing needs, or undefined when `head` is no little-endian 64-bit Mach-O with a signature. */
export function parseMachO(head: Buffer): MachO | undefined {
  if (head.length < 32 || head.readUInt32LE(0) !== MH_MAGIC_64) return undefined;
  const filetype = head.readUInt32LE(12);
  const ncmds = head.readUInt32LE(16);
  let p = 32;
  let sig: { dataoff: number; datasize: number } | undefined;
  let text: { off: number; size: number } | undefined;
  for (let i = 0; i < ncmds; i++) {
    if (p + 8 > head.length) return undefined;
    const cmd = head.readUInt32LE(p);
    const size = head.readUInt32LE(p + 4);
    if (size < 8 || p + size > head.length) return undefined;
    if (cmd === LC_CODE_SIGNATURE && size >= 16) sig = { dataoff: head.readUInt32LE(p + 8), datasize: head.readUInt32LE(p + 12) };
    if (
      cmd === LC_SEGMENT_64 &&
      size >= 56 &&
      head
        .subarray(p + 8, p + 24)
        .toString('latin1')
        .replace(/\0+$/, '') === '__TEXT'
    ) {
      text = { off: Number(head.readBigUInt64LE(p + 40)), size: Number(head.readBigUInt64LE(p + 48)) };
    }
    p += size;
  }
  if (!sig || !text) return undefined;
  return { ...sig, textOff: text.off, textSize: text.size, executable: filetype === MH_EXECUTE };
}

/** The signature blob for the first `m.dataoff` bytes, read page by page with `readPage`. */
async function buildSignature(m: MachO, readPage: (offset: number, length: number) => Promise<Buffer>): Promise<Buffer> {
  const size = signatureSize(m.dataoff);
  const pages = Math.ceil(m.dataoff / PAGE);
  const out = Buffer.alloc(size);
  const idOff = CODE_DIRECTORY;
  const hashOff = idOff + ID.length + 1;
  let p = 0;
  const u32 = (v: number) => {
    out.writeUInt32BE(v >>> 0, p);
    p += 4;
  };
  const u64 = (v: number) => {
    out.writeBigUInt64BE(BigInt(v), p);
    p += 8;
  };
  const u8 = (v: number) => {
    out[p++] = v;
  };
  // SuperBlob: embedded signature, one blob (the CodeDirectory) right after the index.
  u32(0xfade0cc0);
  u32(size);
  u32(1);
  u32(0); // slot: code directory
  u32(SUPER_BLOB + BLOB_INDEX);
  // CodeDirectory
  u32(0xfade0c02);
  u32(size - (SUPER_BLOB + BLOB_INDEX));
  u32(0x20400); // version
  u32(0x20002); // ad-hoc, linker-signed
  u32(hashOff);
  u32(idOff);
  u32(0); // special slots
  u32(pages);
  u32(m.dataoff); // code limit
  u8(HASH);
  u8(2); // SHA-256
  u8(0);
  u8(PAGE_BITS);
  u32(0);
  u32(0); // scatter
  u32(0); // team
  u32(0);
  u64(0); // code limit 64
  u64(m.textOff);
  u64(m.textSize);
  u64(m.executable ? 1 : 0); // main binary
  p += out.write(`${ID}\0`, p, 'latin1');
  for (let i = 0; i < pages; i++) {
    const at = i * PAGE;
    const page = await readPage(at, Math.min(PAGE, m.dataoff - at));
    createHash('sha256').update(page).digest().copy(out, p);
    p += HASH;
  }
  return out;
}

/** Re-sign the Mach-O binary at `path` in place; false when it is none that can be re-signed so. */
export async function resignMachO(path: string): Promise<boolean> {
  const fh = await open(path, 'r+');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(Math.min(size, 64 * 1024));
    await fh.read(head, 0, head.length, 0);
    const m = parseMachO(head);
    if (!m || signatureSize(m.dataoff) !== m.datasize || m.dataoff + m.datasize > size) return false;
    const sig = await buildSignature(m, async (offset, length) => {
      const b = Buffer.alloc(length);
      const { bytesRead } = await fh.read(b, 0, length, offset);
      return b.subarray(0, bytesRead);
    });
    await fh.write(sig, 0, sig.length, m.dataoff);
    return true;
  } finally {
    await fh.close();
  }
}
