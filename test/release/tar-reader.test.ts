/**
 * The streaming tar reader (release/tar-reader.ts) and the header helpers (oci/tar-header.ts), read as Go's
 * archive/tar reads a layer: archives written by GNU tar in its four formats, the same bytes cut into chunks of any
 * size, streamed entries with slow, early-leaving or absent consumers, 'stop', the order of asynchronous entries,
 * and hand-built headers for each rule (prefix, GNU long names, pax, V7, number and checksum forms, the end marker,
 * archives cut short).
 */
import { execFileSync } from 'node:child_process';
import { link, lstat, mkdir, open, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_EXTENDED_HEADER_BYTES, type TarHeader, checksumOk, decodeHeader, numeric } from '../../src/oci/tar-header.js';
import { tarBytes } from '../../src/release/build-layer.js';
import { type EntryAction, type EntryStream, TarReader } from '../../src/release/tar-reader.js';
import { type Temp, tempDir } from '../helpers/oci-builder.js';
import { prng } from '../infra/prng.mjs';

const BLOCK = 512;
/**
 * A reader that takes no chunk for this long has hung (a chunk here is taken within milliseconds; the margin is for a
 * loaded machine): the feed says so and the test goes on, so that one hang does not hide what the other chunkings do.
 */
const HUNG_MS = 10_000;

const randomBytes = (n: number, seed: number): Buffer => {
  const r = prng(seed);
  return Buffer.from(Array.from({ length: n }, () => Math.floor(r() * 256)));
};

/** How the tar is cut into the chunks written to the reader; its name says so in failure messages. */
type Split = (b: Buffer) => Buffer[];
const named = (name: string, f: Split): Split => Object.defineProperty(f, 'name', { value: name });
const whole = named('whole', (b) => [b]);
const bytes = named('1-byte chunks', (b) => Array.from({ length: b.length }, (_, i) => b.subarray(i, i + 1)));
const sized = (n: number) =>
  named(`${n}-byte chunks`, (b) => Array.from({ length: Math.ceil(b.length / n) }, (_, i) => b.subarray(i * n, (i + 1) * n)));
const random = (seed: number) =>
  named(`random chunks (seed ${seed})`, (b) => {
    const r = prng(seed);
    const out: Buffer[] = [];
    for (let i = 0; i < b.length; ) {
      const n = 1 + Math.floor(r() * 1500);
      out.push(b.subarray(i, i + n));
      i += n;
    }
    return out;
  });

type Entry = Omit<TarHeader, 'mtime'> & { mtime: number; data: Buffer | undefined };

type Handlers = ConstructorParameters<typeof TarReader>[0];

/** Pipe the parts into a reader; the reader's error, if any, as its message. */
async function feed(
  parts: Buffer[],
  wants: Handlers['wants'],
  onEntry: Handlers['onEntry'],
  onStop: Handlers['onStop'] = () => undefined,
): Promise<string | undefined> {
  const reader = new TarReader({ wants, onEntry, onStop });
  const source = Readable.from(parts);
  let timer: NodeJS.Timeout | undefined;
  // Counted from the last chunk the reader took: one that neither takes more, finishes nor fails has hung.
  const hung = new Promise<string>((resolve) => {
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => resolve('the reader hung'), HUNG_MS);
    };
    source.on('data', arm);
    arm();
  });
  try {
    return await Promise.race([pipeline(source, reader).then(() => undefined), hung]);
  } catch (err) {
    return (err as Error).message;
  } finally {
    clearTimeout(timer);
    reader.destroy();
  }
}

const toEntry = (h: TarHeader, data: Buffer | undefined): Entry => ({ ...h, mtime: h.mtime.getTime(), data });

/** Every entry with its bytes (gathered, streamed or skipped as `take` says), and the error if any. */
async function collect(
  tar: Buffer,
  split: Split = whole,
  take: (h: TarHeader, i: number) => boolean | 'stream' = () => true,
): Promise<{ entries: Entry[]; error: string | undefined }> {
  const entries: Entry[] = [];
  const error = await feed(
    split(tar),
    (h) => take(h, entries.length),
    (h, data, stream) => {
      if (!stream) return void entries.push(toEntry(h, data));
      return (async () => {
        const pieces: Buffer[] = [];
        for await (const p of stream) pieces.push(Buffer.from(p));
        entries.push(toEntry(h, Buffer.concat(pieces)));
      })();
    },
  );
  return { entries, error };
}

