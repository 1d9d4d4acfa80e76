/**
 * The transports skopeo and Docker write, read as they write them: `dir:` and `docker-archive:` made by the real
 * skopeo from an OCI layout (when /usr/bin/skopeo is there), and `docker save`'s two shapes (`<id>/layer.tar`, and
 * Docker 25's `blobs/sha256/<hex>`) written here with tar-stream. Transports osimage does not read are refused in
 * one line listing those it does; a transport name is never sent to Docker Hub.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { pack as tarPack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseReference } from '../../src/registry/reference.js';
import { openImage } from '../../src/registry/open.js';
import { osimage } from '../helpers/cli.js';
import { entry, image, layout, multiArch, releaseEntries, baseEntries, releaseImage, tempDir, type Temp } from '../helpers/oci-builder.js';
import type { BuiltImage } from '../../src/release/build-layer.js';

const HAVE_SKOPEO = existsSync('/usr/bin/skopeo');
const VERSION = 'jsonpath={.displayVersions.machine-os.Version}';

let tmp: Temp;
let release: BuiltImage;
let layoutRef: string;
beforeAll(async () => {
  tmp = await tempDir('osimage-transports-');
  release = await releaseImage();
  layoutRef = await layout(tmp.dir, 'layout', [entry(release, '4.13.1')], '4.13.1');
});
afterAll(async () => {
  await tmp.cleanup();
});

const skopeo = (...args: string[]) => execa('skopeo', ['--insecure-policy', ...args]);
const info = (ref: string, ...args: string[]) => osimage(['release', 'info', ref, ...args]);

describe.runIf(HAVE_SKOPEO)('what skopeo copy writes', () => {
  test('dir:DIR: the manifest as copied (same digest), its config and layers by hex name', async () => {
    const dir = join(tmp.dir, 'dir-copy');
    await skopeo('copy', layoutRef, `dir:${dir}`);
    expect(await info(`dir:${dir}`, '-o', 'jsonpath={.digest} {.displayVersions.machine-os.Version}')).toEqual({
      stdout: `${release.descriptor.digest} 413.92.202305231734-0`,
      stderr: '',
      exitCode: 0,
    });
  });

  test('dir:DIR after copy --all: the index, and each image in <hex>.manifest.json, picked with --filter-by-os', async () => {
    const amd = await releaseImage({ name: '4.13.1' });
    const arm = await releaseImage({ name: '4.13.1-arm', architecture: 'arm64' });
    const index = multiArch([
      { image: amd, platform: { os: 'linux', architecture: 'amd64' } },
      { image: arm, platform: { os: 'linux', architecture: 'arm64' } },
    ]);
    const src = await layout(tmp.dir, 'multi', [entry(index, 'multi')], 'multi');
    const dir = join(tmp.dir, 'dir-all');
    await skopeo('copy', '--all', src, `dir:${dir}`);
    const r = await info(`dir:${dir}`, '--filter-by-os', 'linux/arm64', '-o', 'jsonpath={.digest} {.references.metadata.name}');
    expect(r).toEqual({ stdout: `${arm.descriptor.digest} 4.13.1-arm`, stderr: '', exitCode: 0 });
  });

  test('docker-archive:FILE, :NAME:TAG and :@N', async () => {
    const file = join(tmp.dir, 'skopeo.tar');
    await skopeo('copy', layoutRef, `docker-archive:${file}:ocp/release:4.13.1`);
    for (const ref of [`docker-archive:${file}`, `docker-archive:${file}:ocp/release:4.13.1`, `docker-archive:${file}:@0`]) {
      expect(await info(ref, '-o', VERSION)).toEqual({ stdout: '413.92.202305231734-0', stderr: '', exitCode: 0 });
    }
    const other = await info(`docker-archive:${file}:ocp/release:4.14.0`);
    expect(other).toMatchObject({ stdout: '', exitCode: 1 });
    expect(other.stderr).toBe(
      `error: no image tagged "docker.io/ocp/release:4.14.0" in docker-archive:${file} (docker.io/ocp/release:4.13.1)`,
    );
  });
});

/** A tar of `files` (name → bytes), in order. */
async function tarOf(path: string, files: Array<[string, Buffer | string]>): Promise<void> {
  const pack = tarPack();
  for (const [name, data] of files) pack.entry({ name, mtime: new Date(0) }, Buffer.from(data));
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  await writeFile(path, Buffer.concat(chunks));
}

