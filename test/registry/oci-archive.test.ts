/**
 * The oci-archive index: entry offsets found by reading tar headers only, checked against tar-stream's own
 * reading of the same archives (written by tar-stream, and by GNU tar in gnu, posix and ustar formats).
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { extract } from 'tar-stream';
import { createReadStream } from 'node:fs';
import { indexTar } from '../../src/registry/oci-archive.js';
import { openImage } from '../../src/registry/open.js';
import { loadReleaseInfo } from '../../src/release/info.js';
import { tarBytes } from '../../src/release/build-layer.js';
import { entry, releaseImage, tempDir, type Temp } from '../helpers/oci-builder.js';
import { writeOciArchive, writeOciLayout } from '../../src/registry/oci-write.js';

const run = promisify(execFile);
let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

/** name → bytes, as tar-stream reads the archive. */
async function reference(file: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const ex = extract();
  ex.on('entry', (h, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c) => chunks.push(c as Buffer));
    stream.on('end', () => {
      if (h.type === 'file') out.set(h.name.replace(/^\.\//, ''), Buffer.concat(chunks));
      next();
    });
  });
  await new Promise<void>((resolve, reject) => {
    ex.on('finish', resolve);
    ex.on('error', reject);
    createReadStream(file).pipe(ex as unknown as NodeJS.WritableStream);
  });
  return out;
}

async function viaIndex(file: string): Promise<Map<string, Buffer>> {
  const bytes = await readFile(file);
  const out = new Map<string, Buffer>();
  for (const [name, span] of await indexTar(file)) out.set(name, bytes.subarray(span.offset, span.offset + span.size));
  return out;
}

const long = `${'d'.repeat(60)}/${'e'.repeat(60)}/${'f'.repeat(120)}.yaml`;
const files: Record<string, Buffer> = {
  'small.txt': Buffer.from('hi\n'),
  empty: Buffer.alloc(0),
  'exact-block.bin': Buffer.alloc(512, 7),
  'big.bin': Buffer.alloc(70_000, 3),
  [long]: Buffer.from('long name'),
};

describe('indexTar', () => {
  test('tar-stream archives (ustar prefix and pax long names)', async () => {
    const file = join(tmp.dir, 'ts.tar');
    await writeFile(
      file,
      await tarBytes([
        { name: 'dir', type: 'directory' },
        { name: 'dir/link', type: 'symlink', linkname: 'x' },
        ...Object.entries(files).map(([name, data]) => ({ name, data })),
      ]),
    );
    const got = await viaIndex(file);
    expect(got).toEqual(await reference(file));
    expect([...got.keys()].sort()).toEqual(Object.keys(files).sort());
  });

  test.each(['gnu', 'posix', 'ustar'])('GNU tar --format=%s, with ./ names', async (format) => {
    const src = join(tmp.dir, `src-${format}`);
    for (const [name, data] of Object.entries(files)) {
      if (format === 'ustar' && name === long) continue; // ustar cannot store a 120-character file name
      await mkdir(join(src, name, '..'), { recursive: true });
      await writeFile(join(src, name), data);
    }
    const file = join(tmp.dir, `${format}.tar`);
    await run('tar', ['-C', src, `--format=${format}`, '-cf', file, '.']);
    const got = await viaIndex(file);
    expect(got).toEqual(await reference(file));
    expect(got.get('big.bin')?.length).toBe(70_000);
    if (format !== 'ustar') expect(got.get(long)?.toString()).toBe('long name');
  });

  test('a corrupt header is an error, not a guess', async () => {
    const file = join(tmp.dir, 'corrupt.tar');
    const bytes = await tarBytes([{ name: 'a', data: 'x' }]);
    bytes[0] = 'b'.charCodeAt(0); // the checksum no longer matches
    await writeFile(file, bytes);
    await expect(indexTar(file)).rejects.toThrow(/checksum/);
  });

  test('an oci-archive made by GNU tar from a layout folder is read', async () => {
    const img = await releaseImage();
    const dir = join(tmp.dir, 'layout-for-tar');
    await writeOciLayout(dir, [entry(img, '4.13.1')]);
    const file = join(tmp.dir, 'gnu-layout.tar');
    await run('tar', ['-C', dir, '-cf', file, '.']);
    const info = await loadReleaseInfo('x', await openImage(`oci-archive:${file}:4.13.1`));
    expect(info.references.metadata.name).toBe('4.13.1');
  });
});

describe('the oci-archive writer', () => {
  test('streams a blob into the archive, and leaves no file when a blob stream fails', async () => {
    const img = await releaseImage();
    const [first, ...rest] = img.blobs;
    const streamed = { descriptor: first!.descriptor, open: async () => Readable.from([first!.bytes]) };
    const good = join(tmp.dir, 'streamed.tar');
    await writeOciArchive(good, [{ top: img, blobs: [streamed, ...rest], tag: 'v' }]);
    expect((await reference(good)).get(`blobs/sha256/${first!.descriptor.digest.slice(7)}`)).toEqual(first!.bytes);

    const dir = join(tmp.dir, 'failing');
    await mkdir(dir);
    const broken = {
      descriptor: first!.descriptor,
      open: async () =>
        new Readable({
          read() {
            this.destroy(new Error('connection reset'));
          },
        }),
    };
    await expect(writeOciArchive(join(dir, 'r.tar'), [{ top: img, blobs: [broken, ...rest], tag: 'v' }])).rejects.toThrow(
      /cannot write .*r\.tar: connection reset/,
    );
    expect(await readdir(dir)).toEqual([]);
  });
});