interface H {
  name?: string;
  type?: string;
  size?: number | Buffer;
  link?: string;
  magic?: 'ustar' | 'gnu' | 'v7';
  prefix?: string;
  mtime?: Buffer;
  signed?: boolean;
}

const oct = (n: number, width: number) => `${n.toString(8).padStart(width - 1, '0')}\0`;

/** One 512-byte header block with a correct checksum (summed signed when `signed`). */
function hdr(o: H = {}): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(o.name ?? 'f', 0, 100, 'utf8');
  h.write('0000644\x000000000\x000000000\0', 100, 'latin1'); // mode, uid, gid
  if (Buffer.isBuffer(o.size)) o.size.copy(h, 124, 0, 12);
  else h.write(oct(o.size ?? 0, 12), 124, 'latin1');
  (o.mtime ?? Buffer.from(oct(1_700_000_000, 12), 'latin1')).copy(h, 136, 0, 12);
  h[156] = (o.type ?? '0').charCodeAt(0);
  if (o.link) h.write(o.link, 157, 100, 'utf8');
  if ((o.magic ?? 'ustar') === 'ustar') h.write('ustar\x0000', 257, 'latin1');
  if (o.magic === 'gnu') h.write('ustar  \0', 257, 'latin1');
  if (o.prefix) h.write(o.prefix, 345, 155, 'utf8');
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += o.signed && b >= 128 ? b - 256 : b;
  h.write(oct(sum, 7), 148, 'latin1');
  h[155] = 0x20;
  return h;
}

const pad = (d: Buffer) => Buffer.concat([d, Buffer.alloc((BLOCK - (d.length % BLOCK)) % BLOCK)]);
/** A header and its padded data; the size field says the data's length unless `o.size` is given. */
const ent = (o: H, data: string | Buffer = '') => {
  const d = Buffer.from(data);
  return Buffer.concat([hdr({ size: d.length, ...o }), pad(d)]);
};
const END = Buffer.alloc(2 * BLOCK);

function paxData(records: Record<string, string>): Buffer {
  return Buffer.concat(
    Object.entries(records).map(([k, v]) => {
      const body = ` ${k}=${v}\n`;
      let len = Buffer.byteLength(body) + 1;
      while (String(len).length + Buffer.byteLength(body) !== len) len++;
      return Buffer.from(`${len}${body}`);
    }),
  );
}

/** GNU base-256: the top bit marks it, the rest is a two's complement number. */
function base256(n: bigint, width = 12): Buffer {
  const b = Buffer.alloc(width);
  let v = BigInt.asUintN(width * 8, n);
  for (let i = width - 1; i >= 0; i--) {
    b[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  b[0]! |= 0x80;
  return b;
}

const names = (r: { entries: Entry[] }) => r.entries.map((e) => e.name);

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir('osimage-tar-reader-');
});
afterAll(async () => {
  await tmp.cleanup();
});

let trees = 0;
const LONG_DIR = `d/${'x'.repeat(60)}`;
const LONG_FILE = `${LONG_DIR}/${'y'.repeat(80)}`;
const LONG_TARGET = 'z'.repeat(150);

/** A tree on disk and GNU tar's archive of it in `format` (v7 and ustar hold no names their fields cannot). */
async function gnuTar(format: 'gnu' | 'posix' | 'ustar' | 'v7'): Promise<{ dir: string; tar: Buffer }> {
  const dir = join(tmp.dir, `${format}-${trees++}`);
  await mkdir(join(dir, 'd', 'sub'), { recursive: true });
  await writeFile(join(dir, 'd', 'empty'), '');
  await writeFile(join(dir, 'd', 'small.txt'), 'hello\n');
  await writeFile(join(dir, 'd', 'blob.bin'), randomBytes(20_001, 7));
  await link(join(dir, 'd', 'blob.bin'), join(dir, 'd', 'hard'));
  await symlink('small.txt', join(dir, 'd', 'short-link'));
  if (format !== 'v7') {
    await mkdir(join(dir, LONG_DIR), { recursive: true });
    await writeFile(join(dir, LONG_FILE), 'deep\n');
  }
  if (format === 'gnu' || format === 'posix') await symlink(LONG_TARGET, join(dir, 'd', 'long-link'));
  const args = [`--format=${format}`, '--sort=name', '--mtime=@1700000000', '--owner=0', '--group=0', '--numeric-owner'];
  const tar = execFileSync('tar', [...args, '-cf', '-', '-C', dir, 'd']);
  return { dir, tar };
}

