/**
 * `osimage verify` on every generation since 4.12, against the real distribution registry and a release
 * browser over HTTP: the mixed 4.12 payload (machine-os-content + rhel-coreos-8), the layered one
 * (rhel-coreos + rhel-coreos-extensions), 4.19+ node images, two OS image streams (--os-stream), and an
 * oci-archive read offline. The 2019 behaviour has its own file (verify-cli.test.ts).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { archive, entry, image, pushBuilt, tempDir, type TagSpec, type Temp } from '../helpers/oci-builder.js';
import { osStreamTags, pushStreamImages, streamRelease } from '../helpers/os-stream-images.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { writeX86Browser } from './browser.js';

const MIXED = '412.86.202301311551-0';
const LAYERED = '418.94.202605101521-0';
const BASE9 = '9.6.20260201-0';
const BASE9_OLD = '9.6.20260115-0';
const BASE10 = '10.2.20260217-0';
const CHANNEL = 'rhcos-4.21';
const QUAY = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';

let reg: TestRegistry | undefined;
let browser: FileServer;
let tmp: Temp;
printLogsOnFailure(() => reg);

/** name → digest of every image pushed to os/rhcos. */
const d: Record<string, string> = {};
let osRepo: string;
let relRepo: string;
let archiveRef: string;
const at = (name: string) => `${osRepo}@${d[name]}`;

/** An image with these labels; `name` makes its content (and digest) its own. */
async function push(name: string, labels: Record<string, string>): Promise<void> {
  const img = await image([{ entries: [{ name: 'usr/lib/os-release', data: `NAME=${name}\n` }] }], { labels });
  d[name] = await pushBuilt(`${osRepo}:${name}`, img);
}

const nodeLabels = (base: string, ext = false) => ({
  'coreos.build.manifest-list-tag': `4.21-9.6-${base.split('.')[2]!.slice(0, 8)}1851-node-image${ext ? '-extensions' : ''}`,
  'org.opencontainers.image.version': base,
});

async function writeBrowser(root: string): Promise<void> {
  const metas: Record<string, Record<string, unknown>> = {
    [MIXED]: {
      oscontainer: { image: `${osRepo}`, digest: d['moc-412'] },
      'base-oscontainer': { image: `${osRepo}@${d['base-412']}` },
      'extensions-container': { image: `${osRepo}`, digest: d['ext-412'] },
    },
    [LAYERED]: {
      'base-oscontainer': { image: osRepo, digest: d['base-418'], tags: [`${LAYERED}-coreos`] },
      'extensions-container': { image: osRepo, digest: d['ext-418'] },
    },
    [BASE9]: { 'base-oscontainer': { image: osRepo, digest: d['base-9'] }, 'extensions-container': { image: osRepo, digest: d['ext-9'] } },
    [BASE9_OLD]: { 'base-oscontainer': { image: osRepo, digest: `sha256:${'9'.repeat(64)}` } },
    [BASE10]: {
      'base-oscontainer': { image: osRepo, digest: d['base-10'] },
      'extensions-container': { image: osRepo, digest: d['ext-10'] },
    },
  };
  await writeX86Browser(root, CHANNEL, metas);
}

const verify = (release: string, build: string, ...more: string[]) =>
  osimage(['verify', '--insecure', '--base-url', browser.url, '--channel', CHANNEL, '--build', build, '--release', release, ...more]);

/** `verify … -o json` that must pass quietly (exit 0, nothing on stderr): its parsed object. */
async function passingJson(release: string, build: string, ...more: string[]): Promise<unknown> {
  const r = await verify(release, build, ...more, '-o', 'json');
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout);
}

async function pushRelease(tag: string, version: string, tags: TagSpec[]): Promise<string> {
  await pushBuilt(`${relRepo}:${tag}`, await streamRelease(version, tags));
  return `${relRepo}:${tag}`;
}

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  tmp = await tempDir('osimage-verify-gen-');
  osRepo = `${reg.host}/os/rhcos`;
  relRepo = `${reg.host}/ocp/release`;
  await push('moc-412', { version: MIXED });
  await push('base-412', { version: MIXED });
  await push('ext-412', {});
  await push('base-418', { 'org.opencontainers.image.version': LAYERED });
  await push('ext-418', {});
  await push('ext-418-other', {});
  await push('base-9', { 'org.opencontainers.image.version': BASE9 });
  await push('ext-9', {});
  await push('node-9', nodeLabels(BASE9));
  await push('node-9-ext', nodeLabels(BASE9, true));
  // The OS stream images (labels as the MCO reads them): rhel-9 is a node image, rhel-10 the build's own.
  await pushStreamImages(
    osRepo,
    [
      ['s-node-9', { stream: 'rhel-9', kind: 'os', labels: nodeLabels(BASE9) }],
      ['s-node-9-ext', { stream: 'rhel-9', kind: 'extensions', labels: nodeLabels(BASE9, true) }],
      ['base-10', { stream: 'rhel-10', kind: 'os', labels: { 'org.opencontainers.image.version': BASE10 } }],
      ['ext-10', { stream: 'rhel-10', kind: 'extensions' }],
    ],
    d,
  );
  const root = join(tmp.dir, 'browser');
  browser = await serveFolder(root);
  await writeBrowser(root);
  // Offline: a 4.21 release naming quay.io, its node images inside the same archive.
  const nodeOs = await image([{ entries: [{ name: 'usr/lib/os-release', data: 'NAME=node-9\n' }] }], { labels: nodeLabels(BASE9) });
  const nodeExt = await image([{ entries: [{ name: 'usr/lib/os-release', data: 'NAME=node-9-ext\n' }] }], {
    labels: nodeLabels(BASE9, true),
  });
  const rel = await streamRelease(
    '4.21.0',
    osStreamTags({
      'rhel-coreos': `${QUAY}@${nodeOs.descriptor.digest}`,
      'rhel-coreos-extensions': `${QUAY}@${nodeExt.descriptor.digest}`,
    }),
  );
  archiveRef = await archive(tmp.dir, 'release.tar', [entry(rel, '4.21.0'), entry(nodeOs), entry(nodeExt)], '4.21.0');
});

