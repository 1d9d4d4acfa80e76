/**
 * `verify` and the payload's coreos-bootimages: the pinned arch of the pinned OS stream (data.stream for the
 * default, data.streams[NAME] for another) against the pinned build. Releases with one and two streams, in the
 * real distribution registry and as an oci-archive; each verdict; the file read only from the layers verify
 * reads for image-references.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bootimagesEntry, bootimagesYaml, sampleStream } from '../helpers/bootimages.js';
import { osimage } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { archive, baseEntries, entry, image, pushBuilt, releaseEntries, tempDir, type Temp } from '../helpers/oci-builder.js';
import { osStreamTags, pushStreamImages } from '../helpers/os-stream-images.js';
import { useRegistry } from '../helpers/registry.js';
import { writeX86Browser } from './browser.js';

const BASE9 = '9.6.20260201-0';
const BASE9_OLD = '9.6.20260115-0';
const BASE10 = '10.2.20260217-0';
const CHANNEL = 'rhcos-4.21';
const QUAY = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';

const registry = useRegistry();
let browser: FileServer;
let tmp: Temp;
const d: Record<string, string> = {};
let osRepo: string;
let relRepo: string;

const TWO = bootimagesYaml({ streams: { 'rhel-9': sampleStream('rhel-9', BASE9), 'rhel-10': sampleStream('rhel-10', BASE10) } });
const ONE = bootimagesYaml({ stream: sampleStream('rhcos-4.21', BASE9) });
const OLD_ONE = bootimagesYaml({ streams: { 'rhel-9': sampleStream('rhel-9', BASE9_OLD), 'rhel-10': sampleStream('rhel-10', BASE10) } });

/** The release's OS stream tags, at `repo`. */
const tagsAt = (repo: string) =>
  osStreamTags({
    'rhel-coreos': `${repo}@${d['base-9']}`,
    'rhel-coreos-extensions': `${repo}@${d['ext-9']}`,
    'rhel-coreos-10': `${repo}@${d['base-10']}`,
    'rhel-coreos-10-extensions': `${repo}@${d['ext-10']}`,
  });

/** A release image: a base layer, then release-manifests/ with `yaml` as coreos-bootimages (when given). */
const release = (repo: string, yaml?: string) =>
  image([
    { entries: baseEntries() },
    { entries: releaseEntries({ name: '4.21.0', tags: tagsAt(repo), extra: yaml ? [bootimagesEntry(yaml)] : [] }) },
  ]);

/** The two builds, each with its stream's OS and extensions images. */
const writeBrowser = (root: string) =>
  writeX86Browser(root, CHANNEL, {
    [BASE9]: { 'base-oscontainer': { image: osRepo, digest: d['base-9'] }, 'extensions-container': { image: osRepo, digest: d['ext-9'] } },
    [BASE10]: {
      'base-oscontainer': { image: osRepo, digest: d['base-10'] },
      'extensions-container': { image: osRepo, digest: d['ext-10'] },
    },
  });

const refs: Record<string, string> = {};

beforeAll(async () => {
  tmp = await tempDir('osimage-verify-boot-');
  osRepo = `${registry().host}/os/rhcos`;
  relRepo = `${registry().host}/ocp/release`;
  await pushStreamImages(
    osRepo,
    [
      ['base-9', { stream: 'rhel-9', kind: 'os', labels: { 'org.opencontainers.image.version': BASE9 } }],
      ['ext-9', { stream: 'rhel-9', kind: 'extensions' }],
      ['base-10', { stream: 'rhel-10', kind: 'os', labels: { 'org.opencontainers.image.version': BASE10 } }],
      ['ext-10', { stream: 'rhel-10', kind: 'extensions' }],
    ],
    d,
  );
  browser = await serveFolder(join(tmp.dir, 'browser'));
  await writeBrowser(join(tmp.dir, 'browser'));
  for (const [tag, yaml] of [
    ['two', TWO],
    ['old', OLD_ONE],
    ['none', undefined],
  ] as const) {
    await pushBuilt(`${relRepo}:${tag}`, await release(osRepo, yaml));
    refs[tag] = `${relRepo}:${tag}`;
  }
  // Offline: one stream (data.stream only); the payload names quay.io by the build's digests.
  refs.archive = await archive(tmp.dir, 'one.tar', [entry(await release(QUAY, ONE), '4.21.0')], '4.21.0');
  // coreos-bootimages in a layer below the one holding image-references: verify does not read that layer.
  const split = await image([
    { entries: baseEntries() },
    { entries: [{ name: 'release-manifests', type: 'directory' }, bootimagesEntry(TWO)] },
    { entries: releaseEntries({ name: '4.21.0', tags: tagsAt(QUAY) }) },
  ]);
  refs.split = await archive(tmp.dir, 'split.tar', [entry(split, '4.21.0')], '4.21.0');
  // A patch layer above the release layer, holding only coreos-bootimages: oc's top layer has no image-references.
  const patched = await image([
    { entries: baseEntries() },
    { entries: releaseEntries({ name: '4.21.0', tags: tagsAt(QUAY) }) },
    { entries: [{ name: 'release-manifests', type: 'directory' }, bootimagesEntry(TWO)] },
  ]);
  refs.patched = await archive(tmp.dir, 'patched.tar', [entry(patched, '4.21.0')], '4.21.0');
});

afterAll(async () => {
  await browser?.close();
  await tmp?.cleanup();
});

const verify = (release: string, build: string, ...more: string[]) =>
  osimage(['verify', '--insecure', '--base-url', browser.url, '--channel', CHANNEL, '--build', build, '--release', release, ...more]);

