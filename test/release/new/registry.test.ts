/**
 * `release new --to-image` against the real distribution registry: the release layer appended to a base
 * image (mounted from another repository of the same registry, or copied from an OCI layout), read back
 * with release info, and the same digest as --to-file for the same inputs.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { osimage } from '../../helpers/cli.js';
import { baseEntries, entry, image, layout, multiArch, pushBuilt, tempDir, type Temp } from '../../helpers/oci-builder.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../../helpers/registry.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/release-new/payload', import.meta.url));
let reg: TestRegistry | undefined;
let tmp: Temp;
let baseDigest: string;
let baseLayout: string;
printLogsOnFailure(() => reg);

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  tmp = await tempDir('osimage-new-reg-');
  const base = await image([{ entries: baseEntries() }, { entries: [{ name: 'usr/share/doc/cvo', data: 'second base layer' }] }], {
    labels: { 'io.openshift.release.operator': 'true', vendor: 'someone' },
  });
  baseDigest = await pushBuilt(`${reg.host}/ocp/cvo:base`, base);
  baseLayout = await layout(tmp.dir, 'base-layout', [entry(base, 'base')], 'base');
});
afterAll(async () => {
  await reg?.stop();
  await tmp?.cleanup();
});

interface Manifest {
  layers: Array<{ digest: string }>;
}

async function getManifest(repo: string, ref: string): Promise<Manifest> {
  const res = await fetch(`${reg!.url}/v2/${repo}/manifests/${ref}`, { headers: { accept: 'application/vnd.oci.image.manifest.v1+json' } });
  return (await res.json()) as Manifest;
}

async function blobExists(repo: string, digest: string): Promise<boolean> {
  const res = await fetch(`${reg!.url}/v2/${repo}/blobs/${digest}`, { method: 'HEAD' });
  return res.status === 200;
}

describe('release new --to-image', () => {
  it('pushes a release on a base from the same registry and reads it back', async () => {
    const args = [
      'release',
      'new',
      '--insecure',
      '--from-dir',
      FIXTURE,
      '--name',
      '4.99.0',
      '--to-image-base',
      `${reg!.host}/ocp/cvo:base`,
    ];
    const r = await osimage([...args, '--to-image', `${reg!.host}/ocp/release:4.99.0`]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.exitCode).toBe(0);
    // oc's last line for a push (oc adm release new … --to-image REF).
    expect(r.stderr.split('\n').at(-1)).toBe(`info: Pushed to ${reg!.host}/ocp/release:4.99.0`);
    const [digest, name, created] = r.stdout.split(' ');
    expect(name).toBe('4.99.0');
    expect(created).toBe('1970-01-01T00:00:00Z');

    const info = await osimage(['release', 'info', '--insecure', `${reg!.host}/ocp/release:4.99.0`, '-o', 'json']);
    expect(info.exitCode).toBe(0);
    const j = JSON.parse(info.stdout);
    expect(j.digest).toBe(digest);
    // oc replaces every label with exactly these two.
    expect(j.config.config.Labels).toEqual({ 'io.openshift.release': '4.99.0', 'io.openshift.release.base-image-digest': baseDigest });
    expect(j.config.rootfs.diff_ids).toHaveLength(3);

    const manifest = await getManifest('ocp/release', '4.99.0');
    const baseManifest = await getManifest('ocp/cvo', 'base');
    expect(manifest.layers.slice(0, 2)).toEqual(baseManifest.layers);
    for (const l of manifest.layers) expect(await blobExists('ocp/release', l.digest)).toBe(true);
    // The base layers were mounted from ocp/cvo (201 Created on the mount request), not uploaded again.
    const logs = await reg!.logs();
    for (const l of baseManifest.layers) {
      const mount = logs
        .split('\n')
        .find((line) => line.includes(`mount=${encodeURIComponent(l.digest)}`) || line.includes(`mount=${l.digest}`));
      expect(mount, `a mount request for ${l.digest}`).toBeDefined();
      expect(mount).toMatch(/http\.response\.status=201/);
    }

    const moc = await osimage(['release', 'info', '--insecure', '--image-for', 'machine-os-content', `${reg!.host}/ocp/release:4.99.0`]);
    expect(moc.stdout).toBe(`quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'b'.repeat(64)}`);

    // payload check reads the input images from the pushed release.
    const check = await osimage(['payload', 'check', '--insecure', '--dir', FIXTURE, '--from-release', `${reg!.host}/ocp/release:4.99.0`]);
    expect(check.stdout).toMatch(/all found among 3 input tags$/);
    expect(check.exitCode).toBe(0);

    // The same inputs written to a file give the same image.
    const file = join(tmp.dir, 'same.tar');
    const f = await osimage([...args, '--to-file', file]);
    expect(f.stdout.split(' ')[0]).toBe(digest);
    const fromFile = await osimage(['release', 'info', `oci-archive:${file}:4.99.0`, '-o', 'json']);
    expect(JSON.parse(fromFile.stdout).digest).toBe(digest);
  });

  it('copies base layers from an OCI layout into another registry repository', async () => {
    const r = await osimage([
      'release',
      'new',
      '--insecure',
      '--from-dir',
      FIXTURE,
      '--name',
      '4.99.1',
      '--to-image-base',
      baseLayout,
      '--to-image',
      `${reg!.host}/other/release`,
    ]);
    expect(r.stderr).not.toMatch(/error|warning/);
    expect(r.exitCode).toBe(0);
    const info = await osimage(['release', 'info', '--insecure', `${reg!.host}/other/release:4.99.1`]);
    expect(info.exitCode).toBe(0);
    expect(info.stdout).toMatch(/^Name: +4\.99\.1/m);
  });

  it('without --to-image-base the release goes on the cluster-version-operator tag, as in oc; an empty tag means no base', async () => {
    const args = [
      'release',
      'new',
      '--insecure',
      '--from-dir',
      FIXTURE,
      '--name',
      '4.99.2',
      '--to-image',
      `${reg!.host}/ocp/release:4.99.2`,
    ];
    // The fixture's cluster-version-operator is on quay.io, which the test does not reach: the failure names it.
    const unreachable = await osimage(args);
    expect(unreachable.exitCode).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^error: failed to push image 127\.0\.0\.1:\d+\/ocp\/release:4\.99\.2: unable to read image quay\.io\/openshift-release-dev\/ocp-v4\.0-art-dev@sha256:c{64}: /m,
    );
    const none = await osimage([...args, '--to-image-base-tag', 'nope']);
    expect(none.exitCode).toBe(1);
    expect(none.stderr.split('\n').at(-1)).toBe(
      'error: the base image tag "nope" could not be found in the input, cannot build a release image',
    );
    const r = await osimage([...args, '--to-image-base-tag', '']);
    expect(r.exitCode).toBe(0);
    const manifest = await getManifest('ocp/release', '4.99.2');
    expect(manifest.layers).toHaveLength(1);
  });

  it('a base that does not exist is an error naming it', async () => {
    const r = await osimage([
      'release',
      'new',
      '--insecure',
      '--from-dir',
      FIXTURE,
      '--name',
      '4.99.0',
      '--to-image-base',
      `${reg!.host}/ocp/nope:1`,
      '--to-image',
      `${reg!.host}/ocp/release:x`,
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^error: .*ocp\/nope:1.*not found/m);
  });
});

describe('release new on a manifest list base', () => {
  let listDigest: string;
  let childDigests: string[];
  beforeAll(async () => {
    const amd = await image([{ entries: baseEntries() }], { architecture: 'amd64' });
    const arm = await image([{ entries: baseEntries() }, { entries: [{ name: 'etc/arm', data: 'arm' }] }], { architecture: 'arm64' });
    const list = multiArch([
      { image: amd, platform: { os: 'linux', architecture: 'amd64' } },
      { image: arm, platform: { os: 'linux', architecture: 'arm64' } },
    ]);
    listDigest = await pushBuilt(`${reg!.host}/ocp/cvo:multi`, list);
    childDigests = [amd.descriptor.digest, arm.descriptor.digest];
  });
  const args = (...extra: string[]) => [
    'release',
    'new',
    '--insecure',
    '--from-dir',
    FIXTURE,
    '--name',
    '4.99.3',
    '--to-image-base',
    `${reg!.host}/ocp/cvo:multi`,
    ...extra,
  ];

  it("is refused without --keep-manifest-list, in oc's words; --filter-by-os picks one of its images", async () => {
    const r = await osimage(args('--to-image', `${reg!.host}/ocp/release:nolist`));
    expect(r.exitCode).toBe(1);
    expect(r.stderr.split('\n').at(-1)).toBe(
      `error: failed to push image ${reg!.host}/ocp/release:nolist: use --keep-manifest-list option for image manifest type *manifestlist.DeserializedManifestList from manifest ${listDigest}`,
    );
    const one = await osimage(args('--filter-by-os', 'linux/arm64', '--to-image', `${reg!.host}/ocp/release:arm`));
    expect(one.exitCode).toBe(0);
    const info = JSON.parse((await osimage(['release', 'info', '--insecure', `${reg!.host}/ocp/release:arm`, '-o', 'json'])).stdout);
    expect(info.config.config.Labels['io.openshift.release.base-image-digest']).toBe(childDigests[1]);
  });

  it('with --keep-manifest-list gives a list: the release layer on each image, the platforms kept', async () => {
    const r = await osimage(args('--keep-manifest-list', '--to-image', `${reg!.host}/ocp/release:list`));
    expect(r.stderr).not.toMatch(/error/);
    expect(r.exitCode).toBe(0);
    const res = await fetch(`${reg!.url}/v2/ocp/release/manifests/list`, {
      headers: { accept: 'application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json' },
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const list = JSON.parse(bytes.toString('utf8')) as { mediaType: string; manifests: Array<{ digest: string; platform: unknown }> };
    expect(r.stdout.split(' ')[0]).toBe(res.headers.get('docker-content-digest'));
    expect(list.manifests.map((m) => m.platform)).toEqual([
      { os: 'linux', architecture: 'amd64' },
      { os: 'linux', architecture: 'arm64' },
    ]);
    // Each image is its base's, with the release layer on top and that base's digest in its label.
    for (const [i, arch] of ['linux/amd64', 'linux/arm64'].entries()) {
      const info = await osimage(['release', 'info', '--insecure', '--filter-by-os', arch, `${reg!.host}/ocp/release:list`, '-o', 'json']);
      expect(info.exitCode).toBe(0);
      const j = JSON.parse(info.stdout);
      expect(j.metadata.version).toBe('4.99.3');
      expect(j.config.config.Labels['io.openshift.release.base-image-digest']).toBe(childDigests[i]);
    }
    // The same list in an oci-archive, and nothing pushed by a dry run.
    const file = join(tmp.dir, 'list.tar');
    const f = await osimage(args('--keep-manifest-list', '--to-file', file));
    expect(f.stdout).toBe(r.stdout);
    const dry = await osimage(args('--keep-manifest-list', '--dry-run', '--to-image', `${reg!.host}/ocp/release:dry`));
    expect(dry.stdout).toBe(r.stdout);
    expect((await fetch(`${reg!.url}/v2/ocp/release/manifests/dry`)).status).toBe(404);
  });
});