afterAll(async () => {
  await browser?.close();
  await reg?.stop();
  reg = undefined;
  await tmp?.cleanup();
});

describe('verify: the OS tag by generation', () => {
  test('4.12 (machine-os-content + rhel-coreos-8): rhel-coreos-8 by default, against base-oscontainer', async () => {
    const release = await pushRelease('4.12', '4.12.0', [
      { name: 'machine-os-content', pullspec: at('moc-412') },
      { name: 'rhel-coreos-8', pullspec: at('base-412') },
      { name: 'rhel-coreos-8-extensions', pullspec: at('ext-412') },
    ]);
    expect(await passingJson(release, MIXED)).toMatchObject({
      consistent: true,
      verdict: 'consistent',
      release: { tag: 'rhel-coreos-8', osStream: null },
      bootimage: { container: 'base-oscontainer', pullspec: at('base-412') },
      payload: { pullspec: at('base-412') },
      nodeImage: null,
      extensions: { verdict: 'consistent', tag: 'rhel-coreos-8-extensions', payload: at('ext-412'), bootimage: at('ext-412') },
    });
    // --tag keeps its meaning: that tag, against the meta key it pairs with.
    const moc = await verify(release, MIXED, '--tag', 'machine-os-content', '-o', 'json');
    expect(moc.exitCode).toBe(0);
    expect(JSON.parse(moc.stdout)).toMatchObject({
      release: { tag: 'machine-os-content' },
      bootimage: { container: 'oscontainer', pullspec: at('moc-412') },
      extensions: { verdict: 'absent', tag: null },
    });
  });

  test('layered (rhel-coreos + rhel-coreos-extensions): consistent, with the extensions line (text)', async () => {
    const release = await pushRelease('4.18', '4.18.1', [
      { name: 'rhel-coreos', pullspec: at('base-418') },
      { name: 'rhel-coreos-extensions', pullspec: at('ext-418') },
    ]);
    const r = await verify(release, LAYERED);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^consistent: the payload ships the bootimage's OS image$/m);
    expect(r.stdout).toContain(`Payload: ${release} tag rhel-coreos\n`);
    expect(r.stdout).toMatch(/^Extensions: consistent with the pinned build, tag rhel-coreos-extensions$/m);
  });

  test("extensions that are not the build's: drift, exit 1, while the OS image itself is consistent", async () => {
    const release = await pushRelease('4.18-ext', '4.18.1', [
      { name: 'rhel-coreos', pullspec: at('base-418') },
      { name: 'rhel-coreos-extensions', pullspec: at('ext-418-other') },
    ]);
    const r = await verify(release, LAYERED, '-o', 'json');
    expect(r.exitCode).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ consistent: false, verdict: 'consistent', extensions: { verdict: 'drift', payload: at('ext-418-other') } });
    const t = await verify(release, LAYERED);
    expect(t.stdout).toMatch(/^Extensions: DRIFT \(not the build's extensions-container\), tag rhel-coreos-extensions$/m);
  });
});

