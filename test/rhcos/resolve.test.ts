import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { osimageBin } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { selfSignedCert } from '../helpers/tls.js';
import { fetchJson, httpClient } from '../../src/http/client.js';
import { resolveBuild } from '../../src/rhcos/resolve.js';
import { resolveSettings, type SettingsFlags } from '../../src/rhcos/settings.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/browser', import.meta.url));
let server: FileServer;

beforeAll(async () => {
  server = await serveFolder(FIXTURES);
});
afterAll(async () => server.close());

const bases = {
  http: () => server.url,
  file: () => pathToFileURL(FIXTURES).toString(),
};

/** The fixtures' first channel is maipo: these tests name it in the environment, where a release script would. */
async function resolveWith(base: string, flags: SettingsFlags, env: Record<string, string> = {}, validate = true) {
  return resolveBuild(resolveSettings({ baseUrl: base, ...flags }, { RHCOS_DEFAULT_CHANNEL: 'maipo', ...env }), { validate });
}

describe.each(Object.entries(bases))('release browser over %s', (_kind, base) => {
  it('legacy layout: the newest build and its meta.json', async () => {
    const r = await resolveWith(base(), {});
    expect(r.build).toBe('47.246');
    expect(r.buildsUrl).toBe(`${base()}/maipo/builds.json`);
    expect(r.metaUrl).toBe(`${base()}/maipo/47.246/meta.json`);
    expect(r.meta.amis['us-east-1']).toBe('ami-47246');
  });

  it('schema 1.0.0 layout: per-arch meta.json', async () => {
    const r = await resolveWith(base(), { channel: 'rhcos-4.10', arch: 'aarch64' });
    expect(r.build).toBe('410.84.202201251203-0');
    expect(r.metaUrl).toBe(`${base()}/rhcos-4.10/410.84.202201251203-0/aarch64/meta.json`);
    expect(r.meta.oscontainer?.digest).toBe(`sha256:${'b'.repeat(64)}`);
  });

  it('prod-streams layout via a channel with a slash', async () => {
    const r = await resolveWith(base(), { channel: '4.16-9.4/builds' });
    expect(r.metaUrl).toBe(`${base()}/4.16-9.4/builds/416.94.202405291527-0/x86_64/meta.json`);
  });

  it('a missing builds.json is a 404 naming the URL', async () => {
    await expect(resolveWith(base(), { channel: 'nosuch' })).rejects.toThrow(/404 Not Found.*nosuch\/builds\.json/);
  });

  it('a missing meta.json names the build and the URL', async () => {
    await expect(resolveWith(base(), { channel: 'nometa' })).rejects.toThrow(
      /failed to fetch metadata for build 1\.0: .*404 Not Found.*nometa\/1\.0\/meta\.json/,
    );
  });

  it('--no-validate finds meta.json of either layout without builds.json', async () => {
    const legacy = await resolveWith(base(), { build: '47.245' }, {}, false);
    expect(legacy).toMatchObject({ build: '47.245', validated: false, layout: 'legacy' });
    const v1 = await resolveWith(base(), { channel: 'rhcos-4.10', build: '410.84.202201201132-0' }, {}, false);
    expect(v1).toMatchObject({ validated: false, layout: 'v1', metaUrl: `${base()}/rhcos-4.10/410.84.202201201132-0/x86_64/meta.json` });
  });
});

