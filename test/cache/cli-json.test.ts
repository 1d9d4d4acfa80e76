/** `cache info -o json` and `cache prune -o json` (the shapes of docs/cache-and-performance.md). */
import { afterEach, describe, expect, test } from 'vitest';
import { CacheStore } from '../../src/cache/store.js';
import { osimage } from '../helpers/cli.js';
import { tempDir, type Temp } from '../helpers/oci-builder.js';

let temp: Temp | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

describe('osimage cache -o json', () => {
  test('info: the folder, entry count, size and bound; prune: what it removed and what is left', async () => {
    temp = await tempDir('osimage-cache-');
    const store = new CacheStore(temp.dir);
    for (let n = 1; n <= 3; n++) await store.put({ kind: 'configs', name: `sha256-${String(n).padStart(64, '0')}` }, Buffer.alloc(100, n));
    const bytes = (await store.info()).bytes;
    const env = { OSIMAGE_CACHE_DIR: temp.dir };

    const i = await osimage(['cache', 'info', '-o', 'json'], { env });
    expect(i.exitCode).toBe(0);
    expect(i.stderr).toBe('');
    const info = JSON.parse(i.stdout);
    expect(Object.keys(info)).toEqual(['dir', 'entries', 'bytes', 'maxBytes']);
    expect(info).toEqual({ dir: temp.dir, entries: 3, bytes, maxBytes: 512 * 1024 * 1024 });

    const p = await osimage(['cache', 'prune', '--max-size', '0', '-o', 'json'], { env });
    expect(p.exitCode).toBe(0);
    const pruned = JSON.parse(p.stdout);
    expect(Object.keys(pruned)).toEqual(['dir', 'removed', 'entries', 'bytes', 'maxBytes']);
    expect(pruned).toEqual({ dir: temp.dir, removed: 3, entries: 0, bytes: 0, maxBytes: 0 });
  });

  test('-o text is the default text; an unknown -o is a usage error', async () => {
    temp = await tempDir('osimage-cache-');
    const env = { OSIMAGE_CACHE_DIR: temp.dir };
    expect((await osimage(['cache', 'info', '-o', 'text'], { env })).stdout).toMatch(/^Folder: /);
    const bad = await osimage(['cache', 'prune', '-o', 'yaml'], { env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("error: option '-o, --output <format>' argument 'yaml' is invalid. Allowed choices are text, json.");
  });
});