const hex = (digest: string) => digest.slice('sha256:'.length);

describe("docker save's shapes", () => {
  test('legacy: <id>/layer.tar (plain tars, digests from the config diff IDs), two images chosen by RepoTags', async () => {
    const a = await image([
      { entries: baseEntries(), compression: 'none' },
      { entries: releaseEntries(), compression: 'none' },
    ]);
    const b = await image([{ entries: releaseEntries({ name: '4.14.0' }), compression: 'none' }]);
    const layerFiles = (img: BuiltImage, tag: string) => img.layers.map((l, i) => [`${tag}-${i}/layer.tar`, l.bytes] as [string, Buffer]);
    const manifest = [
      { Config: `${hex(a.config.descriptor.digest)}.json`, RepoTags: ['ocp/release:4.13.1'], Layers: layerFiles(a, 'a').map(([n]) => n) },
      {
        Config: `${hex(b.config.descriptor.digest)}.json`,
        RepoTags: ['quay.io/ocp/release:4.14.0'],
        Layers: layerFiles(b, 'b').map(([n]) => n),
      },
    ];
    const file = join(tmp.dir, 'legacy.tar');
    await tarOf(file, [
      [`${hex(a.config.descriptor.digest)}.json`, a.config.bytes],
      [`${hex(b.config.descriptor.digest)}.json`, b.config.bytes],
      ...layerFiles(a, 'a'),
      ...layerFiles(b, 'b'),
      ['manifest.json', JSON.stringify(manifest)],
    ]);
    expect(await info(`docker-archive:${file}:ocp/release:4.13.1`, '-o', 'jsonpath={.references.metadata.name}')).toMatchObject({
      stdout: '4.13.1',
      exitCode: 0,
    });
    expect(await info(`docker-archive:${file}:@1`, '-o', 'jsonpath={.references.metadata.name}')).toMatchObject({ stdout: '4.14.0' });
    const none = await info(`docker-archive:${file}`);
    expect(none.stderr).toBe(
      `error: docker-archive:${file} holds 2 images; name one as docker-archive:${file}:NAME:TAG or :@N (ocp/release:4.13.1, quay.io/ocp/release:4.14.0)`,
    );
    // The made manifest names each layer by its diff ID: the digest of the plain tar it reads and verifies.
    const src = await openImage(`docker-archive:${file}:quay.io/ocp/release:4.14.0`);
    const m = await src.manifest();
    expect(m.parsed).toMatchObject({
      config: { digest: b.config.descriptor.digest },
      layers: [{ digest: b.layers[0]!.descriptor.digest }],
    });
  });

  test('Docker 25: blobs/sha256/<hex> (gzip layers keep their digest)', async () => {
    const a = await releaseImage();
    const blob = (d: string) => `blobs/sha256/${hex(d)}`;
    const file = join(tmp.dir, 'docker25.tar');
    await tarOf(file, [
      ...a.blobs.map((b) => [blob(b.descriptor.digest), b.bytes] as [string, Buffer]),
      [
        'manifest.json',
        JSON.stringify([
          {
            Config: blob(a.config.descriptor.digest),
            RepoTags: ['ocp/release:4.13.1'],
            Layers: a.layers.map((l) => blob(l.descriptor.digest)),
          },
        ]),
      ],
    ]);
    expect(await info(`docker-archive:${file}`, '-o', VERSION)).toEqual({ stdout: '413.92.202305231734-0', stderr: '', exitCode: 0 });
    const m = await (await openImage(`docker-archive:${file}`)).manifest();
    expect(m.parsed).toMatchObject({ layers: a.layers.map((l) => ({ digest: l.descriptor.digest, size: l.bytes.length })) });
  });

  test('gzip layers under names that are no digest: hashed once, so the made manifest names what the files hold', async () => {
    const a = await releaseImage();
    const file = join(tmp.dir, 'gzip-legacy.tar');
    await tarOf(file, [
      ['config.json', a.config.bytes],
      ...a.layers.map((l, i) => [`${i}/layer.tar`, l.bytes] as [string, Buffer]),
      ['manifest.json', JSON.stringify([{ Config: 'config.json', RepoTags: [], Layers: a.layers.map((_, i) => `./${i}/layer.tar`) }])],
    ]);
    const m = await (await openImage(`docker-archive:${file}`)).manifest();
    expect(m.parsed).toMatchObject({
      layers: a.layers.map((l) => ({ mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip', digest: l.descriptor.digest })),
    });
    expect(await info(`docker-archive:${file}`, '-o', VERSION)).toEqual({ stdout: '413.92.202305231734-0', stderr: '', exitCode: 0 });
  });

  test('a layer whose bytes do not match its diff ID fails verification', async () => {
    // Larger than one read of the file (64 KiB): a layer that ends in its first read meets a race of the layer
    // reader that is not this transport's (an oci-archive: shows it too).
    const noise = { name: 'noise', data: Buffer.alloc(256 * 1024, 7) };
    const a = await image([{ entries: [...releaseEntries(), noise], compression: 'none' }]);
    const file = join(tmp.dir, 'tampered.tar');
    const tampered = Buffer.from(a.layers[0]!.bytes);
    const at = tampered.indexOf('ImageStream');
    tampered[at] = tampered[at]! ^ 1;
    await tarOf(file, [
      ['c.json', a.config.bytes],
      ['l/layer.tar', tampered],
      ['manifest.json', JSON.stringify([{ Config: 'c.json', RepoTags: null, Layers: ['l/layer.tar'] }])],
    ]);
    const r = await info(`docker-archive:${file}`);
    expect(r).toMatchObject({ stdout: '', exitCode: 1 });
    expect(r.stderr).toMatch(/^error: content integrity error: digest mismatch for blob sha256:\w+ in docker-archive:/);
  });
});

describe('transports that are not read, and transport names that are no registry', () => {
  test.each(['containers-storage:quay.io/x/y:1', 'docker-daemon:busybox:latest', 'ostree:x@/ostree/repo', 'sif:x.sif', 'tarball:x.tar'])(
    '%s: one line listing the transports that work, exit 2',
    async (ref) => {
      const r = await info(ref);
      const name = ref.slice(0, ref.indexOf(':') + 1);
      expect(r).toEqual({
        stdout: '',
        stderr: `error: the ${name} transport is not supported (${JSON.stringify(ref)}); osimage reads docker://REF (or a bare registry reference), oci:DIR[:TAG], oci-archive:FILE[:TAG], dir:DIR, docker-archive:FILE[:REF], file://REF (under --dir)`,
        exitCode: 2,
      });
    },
  );

  test('docker-archive:x.tar and dir:/x are files and folders, never docker.io/library/docker-archive or a host "dir:"', async () => {
    expect(() => parseReference('docker-archive:x.tar')).toThrow(
      '"docker-archive:x.tar" names a docker-archive: image, not an image in a registry',
    );
    expect(() => parseReference('dir:/x')).toThrow('names a dir: image');
    expect(await info(join('docker-archive:', tmp.dir, 'missing.tar'))).toMatchObject({
      stderr: expect.stringMatching(/^error: cannot open docker-archive:.*missing\.tar: .*missing\.tar: no such file$/),
      exitCode: 1,
    });
    expect(await info(`dir:${join(tmp.dir, 'missing')}`)).toMatchObject({
      stderr: expect.stringMatching(/^error: cannot open dir:.*missing: .*missing: no such directory$/),
      exitCode: 1,
    });
    // A Docker Hub image of such a name is still reachable, written in full.
    expect(parseReference('docker://dir:1').reference.toString()).toBe('docker.io/library/dir:1');
    expect(parseReference('docker.io/library/dir:1').reference.toString()).toBe('docker.io/library/dir:1');
  });

  test('a folder skopeo did not write is refused by its version file', async () => {
    const dir = join(tmp.dir, 'layout');
    const r = await info(`dir:${dir}`);
    expect(r).toMatchObject({ stdout: '', exitCode: 1 });
    expect(r.stderr).toMatch(/^error: cannot read dir:.*\/version: no such file$/);
  });
});
