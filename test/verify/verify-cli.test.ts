/**
 * `osimage verify` run from the source (in-process), against the real distribution registry (release images and OS
 * containers pushed here) and a release browser served over HTTP from a temp folder.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { baseEntries, image, multiArch, pushBuilt, releaseEntries, tempDir, type TagSpec, type Temp } from '../helpers/oci-builder.js';
import { freePort, printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';

const OLD = '412.86.202301250001-0';
const NEW = '412.86.202301311551-0';
const NO_OS = '412.86.202301200000-0';
const CHANNEL = 'rhcos-4.12';
const QUAY = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';

let reg: TestRegistry | undefined;
let browser: FileServer;
let tmp: Temp;
printLogsOnFailure(() => reg);

const digests: Record<string, string> = {};
let osRepo: string;
let relRepo: string;
let pinsFile: string;
/** `${relRepo}:same`, pushed before the tests. */
let sameRelease: string;

/** The tags of a release whose OS image tag points at `pullspec`. */
function osTags(pullspec: string, versions?: string, name = 'machine-os-content'): TagSpec[] {
  return [
    { name: 'cli', pullspec: `${QUAY}@sha256:${'a'.repeat(64)}`, annotations: { 'io.openshift.build.versions': 'kubectl=1.26.1' } },
    { name, pullspec, annotations: versions ? { 'io.openshift.build.versions': versions } : {} },
  ];
}

async function pushRelease(tag: string, tags: TagSpec[]): Promise<string> {
  const img = await image([{ entries: baseEntries() }, { entries: releaseEntries({ name: '4.13.1', tags }) }]);
  await pushBuilt(`${relRepo}:${tag}`, img);
  return `${relRepo}:${tag}`;
}

async function writeBrowser(root: string, host: string): Promise<void> {
  const dir = join(root, CHANNEL);
  await mkdir(dir, { recursive: true });
  const builds = [NEW, OLD, NO_OS];
  // NEW also has an aarch64 build, whose OS container is the same image (a multi-arch one in real life).
  const arches = (id: string) => (id === NEW ? ['x86_64', 'aarch64'] : ['x86_64']);
  await writeFile(
    join(dir, 'builds.json'),
    JSON.stringify({
      'schema-version': '1.0.0',
      builds: builds.map((id) => ({ id, arches: arches(id) })),
      timestamp: '2023-01-31T16:00:00Z',
    }),
  );
  for (const id of builds) {
    for (const arch of arches(id)) {
      await mkdir(join(dir, id, arch), { recursive: true });
      const meta: Record<string, unknown> = { buildid: id, 'ostree-commit': 'c'.repeat(64) };
      if (id !== NO_OS) meta.oscontainer = { image: `${host}/os/rhcos`, digest: digests[id] };
      await writeFile(join(dir, id, arch, 'meta.json'), JSON.stringify(meta, null, 2));
    }
  }
}

const args = (release: string, ...more: string[]) => [
  'verify',
  '--insecure',
  '--base-url',
  browser.url,
  '--channel',
  CHANNEL,
  '--release',
  release,
  ...more,
];

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  tmp = await tempDir('osimage-verify-');
  osRepo = `${reg.host}/os/rhcos`;
  relRepo = `${reg.host}/ocp/release`;
  // Two OS containers with the labels coreos-assembler / ART put on them, one per build.
  for (const [id, label] of [
    [OLD, 'version'],
    [NEW, 'org.opencontainers.image.version'],
  ] as const) {
    const os = await image([{ entries: [{ name: 'usr/lib/os-release', data: `VERSION="${id}"\n` }] }], {
      labels: { [label]: id, 'com.coreos.ostree-commit': 'c'.repeat(64) },
    });
    digests[id] = await pushBuilt(`${osRepo}:${id}`, os);
  }
  // The release most tests read (`:same`): it ships the old build's OS image, as the pins say.
  sameRelease = await pushRelease('same', osTags(`${osRepo}@${digests[OLD]}`, `machine-os=${OLD}`));
  const root = join(tmp.dir, 'browser');
  await writeBrowser(root, reg.host);
  browser = await serveFolder(root);
  pinsFile = join(tmp.dir, 'release.sh');
  await writeFile(
    pinsFile,
    `#!/usr/bin/env bash\nset -euo pipefail\nexport RHCOS_BUILD_NAME="\${RHCOS_BUILD_NAME:-${OLD}}"\nexport RHCOS_DEFAULT_CHANNEL="\${RHCOS_DEFAULT_CHANNEL:-${CHANNEL}}"\nexport RHCOS_BASE_URL="\${RHCOS_BASE_URL:-${browser.url}}"\n`,
  );
});

