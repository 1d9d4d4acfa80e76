import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMeta } from '../../src/rhcos/meta.js';
import { osImageKey, osImageOf, requireOsImage } from '../../src/rhcos/os-image.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { osimage, SAMPLE_RELEASES } from '../helpers/cli.js';

// The sample release browser (hack/sample/releases): one build of every generation.
let server: FileServer;
beforeAll(async () => {
  server = await serveFolder(SAMPLE_RELEASES);
});
afterAll(async () => server.close());

const ART = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
const sampleMeta = async (path: string) => JSON.parse(await readFile(join(SAMPLE_RELEASES, path), 'utf8'));
const ref = async (path: string) => {
  const url = `file:///${path}`;
  return { build: 'b', metaUrl: url, meta: parseMeta(await sampleMeta(path), url) };
};

describe('the primary OS image of a build', () => {
  it.each([
    ['maipo/47.246/meta.json', 'oscontainer'],
    ['rhcos-4.12/412.86.202301311551-0/x86_64/meta.json', 'oscontainer'],
    ['rhcos-4.13/413.92.202305231734-0/x86_64/meta.json', 'base-oscontainer'],
    ['4.18-9.4/builds/418.94.202605101521-0/aarch64/meta.json', 'base-oscontainer'],
    ['rhel-10.2/builds/10.2.20260212-0/x86_64/meta.json', 'base-oscontainer'],
  ])('%s → %s', async (path, key) => {
    expect(osImageKey((await ref(path)).meta)).toBe(key);
  });

  it('is null for a build with no OS container, and requireOsImage names the build and meta.json', () => {
    const r = { build: '47.1', metaUrl: 'http://h/maipo/47.1/meta.json', meta: parseMeta({ buildid: '47.1' }, 'u') };
    expect(osImageOf(r)).toBeNull();
    expect(() => requireOsImage(r)).toThrow(
      'RHCOS build 47.1 has no "base-oscontainer" or "oscontainer" in http://h/maipo/47.1/meta.json: it publishes no OS image',
    );
  });

  it('--manifest-list gives image@<manifest-list-digest>, the same for every arch', async () => {
    const x = await ref('4.18-9.4/builds/418.94.202605101521-0/x86_64/meta.json');
    const a = await ref('4.18-9.4/builds/418.94.202605101521-0/aarch64/meta.json');
    const list = osImageOf(x, { manifestList: true })!.pullspec;
    expect(list).toBe(`${ART}@${x.meta.containers['base-oscontainer']!.manifestListDigest}`);
    expect(osImageOf(a, { manifestList: true })!.pullspec).toBe(list);
    expect(osImageOf(a)!.pullspec).not.toBe(osImageOf(x)!.pullspec);
  });
});

