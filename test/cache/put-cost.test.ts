/**
 * A put's cost does not grow with the cache: the folder is scanned (every entry listed and stat-ed) once per run,
 * not per put, whether it holds 100 entries or 5,000; a full cache is pruned with slack, so the puts after a prune
 * do not each scan again. Counted, not timed: scans are the calls of the store's `entries()`.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { CacheKey } from '../../src/cache/keys.js';
import { CacheStore } from '../../src/cache/store.js';
import { tempDir, type Temp } from '../helpers/oci-builder.js';

let temp: Temp | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

const key = (n: number): CacheKey => ({ kind: 'configs', name: `sha256-${String(n).padStart(64, '0')}` });

/** A store whose folder scans are counted. */
function counted(dir: string, maxBytes?: number) {
  const store = new CacheStore(dir, maxBytes === undefined ? {} : { maxBytes });
  const spy = vi.spyOn(
    store as unknown as { entries(now: number): Promise<Array<{ path: string; size: number; used: number }>> },
    'entries',
  );
  return { store, spy, scans: () => spy.mock.calls.length };
}

async function putRange(store: CacheStore, from: number, to: number, bytes = 100): Promise<void> {
  for (let n = from; n < to; n++) await store.put(key(n), Buffer.alloc(bytes, n % 256));
}

describe('the cost of a put', () => {
  test('one scan per run, at 100 entries and at 5,000', async () => {
    temp = await tempDir('osimage-put-cost-');
    const small = counted(temp.dir);
    await putRange(small.store, 0, 100);
    expect(small.scans()).toBe(1);

    // The next run finds 5,000 entries (listed by its scan: creating 4,900 files here takes seconds), and scans
    // once however many it puts, as the first did at 100.
    const large = counted(temp.dir);
    const listed = Array.from({ length: 5_000 }, (_, n) => ({ path: join(temp!.dir, 'v1', 'configs', key(n).name), size: 190, used: n }));
    large.spy.mockImplementation(async () => listed);
    await putRange(large.store, 5_000, 5_100);
    expect(large.scans()).toBe(1);
  });

  test('puts running at once each add their size', async () => {
    temp = await tempDir('osimage-put-cost-');
    const { store, scans } = counted(temp.dir);
    await Promise.all(Array.from({ length: 50 }, (_, n) => store.put(key(n), Buffer.alloc(100))));
    const { entries, bytes } = await store.info();
    expect(entries).toBe(50);
    // The count the store keeps is at least what is there (an over-count only prunes a little early).
    const known = await (store as unknown as { knownBytes: Promise<number> }).knownBytes;
    expect(known).toBeGreaterThanOrEqual(bytes);
    expect(scans()).toBe(2); // the run's scan, and info's
  });

  test('a full cache is pruned with slack: a scan per tenth of the bound written, not per put', async () => {
    temp = await tempDir('osimage-put-cost-');
    const probe = counted(temp.dir);
    await probe.store.put(key(0), Buffer.alloc(1000));
    const entry = (await probe.store.info()).bytes;
    await probe.store.clear();

    // Room for 100 entries; 1,000 puts: past the bound after the 100th, then a prune per 10 puts.
    const { store, scans } = counted(temp.dir, entry * 100);
    await putRange(store, 0, 1_000, 1000);
    const { entries } = await store.info();
    expect(entries).toBeGreaterThanOrEqual(90);
    expect(entries).toBeLessThanOrEqual(100);
    // 1 (the run's) + at most one per 10 puts after the first 100 + 1 (info).
    expect(scans()).toBeLessThanOrEqual(1 + 900 / 10 + 1);
  }, 60_000);
});
