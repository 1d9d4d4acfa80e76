/**
 * Durability without one fsync after another: `release extract --to` flushes the files it
 * wrote with many fsyncs in flight at once, then each folder that received files once (so the renames are
 * durable too). Behaviour only: the fsyncs are counted and their overlap observed, never timed.
 */
import fs from 'node:fs';
import { open } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { entry, image, layout, releaseEntries, tempDir, type Temp } from '../helpers/oci-builder.js';

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await tmp.cleanup();
});

test('extract --to flushes files together (many fsyncs in flight), then each folder once', async () => {
  const extra = [
    ...Array.from({ length: 30 }, (_, i) => ({ name: `release-manifests/f${i}.yaml`, data: `f: ${i}\n` })),
    ...Array.from({ length: 10 }, (_, i) => ({ name: `release-manifests/sub/g${i}.yaml`, data: `g: ${i}\n` })),
  ];
  const entries = releaseEntries({ extra });
  const files = entries.filter((e) => e.type !== 'directory').length;
  const ref = await layout(tmp.dir, 'many', [entry(await image([{ entries }]))]);

  // Every fsync in this process (FileHandle.sync, and fs.fsync on a bare descriptor): how many, and how many at once.
  const probe = await open(join(tmp.dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  await probe.close();
  const real = proto.sync;
  let inFlight = 0;
  let maxInFlight = 0;
  let calls = 0;
  const slowly = async (flush: () => Promise<void>) => {
    calls++;
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    try {
      await new Promise((r) => setTimeout(r, 2)); // a slow disk: sequential syncs never overlap, batched ones do
      return await flush();
    } finally {
      inFlight--;
    }
  };
  vi.spyOn(proto, 'sync').mockImplementation(async function (this: unknown) {
    return slowly(() => real.call(this));
  });
  const realFsync = fs.fsync;
  vi.spyOn(fs, 'fsync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
    slowly(() => new Promise<void>((ok, fail) => realFsync(fd, (err) => (err ? fail(err) : ok())))).then(
      () => cb(null),
      (err: NodeJS.ErrnoException) => cb(err),
    );
  }) as typeof fs.fsync);
  // The named export `fsync` of node:fs follows the spy only once synced.
  syncBuiltinESMExports();

  const r = await osimage(['release', 'extract', ref, '--to', join(tmp.dir, 'out')]);
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  // One per file, one per folder that received files (DIR and DIR/sub).
  expect(calls).toBe(files + 2);
  expect(maxInFlight).toBeGreaterThan(1);
});