afterAll(async () => {
  await browser?.close();
  await reg?.stop();
  reg = undefined;
  await tmp?.cleanup();
});

describe('verify: the verdicts', () => {
  test('the same digest is consistent, exit 0; the pins come from the release script', async () => {
    const r = await osimage(['verify', '--insecure', '--pins', pinsFile, '--release', sameRelease]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^consistent: the payload ships the bootimage's OS image$/m);
    expect(r.stdout).toContain(`(pinned in ${pinsFile}:3)`);
    expect(r.stdout).toContain(`${osRepo}@${digests[OLD]}`);
    expect(r.stdout).toMatch(/no pivot/);
  });

  test('the environment does not move the pin read from --pins (as with pin --check)', async () => {
    const release = `${relRepo}:same`;
    const r = await osimage(['verify', '--insecure', '--pins', pinsFile, '--release', release, '-o', 'json'], {
      env: { RHCOS_BUILD_NAME: NEW },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`info: --pins reads the pins from ${pinsFile}; ignoring RHCOS_BUILD_NAME from the environment`);
    expect(JSON.parse(r.stdout).bootimage.build).toBe(OLD);
  });

  test('--write, the old name of --pins, still reads the pins (hidden from --help)', async () => {
    const r = await osimage(['verify', '--insecure', '--write', pinsFile, '--release', `${relRepo}:same`, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).bootimage.pinnedIn).toBe(`${pinsFile}:3`);
    const help = await osimage(['verify', '--help']);
    expect(help.stdout).toContain('--pins <file>');
    expect(help.stdout).not.toContain('--write');
  });

  test('a payload newer than the bootimage: both pullspecs, both build ids, a pivot and reboot, exit 1', async () => {
    const release = await pushRelease('newer', osTags(`${osRepo}@${digests[NEW]}`, `machine-os=${NEW}`));
    const r = await osimage(args(release, '--build', OLD, '-o', 'json'));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('');
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({
      consistent: false,
      verdict: 'payload-newer',
      release: { image: release, tag: 'machine-os-content' },
      bootimage: {
        pullspec: `${osRepo}@${digests[OLD]}`,
        digest: digests[OLD],
        buildId: OLD,
        buildIdSource: 'meta.json',
        build: OLD,
        channel: CHANNEL,
        arch: 'x86_64',
        pinnedIn: null,
      },
      payload: { pullspec: `${osRepo}@${digests[NEW]}`, digest: digests[NEW], buildId: NEW, buildIdSource: 'annotation' },
      notes: [],
    });
    expect(j.release.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(j.bootimage.metaUrl).toBe(`${browser.url}/${CHANNEL}/${OLD}/x86_64/meta.json`);
    expect(j.meaning).toBe(`the payload is newer: every new node boots ${OLD}, then pivots to ${NEW} and reboots on first boot`);
  });

  test('a bootimage newer than the payload is called a downgrade (text view)', async () => {
    const r = await osimage(args(`${relRepo}:same`, '--build', NEW));
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^DRIFT: the bootimage is newer than the payload's OS image \(a downgrade\)$/m);
    expect(r.stdout).toContain(`pivots DOWN to ${OLD} (a downgrade)`);
    expect(r.stdout).toMatch(new RegExp(`^ {2}Build: +${NEW.replace(/\./g, '\\.')} \\(from meta\\.json\\)$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^ {2}Build: +${OLD.replace(/\./g, '\\.')} \\(from annotation\\)$`, 'm'));
  });

  test('another repository with the same digest is consistent (no registry read needed for it)', async () => {
    const release = await pushRelease('mirrored', osTags(`${QUAY}@${digests[OLD]}`));
    const r = await osimage([...args(release, '--build', OLD, '-o', 'json')]);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.verdict).toBe('consistent');
    expect(j.payload.pullspec).toBe(`${QUAY}@${digests[OLD]}`);
    expect(j.bootimage.pullspec).toBe(`${osRepo}@${digests[OLD]}`);
    // No annotation, and no registry read: the same digest is the bootimage's build.
    expect(j.payload).toMatchObject({ buildId: OLD, buildIdSource: 'digest' });
  });

  test('the same digest with an annotation naming another build is consistent, with a note', async () => {
    const release = await pushRelease('mislabelled', osTags(`${osRepo}@${digests[OLD]}`, `machine-os=${NEW}`));
    const r = await osimage(args(release, '--build', OLD, '-o', 'json'));
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.verdict).toBe('consistent');
    expect(j.notes).toEqual([`the payload's annotation says build ${NEW}, but its digest is that of build ${OLD}'s OS container`]);
  });

  test('a tag pullspec in the payload is resolved to its digest in the registry', async () => {
    const release = await pushRelease('by-tag', osTags(`${osRepo}:${OLD}`));
    const r = await osimage(args(release, '--build', OLD, '-o', 'json'));
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.verdict).toBe('consistent');
    expect(j.payload.digest).toBe(digests[OLD]);
  });
});