describe('verify: node images (4.19+)', () => {
  let release: string;
  beforeAll(async () => {
    release = await pushRelease('4.21', '4.21.0', [
      { name: 'rhel-coreos', pullspec: at('node-9') },
      { name: 'rhel-coreos-extensions', pullspec: at('node-9-ext') },
    ]);
  });

  test('a node image built on the pinned build is consistent; its base build comes from its labels', async () => {
    expect(await passingJson(release, BASE9)).toMatchObject({
      consistent: true,
      verdict: 'consistent',
      payload: { pullspec: at('node-9'), digest: d['node-9'], buildId: BASE9, buildIdSource: 'node-image' },
      nodeImage: '4.21-9.6-202602011851-node-image',
      extensions: { verdict: 'consistent', tag: 'rhel-coreos-extensions' },
    });
    const t = await verify(release, BASE9);
    expect(t.stdout).toMatch(/^ {2}Node image: +4\.21-9\.6-202602011851-node-image$/m);
    expect(t.stdout).toMatch(new RegExp(`^ {2}Build: +${BASE9.replace(/\./g, '\\.')} \\(the node image's base, from its labels\\)$`, 'm'));
    expect(t.stdout).toContain('only gain the node layer');
  });

  test('a node image on a newer base than the pinned build: payload-newer; a build without extensions-container: absent', async () => {
    const r = await verify(release, BASE9_OLD, '-o', 'json');
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      verdict: 'payload-newer',
      bootimage: { buildId: BASE9_OLD },
      payload: { buildId: BASE9 },
      extensions: { verdict: 'absent' },
    });
  });

  test('a rhel-9 node image against a pinned 10.x build: different, never newer or older', async () => {
    const r = await verify(release, BASE10, '-o', 'json');
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ verdict: 'different', bootimage: { buildId: BASE10 }, payload: { buildId: BASE9 } });
  });

  test('offline from an oci-archive: the node images are read by digest in the same archive', async () => {
    const r = await osimage([
      'verify',
      '--base-url',
      browser.url,
      '--channel',
      CHANNEL,
      '--build',
      BASE9,
      '--release',
      archiveRef,
      '-o',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      verdict: 'consistent',
      payload: { buildId: BASE9, buildIdSource: 'node-image' },
      extensions: { verdict: 'consistent' },
      notes: [],
    });
  });
});

describe('verify --os-stream', () => {
  let release: string;
  beforeAll(async () => {
    release = await pushRelease(
      'dual',
      '4.21.0',
      osStreamTags({
        'rhel-coreos': at('s-node-9'),
        'rhel-coreos-extensions': at('s-node-9-ext'),
        'rhel-coreos-10': at('base-10'),
        'rhel-coreos-10-extensions': at('ext-10'),
      }),
    );
  });

  test("rhel-10: that stream's OS and extensions tags against the build's base-oscontainer", async () => {
    expect(await passingJson(release, BASE10, '--os-stream', 'rhel-10')).toMatchObject({
      verdict: 'consistent',
      release: { tag: 'rhel-coreos-10', osStream: 'rhel-10' },
      bootimage: { container: 'base-oscontainer', buildId: BASE10 },
      extensions: { verdict: 'consistent', tag: 'rhel-coreos-10-extensions' },
    });
    const t = await verify(release, BASE10, '--os-stream', 'rhel-10');
    expect(t.stdout).toContain(`Payload: ${release} tag rhel-coreos-10 (OS stream rhel-10)\n`);
  });

  test('rhel-9: the node image of the default stream, by its base build', async () => {
    const r = await verify(release, BASE9, '--os-stream', 'rhel-9', '-o', 'json');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ verdict: 'consistent', release: { tag: 'rhel-coreos' }, payload: { buildId: BASE9 } });
  });

  test('an archive holding only the release: the stream by its tag names, with notes, as the default stream degrades', async () => {
    const digest = (c: string) => `sha256:${c.repeat(64)}`;
    const rel = await streamRelease(
      '4.21.0',
      osStreamTags({
        'rhel-coreos': `${QUAY}@${digest('1')}`,
        'rhel-coreos-extensions': `${QUAY}@${digest('2')}`,
        'rhel-coreos-10': `${QUAY}@${digest('3')}`,
        'rhel-coreos-10-extensions': `${QUAY}@${digest('4')}`,
      }),
    );
    const only = await archive(tmp.dir, 'release-only.tar', [entry(rel, '4.21.0')], '4.21.0');
    const run = (stream: string) =>
      osimage([
        'verify',
        '--base-url',
        browser.url,
        '--channel',
        CHANNEL,
        '--build',
        BASE10,
        '--release',
        only,
        '--os-stream',
        stream,
        '-o',
        'json',
      ]);
    const r = await run('rhel-10');
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      release: { tag: 'rhel-coreos-10', osStream: 'rhel-10' },
      extensions: { tag: 'rhel-coreos-10-extensions' },
    });
    expect(report.notes[0]).toMatch(
      /^could not read the OS images' labels to find OS stream rhel-10 \(.*\); took its tags by name: rhel-coreos-10, rhel-coreos-10-extensions$/,
    );
    expect(report.notes.some((n: string) => n.startsWith(`could not read the OS container ${QUAY}@${digest('3')}`))).toBe(true);
    // The default stream of a 4.x release, rhel-9, is the unnumbered pair.
    expect(JSON.parse((await run('rhel-9')).stdout)).toMatchObject({ release: { tag: 'rhel-coreos' } });
    // A stream it has no tags for is still an error.
    expect((await run('rhel-11')).stderr).toMatch(/^error: /);
  });

  test('an unknown stream names those there are; --tag with --os-stream is a usage error', async () => {
    const r = await verify(release, BASE10, '--os-stream', 'rhel-11');
    expect(r).toEqual({
      stdout: '',
      stderr: `error: the release image ${release} ships no OS image stream "rhel-11" (it has rhel-10, rhel-9)`,
      exitCode: 1,
    });
    const u = await verify(release, BASE10, '--os-stream', 'rhel-10', '--tag', 'rhel-coreos');
    expect(u).toEqual({ stdout: '', stderr: 'error: --tag and --os-stream may not both be specified', exitCode: 2 });
  });
});
