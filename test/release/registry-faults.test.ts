/**
 * The release reader over a real registry behind the fault proxy: which blobs are fetched (early stop seen
 * as HTTP requests), a layer dropped mid-transfer, a flipped byte after the file that answered the query,
 * and a 503 on a layer.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { CLI_PULLSPEC, baseEntries, image, pushBuilt, releaseEntries } from '../helpers/oci-builder.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';
import type { BuiltImage } from '../../src/release/build-layer.js';

let reg: TestRegistry | undefined;
let proxy: FaultProxy;
let img: BuiltImage;
let ref: string;
printLogsOnFailure(() => reg);

const blobPath = (digest: string) => new RegExp(`^/v2/ocp/release/blobs/${digest}$`);

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  proxy = await startFaultProxy(reg.url);
  // Top layer: plain tar, image-references first, then 60 KiB of other files (so a drop or a flipped byte
  // can land after the file --image-for needs). Below it an unrelated layer and a stale release layer.
  img = await image([
    { entries: releaseEntries({ name: 'stale' }) },
    { entries: baseEntries() },
    {
      compression: 'none',
      entries: [...releaseEntries({ name: '4.13.1' }), { name: 'release-manifests/zz-padding.yaml', data: `pad: ${'p'.repeat(60_000)}\n` }],
    },
  ]);
  await pushBuilt(`${reg.host}/ocp/release:4.13.1`, img);
  ref = `${proxy.host}/ocp/release:4.13.1`;
});
afterAll(async () => {
  await proxy?.close();
  await reg?.stop();
});
beforeEach(() => {
  proxy.clear();
  proxy.requests.length = 0;
});

const layers = () => img.layers.map((l) => l.descriptor.digest);
const blobGets = (digest: string) => proxy.matching('GET', blobPath(digest));

describe('release info over the registry, through the fault proxy', () => {
  test('--image-for fetches only the top layer: no config, no lower layers', async () => {
    const r = await osimage(['release', 'info', '--insecure', '--image-for', 'cli', ref]);
    expect(r).toEqual({ stdout: CLI_PULLSPEC, stderr: '', exitCode: 0 });
    const [bottom, middle, top] = layers();
    expect(blobGets(top!).length).toBeGreaterThan(0);
    expect(blobGets(middle!)).toEqual([]);
    expect(blobGets(bottom!)).toEqual([]);
    expect(blobGets(img.config.descriptor.digest)).toEqual([]);
  });

  test('the full view fetches the release layer alone, as oc; merged, every layer, and the top copy wins', async () => {
    const r = await osimage(['release', 'info', '--insecure', ref]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Name: +4\.13\.1$/m);
    const [bottom, middle, top] = layers();
    expect(blobGets(top!).length).toBeGreaterThan(0);
    expect(blobGets(middle!)).toEqual([]);
    expect(blobGets(bottom!)).toEqual([]);
    proxy.requests.length = 0;
    const m = await osimage(['release', 'info', '--insecure', '--no-cache', '--merged-layers', ref]);
    expect(m.exitCode).toBe(0);
    expect(m.stdout).toMatch(/^Name: +4\.13\.1$/m);
    for (const d of layers()) expect(blobGets(d).length).toBeGreaterThan(0);
  });

  test('a top layer dropped mid-transfer is resumed with Range and still verified', async () => {
    const top = layers()[2]!;
    proxy.fault({ path: blobPath(top), action: { dropAfter: 20_000 } });
    const r = await osimage(['release', 'info', '--insecure', ref]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Manifests: +2$/m);
    const gets = blobGets(top);
    expect(gets.length).toBeGreaterThanOrEqual(2);
    expect(gets.some((g) => /^bytes=\d+-$/.test(String(g.headers.range)))).toBe(true);
  });

  test('a flipped byte after image-references fails --image-for too (the cut layer is drained and checked)', async () => {
    const top = layers()[2]!;
    const at = img.layers[2]!.bytes.length - 5_000; // inside the padding file
    proxy.fault({ path: blobPath(top), times: Infinity, action: { flipAt: at } });
    const r = await osimage(['release', 'info', '--insecure', '--image-for', 'cli', ref]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: .*${top}`));
    expect(r.stderr).toMatch(/content integrity|mismatch/);
    expect(r.exitCode).toBe(1);
    const s = await osimage(['release', 'info', '--insecure', '--skip-verification', '--image-for', 'cli', ref]);
    expect(s.stdout).toBe(CLI_PULLSPEC);
    expect(s.stderr).toContain('warning: the release image failed content verification and may have been tampered with');
    expect(s.exitCode).toBe(0);
  });

  test('a 503 on a layer is retried', async () => {
    const top = layers()[2]!;
    proxy.fault({ path: blobPath(top), action: { status: 503 } });
    const r = await osimage(['release', 'extract', '--insecure', ref, '--file', 'release-metadata']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ version: '4.13.1' });
    expect(blobGets(top).map((g) => g.status)).toEqual([503, 200]);
  });
});
