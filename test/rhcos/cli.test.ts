import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { osimage } from '../helpers/cli.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/browser', import.meta.url));
let server: FileServer;

beforeAll(async () => {
  server = await serveFolder(FIXTURES);
});
afterAll(async () => server.close());

describe('osimage resolve', () => {
  it('resolves the newest build as text', async () => {
    const r = await osimage(['resolve', '--channel', 'maipo', '--base-url', server.url]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Build: +47\.246 \(newest\)$/m);
    expect(r.stdout).toContain(`${server.url}/maipo/47.246/meta.json`);
    expect(r.stdout).toMatch(/us-east-1 +ami-47246/);
    expect(r.stderr).toBe('');
  });

  it('prints the documented JSON object', async () => {
    const r = await osimage(['resolve', '-o', 'json', '--channel', 'ootpa'], { env: { RHCOS_BASE_URL: server.url } });
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j).sort()).toEqual(
      [
        'amis',
        'arch',
        'baseURL',
        'build',
        'buildDir',
        'buildsURL',
        'channel',
        'containers',
        'metaURL',
        'osContainer',
        'osImage',
        'ostreeCommit',
        'ostreeVersion',
        'pinned',
        'qemu',
        'validated',
      ].sort(),
    );
    expect(j).toMatchObject({
      build: '410.8.20190325.0',
      channel: 'ootpa',
      baseURL: server.url,
      arch: 'x86_64',
      pinned: false,
      validated: true,
      osContainer: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'e'.repeat(64)}`,
      amis: { 'us-east-1': 'ami-07f604c5f18a1e7a9' },
    });
    expect(j.qemu.installerUrl).toMatch(/\?sha256=3b28/);
    // a 2019 build: the primary OS image is its oscontainer; the layered containers are null
    expect(j.osImage).toBe(j.osContainer);
    expect(j.containers).toEqual({
      oscontainer: {
        image: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev',
        digest: `sha256:${'e'.repeat(64)}`,
        pullspec: j.osContainer,
        manifestListDigest: null,
      },
      'base-oscontainer': null,
      'extensions-container': null,
    });
  });

  it('-o env prints lines a shell can source', async () => {
    const r = await osimage(['resolve', '--channel', 'maipo', '-o', 'env', '--base-url', `${server.url}/`], {
      env: { RHCOS_BUILD_NAME: '47.245' },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`RHCOS_BUILD_NAME=47.245\nRHCOS_DEFAULT_CHANNEL=maipo\nRHCOS_BASE_URL=${server.url}`);
    const sourced = await execa('bash', ['-c', `${r.stdout}\necho "$RHCOS_BUILD_NAME|$RHCOS_BASE_URL"`]);
    expect(sourced.stdout).toBe(`47.245|${server.url}`);
  });

  it('-o oscontainer prints only the OS container, and fails for a build without one', async () => {
    const r = await osimage(['resolve', '--base-url', server.url, '--channel', 'ootpa', '-o', 'oscontainer']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'e'.repeat(64)}`);
    const none = await osimage(['resolve', '--channel', 'maipo', '--base-url', server.url, '-o', 'oscontainer']);
    expect(none.exitCode).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(
      `error: RHCOS build 47.246 has no "oscontainer" in ${server.url}/maipo/47.246/meta.json: it publishes no OS container`,
    );
  });

  it('-o os-image prints the primary OS image, and fails naming the build and meta.json for a build without one', async () => {
    const r = await osimage(['resolve', '--base-url', server.url, '--channel', 'ootpa', '-o', 'os-image']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'e'.repeat(64)}`);
    const none = await osimage(['resolve', '--channel', 'maipo', '--base-url', server.url, '-o', 'os-image']);
    expect(none.exitCode).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(
      `error: RHCOS build 47.246 has no "base-oscontainer" or "oscontainer" in ${server.url}/maipo/47.246/meta.json: it publishes no OS image`,
    );
  });

  it('--region prints one AMI, and fails for a region without one', async () => {
    const ok = await osimage(['resolve', '--base-url', server.url, '--channel', 'ootpa', '--region', 'us-east-1', '-o', 'json']);
    expect(JSON.parse(ok.stdout).amis).toEqual({ 'us-east-1': 'ami-07f604c5f18a1e7a9' });
    const miss = await osimage(['resolve', '--base-url', server.url, '--channel', 'ootpa', '--region', 'eu-north-1']);
    expect(miss.exitCode).toBe(1);
    expect(miss.stderr).toBe('error: no RHCOS AMIs found in eu-north-1');
  });

  it('an unknown pin exits 1 with one error line naming the build, URL, builds and closest match', async () => {
    const r = await osimage(['resolve', '--channel', 'maipo', '--base-url', server.url], { env: { RHCOS_BUILD_NAME: '47.24' } });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toBe(
      `error: no build with name '47.24' found at '${server.url}/maipo/builds.json'. Available builds are: [47.246, 47.245, 47.235]; closest match: 47.246`,
    );
  });

  it('--no-validate skips builds.json', async () => {
    const before = server.requests.length;
    const r = await osimage([
      'resolve',
      '--channel',
      'maipo',
      '--base-url',
      server.url,
      '--build',
      '47.235',
      '--no-validate',
      '-o',
      'json',
    ]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ build: '47.235', validated: false });
    expect(server.requests.slice(before)).toEqual(['/maipo/47.235/meta.json']);
  });

  it('a bad build name is a usage error', async () => {
    const r = await osimage(['resolve', '--channel', 'maipo', '--base-url', server.url, '--build', '47/245']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: --build: build name "47\/245" contains a slash$/);
  });

  it('warns about a misspelt pin and names the right variable', async () => {
    const r = await osimage(['resolve', '--channel', 'maipo', '--base-url', server.url, '-o', 'env'], {
      env: { RELEASE_BUILD_NAME: '47.245' },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^warning: environment variable RELEASE_BUILD_NAME is set but is not read; did you mean RHCOS_BUILD_NAME\?/);
    expect(r.stdout).toContain('RHCOS_BUILD_NAME=47.246');
  });

  it('a 404 names the URL and status', async () => {
    const r = await osimage(['resolve', '--base-url', server.url, '--channel', 'nosuch']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`error: incorrect HTTP response (404 Not Found) from ${server.url}/nosuch/builds.json`);
  });

  it('works the same over file://', async () => {
    const base = pathToFileURL(FIXTURES).toString();
    const r = await osimage(['resolve', '--base-url', base, '--channel', 'rhcos-4.10', '--arch', 'aarch64', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).metaURL).toBe(`${base}/rhcos-4.10/410.84.202201251203-0/aarch64/meta.json`);
    const miss = await osimage(['resolve', '--base-url', base, '--channel', 'nosuch']);
    expect(miss.stderr).toBe(`error: no such file (404 Not Found) at ${base}/nosuch/builds.json`);
  });

  it('RHCOS_BASE_URL replaces the default host', async () => {
    const r = await osimage(['resolve', '--channel', 'maipo', '-o', 'json', '--build', '47.245', '--no-validate'], {
      env: { RHCOS_BASE_URL: server.url },
    });
    expect(JSON.parse(r.stdout).baseURL).toBe(server.url);
  });
});

describe('osimage builds', () => {
  it('lists builds newest first and marks the resolved one', async () => {
    const r = await osimage(['builds', '--base-url', server.url, '--channel', 'rhcos-4.10', '--arch', 'aarch64']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Timestamp:    2022-01-25T12:00:00Z');
    expect(r.stdout).toMatch(/Resolves to: +410\.84\.202201251203-0 \(newest for aarch64\)/);
    expect(r.stdout).toMatch(/^\* +410\.84\.202201251203-0 +x86_64,aarch64$/m);
    expect(r.stdout).toMatch(/^ +410\.84\.202201201132-0 +x86_64$/m);
  });

  it('-o json', async () => {
    const r = await osimage(['builds', '--channel', 'maipo', '--base-url', server.url, '-o', 'json'], {
      env: { RHCOS_BUILD_NAME: '47.245' },
    });
    expect(JSON.parse(r.stdout)).toEqual({
      buildsURL: `${server.url}/maipo/builds.json`,
      schemaVersion: '0.0.1',
      timestamp: '2019-01-05T23:11:19Z',
      arch: 'x86_64',
      pinned: '47.245',
      resolved: '47.245',
      error: null,
      builds: [{ id: '47.246' }, { id: '47.245' }, { id: '47.235' }],
    });
  });

  it('prints the list and exits 1 when the pin is not in it', async () => {
    const r = await osimage(['builds', '--channel', 'maipo', '--base-url', server.url], { env: { RHCOS_BUILD_NAME: '47.999' } });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('47.235');
    expect(r.stderr).toMatch(/^error: no build with name '47\.999'/);
  });
});