describe('archives written by GNU tar', () => {
  for (const format of ['gnu', 'posix', 'ustar', 'v7'] as const) {
    test(`--format=${format}: names as tar -t lists them, types, sizes and bytes as on disk`, async () => {
      const { dir, tar } = await gnuTar(format);
      const listed = execFileSync('tar', ['-tf', '-'], { input: tar }).toString().trimEnd().split('\n');
      const r = await collect(tar);
      expect(r.error).toBeUndefined();
      expect(names(r)).toEqual(listed);
      expect(names(r)).toContain('d/hard');
      if (format !== 'v7') expect(names(r)).toContain(LONG_FILE);
      for (const e of r.entries) {
        const path = join(dir, e.name);
        const st = await lstat(path);
        expect(e.mtime, e.name).toBe(1_700_000_000_000);
        expect(e.mode & 0o7777, e.name).toBe(st.mode & 0o7777);
        if (e.type === 'link') {
          expect(e.size).toBe(0);
          expect((await stat(join(dir, e.linkname!))).ino).toBe(st.ino);
        } else if (st.isSymbolicLink()) {
          expect([e.type, e.size, e.linkname]).toEqual(['symlink', 0, await readlink(path)]);
        } else if (st.isDirectory()) {
          expect([e.type, e.size]).toEqual(['directory', 0]);
        } else {
          expect(e.type).toBe('file');
          expect(e.data).toEqual(await readFile(path));
          expect(e.size).toBe(st.size);
        }
      }
      if (format === 'gnu' || format === 'posix') {
        expect(r.entries.find((e) => e.name === 'd/long-link')?.linkname).toBe(LONG_TARGET);
      }
    });
  }

  // Go reads an old GNU sparse header ('S') with its extension blocks (the map goes on past 4 regions when byte 482
  // is set), then the data; the entries after such a file must be where tar -t finds them.
  for (const holes of [3, 10]) {
    test(`--sparse, a file of ${holes} regions (over 4: a sparse map in extension blocks): the next entry reads`, async () => {
      const dir = join(tmp.dir, `sparse-${holes}`);
      await mkdir(dir);
      const fh = await open(join(dir, 's.bin'), 'w');
      for (let i = 0; i < holes; i++) await fh.write(Buffer.alloc(100, 0x78), 0, 100, i * 65_536);
      await fh.truncate(holes * 65_536);
      await fh.close();
      await writeFile(join(dir, 'z.txt'), 'after\n');
      const tar = execFileSync('tar', ['--format=gnu', '--sparse', '-cf', '-', '-C', dir, 's.bin', 'z.txt']);
      expect([String.fromCharCode(tar[156]!), tar[482]]).toEqual(['S', holes > 4 ? 1 : 0]);
      const r = await collect(tar);
      expect(r.error).toBeUndefined();
      expect(r.entries.map((e) => [e.name, e.name === 'z.txt' ? e.data?.toString() : ''])).toEqual([
        ['s.bin', ''],
        ['z.txt', 'after\n'],
      ]);
    });
  }

  test('1-byte, fixed and random (seeded) chunks give the same entries as one chunk, gathered, streamed or skipped', async () => {
    const { tar } = await gnuTar('gnu');
    const mixed = (_h: TarHeader, i: number) => [true, 'stream', false][i % 3] as boolean | 'stream';
    const want = await collect(tar, whole, mixed);
    expect(want.error).toBeUndefined();
    expect(want.entries.length).toBeGreaterThan(8);
    expect(want.entries.filter((e) => e.data && e.data.length > 0).length).toBeGreaterThan(1);
    for (const split of [bytes, sized(511), sized(513), random(1), random(2), random(3)]) {
      expect(await collect(tar, split, mixed), split.name).toEqual(want);
    }
    expect(await collect(tar, random(4))).toEqual(await collect(tar));
  });
});

