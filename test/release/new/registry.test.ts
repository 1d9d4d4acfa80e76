/**
 * `release new --to-image` against the real distribution registry: the release layer appended to a base
 * image (mounted from another repository of the same registry, or copied from an OCI layout), read back
 * with release info, and the same digest as --to-file for the same inputs.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { osimage } from '../../helpers/cli.js';
import { baseEntries, entry, image, layout, pushBuilt, tempDir, type Temp } from '../../helpers/oci-builder.js';
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

  it('without a base the payload is the single release-manifests layer', async () => {
    const r = await osimage([
      'release',
      'new',
      '--insecure',
      '--from-dir',
      FIXTURE,
      '--name',
      '4.99.2',
      '--to-image',
      `${reg!.host}/ocp/release:4.99.2`,
    ]);
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
