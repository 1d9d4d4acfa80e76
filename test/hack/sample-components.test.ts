/**
 * The offline sample of `release new --from-release` (hack/sample/components.oci-archive and the channel
 * rhcos-4.16 of hack/sample/releases, built by hack/sample/make-components.mjs): the generators give the
 * committed bytes again, and the OS swap that `npm start` shows works on it offline, read back with release
 * info and verify.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectImage } from '../../src/release/os-image-config.js';
import { osimage, REPO, SAMPLE_RELEASES } from '../helpers/cli.js';

const ARCHIVE = 'hack/sample/components.oci-archive';
const RELEASE = `oci-archive:${ARCHIVE}:4.16.3`;
const CHANNEL = 'rhcos-4.16';
const OLD = '416.94.202406251923-0';
const NEW = '416.94.202407081958-0';
const TAGS = [
  'cli',
  'cluster-dns-operator',
  'cluster-version-operator',
  'coredns',
  'machine-config-operator',
  'rhel-coreos',
  'rhel-coreos-extensions',
];
const OSIMAGEURL = '0000_80_machine-config-operator_05_osimageurl.yaml';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-sample-components-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

interface Meta {
  'base-oscontainer': { image: string; digest: string };
  'extensions-container': { image: string; digest: string };
}
const meta = async (build: string): Promise<Meta> =>
  JSON.parse(await readFile(join(SAMPLE_RELEASES, CHANNEL, build, 'x86_64/meta.json'), 'utf8')) as Meta;
const pullspec = (c: { image: string; digest: string }) => `${c.image}@${c.digest}`;

interface Tag {
  name: string;
  annotations: Record<string, string>;
  from: { name: string };
}
async function tagsOf(release: string): Promise<Map<string, Tag>> {
  const r = await osimage(['release', 'extract', '--file', 'image-references', release]);
  expect(r.exitCode, r.stderr).toBe(0);
  return new Map((JSON.parse(r.stdout) as { spec: { tags: Tag[] } }).spec.tags.map((t) => [t.name, t]));
}

async function files(root: string): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const f of (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())) {
    const path = join(f.parentPath, f.name);
    out[path.slice(root.length + 1)] = await readFile(path);
  }
  return out;
}

describe('the sample generators (hack/sample/make-*.mjs)', () => {
  it('give the committed components.oci-archive, rhcos-4.16 channel and release.oci-archive, byte for byte', async () => {
    const out = join(dir, 'regenerated');
    await mkdir(out);
    for (const script of ['make-components.mjs', 'make-release.mjs']) {
      const r = await execa('node', [join(REPO, 'hack/sample', script), out], { reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    for (const f of ['components.oci-archive', 'release.oci-archive']) {
      expect((await readFile(join(out, f))).equals(await readFile(join(REPO, 'hack/sample', f))), `${f} differs`).toBe(true);
    }
    expect(await files(join(out, 'releases', CHANNEL))).toEqual(await files(join(SAMPLE_RELEASES, CHANNEL)));
  }, 60_000);
});

describe('the sample release 4.16.3 (hack/sample/components.oci-archive)', () => {
  it('ships the older rhcos-4.16 build, and holds both builds\u2019 OS images by digest', async () => {
    const tags = await tagsOf(RELEASE);
    expect([...tags.keys()]).toEqual(TAGS);
    const old = await meta(OLD);
    expect(tags.get('rhel-coreos')!.from.name).toBe(pullspec(old['base-oscontainer']));
    expect(tags.get('rhel-coreos')!.annotations['io.openshift.build.versions']).toBe(`machine-os=${OLD}`);
    expect(tags.get('rhel-coreos-extensions')!.from.name).toBe(pullspec(old['extensions-container']));
    for (const build of [OLD, NEW]) {
      const m = await meta(build);
      const os = await inspectImage(`oci-archive:${ARCHIVE}@${m['base-oscontainer'].digest}`, {}, 'linux/amd64');
      expect(os.labels['io.openshift.build.versions']).toBe(`machine-os=${build}`);
      await inspectImage(`oci-archive:${ARCHIVE}@${m['extensions-container'].digest}`, {}, 'linux/amd64');
    }
    const builds = await osimage(['builds', '--base-url', SAMPLE_RELEASES, '--channel', CHANNEL, '-o', 'json']);
    expect(builds.stdout).toContain(NEW);
  });
});

describe('the OS swap of the sample (npm start), offline', () => {
  const swapped = () => `oci-archive:${join(dir, 'swapped.tar')}:4.16.3`;
  const swap = ['release', 'new', '--from-release', RELEASE, '--base-url', SAMPLE_RELEASES, '--channel', CHANNEL];
  let run: Awaited<ReturnType<typeof osimage>>;
  beforeAll(async () => {
    run = await osimage([...swap, '--to-file', join(dir, 'swapped.tar')]);
  });

  it('sets rhel-coreos and rhel-coreos-extensions to the newest build, machine-os included, and keeps the rest', async () => {
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(`info: rhel-coreos: ${OLD} → ${NEW}`);
    // Only the machine-config-operator names an OS image: the other operators' files are kept.
    expect(run.stderr).toContain('info: Kept the payload files of 2 of 3 operators from the release; read 1 operator image');
    const before = await tagsOf(RELEASE);
    const after = await tagsOf(swapped());
    expect([...after.keys()]).toEqual(TAGS);
    const m = await meta(NEW);
    expect(after.get('rhel-coreos')!.from.name).toBe(pullspec(m['base-oscontainer']));
    expect(after.get('rhel-coreos')!.annotations['io.openshift.build.versions']).toBe(`machine-os=${NEW}`);
    expect(after.get('rhel-coreos-extensions')!.from.name).toBe(pullspec(m['extensions-container']));
    for (const t of TAGS.filter((x) => !x.startsWith('rhel-coreos'))) expect(after.get(t)!.from.name).toBe(before.get(t)!.from.name);

    const cm = await osimage(['release', 'extract', '--file', OSIMAGEURL, swapped()]);
    expect(cm.stdout).toContain(`baseOSContainerImage: "${pullspec(m['base-oscontainer'])}"`);
    expect(cm.stdout).toContain(`baseOSExtensionsContainerImage: "${pullspec(m['extensions-container'])}"`);
    expect(cm.stdout).toContain('releaseVersion: 4.16.3');
  });

  it('release info shows the new machine-os, and verify against the channel is consistent, with no note', async () => {
    const info = await osimage(['release', 'info', swapped()]);
    expect(info.stdout).toMatch(new RegExp(`^  machine-os ${NEW} Red Hat Enterprise Linux CoreOS$`, 'm'));
    const v = await osimage(['verify', '--base-url', SAMPLE_RELEASES, '--channel', CHANNEL, '--release', swapped(), '-o', 'json']);
    expect(v.exitCode, v.stderr).toBe(0);
    const report = JSON.parse(v.stdout) as { consistent: boolean; notes: string[] };
    expect(report).toMatchObject({ consistent: true, notes: [] });
    // The release as shipped drifts from the channel's newest build.
    const drift = await osimage(['verify', '--base-url', SAMPLE_RELEASES, '--channel', CHANNEL, '--release', RELEASE]);
    expect(drift.exitCode).toBe(1);
  });

  it('gives the bytes of a full rebuild', async () => {
    const full = await osimage([...swap, '--full-rebuild', '--to-file', join(dir, 'full.tar')]);
    expect(full.exitCode, full.stderr).toBe(0);
    expect(full.stdout).toBe(run.stdout);
    expect((await readFile(join(dir, 'full.tar'))).equals(await readFile(join(dir, 'swapped.tar')))).toBe(true);
  });
});