describe('streamed entries', () => {
  const big = randomBytes(100_000, 3);
  const tar = Buffer.concat([ent({ name: 'big' }, big), ent({ name: 'next' }, 'after'), END]);

  test('a slow consumer (awaiting between pieces) gets every byte, then the next entry', async () => {
    for (const split of [whole, sized(1000), random(4)]) {
      let got = Buffer.alloc(0);
      const seen: Entry[] = [];
      const error = await feed(
        split(tar),
        (h) => (h.name === 'big' ? 'stream' : true),
        async (h, data, stream) => {
          if (!stream) return void seen.push(toEntry(h, data));
          for await (const p of stream) {
            for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
            got = Buffer.concat([got, p]);
          }
        },
      );
      expect(error, split.name).toBeUndefined();
      expect(got.equals(big), split.name).toBe(true);
      expect(seen.map((e) => [e.name, e.data?.toString()])).toEqual([['next', 'after']]);
    }
  });

  /** The entries after `big`, when its onEntry does `consume` with its stream. */
  async function skipsTo(split: Split, consume: (s: EntryStream) => Promise<void> | void) {
    const seen: string[] = [];
    const error = await feed(
      split(tar),
      (h) => (h.name === 'big' ? 'stream' : true),
      (h, data, stream) => {
        if (stream) return consume(stream) as Promise<undefined> | undefined;
        seen.push(`${h.name}=${data}`);
      },
    );
    return { error, seen };
  }
  const OK = { error: undefined, seen: ['next=after'] };

  test('leaving the loop early (break) skips the rest of the entry', async () => {
    for (const split of [whole, sized(1000), bytes]) {
      let pieces = 0;
      const seen = await skipsTo(split, async (s) => {
        for await (const _ of s) if (++pieces >= 2) break;
      });
      expect.soft(seen, split.name).toEqual(OK);
    }
  });

  test('onEntry settling before the bytes are read (in part or at all) skips the rest', async () => {
    // Whole, the entry's bytes are all past the reader (queued for the consumer) when onEntry settles.
    for (const split of [whole, sized(1000), random(5)]) {
      expect.soft(await skipsTo(split, () => undefined), split.name).toEqual(OK);
      const half = await skipsTo(split, async (s) => {
        const it = s[Symbol.asyncIterator]();
        await it.next();
      });
      expect.soft(half, split.name).toEqual(OK);
    }
  });

  test('an empty streamed entry ends its loop at once', async () => {
    const empty = Buffer.concat([ent({ name: 'big' }), ent({ name: 'next' }, 'after'), END]);
    let pieces = 0;
    const seen: string[] = [];
    const error = await feed(
      [empty],
      (h) => (h.name === 'big' ? 'stream' : true),
      async (h, data, stream) => {
        if (stream) for await (const _ of stream) pieces++;
        else seen.push(`${h.name}=${data}`);
      },
    );
    expect([error, pieces, seen]).toEqual([undefined, 0, ['next=after']]);
  });
});

