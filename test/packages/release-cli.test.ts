/**
 * Package diffs of releases: release images in the real distribution registry (and an oci-archive) whose
 * OS tag's `machine-os` annotation (or, for a 4.19+ node image, its labels) points at the sample builds in
 * hack/sample/releases; `diff RELEASE RELEASE` and `release diff` with its RHCOS packages section.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage, SAMPLE_RELEASES } from '../helpers/cli.js';
import { archive, entry, image, pushBuilt, tempDir, type TagSpec, type Temp } from '../helpers/oci-builder.js';
import { streamRelease } from '../helpers/os-stream-images.js';
import { useRegistry } from '../helpers/registry.js';

const OLD = '418.94.202604221012-0';
const NEW = '418.94.202605101521-0';
const CH = '4.18-9.4/builds';
const QUAY = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
const at = (c: string) => `${QUAY}@sha256:${c.repeat(64)}`;

const osTag = (name: string, build: string, pullspec: string): TagSpec => ({
  name,
  pullspec,
  annotations: {
    'io.openshift.build.version-display-names': 'machine-os=Red Hat Enterprise Linux CoreOS',
    'io.openshift.build.versions': `machine-os=${build}`,
  },
});
const layered = (build: string, c: string): TagSpec[] => [
  { name: 'cli', pullspec: at('a') },
  osTag('rhel-coreos', build, at(c)),
  { name: 'rhel-coreos-extensions', pullspec: at('e') },
];

const reg = useRegistry({ mode: 'open' });
let tmp: Temp;
let rel: (tag: string) => string;
let offlineOld: string;

beforeAll(async () => {
  tmp = await tempDir('osimage-pkg-rel-');
  const repo = `${reg().host}/ocp/release`;
  rel = (tag) => `${repo}:${tag}`;
  await pushBuilt(rel('4.18.1'), await streamRelease('4.18.1', layered(OLD, '1')));
  await pushBuilt(rel('4.18.2'), await streamRelease('4.18.2', layered(NEW, '2')));
  await pushBuilt(rel('4.18.9'), await streamRelease('4.18.9', layered('418.94.209901010000-0', '3')));
  await pushBuilt(rel('no-annotation'), await streamRelease('4.18.0', [{ name: 'rhel-coreos', pullspec: at('4') }]));
  // 4.22: node images on the rhel-10.2 CoreOS builds, known by their labels only.
  for (const [tag, base] of [
    ['4.22.1', '10.2.20260212-0'],
    ['4.22.2', '10.2.20260217-0'],
  ] as const) {
    const node = await image([{ entries: [{ name: 'usr/lib/os-release', data: `NAME=node-${base}\n` }] }], {
      labels: {
        'coreos.build.manifest-list-tag': `4.22-10.2-${base.slice(5, 13)}1851-node-image`,
        'org.opencontainers.image.version': base,
      },
    });
    const digest = await pushBuilt(`${reg().host}/os/node:${tag}`, node);
    await pushBuilt(
      rel(tag),
      await streamRelease(tag, [osTag('rhel-coreos', `4.22.10.2.${base.slice(5, 13)}1851-0`, `${reg().host}/os/node@${digest}`)]),
    );
  }
  offlineOld = await archive(tmp.dir, 'old.tar', [entry(await streamRelease('4.18.1', layered(OLD, '1')), '4.18.1')], '4.18.1');
});
afterAll(async () => {
  await tmp.cleanup();
});

const browser = ['--base-url', SAMPLE_RELEASES];

describe('diff of releases', () => {
  test('two 4.18 releases: their machine-os builds, from the registry and an oci-archive', async () => {
    const r = await osimage(['diff', '--insecure', ...browser, '--channel', CH, rel('4.18.1'), rel('4.18.2')]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(
      `Packages of RHCOS x86_64: ${CH}/${OLD} (machine-os of 4.18.1) → ${CH}/${NEW} (machine-os of 4.18.2)\n11 upgraded, 1 downgraded`,
    );
    const j = JSON.parse(
      (await osimage(['diff', '--insecure', ...browser, '--channel', CH, offlineOld, rel('4.18.2'), '-o', 'json'])).stdout,
    );
    expect(j.from).toMatchObject({ build: OLD, release: { image: offlineOld, name: '4.18.1', tag: 'rhel-coreos', nodeImage: null } });
    expect(j.to.build).toBe(NEW);
    expect(j.counts.upgraded).toBe(11);
  });

  test('a release and a build mix', async () => {
    const r = await osimage(['diff', '--insecure', ...browser, rel('4.18.1'), `${CH}/${NEW}`, '--channel', CH, '-o', 'json']);
    expect(JSON.parse(r.stdout).counts.downgraded).toBe(1);
  });

  test('4.19+ node images: the base builds are compared, and the output says the node layer is not covered', async () => {
    const r = await osimage(['diff', '--insecure', ...browser, '--channel', 'rhel-10.2/builds', rel('4.22.1'), rel('4.22.2')]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^ {2}podman +6:5\.6\.0-2\.el10 → 6:5\.6\.1-1\.el10$/m);
    expect(r.stdout).toContain('rhel-10.2/builds/10.2.20260212-0 (machine-os of 4.22.1, node image 4.22-10.2-202602121851-node-image)');
    expect(r.stderr).toContain(
      'note: ' +
        rel('4.22.2') +
        " ships a node image (4.22-10.2-202602171851-node-image) built on RHCOS 10.2.20260217-0: compared the packages of that base build; the node layer's OpenShift packages (kubelet, cri-o, …) are not covered",
    );
  });

  test('a release whose build is not in the channel, or that names none: clear errors', async () => {
    const u = await osimage(['diff', '--insecure', ...browser, '--channel', CH, rel('4.18.1'), rel('4.18.9')]);
    expect(u.exitCode).toBe(1);
    expect(u.stderr).toMatch(
      /^error: no build with name '418\.94\.209901010000-0' found at .* \(the machine-os build of .*:4\.18\.9; pick its channel with --channel\)$/,
    );
    const n = await osimage(['diff', '--insecure', ...browser, '--channel', CH, rel('no-annotation'), rel('4.18.2')]);
    expect(n.exitCode).toBe(1);
    expect(n.stderr).toContain(`names no machine-os build (no machine-os version annotation on its "rhel-coreos" tag`);
  });
});

describe('release diff: the RHCOS packages section', () => {
  const changes = (...more: string[]) => osimage(['release', 'diff', '--insecure', rel('4.18.1'), rel('4.18.2'), ...more]);

  test('with --base-url: counts and the notable changes; --packages lists them all', async () => {
    const r = await changes(...browser, '--channel', CH);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(
      `\nRHCOS packages (x86_64): ${OLD} → ${NEW}\n  11 upgraded, 1 downgraded, 1 added, 1 removed, 299 unchanged\n`,
    );
    expect(r.stdout).toMatch(/^ {4}kernel +5\.14\.0-427\.40\.1\.el9_4 → 5\.14\.0-427\.50\.1\.el9_4$/m);
    expect(r.stdout).toMatch(/^ {4}cri-o +1\.31\.5-3\.rhaos4\.18\.git0c7f2a1\.el9 → 1\.31\.6-2\.rhaos4\.18\.git5e9d1b4\.el9$/m);
    expect(r.stdout).toMatch(/^ {4}conmon +3:2\.1\.12-2\.rhaos4\.18\.el9 → 3:2\.1\.12-1\.rhaos4\.18\.el9$/m);
    expect(r.stdout).not.toMatch(/^ +kernel-core /m);
    expect(r.stdout).toMatch(/^ {2}… and \d+ more \(--packages lists them all\)$/m);
    const full = await changes(...browser, '--channel', CH, '--packages');
    expect(full.stdout).toMatch(/^ {2}Upgraded \(11\):\n/m);
    expect(full.stdout).toMatch(/^ {4}kernel-core +5\.14\.0-427\.40\.1\.el9_4 → /m);
    expect(full.stdout).toMatch(/^ {2}Added \(1\):\n {4}tpm2-tools/m);
    const j = JSON.parse((await changes(...browser, '--channel', CH, '-o', 'json')).stdout);
    expect(j.rhcosPackages.counts.upgraded).toBe(11);
    expect(j.machineOs).toEqual({ from: OLD, to: NEW, changed: true });
  });

  test('RHCOS_BASE_URL from the environment counts as given', async () => {
    const r = await osimage(['release', 'diff', '--insecure', rel('4.18.1'), rel('4.18.2')], {
      env: { RHCOS_BASE_URL: SAMPLE_RELEASES, RHCOS_DEFAULT_CHANNEL: CH },
    });
    expect(r.stdout).toContain(`RHCOS packages (x86_64): ${OLD} → ${NEW}`);
  });

  test('an unreachable or unhelpful browser: one info line, the rest unchanged, exit 0', async () => {
    const plain = await changes();
    const r = await changes('--base-url', join(tmp.dir, 'nowhere'), '--channel', CH);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(plain.stdout);
    expect(r.stderr).toMatch(/^info: RHCOS packages not shown: .*nowhere\/4\.18-9\.4\/builds\/builds\.json/);
    expect(r.stderr.split('\n')).toHaveLength(1);
    const j = JSON.parse((await changes('--base-url', join(tmp.dir, 'nowhere'), '--channel', CH, '-o', 'json')).stdout);
    expect(j.rhcosPackages.skipped).toMatch(/404 Not Found/);
  });

  test('without a release browser the section is skipped silently: the output is what it was', async () => {
    const r = await changes();
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain('RHCOS packages');
    expect(r.stdout.endsWith('images unchanged')).toBe(true);
    const j = JSON.parse((await changes('-o', 'json')).stdout);
    expect(j).not.toHaveProperty('rhcosPackages');
  });

  test("the browser flags are release diff's: release info, as oc's, has none", async () => {
    for (const flag of [['--packages'], ['--base-url', SAMPLE_RELEASES], ['--channel', CH]]) {
      const r = await osimage(['release', 'info', '--insecure', '--changes-from', rel('4.18.1'), rel('4.18.2'), ...flag]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(flag[0]);
    }
  });
});