describe('ten release-browser scenarios', () => {
  const requestsSince = (n: number) => server.requests.slice(n);

  it('1: no pin resolves the latest', async () => {
    const r = await resolveWith(server.url, {});
    expect(r).toMatchObject({
      build: '47.246',
      buildsUrl: `${server.url}/maipo/builds.json`,
      metaUrl: `${server.url}/maipo/47.246/meta.json`,
    });
  });

  it('2: a valid env pin is not replaced by the latest', async () => {
    const r = await resolveWith(server.url, {}, { RHCOS_BUILD_NAME: '47.245' });
    expect(r).toMatchObject({ build: '47.245', pinned: true, metaUrl: `${server.url}/maipo/47.245/meta.json` });
  });

  it('3: an unknown pin is rejected before meta.json is fetched', async () => {
    const before = server.requests.length;
    await expect(resolveWith(server.url, {}, { RHCOS_BUILD_NAME: '47.999' })).rejects.toThrow(
      `no build with name '47.999' found at '${server.url}/maipo/builds.json'. Available builds are: [47.246, 47.245, 47.235]`,
    );
    expect(requestsSince(before)).toEqual(['/maipo/builds.json']);
  });

  it('4: an empty env value means unset; whitespace is refused', async () => {
    expect((await resolveWith(server.url, {}, { RHCOS_BUILD_NAME: '' })).build).toBe('47.246');
    await expect(resolveWith(server.url, {}, { RHCOS_BUILD_NAME: ' ' })).rejects.toThrow(/whitespace/);
  });

  it('5: flag beats env beats default; no // from a trailing slash', async () => {
    const before = server.requests.length;
    const r = await resolveWith(`${server.url}/`, { build: '47.235' }, { RHCOS_BUILD_NAME: '47.245', RHCOS_DEFAULT_CHANNEL: 'maipo' });
    expect(r.build).toBe('47.235');
    expect(requestsSince(before).every((p) => !p.includes('//'))).toBe(true);
    const o = await resolveWith(server.url, { channel: 'ootpa' }, { RHCOS_DEFAULT_CHANNEL: 'maipo' });
    expect(o.buildsUrl).toBe(`${server.url}/ootpa/builds.json`);
  });

  it('6: an empty build list', async () => {
    await expect(resolveWith(server.url, { channel: 'empty' })).rejects.toThrow(`no builds found in ${server.url}/empty/builds.json`);
    await expect(resolveWith(server.url, { channel: 'empty', build: '47.245' })).rejects.toThrow(
      /no build with name '47\.245'.*Available builds are: \[\]/,
    );
  });

  it('7: 404, 503 and bad JSON name the URL', async () => {
    await expect(resolveWith(server.url, { channel: 'gone' })).rejects.toThrow(
      `incorrect HTTP response (404 Not Found) from ${server.url}/gone/builds.json`,
    );
    server.faults.push((req, res) => {
      if (!req.url?.startsWith('/maipo/')) return false;
      res.writeHead(503, { 'retry-after': '0' }).end();
      return true;
    });
    try {
      await expect(resolveBuild(resolveSettings({ baseUrl: server.url, channel: 'maipo' }, {}), {})).rejects.toThrow(
        `incorrect HTTP response (503 Service Unavailable) from ${server.url}/maipo/builds.json`,
      );
    } finally {
      server.faults.length = 0;
    }
    await expect(resolveWith(server.url, { channel: 'badjson' })).rejects.toThrow(
      `failed to parse JSON from ${server.url}/badjson/builds.json`,
    );
  });

  it('8: schema 1.0.0 with arch awareness', async () => {
    const a = await resolveWith(server.url, { channel: 'rhcos-4.10', arch: 'aarch64' });
    expect(a.metaUrl).toBe(`${server.url}/rhcos-4.10/410.84.202201251203-0/aarch64/meta.json`);
    await expect(resolveWith(server.url, { channel: 'rhcos-4.10', arch: 'aarch64', build: '410.84.202201201132-0' })).rejects.toThrow(
      /build 410\.84\.202201201132-0 has no aarch64 .*\[x86_64\]/,
    );
    await expect(resolveWith(server.url, { channel: 'rhcos-4.10', arch: 's390x' })).rejects.toThrow(/no build for arch s390x/);
  });

  it('9: the schema version gate', async () => {
    await expect(resolveWith(server.url, { channel: 'v2' })).rejects.toThrow('Unsupported build metadata version 2.0.0');
    await expect(resolveWith(server.url, { channel: 'mixed' })).rejects.toThrow('mixes strings and objects');
    expect((await resolveWith(server.url, {})).layout).toBe('legacy');
  });

  it('10: resolving from the pinned meta.json', async () => {
    const r = await resolveWith(server.url, { channel: 'ootpa', build: '410.8.20190325.0' });
    expect(r.meta.amis['us-east-1']).toBe('ami-07f604c5f18a1e7a9');
    expect(r.buildDir).toBe(`${server.url}/ootpa/410.8.20190325.0/`);
    const { qemuImage } = await import('../../src/rhcos/meta.js');
    const q = qemuImage(r.meta, r.buildDir)!;
    expect(q.installerUrl).toMatch(
      new RegExp(`^${server.url}/ootpa/410\\.8\\.20190325\\.0/rhcos-410\\.8\\.20190325\\.0-qemu\\.qcow2\\?sha256=3b28[0-9a-f]+8257$`),
    );
  });

  it('a meta.json without buildid is an error naming the field and URL', async () => {
    await expect(resolveWith(server.url, { channel: 'badmeta' })).rejects.toThrow(
      `invalid meta.json at ${server.url}/badmeta/1.0/meta.json: missing required field "buildid"`,
    );
  });
});

describe('a release browser on https', () => {
  let dir: string;
  let caFile: string;
  let secure: FileServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'osimage-https-browser-'));
    const tls = await selfSignedCert(dir);
    caFile = tls.certFile;
    secure = await serveFolder(FIXTURES, { tls: { cert: tls.cert, key: tls.key } });
  });
  afterAll(async () => {
    await secure?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** meta.json of the newest legacy build answers with a redirect to the same file on the plain-http server. */
  function downgradeMeta() {
    secure.faults.length = 0;
    secure.faults.push((req, res) => {
      if (req.url !== '/maipo/47.246/meta.json') return false;
      res.writeHead(302, { location: `${server.url}/maipo/47.246/meta.json` }).end();
      return true;
    });
  }

  it('is read over verified TLS', async () => {
    secure.faults.length = 0;
    const doc = (await fetchJson(`${secure.url}/maipo/47.246/meta.json`, { client: httpClient({ caFile }) })) as { buildid: string };
    expect(doc.buildid).toBe('47.246');
  });

  it('refuses a redirect from https down to plain http, naming both URLs', async () => {
    downgradeMeta();
    const before = server.requests.length;
    await expect(fetchJson(`${secure.url}/maipo/47.246/meta.json`, { client: httpClient({ caFile }) })).rejects.toThrow(
      `refusing redirect from https to plain http: ${secure.url}/maipo/47.246/meta.json redirected to ${server.url}/maipo/47.246/meta.json`,
    );
    expect(server.requests.length).toBe(before);
  });

  it('osimage resolve fails rather than pin a meta.json that came over plain http', async () => {
    downgradeMeta();
    const before = server.requests.length;
    // The binary: Node reads NODE_EXTRA_CA_CERTS when a process starts.
    const r = await osimageBin(['resolve', '--channel', 'maipo', '--base-url', secure.url, '-o', 'json'], {
      env: { NODE_EXTRA_CA_CERTS: caFile },
    });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${secure.url}/maipo/47.246/meta.json redirected to ${server.url}/maipo/47.246/meta.json`);
    expect(r.exitCode).toBe(1);
    expect(server.requests.length).toBe(before);
    secure.faults.length = 0;
    const ok = await osimageBin(['resolve', '--channel', 'maipo', '--base-url', secure.url, '-o', 'json'], {
      env: { NODE_EXTRA_CA_CERTS: caFile },
    });
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout).build).toBe('47.246');
  });
});