describe("'stop' and the order of entries", () => {
  const tar = Buffer.concat([ent({ name: 'a' }, 'A'), ent({ name: 'b' }, 'B'.repeat(3000)), ent({ name: 'c' }, 'C'), END]);

  async function stopAt(
    split: Split,
    parts: Buffer[],
    take: boolean | 'stream',
    act: (stream?: EntryStream) => EntryAction | Promise<EntryAction>,
  ) {
    const seen: string[] = [];
    let stops = 0;
    const error = await feed(
      split(Buffer.concat(parts)),
      (h) => (h.name === 'b' ? take : true),
      (h, _d, stream) => {
        seen.push(h.name);
        if (stops > 0) throw new Error('an entry after stop');
        return h.name === 'b' ? act(stream) : undefined;
      },
      () => void stops++,
    );
    return { error, seen, stops };
  }

  // What follows the stop is a header that does not parse: it must not be read.
  const garbage = Buffer.alloc(BLOCK, 0x41);

  const midStream = async (s?: EntryStream): Promise<EntryAction> => {
    for await (const _ of s!) return 'stop';
    return 'stop';
  };
  const stops: Array<[string, boolean | 'stream', (s?: EntryStream) => EntryAction | Promise<EntryAction>]> = [
    ['sync', true, () => 'stop'],
    ['async', false, async (): Promise<EntryAction> => 'stop'],
    ['from a stream mid-entry', 'stream', midStream],
    ['from a stream it never reads', 'stream', () => 'stop'],
  ];
  for (const [how, take, act] of stops) {
    test(`'stop' (${how}) calls onStop once and parses nothing more`, async () => {
      for (const split of [whole, bytes, random(6)]) {
        expect.soft(await stopAt(split, [tar, garbage], take, act), split.name).toEqual({ error: undefined, seen: ['a', 'b'], stops: 1 });
      }
    });
  }

  test('the next entry is not read before the previous onEntry settles', async () => {
    for (const split of [whole, sized(700)]) {
      const log: string[] = [];
      const error = await feed(
        split(tar),
        (h) => {
          log.push(`wants ${h.name}`);
          return h.name === 'b' ? 'stream' : true;
        },
        async (h, _d, stream) => {
          log.push(`start ${h.name}`);
          await new Promise((r) => setTimeout(r, 5));
          if (stream) for await (const _ of stream) await new Promise((r) => setImmediate(r));
          await new Promise((r) => setTimeout(r, 5));
          log.push(`end ${h.name}`);
        },
      );
      expect(error).toBeUndefined();
      expect(log).toEqual(['a', 'b', 'c'].flatMap((n) => [`wants ${n}`, `start ${n}`, `end ${n}`]));
    }
  });

  test('an onEntry that rejects fails the reader with its error', async () => {
    const error = await feed(
      [tar],
      () => true,
      async () => Promise.reject(new Error('disk full')),
    );
    expect(error).toBe('disk full');
  });
});

