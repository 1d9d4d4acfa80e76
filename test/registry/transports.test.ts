/**
 * The offline transports (oci: and oci-archive:) and manifest-list selection.
 */
import { readFile, writeFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openImage } from '../../src/registry/open.js';
import { resolveImage, selectPlatform } from '../../src/registry/platform.js';
import { isIndex, type ImageIndex } from '../../src/registry/types.js';
import { sha256Digest } from '../../src/oci/digest.js';
import { layoutFiles } from '../../src/registry/oci-write.js';
import { archive, entry, layout, multiArch, releaseImage, tempDir, type Temp } from '../helpers/oci-builder.js';

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

async function readAll(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe.each(['oci', 'oci-archive'] as const)('%s transport', (transport) => {
  const make = (name: string, entries: Parameters<typeof layout>[2], tag?: string) =>
    transport === 'oci'
      ? layout(tmp.dir, `${transport}-${name}`, entries, tag)
      : archive(tmp.dir, `${transport}-${name}.tar`, entries, tag);

  test('a tag picks the manifest named by org.opencontainers.image.ref.name', async () => {
    const a = await releaseImage({ name: '4.13.1' });
    const b = await releaseImage({ name: '4.14.0' });
    const ref = await make('tags', [entry(a, '4.13.1'), entry(b, '4.14.0')], '4.14.0');
    const src = await openImage(ref);
    const m = await src.manifest();
    expect(m.digest).toBe(b.descriptor.digest);
    expect(m.bytes.equals(b.bytes)).toBe(true);
    expect(src.name).toBe(ref);
    expect(src.pullspecFor(m.digest)).toBe(`${ref.slice(0, ref.lastIndexOf(':'))}@${m.digest}`);
    await src.close();
  });

  test('no tag and one manifest: that one; no tag and several: an error listing the tags', async () => {
    const a = await releaseImage();
    const b = await releaseImage({ name: 'other' });
    const one = await openImage(await make('one', [entry(a, 'only')]));
    expect((await one.manifest()).digest).toBe(a.descriptor.digest);
    const two = await openImage(await make('two', [entry(a, 'x'), entry(b, 'y')]));
    await expect(two.manifest()).rejects.toThrow(/holds 2 images; name one as .*:TAG \(x, y\)/);
  });

  test('an unknown tag names the image and the tags there are', async () => {
    const ref = await make('unknown', [entry(await releaseImage(), '4.13.1')], 'nope');
    await expect((await openImage(ref)).manifest()).rejects.toThrow(/no image tagged "nope" in .* \(tags: 4\.13\.1\)/);
  });

  test('a digest selector picks a manifest by digest', async () => {
    const a = await releaseImage();
    const base = await make('bydigest', [entry(a, 'x')]);
    const src = await openImage(`${base}@${a.descriptor.digest}`);
    expect((await src.manifest()).digest).toBe(a.descriptor.digest);
  });

  test('blobs stream byte-identical and are verified', async () => {
    const a = await releaseImage();
    const src = await openImage(await make('blobs', [entry(a)]));
    const layer = a.layers[1]!;
    expect((await readAll(await src.blob(layer.descriptor))).equals(layer.bytes)).toBe(true);
    // A descriptor whose size does not match the stored blob fails.
    const wrong = { ...layer.descriptor, size: layer.bytes.length + 1 };
    await expect((async () => readAll(await src.blob(wrong)))()).rejects.toThrow(/size mismatch/);
  });

  test('a multi-arch index is selected by platform', async () => {
    const amd = await releaseImage({ name: 'amd' });
    const arm = await releaseImage({ name: 'arm', architecture: 'arm64' });
    const idx = multiArch([
      { image: amd, platform: { os: 'linux', architecture: 'amd64' } },
      { image: arm, platform: { os: 'linux', architecture: 'arm64' } },
    ]);
    const src = await openImage(await make('multi', [entry(idx, 'multi')], 'multi'));
    const dflt = await resolveImage(src);
    expect(dflt.list?.digest).toBe(idx.descriptor.digest);
    expect(dflt.manifest.digest).toBe(amd.descriptor.digest);
    const picked = await resolveImage(src, 'linux/arm64');
    expect(picked.manifest.digest).toBe(arm.descriptor.digest);
    await expect(resolveImage(src, 'linux/s390x')).rejects.toThrow(
      /^unable to read image .*: filtered all images from manifest list \(no platform matches linux\/s390x; the list has linux\/amd64, linux\/arm64\)$/,
    );
  });
});

describe('oci layout details', () => {
  test('a manifest whose bytes do not match its digest is an error naming both digests', async () => {
    const a = await releaseImage();
    const ref = await layout(tmp.dir, 'tampered', [entry(a)]);
    const file = join(ref.slice(4), 'blobs', 'sha256', a.descriptor.digest.slice(7));
    const tampered = Buffer.from((await readFile(file)).toString().replace('"schemaVersion": 2', '"schemaVersion":2'));
    await writeFile(file, tampered);
    await expect((await openImage(ref)).manifest()).rejects.toThrow(`expected ${a.descriptor.digest}, got ${sha256Digest(tampered)}`);
    const warnings: string[] = [];
    const m = await (await openImage(ref, { skipVerification: true, onWarning: (w) => warnings.push(w.message) })).manifest();
    expect(m.bytes.equals(tampered)).toBe(true);
    expect(warnings).toHaveLength(1);
  });

  test('index.json itself may be the platform list', async () => {
    const amd = await releaseImage({ name: 'amd' });
    const arm = await releaseImage({ name: 'arm', architecture: 'arm64' });
    const dir = join(tmp.dir, 'flat-index');
    const { writeOciLayout } = await import('../../src/registry/oci-write.js');
    await writeOciLayout(dir, [entry(amd), entry(arm)]);
    const indexPath = join(dir, 'index.json');
    const index = JSON.parse(await readFile(indexPath, 'utf8')) as ImageIndex;
    index.manifests[0]!.platform = { os: 'linux', architecture: 'amd64' };
    index.manifests[1]!.platform = { os: 'linux', architecture: 'arm64' };
    await writeFile(indexPath, JSON.stringify(index));
    const picked = await resolveImage(await openImage(`oci:${dir}`), 'arm64');
    expect(picked.manifest.digest).toBe(arm.descriptor.digest);
  });

  test('a missing layout folder is an error naming the reference', async () => {
    await expect(openImage(`oci:${join(tmp.dir, 'nope')}:x`)).rejects.toThrow(/cannot open oci:.*nope/);
    await expect(openImage(`oci-archive:${join(tmp.dir, 'nope.tar')}`)).rejects.toThrow(/cannot open oci-archive:.*nope\.tar/);
  });

  test('an archive made with `tar -C layout .` (./ names) is read', async () => {
    const a = await releaseImage();
    const ref = await archive(tmp.dir, 'dot.tar', [entry(a, 'v')], 'v', { prefix: './' });
    const src = await openImage(ref);
    expect((await src.manifest()).digest).toBe(a.descriptor.digest);
    // Nothing was unpacked next to the archive.
    expect((await readdir(tmp.dir)).filter((f) => f.startsWith('dot'))).toEqual(['dot.tar']);
  });

  test('layout files: blobs are stored once under blobs/sha256', () => {
    const fake = { descriptor: { mediaType: 'x', digest: sha256Digest('a'), size: 1 }, bytes: Buffer.from('a') };
    const { files } = layoutFiles([{ top: fake, blobs: [fake, fake] }]);
    expect([...files.keys()].sort()).toEqual([`blobs/sha256/${sha256Digest('a').slice(7)}`, 'index.json', 'oci-layout']);
  });
});

describe('platform selection', () => {
  const d = (os: string, architecture: string, variant?: string) => ({
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    digest: sha256Digest(`${os}/${architecture}/${variant ?? ''}`),
    size: 1,
    platform: { os, architecture, ...(variant ? { variant } : {}) },
  });
  const index = (...m: ReturnType<typeof d>[]): ImageIndex => ({ schemaVersion: 2, manifests: m });

  test('default linux/amd64; the regex is matched against os/arch/variant; first match wins', () => {
    const idx = index(d('linux', 'arm64', 'v8'), d('linux', 'amd64'), d('unknown', 'unknown'));
    expect(isIndex(idx)).toBe(true);
    expect(selectPlatform(idx, 'r').platform?.architecture).toBe('amd64');
    expect(selectPlatform(idx, 'r', 'linux/arm64/v8').platform?.architecture).toBe('arm64');
    expect(selectPlatform(idx, 'r', 'arm').platform?.architecture).toBe('arm64');
  });

  test('a single-entry list is always accepted', () => {
    expect(selectPlatform(index(d('linux', 's390x')), 'r', 'linux/arm64').platform?.architecture).toBe('s390x');
  });

  test('no match lists the platforms there are', () => {
    expect(() => selectPlatform(index(d('linux', 'arm64', 'v8'), d('unknown', 'unknown')), 'quay.io/x/y:1')).toThrow(
      'unable to read image quay.io/x/y:1: filtered all images from manifest list (no platform matches linux/amd64; the list has linux/arm64/v8, unknown/unknown)',
    );
  });

  test('a bad regex is a usage error', () => {
    try {
      selectPlatform(index(d('linux', 'amd64'), d('linux', 'arm64')), 'r', '(');
      expect.unreachable();
    } catch (err) {
      expect((err as { exitCode: number }).exitCode).toBe(2);
    }
  });
});