describe('osimage resolve on every generation of the sample release browser', () => {
  const resolve = (...args: string[]) => osimage(['resolve', '--base-url', server.url, ...args]);

  it('prod streams 4.18-9.4: osImage is base-oscontainer, osContainer stays null, three container keys', async () => {
    const r = await resolve('--channel', '4.18-9.4/builds', '--arch', 'aarch64', '-o', 'json');
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    const m = await sampleMeta('4.18-9.4/builds/418.94.202605101521-0/aarch64/meta.json');
    const base = m['base-oscontainer'];
    const ext = m['extensions-container'];
    expect(j.build).toBe('418.94.202605101521-0');
    expect(j.osContainer).toBeNull();
    expect(j.osImage).toBe(`${ART}@${base.digest}`);
    expect(j.containers).toEqual({
      oscontainer: null,
      'base-oscontainer': {
        image: ART,
        digest: base.digest,
        pullspec: `${ART}@${base.digest}`,
        manifestListDigest: base['manifest-list-digest'],
      },
      'extensions-container': {
        image: ART,
        digest: ext.digest,
        pullspec: `${ART}@${ext.digest}`,
        manifestListDigest: ext['manifest-list-digest'],
      },
    });
  });

  it('--manifest-list: osImage and every containers.*.pullspec by manifest list digest; osContainer as today', async () => {
    const r = await resolve('--channel', 'rhel-10.2/builds', '-o', 'json', '--manifest-list');
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    const m = await sampleMeta('rhel-10.2/builds/10.2.20260217-0/x86_64/meta.json');
    expect(j.build).toBe('10.2.20260217-0');
    expect(j.osImage).toBe(`${ART}@${m['base-oscontainer']['manifest-list-digest']}`);
    expect(j.containers['base-oscontainer'].pullspec).toBe(j.osImage);
    expect(j.containers['base-oscontainer'].digest).toBe(m['base-oscontainer'].image.split('@')[1]);
    expect(j.containers['extensions-container'].pullspec).toBe(`${ART}@${m['extensions-container']['manifest-list-digest']}`);
  });

  it('-o os-image prints the primary OS image of each generation', async () => {
    const m413 = await sampleMeta('rhcos-4.13/413.92.202305231734-0/x86_64/meta.json');
    const m412 = await sampleMeta('rhcos-4.12/412.86.202301311551-0/x86_64/meta.json');
    const m102 = await sampleMeta('rhel-10.2/builds/10.2.20260212-0/aarch64/meta.json');
    expect((await resolve('--channel', 'rhcos-4.13', '-o', 'os-image')).stdout).toBe(`${ART}@${m413['base-oscontainer'].digest}`);
    expect((await resolve('--channel', 'rhcos-4.12', '-o', 'os-image')).stdout).toBe(`${ART}@${m412.oscontainer.digest}`);
    const r = await resolve('--channel', 'rhel-10.2/builds', '--arch', 'aarch64', '--build', '10.2.20260212-0', '-o', 'os-image');
    expect(r.stdout).toBe(m102['base-oscontainer'].image);
    const list = await resolve(
      '--channel',
      'rhel-10.2/builds',
      '--arch',
      'aarch64',
      '--build',
      '10.2.20260212-0',
      '-o',
      'os-image',
      '--manifest-list',
    );
    expect(list.stdout).toBe(`${ART}@${m102['base-oscontainer']['manifest-list-digest']}`);
  });

  it('--manifest-list on a build without manifest list digests fails naming the build and the container', async () => {
    const r = await resolve('--channel', 'rhcos-4.13', '-o', 'os-image', '--manifest-list');
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: RHCOS build 413.92.202305231734-0 has no "manifest-list-digest" for "base-oscontainer" in ${server.url}/rhcos-4.13/413.92.202305231734-0/x86_64/meta.json: it was not published as a manifest list (drop --manifest-list)`,
    );
    const j = await resolve('--channel', 'rhcos-4.13', '-o', 'json', '--manifest-list');
    expect(j.exitCode).toBe(1);
    expect(j.stderr).toMatch(/^error: RHCOS build 413\.92\.202305231734-0 has no "manifest-list-digest" for "base-oscontainer" in /);
  });

  it('--manifest-list with -o oscontainer is a usage error', async () => {
    const r = await resolve('--channel', 'rhcos-4.13', '-o', 'oscontainer', '--manifest-list');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      'error: --manifest-list does not apply to -o oscontainer (it is always image@digest): use -o os-image or -o json',
    );
  });

  it('4.13: all three containers; osContainer keeps the oscontainer, osImage is base-oscontainer', async () => {
    const r = await resolve('--channel', 'rhcos-4.13', '-o', 'json');
    const j = JSON.parse(r.stdout);
    expect(j.osContainer).toBe(`${ART}@sha256:${'3'.repeat(64)}`);
    expect(j.containers.oscontainer.pullspec).toBe(j.osContainer);
    expect(j.osImage).toBe(j.containers['base-oscontainer'].pullspec);
    expect(j.osImage).not.toBe(j.osContainer);
    expect(j.containers['extensions-container'].manifestListDigest).toBeNull();
  });

  it('-o env adds RHCOS_OS_IMAGE and one variable per container the build has', async () => {
    const r = await resolve('--channel', '4.18-9.4/builds', '-o', 'env');
    expect(r.exitCode).toBe(0);
    const names = r.stdout.split('\n').map((l) => l.split('=')[0]);
    expect(names).toEqual([
      'RHCOS_BUILD_NAME',
      'RHCOS_DEFAULT_CHANNEL',
      'RHCOS_BASE_URL',
      'RHCOS_OS_IMAGE',
      'RHCOS_BASE_OSCONTAINER',
      'RHCOS_EXTENSIONS_CONTAINER',
    ]);
    const j = JSON.parse((await resolve('--channel', '4.18-9.4/builds', '-o', 'json')).stdout);
    const sourced = await execa('bash', ['-c', `${r.stdout}\necho "$RHCOS_OS_IMAGE|$RHCOS_EXTENSIONS_CONTAINER"`]);
    expect(sourced.stdout).toBe(`${j.osImage}|${j.containers['extensions-container'].pullspec}`);
    const old = await resolve('--channel', 'rhcos-4.13', '-o', 'env');
    expect(old.stdout).toContain(`\nRHCOS_OSCONTAINER=${ART}@sha256:${'3'.repeat(64)}\n`);
  });

  it('text output shows the OS image and the containers with their manifest lists', async () => {
    const r = await resolve('--channel', '4.18-9.4/builds');
    expect(r.exitCode).toBe(0);
    const j = JSON.parse((await resolve('--channel', '4.18-9.4/builds', '-o', 'json')).stdout);
    expect(r.stdout).toMatch(new RegExp(`^OS image: +${j.osImage.replace(/[.]/g, '\\.')}$`, 'm'));
    expect(r.stdout).not.toMatch(/^OS container:/m);
    expect(r.stdout).toContain(
      `Containers:\n  base-oscontainer      ${j.containers['base-oscontainer'].pullspec}\n    manifest list       ${j.containers['base-oscontainer'].manifestListDigest}\n  extensions-container  `,
    );
  });

  it('the newest prod-streams build per arch, and both builds of each stream resolve', async () => {
    for (const [channel, builds] of [
      ['4.18-9.4/builds', ['418.94.202605101521-0', '418.94.202604221012-0']],
      ['rhel-10.2/builds', ['10.2.20260217-0', '10.2.20260212-0']],
    ] as const) {
      for (const arch of ['x86_64', 'aarch64']) {
        for (const build of builds) {
          const r = await resolve('--channel', channel, '--arch', arch, '--build', build, '-o', 'json');
          expect(r.exitCode, r.stderr).toBe(0);
          expect(r.stderr).toBe('');
          expect(JSON.parse(r.stdout).containers['extensions-container']).not.toBeNull();
        }
      }
    }
  });
});