describe('headers, as Go reads them', () => {
  const one = async (...parts: Buffer[]) => {
    const r = await collect(Buffer.concat([...parts, END]), whole, () => true);
    expect(r.error).toBeUndefined();
    return r.entries;
  };

  test('ustar joins the name prefix; GNU headers have no prefix (their 345.. holds times)', async () => {
    const [u, g] = await one(ent({ name: 'c.txt', prefix: 'a/b' }, 'u'), ent({ name: 'g.txt', magic: 'gnu', prefix: '14537016537' }, 'g'));
    expect([u?.name, u?.data?.toString()]).toEqual(['a/b/c.txt', 'u']);
    expect([g?.name, g?.data?.toString()]).toEqual(['g.txt', 'g']);
  });

  test("GNU 'L' long names and 'K' long links apply to the next entry only", async () => {
    const long = `${'n'.repeat(300)}/file`;
    const target = `${'t'.repeat(200)}`;
    const got = await one(
      ent({ name: '././@LongLink', type: 'L', magic: 'gnu' }, `${long}\0`),
      ent({ name: '././@LongLink', type: 'K', magic: 'gnu' }, `${target}\0`),
      ent({ name: 'short', type: '2', magic: 'gnu', link: 'cut' }),
      ent({ name: 'plain', magic: 'gnu' }, 'p'),
    );
    expect(got.map((e) => [e.name, e.type, e.linkname])).toEqual([
      [long, 'symlink', target],
      ['plain', 'file', undefined],
    ]);
  });

  test("pax 'x' sets path, linkpath, size and mtime of the next entry; a global 'g' is ignored", async () => {
    const x = (r: Record<string, string>) => ent({ name: 'PaxHeaders/x', type: 'x' }, paxData(r));
    const got = await one(
      ent({ name: 'PaxHeaders/g', type: 'g' }, paxData({ path: 'global-name', mtime: '5' })),
      x({ path: `é/long/path/${'p'.repeat(200)}`, mtime: '1234567890.75' }),
      ent({ name: 'cut' }, 'one'),
      x({ linkpath: 'the/target', path: 'sl' }),
      ent({ name: 'x', type: '2' }),
      x({ size: '5' }),
      ent({ name: 'sized', size: 0 }, 'abcde'),
      ent({ name: 'last' }, 'z'),
    );
    expect(got.map((e) => [e.name, e.type, e.size, e.linkname, e.data?.toString()])).toEqual([
      [`é/long/path/${'p'.repeat(200)}`, 'file', 3, undefined, 'one'],
      ['sl', 'symlink', 0, 'the/target', ''],
      ['sized', 'file', 5, undefined, 'abcde'],
      ['last', 'file', 1, undefined, 'z'],
    ]);
    expect(got[0]?.mtime).toBe(1_234_567_890_750);
    expect(got[3]?.mtime).toBe(1_700_000_000_000);
  });

  test('a GNU long name wins over a pax path for the same entry, as in Go', async () => {
    const got = await one(
      ent({ name: 'PaxHeaders/x', type: 'x' }, paxData({ path: 'from-pax' })),
      ent({ name: '././@LongLink', type: 'L', magic: 'gnu' }, 'from-gnu\0'),
      ent({ name: 'short', magic: 'gnu' }, 'd'),
    );
    expect(got.map((e) => e.name)).toEqual(['from-gnu']);
  });

  test('malformed pax records, and NULs in names they give, are errors as in Go', async () => {
    const x = (body: string) => ent({ name: 'PaxHeaders/x', type: 'x' }, body);
    const cases: Array<[string, string]> = [
      ['12 path=a\0b\n', 'a NUL in path'],
      ['7 a=b\n', 'length "7"'],
      ['3 =\n', 'length "3"'],
      ['11 path=ab', 'length "11"'],
      ['8 path=a ', 'it does not end with a newline'],
      ['6 abc\n', 'no ='],
      ['x path=a\n', 'length "x"'],
    ];
    for (const [body, why] of cases) {
      const r = await collect(Buffer.concat([x(body), ent({ name: 'f' }, 'z'), END]));
      expect(r.error, JSON.stringify(body)).toBe(`invalid pax record at byte 0 of an extended header: ${why}`);
      expect(r.entries).toEqual([]);
    }
  });

  test('V7 headers (no magic), octal with spaces and NULs, base-256 sizes, signed checksums', async () => {
    const got = await one(
      ent({ name: 'v7', magic: 'v7' }, 'old'),
      ent({ name: 'spaced', size: Buffer.from('  00000004 \0', 'latin1') }, 'four'),
      ent({ name: 'b256', size: base256(6n) }, 'sixsix'),
      ent({ name: 'é-signed', signed: true }, 's'),
      ent({ name: 'é-unsigned' }, 'u'),
    );
    const want = ['v7 3 old', 'spaced 4 four', 'b256 6 sixsix', 'é-signed 1 s', 'é-unsigned 1 u'];
    expect(got.map((e) => `${e.name} ${e.size} ${e.data}`)).toEqual(want);
  });

  test("typeflag '\\0' ending in '/' is a directory; header-only types carry no data whatever their size field says", async () => {
    const got = await one(
      hdr({ name: 'olddir/', type: '\0', size: 0 }),
      ent({ name: 'oldfile', type: '\0' }, 'f'),
      ...['1', '2', '3', '4', '5', '6'].map((t) => hdr({ name: `t${t}`, type: t, size: 700, link: 'x' })),
      ent({ name: 'after' }, 'ok'),
    );
    const headerOnly = ['link', 'symlink', 'character-device', 'block-device', 'directory', 'fifo'].map((t, i) => `t${i + 1} ${t} 0`);
    expect(got.map((e) => `${e.name} ${e.type} ${e.size}`)).toEqual([
      'olddir/ directory 0',
      'oldfile file 1',
      ...headerOnly,
      'after file 2',
    ]);
  });

  test('an unknown type flag has no type, and its data is skipped by its size', async () => {
    const got = await one(ent({ name: 'sparse', type: 'S' }, 'x'.repeat(600)), ent({ name: 'after' }, 'ok'));
    expect(got.map((e) => `${e.name} ${e.type} ${e.size} ${e.data?.length}`)).toEqual(['sparse undefined 600 600', 'after file 2 2']);
  });

  test('two zero blocks end the archive (nothing after is read); a lone zero block or none at all is a clean end', async () => {
    const a = ent({ name: 'a' }, 'A');
    const r = await collect(Buffer.concat([a, END, Buffer.alloc(BLOCK, 0x41)]));
    expect([r.error, names(r)]).toEqual([undefined, ['a']]);
    for (const tail of [Buffer.alloc(0), Buffer.alloc(BLOCK)]) {
      for (const split of [whole, bytes]) {
        const r = await collect(Buffer.concat([a, ent({ name: 'b' }, 'B'.repeat(512)), tail]), split);
        expect([r.error, names(r)]).toEqual([undefined, ['a', 'b']]);
      }
    }
  });

  test('a lone zero block followed by a header is an error naming its byte', async () => {
    const r = await collect(Buffer.concat([ent({ name: 'a' }, 'A'), Buffer.alloc(BLOCK), ent({ name: 'b' }), END]));
    expect(r.error).toBe('invalid tar header at byte 1536: a zero block followed by more entries');
    expect(names(r)).toEqual(['a']);
  });

  test("a tar cut inside a header, an entry's data or its padding: 'Unexpected end of data'", async () => {
    const full = Buffer.concat([ent({ name: 'a' }, 'A'), ent({ name: 'b' }, 'B'.repeat(1000))]);
    // Cut in the padding, b's bytes are all there: b comes, then the error (as Go's Next, then its Read).
    for (const [cut, n] of [
      [1124, 1],
      [1535, 1],
      [1546, 1],
      [2535, 1],
      [2537, 2],
      [full.length - 1, 2],
    ] as const) {
      for (const split of [whole, bytes]) {
        const r = await collect(full.subarray(0, cut), split);
        expect([r.error, names(r)], String(cut)).toEqual([`Unexpected end of data at byte ${cut}`, ['a', 'b'].slice(0, n)]);
      }
    }
    const ext = await collect(ent({ name: 'PaxHeaders/x', type: 'x' }, paxData({ path: 'p' })).subarray(0, 600));
    expect(ext.error).toBe('Unexpected end of data at byte 600');
  });

  test("a tar that ends where the last entry's padding would start is whole, as Go reads it", async () => {
    const full = Buffer.concat([ent({ name: 'a' }, 'A'), ent({ name: 'b' }, 'B'.repeat(1000))]);
    for (const split of [whole, bytes]) {
      const r = await collect(full.subarray(0, 2536), split);
      expect([r.error, names(r)], split.name).toEqual([undefined, ['a', 'b']]);
    }
  });

  test('bad checksums, bad and negative sizes are errors naming the header and its byte', async () => {
    const a = ent({ name: 'a' }, 'A');
    const bad = hdr({ name: 'b' });
    bad[0] = 0x63;
    const cases: Array<[Buffer, string]> = [
      [bad, 'invalid tar header at byte 1024: its checksum does not match'],
      [hdr({ name: 'b', size: Buffer.from('12x\0', 'latin1') }), 'invalid tar header at byte 1024: b has an invalid size (NaN)'],
      [hdr({ name: 'b', size: Buffer.from('-1\0', 'latin1') }), 'invalid tar header at byte 1024: b has an invalid size (-1)'],
      [hdr({ name: 'b', size: base256(-512n) }), 'invalid tar header at byte 1024: b has an invalid size (-512)'],
      [hdr({ name: 'b', size: base256(2n ** 60n) }), `invalid tar header at byte 1024: b has an invalid size (${2 ** 60})`],
      [hdr({ name: 'x', type: 'x', size: base256(-1n) }), 'invalid tar header at byte 1024: invalid size'],
    ];
    for (const [h, message] of cases) {
      const r = await collect(Buffer.concat([a, h, Buffer.alloc(4 * BLOCK, 0x42), END]));
      expect([r.error, names(r)]).toEqual([message, ['a']]);
    }
    // A negative pax size, applied to the next header: refused, never a step back.
    const negPax = await collect(Buffer.concat([a, ent({ name: 'x', type: 'x' }, paxData({ size: '-1024' })), hdr({ name: 'b' }), END]));
    expect(negPax.error).toBe('invalid tar header at byte 2048: b has an invalid size (-1024)');
  });

  test('extended headers up to 1 MiB are read; a larger one is refused at its header', async () => {
    const name = 'n'.repeat(MAX_EXTENDED_HEADER_BYTES - 1);
    const ok = await collect(
      Buffer.concat([ent({ name: '././@LongLink', type: 'L', magic: 'gnu' }, `${name}\0`), ent({ name: 'cut' }, 'd'), END]),
    );
    expect([ok.error, ok.entries[0]?.name.length]).toEqual([undefined, name.length]);
    for (const type of ['x', 'L', 'K', 'g']) {
      const r = await collect(Buffer.concat([ent({ name: 'a' }), hdr({ type, size: MAX_EXTENDED_HEADER_BYTES + 1 }), END]));
      expect(r.error).toBe(
        `the extended tar header at byte 512 is too large (${MAX_EXTENDED_HEADER_BYTES + 1} bytes, at most ${MAX_EXTENDED_HEADER_BYTES})`,
      );
    }
  });

  test('a tar made by tar-stream (tarBytes) reads back as written', async () => {
    const tar = await tarBytes([
      { name: 'dir', type: 'directory' },
      { name: `dir/${'q'.repeat(120)}`, data: 'long' },
      { name: 'dir/link', type: 'symlink', linkname: 'x' },
    ]);
    const r = await collect(tar, random(9));
    expect(r.entries.map((e) => [e.name, e.type, e.data?.toString(), e.linkname])).toEqual([
      ['dir', 'directory', '', undefined],
      [`dir/${'q'.repeat(120)}`, 'file', 'long', undefined],
      ['dir/link', 'symlink', '', 'x'],
    ]);
  });
});