describe('verify: the payload build id', () => {
  test('without the annotation it comes from the OS container labels (org.opencontainers.image.version)', async () => {
    const release = await pushRelease('labels', osTags(`${osRepo}@${digests[NEW]}`));
    const r = await osimage(args(release, '--build', OLD, '-o', 'json'));
    expect(r.exitCode).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.verdict).toBe('payload-newer');
    expect(j.payload).toEqual({ pullspec: `${osRepo}@${digests[NEW]}`, digest: digests[NEW], buildId: NEW, buildIdSource: 'labels' });
  });

  test('from the `version` label, a downgrade is still seen', async () => {
    const release = await pushRelease('labels-old', osTags(`${osRepo}@${digests[OLD]}`));
    const r = await osimage(args(release, '--build', NEW, '-o', 'json'));
    expect(r.exitCode).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.verdict).toBe('bootimage-newer');
    expect(j.payload.buildId).toBe(OLD);
    expect(j.payload.buildIdSource).toBe('labels');
  });

  test('an unreachable OS container is a note and an unknown build; the drift is still reported', async () => {
    const port = await freePort();
    const gone = `127.0.0.1:${port}/os/rhcos@sha256:${'e'.repeat(64)}`;
    const release = await pushRelease('offline', osTags(gone));
    const r = await osimage(args(release, '--build', OLD));
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^DRIFT: the payload's OS image is not the bootimage's$/m);
    expect(r.stdout).toMatch(/^ {2}Build: +unknown$/m);
    expect(r.stdout).toContain(`Note: could not read the OS container ${gone} (offline?)`);
    expect(r.stdout).toMatch(/pivots to the payload's OS image and reboots on first boot/);
  });

  test("a multi-arch release: the payload of the bootimage's arch, unless --filter-by-os says otherwise", async () => {
    const release = (digest: string, version: string) =>
      image([
        { entries: baseEntries() },
        { entries: releaseEntries({ name: '4.13.1', tags: osTags(`${osRepo}@${digest}`, `machine-os=${version}`) }) },
      ]);
    const list = multiArch([
      { image: await release(digests[OLD]!, OLD), platform: { os: 'linux', architecture: 'amd64' } },
      { image: await release(digests[NEW]!, NEW), platform: { os: 'linux', architecture: 'arm64' } },
    ]);
    await pushBuilt(`${relRepo}:multi`, list);
    const arm = await osimage(args(`${relRepo}:multi`, '--build', NEW, '--arch', 'aarch64', '-o', 'json'));
    expect(arm.exitCode).toBe(0);
    expect(JSON.parse(arm.stdout)).toMatchObject({
      verdict: 'consistent',
      bootimage: { arch: 'aarch64' },
      release: { digest: list.descriptor.digest },
    });
    const amd = await osimage(args(`${relRepo}:multi`, '--build', NEW, '-o', 'json'));
    expect(amd.exitCode).toBe(1);
    expect(JSON.parse(amd.stdout)).toMatchObject({ verdict: 'bootimage-newer', payload: { buildId: OLD } });
    const forced = await osimage(args(`${relRepo}:multi`, '--build', NEW, '--filter-by-os', 'linux/arm64', '-o', 'json'));
    expect(forced.exitCode).toBe(0);
  });

  test('--tag reads rhel-coreos for 4.12+ payloads', async () => {
    const release = await pushRelease('rhel-coreos', osTags(`${osRepo}@${digests[NEW]}`, `machine-os=${NEW}`, 'rhel-coreos'));
    const r = await osimage(args(release, '--build', NEW, '--tag', 'rhel-coreos', '-o', 'json'));
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ verdict: 'consistent', release: { tag: 'rhel-coreos' } });
  });
});

