/**
 * `file://REPOSITORY[:TAG|@DIGEST]` under `--dir`: the folder layout `oc image mirror --dir` writes (manifests
 * by digest, tags as symlinks, blobs by digest), verified as a registry's content is. The infoflag-dir pairs
 * compare `release info --dir` with oc 4.13.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openImage } from '../../src/registry/open.js';
import { loadReleaseInfo } from '../../src/release/info.js';
import { releaseImage, tempDir, type Temp } from '../helpers/oci-builder.js';
import { readAll } from './fixtures.js';

describe('file:// images', () => {
  let tmp: Temp;
  let img: Awaited<ReturnType<typeof releaseImage>>;
  const digest = () => img.descriptor.digest;

  beforeAll(async () => {
    tmp = await tempDir('osimage-file-dir-');
    img = await releaseImage();
    const repo = join(tmp.dir, 'v2', 'ocp', 'release');
    await mkdir(join(repo, 'manifests'), { recursive: true });
    await mkdir(join(repo, 'blobs'), { recursive: true });
    await writeFile(join(repo, 'manifests', digest()), img.bytes);
    for (const b of img.blobs) await writeFile(join(repo, 'blobs', b.descriptor.digest), b.bytes);
    await symlink(digest(), join(repo, 'manifests', '4.13.1'));
    await writeFile(join(repo, 'manifests', 'plain-file'), 'x');
    // A manifest whose bytes are not what its name says.
    await writeFile(join(repo, 'manifests', `sha256:${'0'.repeat(64)}`), img.bytes);
  });
  afterAll(async () => {
    await tmp.cleanup();
  });

  test('by tag and by digest (with one leading slash or none), named as written', async () => {
    for (const ref of ['file://ocp/release:4.13.1', 'file:///ocp/release:4.13.1', `file://ocp/release@${digest()}`]) {
      const src = await openImage(ref, { fileDir: tmp.dir });
      const info = await loadReleaseInfo(ref, src);
      expect(info.digest).toBe(digest());
      expect(info.pullFrom).toBe(`file://ocp/release@${digest()}`);
      expect(src.name).toBe(ref.replace('file:///', 'file://'));
    }
  });

  test('blobs are read from blobs/<digest> and verified', async () => {
    const src = await openImage('file://ocp/release:4.13.1', { fileDir: tmp.dir });
    const layer = img.layers[0]!;
    expect((await readAll(await src.blob(layer.descriptor))).equals(layer.bytes)).toBe(true);
    await expect(readAll(await src.blob({ ...layer.descriptor, digest: img.layers[1]!.descriptor.digest }))).rejects.toThrow();
  });

  test("what is not there, or not what it says: oc's words where oc has them", async () => {
    const open = (ref: string) => openImage(ref, { fileDir: tmp.dir }).then((s) => s.manifest());
    await expect(open('file://ocp/release:nope')).rejects.toThrow('unable to read image file://ocp/release:nope: unknown blob');
    await expect(open('file://ocp/release:plain-file')).rejects.toThrow('not a symlink');
    const missing = `sha256:${'1'.repeat(64)}`;
    await expect(open(`file://ocp/release@${missing}`)).rejects.toThrow(
      `unable to read image file://ocp/release@${missing}: open ${tmp.dir}/v2/ocp/release/manifests/${missing}: no such file or directory`,
    );
    await expect(open(`file://ocp/release@sha256:${'0'.repeat(64)}`)).rejects.toThrow(/digest/);
  });
});