describe('header helpers', () => {
  test('numeric: octal with spaces and NULs, signs, base-256 positives and negatives', () => {
    const f = (s: string | Buffer) => numeric(Buffer.isBuffer(s) ? s : Buffer.from(s.padEnd(12, '\0'), 'latin1'), 0, 12);
    expect(f('00000000017\0')).toBe(15);
    expect(f(' \0  17  \0\0  ')).toBe(15);
    expect(f('\0'.repeat(12))).toBe(0);
    expect(f('-17\0')).toBe(-15);
    expect(f('-\0')).toBeNaN();
    expect(f('18\0')).toBeNaN();
    expect(f(base256(0n))).toBe(0);
    expect(f(base256(1234567890123n))).toBe(1234567890123);
    expect(f(base256(-1n))).toBe(-1);
    expect(f(base256(-256n))).toBe(-256);
    expect(f(base256(-1234567890123n))).toBe(-1234567890123);
    // 8-byte fields (uid, mode) in base-256 too.
    expect(numeric(base256(-2n, 8), 0, 8)).toBe(-2);
  });

  test('checksumOk: unsigned or signed sums, nothing else', () => {
    const unsigned = hdr({ name: 'ééé' });
    const signed = hdr({ name: 'ééé', signed: true });
    expect(checksumOk(unsigned)).toBe(true);
    expect(checksumOk(signed)).toBe(true);
    expect(signed.subarray(148, 156).equals(unsigned.subarray(148, 156))).toBe(false);
    const off = Buffer.from(signed);
    off.write(oct(numeric(signed, 148, 156) - 1, 7), 148, 'latin1');
    expect(checksumOk(off)).toBe(false);
    expect(checksumOk(Buffer.alloc(BLOCK))).toBe(false);
  });

  test('decodeHeader: base-256 negative mtime and size, a size field ignored for header-only types', () => {
    const h = decodeHeader(hdr({ name: 'n', size: base256(-5n), mtime: base256(-86400n) }));
    expect([h.size, h.header.size, h.header.mtime.getTime()]).toEqual([-5, -5, -86_400_000]);
    const d = decodeHeader(hdr({ name: 'd', type: '5', size: 99 }));
    expect([d.size, d.header.size, d.header.type, d.extended]).toEqual([99, 0, 'directory', undefined]);
    expect(decodeHeader(hdr({ type: 'g', size: 10 })).extended).toBe('pax-global');
  });
});