describe('verify: errors', () => {
  test("a release without the tag: oc's wording, exit 1", async () => {
    const release = await pushRelease('no-moc', [{ name: 'cli', pullspec: `${QUAY}@sha256:${'a'.repeat(64)}` }]);
    const r = await osimage(args(release, '--build', OLD, '--tag', 'machine-os-content'));
    expect(r).toEqual({
      stdout: '',
      stderr: `error: no image tag "machine-os-content" exists in the release image ${release}`,
      exitCode: 1,
    });
    // Without --tag, the error names every OS tag it looked for.
    const d = await osimage(args(release, '--build', OLD));
    expect(d).toEqual({
      stdout: '',
      stderr: `error: no image tag "rhel-coreos", "rhel-coreos-8" or "machine-os-content" exists in the release image ${release}`,
      exitCode: 1,
    });
  });

  test('a build without an oscontainer names the build and its meta.json', async () => {
    const r = await osimage(args(`${relRepo}:same`, '--build', NO_OS));
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: RHCOS build ${NO_OS} has no "oscontainer" in ${browser.url}/${CHANNEL}/${NO_OS}/x86_64/meta.json: there is no OS container to compare with the payload (builds before early 2019 did not publish one)`,
    );
  });

  test('a missing pins file, a misspelt pin, no build pin and disagreeing pins are errors naming the file', async () => {
    const missing = join(tmp.dir, 'nope.sh');
    expect(await osimage(['verify', '--pins', missing, '--release', `${relRepo}:same`])).toEqual({
      stdout: '',
      stderr: `error: ${missing}: no such file`,
      exitCode: 1,
    });
    const misspelt = join(tmp.dir, 'misspelt.sh');
    await writeFile(misspelt, `RHCOS_BUILDNAME=${OLD}\nRHCOS_DEFAULT_CHANNEL=${CHANNEL}\n`);
    const m = await osimage(['verify', '--pins', misspelt, '--release', `${relRepo}:same`]);
    expect(m.exitCode).toBe(1);
    expect(m.stderr).toBe(
      `error: ${misspelt} assigns RHCOS_BUILDNAME (line 1; did you mean RHCOS_BUILD_NAME?), which osimage does not read: the pin would be silently ignored`,
    );
    const nopin = join(tmp.dir, 'nopin.sh');
    await writeFile(nopin, `#!/bin/sh\nRHCOS_DEFAULT_CHANNEL=${CHANNEL}\n`);
    const n = await osimage(['verify', '--pins', nopin, '--release', `${relRepo}:same`]);
    expect(n.exitCode).toBe(1);
    expect(n.stderr).toBe(`error: ${nopin} has no pin: it does not assign RHCOS_BUILD_NAME, so there is no pinned bootimage to verify`);
    const disagree = join(tmp.dir, 'disagree.sh');
    await writeFile(disagree, `RHCOS_BUILD_NAME=${OLD}\nRHCOS_BUILD_NAME=${NEW}\n`);
    const d = await osimage(['verify', '--pins', disagree, '--release', `${relRepo}:same`]);
    expect(d.exitCode).toBe(1);
    expect(d.stderr).toMatch(new RegExp(`^error: ${disagree}:2: RHCOS_BUILD_NAME is assigned`));
  });

  test('usage errors exit 2: --pins with --build, no --release, a bad -o', async () => {
    const w = await osimage(['verify', '--pins', pinsFile, '--build', OLD, '--release', `${relRepo}:same`]);
    expect(w).toEqual({
      stdout: '',
      stderr: 'error: --pins reads the build and channel from FILE; --build and --channel cannot be used with it',
      exitCode: 2,
    });
    const n = await osimage(['verify', '--pins', pinsFile]);
    expect(n.exitCode).toBe(2);
    expect(n.stderr).toMatch(/required option '--release <image>' not specified/);
    const o = await osimage(['verify', '--pins', pinsFile, '--release', `${relRepo}:same`, '-o', 'yaml']);
    expect(o.exitCode).toBe(2);
  });

  test('verify --help shows --tag (the tree of help texts is tested in test/cli/cli.test.ts)', async () => {
    const h = await osimage(['verify', '--help']);
    expect(h.exitCode).toBe(0);
    expect(h.stdout).toContain('--tag <name>');
  });
});
