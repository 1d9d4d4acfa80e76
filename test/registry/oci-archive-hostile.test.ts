/**
 * hostile tar headers in an `oci-archive:`. A negative size (octal text or GNU base-256,
 * with a valid checksum) used to send the indexer back to the same header forever; a negative pax `size`
 * that steps back to the pax header did the same. Each archive here is written byte by byte (ustar headers with correct checksums), and each
 * test has a short timeout so that a regression fails instead of hanging the suite.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { indexTar } from '../../src/registry/oci-archive.js';
import { openImage } from '../../src/registry/open.js';
import { tempDir, type Temp } from '../helpers/oci-builder.js';

const BLOCK = 512;
/** Long enough for a correct archive to be indexed, short enough that a loop fails fast. */
const TIMEOUT = 5_000;

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir('osimage-hostile-tar-');
});
afterAll(async () => {
  await tmp.cleanup();
});

/** A ustar header; `size` is the 12 raw bytes of the size field (octal text or base-256). */
function header(name: string, type: string, size: Buffer): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100, 'latin1');
  h.write('0000000\0', 108, 'latin1');
  h.write('0000000\0', 116, 'latin1');
  size.copy(h, 124, 0, 12);
  h.write('00000000000\0', 136, 'latin1');
  h.write(type, 156, 'latin1');
  h.write('ustar\0', 257, 'latin1');
  h.write('00', 263, 'latin1');
  // The checksum counts its own field as spaces.
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}

const octal = (text: string) => Buffer.from(`${text}\0`.padEnd(12, '\0'), 'latin1');

/** GNU base-256: the top bit marks it, the rest is a 95-bit two's complement number. */
function base256(n: bigint): Buffer {
  const b = Buffer.alloc(12);
  let v = BigInt.asUintN(96, n);
  for (let i = 11; i >= 0; i--) {
    b[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  b[0]! |= 0x80;
  return b;
}

function pad(data: Buffer): Buffer {
  return Buffer.concat([data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK)]);
}

function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  let len = body.length + 1;
  while (`${len}${body}`.length !== len) len++;
  return Buffer.from(`${len}${body}`);
}

/** A well-formed first entry, so that the hostile header is not at offset 0. */
const OK_DATA = Buffer.from('{"schemaVersion":2,"manifests":[]}\n');
const okEntry = () => Buffer.concat([header('oci-layout', '0', octal(OK_DATA.length.toString(8).padStart(11, '0'))), pad(OK_DATA)]);
const END = Buffer.alloc(2 * BLOCK);

async function archiveOf(name: string, ...parts: Buffer[]): Promise<string> {
  const file = join(tmp.dir, name);
  // Room after the hostile header, so that a negative size is not caught as "past the end" by luck.
  await writeFile(file, Buffer.concat([...parts, Buffer.alloc(8 * BLOCK), END]));
  return file;
}

/** A pax header giving `size` for the file entry after it (whose own header says 0). */
function paxSizedArchive(name: string, size: string): Promise<string> {
  const records = paxRecord('size', size);
  const paxHeader = header('PaxHeaders/x', 'x', octal(records.length.toString(8).padStart(11, '0')));
  return archiveOf(name, okEntry(), paxHeader, pad(records), header('blobs/x', '0', octal('00000000000')));
}

describe('oci-archive: negative and absurd tar sizes are refused, naming the archive and the header offset', () => {
  test('the base-256 encoding decodes as GNU tar writes it (sanity check of this test)', async () => {
    const file = await archiveOf('positive.tar', okEntry(), header('a', '0', base256(5n)), pad(Buffer.from('hello')));
    const index = await indexTar(file);
    expect(index.get('a')).toEqual({ offset: 3 * BLOCK, size: 5 });
    expect(index.get('oci-layout')).toEqual({ offset: BLOCK, size: OK_DATA.length });
  });

  test.each([
    ['octal text -0000001000, a file', 'neg-text-file.tar', () => header('blobs/x', '0', octal('-0000001000'))],
    ['octal text -0000001000, a folder', 'neg-text-dir.tar', () => header('blobs/', '5', octal('-0000001000'))],
    ['base-256 -512, a file', 'neg-b256-file.tar', () => header('blobs/x', '0', base256(-512n))],
    ['base-256 -1, a symlink', 'neg-b256-link.tar', () => header('blobs/l', '2', base256(-1n))],
  ])(
    'a negative size (%s)',
    async (_what, name, hostile) => {
      const file = await archiveOf(name, okEntry(), hostile());
      await expect(indexTar(file)).rejects.toThrow(/^tar header at offset 1024 has a negative size \(-\d+\)$/);
      const source = await openImage(`oci-archive:${file}`);
      await expect(source.manifest()).rejects.toThrow(`cannot read oci-archive:${file}: tar header at offset 1024 has a negative size`);
      await source.close();
    },
    TIMEOUT,
  );

  test(
    'a negative pax size (one that steps back onto the pax header itself)',
    async () => {
      const file = await paxSizedArchive('neg-pax.tar', '-2000');
      await expect(indexTar(file)).rejects.toThrow('pax header at offset 1024 has a negative size (-2000)');
      const source = await openImage(`oci-archive:${file}`);
      await expect(source.manifest()).rejects.toThrow(`cannot read oci-archive:${file}: pax header at offset 1024 has a negative size`);
      await source.close();
    },
    TIMEOUT,
  );

  test.each([
    ['a base-256 size beyond 2^53', 'huge-b256.tar', () => header('blobs/x', '5', base256(1n << 90n)), /has an invalid size/],
    [
      'a size past the end of the archive',
      'past-end.tar',
      () => header('blobs/x', '5', octal('77777777777')),
      /past the end of the archive/,
    ],
    ['a size that is not octal', 'not-octal.tar', () => header('blobs/x', '0', octal('00000000009')), /has an invalid size \(NaN\)/],
  ])(
    'an absurd size: %s',
    async (_what, name, hostile, message) => {
      const file = await archiveOf(name, okEntry(), hostile());
      await expect(indexTar(file)).rejects.toThrow(/^tar header at offset 1024 /);
      await expect(indexTar(file)).rejects.toThrow(message);
    },
    TIMEOUT,
  );

  test(
    'a pax size past the end names the entry header it sizes',
    async () => {
      const file = await paxSizedArchive('pax-past-end.tar', '99999999999999');
      await expect(indexTar(file)).rejects.toThrow(
        /^tar header \(sized by pax\) at offset 2048 has a size of 99999999999999 bytes, past the end/,
      );
    },
    TIMEOUT,
  );
});
