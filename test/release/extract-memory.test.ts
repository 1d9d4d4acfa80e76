/**
 * Memory on hostile payloads: a small gzip layer of many large zero files under
 * release-manifests/ must not drive `release info` or `release extract` past 300 MB peak RSS, and the caps on
 * what is held in memory fail with an error naming the image and the cap. The built bin/osimage runs in a
 * subprocess whose peak RSS it reports itself (process.resourceUsage().maxRSS, written when it exits).
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { execa } from 'execa';
import { pack as tarPack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sha256Digest } from '../../src/oci/digest.js';
import { openImage } from '../../src/registry/open.js';
import { resolveImage } from '../../src/registry/platform.js';
import { MEDIA_TYPES } from '../../src/registry/types.js';
import { buildImage, buildLayer, type BuiltLayer } from '../../src/release/build-layer.js';
import { MAX_HELD_BYTES, walkLayers } from '../../src/release/overlay.js';
import { BIN, REPO, testEnv } from '../helpers/cli.js';
import { entry, layout, releaseEntries, tempDir, type Temp } from '../helpers/oci-builder.js';

const MiB = 1024 * 1024;
const RSS_LIMIT_MB = 300;

/** A gzip layer of zero-filled files, generated as a stream: only the compressed bytes are ever held. */
async function zerosLayer(files: Array<{ name: string; size: number }>): Promise<BuiltLayer> {
  const pack = tarPack();
  const diff = createHash('sha256');
  const chunks: Buffer[] = [];
  const done = pipeline(
    pack,
    new Transform({
      transform(c: Buffer, _e, cb) {
        diff.update(c);
        cb(null, c);
      },
    }),
    createGzip({ level: 1 }),
    new Writable({
      write(c: Buffer, _e, cb) {
        chunks.push(c);
        cb();
      },
    }),
  );
  const zeros = Buffer.alloc(MiB);
  for (const f of files) {
    const s = pack.entry({ name: f.name, size: f.size, mode: 0o644, mtime: new Date(0) });
    for (let left = f.size; left > 0; left -= MiB) if (!s.write(zeros.subarray(0, Math.min(MiB, left)))) await once(s, 'drain');
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.end(resolve);
    });
  }
  pack.finalize();
  await done;
  const bytes = Buffer.concat(chunks);
  return {
    bytes,
    diffId: `sha256:${diff.digest('hex')}`,
    descriptor: { mediaType: MEDIA_TYPES.ociLayerGzip, digest: sha256Digest(bytes), size: bytes.length },
  };
}

/** The built CLI in a subprocess; `rssMB` is its peak resident set size. */
async function measured(args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number; rssMB: number }> {
  const wrapper = [
    "process.on('exit', () => require('fs').writeSync(2, `\\nmaxrss-kb=${process.resourceUsage().maxRSS}\\n`));",
    `process.argv.splice(1, 0, ${JSON.stringify(BIN)});`,
    `require(${JSON.stringify(BIN)});`,
  ].join('\n');
  const r = await execa(process.execPath, ['-e', wrapper, ...args], { env: testEnv(), extendEnv: false, cwd: REPO, reject: false });
  const m = /\nmaxrss-kb=(\d+)\n?$/.exec(r.stderr);
  expect(m, r.stderr).not.toBeNull();
  return { stdout: r.stdout, stderr: r.stderr.slice(0, m!.index).trim(), exitCode: r.exitCode ?? -1, rssMB: Number(m![1]) / 1024 };
}

let tmp: Temp;
let big: string;
let huge: string;
const BIG = Array.from({ length: 6 }, (_, i) => ({ name: `release-manifests/zeros-${i}.yaml`, size: 60 * MiB }));
beforeAll(async () => {
  tmp = await tempDir();
  const base = await buildLayer(releaseEntries());
  big = await layout(tmp.dir, 'big', [entry(buildImage({ layers: [base, await zerosLayer(BIG)] }))]);
  huge = await layout(tmp.dir, 'huge', [
    entry(buildImage({ layers: [base, await zerosLayer([{ name: 'release-manifests/huge.yaml', size: 64 * MiB + 1 }])] })),
  ]);
}, 120_000);
afterAll(async () => {
  await tmp.cleanup();
});

describe('6 files of 60 MiB zeros in one small gzip layer', () => {
  test(`release info lists them under ${RSS_LIMIT_MB} MB peak RSS`, async () => {
    // image-references is in the layer below the zeros: the merged view reads both.
    const r = await measured(['release', 'info', '--merged-layers', big, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const files = JSON.parse(r.stdout) as { manifests?: string[] };
    expect(JSON.stringify(files)).toContain('zeros-5.yaml');
    expect(r.rssMB).toBeLessThan(RSS_LIMIT_MB);
  }, 60_000);

  test(`release extract --to streams them to disk under ${RSS_LIMIT_MB} MB peak RSS`, async () => {
    const to = join(tmp.dir, 'out');
    const r = await measured(['release', 'extract', big, '--to', to]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    for (const f of BIG) expect((await stat(join(to, f.name.replace('release-manifests/', '')))).size).toBe(f.size);
    expect(r.rssMB).toBeLessThan(RSS_LIMIT_MB);
  }, 60_000);
});

describe('caps', () => {
  test('the default per-file cap (64 MiB) refuses a larger file, naming the image, without the memory', async () => {
    const r = await measured(['release', 'extract', huge, '--to', join(tmp.dir, 'huge-out')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /^error: layer sha256:[0-9a-f]{64} of oci:.*huge: release-manifests\/huge\.yaml is too large to read \(67108865 bytes\)$/,
    );
    expect(r.rssMB).toBeLessThan(RSS_LIMIT_MB);
  }, 60_000);

  test('bytes held for hard links across files are capped (256 MiB by default): the error names the image and the cap', async () => {
    expect(MAX_HELD_BYTES).toBe(256 * MiB);
    const src = await openImage(big);
    try {
      const { manifest } = await resolveImage(src);
      const walk = walkLayers(src, manifest.parsed, { folder: 'release-manifests', maxHeldBytes: 100 * MiB });
      await expect(walk).rejects.toThrow(
        /^cannot read oci:.*big: the files of layer sha256:[0-9a-f]{64} under release-manifests\/ need more than 100 MiB of memory \(at release-manifests\/zeros-1\.yaml\)$/,
      );
    } finally {
      await src.close();
    }
  }, 60_000);
});
