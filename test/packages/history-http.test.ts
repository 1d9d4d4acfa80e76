/**
 * `packages --history` and `packages` over a release browser on a real HTTP server: a generated channel of
 * builds, concurrent bounded fetches, the commitmeta cache (a second run fetches nothing), --since, --limit,
 * builds without commitmeta.json, the size cap and entry validation.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { packageHistory } from '../../src/packages/history.js';
import { resolveSettings } from '../../src/rhcos/settings.js';
import { osimage } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { tempDir, type Temp } from '../helpers/oci-builder.js';

const CH = '4.18-9.4/builds';
const N = 12;
/** Newest first: 418.94.2026050112xx-0 … */
const ids = Array.from({ length: N }, (_, i) => `418.94.20260501${String(23 - i).padStart(2, '0')}00-0`);
/** podman's release per build (index 0 newest): changes at builds 0, 4 and 9 (counting from the newest). */
const podmanRelease = (i: number) => (i === 0 ? '4' : i < 4 ? '3' : i < 9 ? '2' : '1');

let tmp: Temp;
let server: FileServer;
let cache: string;

async function writeBrowser(root: string) {
  const dir = join(root, CH);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'builds.json'),
    JSON.stringify({ 'schema-version': '1.0.0', builds: ids.map((id) => ({ id, arches: ['x86_64'] })) }),
  );
  for (const [i, id] of ids.entries()) {
    const d = join(dir, id, 'x86_64');
    await mkdir(d, { recursive: true });
    await writeFile(join(d, 'meta.json'), JSON.stringify({ buildid: id }));
    if (i === 6) continue; // a build whose commitmeta.json was never published
    const list: unknown[] = [
      ['bash', '0', '5.1.8', '9.el9', 'x86_64'],
      ['podman', '5', '5.2.2', `${podmanRelease(i)}.rhaos4.18.el9`, 'x86_64'],
    ];
    if (i < 2) list.push(['tpm2-tools', '0', '5.2', '3.el9', 'x86_64']);
    await writeFile(join(d, 'commitmeta.json'), JSON.stringify({ 'rpmostree.rpmdb.pkglist': list }));
  }
}

const run = (...args: string[]) =>
  osimage(['packages', '--base-url', server.url, '--channel', CH, ...args], {
    env: { OSIMAGE_CACHE_DIR: cache, OSIMAGE_NO_CACHE: undefined },
  });
const commitmetaRequests = () => server.requests.filter((p) => p.endsWith('/commitmeta.json')).length;

beforeAll(async () => {
  tmp = await tempDir('osimage-pkg-http-');
  await writeBrowser(join(tmp.dir, 'www'));
  server = await serveFolder(join(tmp.dir, 'www'));
});
afterAll(async () => {
  await server.close();
  await tmp.cleanup();
});
let round = 0;
beforeEach(() => {
  cache = join(tmp.dir, `cache-${round++}`);
  server.requests.length = 0;
  server.faults.length = 0;
});