async function verifyJson(release: string, build: string, ...more: string[]) {
  const r = await verify(release, build, ...more, '-o', 'json');
  return { exitCode: r.exitCode, stderr: r.stderr, json: JSON.parse(r.stdout) as Record<string, unknown> };
}

describe('verify: the payload bootimage stream', () => {
  test('two streams, the default: data.stream names the pinned build → consistent', async () => {
    const r = await verifyJson(refs.two!, BASE9);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.json.consistent).toBe(true);
    expect(r.json.bootimages).toEqual({ verdict: 'consistent', streamBuild: BASE9, pinnedBuild: BASE9, arch: 'x86_64' });
    const t = await verify(refs.two!, BASE9);
    expect(t.stdout).toContain(`Bootimage stream: consistent, ${BASE9} (data.stream, x86_64)\n`);
  });

  test('two streams, --os-stream rhel-10: data.streams["rhel-10"] → consistent', async () => {
    const r = await verifyJson(refs.two!, BASE10, '--os-stream', 'rhel-10');
    expect(r.exitCode).toBe(0);
    expect(r.json.bootimages).toEqual({ verdict: 'consistent', streamBuild: BASE10, pinnedBuild: BASE10, arch: 'x86_64' });
    const t = await verify(refs.two!, BASE10, '--os-stream', 'rhel-10');
    expect(t.stdout).toContain(`Bootimage stream: consistent, ${BASE10} (data.streams[rhel-10], x86_64)\n`);
  });

  test('--os-stream rhel-9, the default stream: data.stream is read', async () => {
    const r = await verifyJson(refs.old!, BASE9, '--os-stream', 'rhel-9');
    expect(r.json.bootimages).toEqual({ verdict: 'differs', streamBuild: BASE9_OLD, pinnedBuild: BASE9, arch: 'x86_64' });
  });

  test('the stream names an older build → differs, exit 1, and the text says what it means', async () => {
    const r = await verifyJson(refs.old!, BASE9);
    expect(r.exitCode).toBe(1);
    expect(r.json.verdict).toBe('consistent'); // the OS image itself is the pinned build's
    expect(r.json.consistent).toBe(false);
    expect(r.json.bootimages).toEqual({ verdict: 'differs', streamBuild: BASE9_OLD, pinnedBuild: BASE9, arch: 'x86_64' });
    const t = await verify(refs.old!, BASE9);
    expect(t.exitCode).toBe(1);
    expect(t.stdout).toContain(`Bootimage stream: DIFFERS, ${BASE9_OLD} (data.stream, x86_64), pinned ${BASE9}\n`);
    expect(t.stdout).toMatch(
      /^consistent: the payload ships the bootimage's OS image\nDRIFT: the payload's bootimage stream \(coreos-bootimages\) is not the pinned build\n\n/,
    );
    expect(t.stdout).toMatch(/^Meaning: the installer would boot new machines from a different build than the one pinned/m);
  });

  test('a release without coreos-bootimages → absent, exit 0', async () => {
    const r = await verifyJson(refs.none!, BASE9);
    expect(r.exitCode).toBe(0);
    expect(r.json.bootimages).toEqual({ verdict: 'absent', streamBuild: null, pinnedBuild: BASE9, arch: 'x86_64' });
    expect((await verify(refs.none!, BASE9)).stdout).toContain('Bootimage stream: absent');
  });

  test('one stream in an oci-archive (data.stream only): consistent', async () => {
    const r = await verifyJson(refs.archive!, BASE9);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.json.bootimages).toEqual({ verdict: 'consistent', streamBuild: BASE9, pinnedBuild: BASE9, arch: 'x86_64' });
  });

  test('the file below the layer that holds image-references is not read (absent)', async () => {
    const r = await verifyJson(refs.split!, BASE9);
    expect(r.exitCode).toBe(0);
    expect(r.json.bootimages).toMatchObject({ verdict: 'absent' });
  });

  test('verify reads the merged view: image-references below a patch layer is found, the patch file seen', async () => {
    const r = await verifyJson(refs.patched!, BASE9);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.json.bootimages).toEqual({ verdict: 'consistent', streamBuild: BASE9, pinnedBuild: BASE9, arch: 'x86_64' });
    // release info reads the layer that holds release-manifests/, as oc reads the top layer.
    const info = await osimage(['release', 'info', '-o', 'name', refs.patched!]);
    expect(info).toEqual({ stdout: '', stderr: 'error: release image did not contain an image-references file', exitCode: 1 });
    expect((await osimage(['release', 'info', '--merged-layers', '-o', 'name', refs.patched!])).exitCode).toBe(0);
  });

  test('with the cache: the file is kept beside image-references, so a second run says the same', async () => {
    const env = { OSIMAGE_NO_CACHE: undefined, OSIMAGE_CACHE_DIR: join(tmp.dir, 'cache') };
    // image-references alone (release info --image-for) is another entry, without the file.
    const info = await osimage(['release', 'info', '--insecure', '--image-for', 'rhel-coreos', refs.old!], { env });
    expect(info.exitCode).toBe(0);
    for (let run = 0; run < 2; run++) {
      const r = await osimage(
        ['verify', '--insecure', '--base-url', browser.url, '--channel', CHANNEL, '--build', BASE9, '--release', refs.old!, '-o', 'json'],
        { env },
      );
      expect(r.exitCode).toBe(1);
      expect(JSON.parse(r.stdout).bootimages).toEqual({ verdict: 'differs', streamBuild: BASE9_OLD, pinnedBuild: BASE9, arch: 'x86_64' });
    }
    expect((await readdir(join(tmp.dir, 'cache'), { recursive: true })).length).toBeGreaterThan(0);
  });
});