describe('packages --history over HTTP', () => {
  test('newest first, one line per change; a build without commitmeta.json is skipped with an info line', async () => {
    const r = await run('--history', '--package', 'podman');
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      `${ids[0]}  podman 5:5.2.2-3.rhaos4.18.el9 → 5:5.2.2-4.rhaos4.18.el9`,
      `${ids[3]}  podman 5:5.2.2-2.rhaos4.18.el9 → 5:5.2.2-3.rhaos4.18.el9`,
      `${ids[8]}  podman 5:5.2.2-1.rhaos4.18.el9 → 5:5.2.2-2.rhaos4.18.el9`,
      `${ids[11]}  podman 5:5.2.2-1.rhaos4.18.el9  (oldest of 11 builds read)`,
    ]);
    expect(r.stderr).toBe(`info: skipped 1 build(s) without commitmeta.json: ${ids[6]}`);
  });

  test('the cache: the first run fetches every commitmeta.json once, the second none', async () => {
    await run('--history', '--package', 'podman');
    expect(commitmetaRequests()).toBe(N);
    expect(await readdir(join(cache, 'v1', 'commitmeta'))).toHaveLength(N - 1);
    server.requests.length = 0;
    const again = await run('--history', '--package', 'podman', '-o', 'json');
    expect(commitmetaRequests()).toBe(1); // only the build without one is asked again
    expect(JSON.parse(again.stdout).changes).toHaveLength(3);
    server.requests.length = 0;
    await run('--history', '--package', 'podman', '--no-cache');
    expect(commitmetaRequests()).toBe(N);
    server.requests.length = 0;
    const off = await osimage(['packages', '--base-url', server.url, '--channel', CH, '--history', '--package', 'podman'], {
      env: { OSIMAGE_CACHE_DIR: cache, OSIMAGE_NO_CACHE: '1' },
    });
    expect(off.exitCode).toBe(0);
    expect(commitmetaRequests()).toBe(N); // OSIMAGE_NO_CACHE turns this cache off as it does the general one
  });

  test('package lists are entries of the one cache: counted by `cache info`, bounded by prune, removed by clear', async () => {
    await run('--history', '--package', 'podman');
    const env = { OSIMAGE_CACHE_DIR: cache };
    const info = await osimage(['cache', 'info'], { env });
    expect(info.stdout).toMatch(new RegExp(`^Entries: +${N - 1}$`, 'm'));
    const pruned = await osimage(['cache', 'prune', '--max-size', '0'], { env });
    expect(pruned.stdout).toMatch(new RegExp(`^Removed ${N - 1} entries; 0 entries`));
    await run('--history', '--package', 'podman');
    expect(await readdir(join(cache, 'v1', 'commitmeta'))).toHaveLength(N - 1);
    expect((await osimage(['cache', 'clear'], { env })).exitCode).toBe(0);
    server.requests.length = 0;
    await run('--history', '--package', 'podman');
    expect(commitmetaRequests()).toBe(N);
  });

  test('a damaged cache file is a miss, not an error', async () => {
    await run('--history', '--package', 'podman', '--limit', '1');
    const [file] = await readdir(join(cache, 'v1', 'commitmeta'));
    await writeFile(join(cache, 'v1', 'commitmeta', file!), '{"rpmostree.rpmdb.pkglist": [["bad name"');
    server.requests.length = 0;
    const r = await run('--history', '--package', 'podman', '--limit', '1');
    expect(r.exitCode).toBe(0);
    expect(commitmetaRequests()).toBe(1);
  });

  test('the fetches are bounded: at most `concurrency` in flight (8 by default)', async () => {
    let inFlight = 0;
    let most = 0;
    server.faults.push(async (req) => {
      if (!req.url?.endsWith('/commitmeta.json')) return false;
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 30));
      inFlight--;
      return false;
    });
    const settings = resolveSettings({ baseUrl: server.url, channel: CH }, {});
    const h = await packageHistory({ settings, name: 'podman', limit: 100, concurrency: 3, cache: false });
    expect(h.changes).toHaveLength(3);
    expect(most).toBe(3);
    most = 0;
    await run('--history', '--package', 'podman', '--no-cache');
    expect(most).toBe(8);
  });

  test('--since, --build and --limit choose the range; added packages show from (absent)', async () => {
    const r = await run('--history', '--package', 'tpm2-tools', '--since', ids[4]!);
    expect(r.stdout.split('\n')).toEqual([
      `${ids[1]}  tpm2-tools (absent) → 5.2-3.el9`,
      `${ids[4]}  tpm2-tools (absent)  (oldest of 5 builds read)`,
    ]);
    const b = await run('--history', '--package', 'podman', '--build', ids[2]!, '--limit', '3');
    expect(b.stdout.split('\n')).toEqual([
      `${ids[3]}  podman 5:5.2.2-2.rhaos4.18.el9 → 5:5.2.2-3.rhaos4.18.el9`,
      `${ids[4]}  podman 5:5.2.2-2.rhaos4.18.el9  (oldest of 3 builds read)`,
    ]);
    expect(b.stderr).toBe(`info: read 3 builds; 7 older ones not read (use --since or --limit)`);
    const bad = await run('--history', '--package', 'podman', '--since', '418.94.209901010000-0');
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("no build with name '418.94.209901010000-0' found");
  });

  test('a package in no build: a warning', async () => {
    const r = await run('--history', '--package', 'nope', '--limit', '2');
    expect(r.stderr.split('\n')[0]).toBe('warning: no package nope in the pkglist of any of the 2 builds read');
  });
});

describe('packages over HTTP: caps and validation', () => {
  test('a commitmeta.json beyond the cap is refused by its declared size, naming the URL', async () => {
    server.faults.push((req, res) => {
      if (!req.url?.endsWith('/commitmeta.json')) return false;
      res.writeHead(200, { 'content-length': String(64 * 1024 * 1024) });
      res.end();
      return true;
    });
    const r = await run('--build', ids[0]!);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: failed to fetch the package list of build ${ids[0]!.replace(/\./g, '\\.')}: .*commitmeta\\.json is 67108864 bytes, more than the 16777216 allowed`,
      ),
    );
  });

  test('a bad entry names the URL and the index', async () => {
    server.faults.push((req, res) => {
      if (!req.url?.endsWith('/commitmeta.json')) return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          'rpmostree.rpmdb.pkglist': [
            ['bash', '0', '5.1.8', '9.el9', 'x86_64'],
            ['podman', 5, '5.2.2', '1', 'x86_64'],
          ],
        }),
      );
      return true;
    });
    const r = await run('--build', ids[0]!);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      `error: invalid commitmeta.json at ${server.url}/${CH}/${ids[0]}/x86_64/commitmeta.json: rpmostree.rpmdb.pkglist[1]: epoch must be a string`,
    );
  });
});
