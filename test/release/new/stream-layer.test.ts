/**
 * The release layer made while the payload is assembled (`--from-dir` onto an image or into an archive): the same
 * bytes as the layer made of the whole file list, files handed on in payload order and not kept, a failure
 * part-way reported as before, and reads made ahead of the check still reported in file order.
 */
import { cp, mkdir, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Digest } from '../../../src/oci/digest.js';
import { buildLayer, LayerWriter, tarBytes, type LayerEntry } from '../../../src/release/build-layer.js';
import { assemblePayload, MAX_MANIFEST_BYTES, type AssembleOptions, type PayloadFile } from '../../../src/release/new/assemble.js';
import { assemblePayloadLayer } from '../../../src/release/new/assemble-layer.js';
import { releaseLayer } from '../../../src/release/new/image.js';
import { MEDIA_TYPES } from '../../../src/registry/types.js';
import { tempDir, type Temp } from '../../helpers/oci-builder.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/release-new/payload', import.meta.url));
const CREATED = '2026-01-15T08:00:00Z';
let tmp: Temp;

beforeAll(async () => {
  tmp = await tempDir('osimage-stream-layer-');
});
afterAll(async () => {
  await tmp?.cleanup();
});

const options = (fromDir: string, extra: Partial<AssembleOptions> = {}): AssembleOptions => ({
  fromDir,
  metadata: { kind: 'cincinnati-metadata-v0', version: '4.99.0', previous: ['4.98.0'] },
  mappings: [],
  created: CREATED,
  ...extra,
});

/** Many small files (a header, the data and padding each), a larger one, a folder and a Uint8Array that is no Buffer. */
function entries(): LayerEntry[] {
  const list: LayerEntry[] = [{ name: 'release-manifests', type: 'directory', mode: 0o777 }];
  for (let i = 0; i < 400; i++)
    list.push({ name: `release-manifests/m-${i}.yaml`, data: `kind: ConfigMap\nindex: ${i}\n${'x'.repeat(i * 7)}\n` });
  list.push({ name: 'release-manifests/big', data: Buffer.alloc(700 * 1024, 'y') });
  list.push({ name: 'release-manifests/view', data: new Uint8Array(Buffer.from('from a Uint8Array')) });
  return list;
}

describe('a layer made an entry at a time', () => {
  it('is the gzip of the whole tar, byte for byte, with the diff_id of the tar', async () => {
    const tar = await tarBytes(entries());
    const whole = gzipSync(tar);
    const built = await buildLayer(entries());
    expect(built.bytes.equals(whole)).toBe(true);
    expect(built.diffId).toBe(sha256Digest(tar));
    expect(built.descriptor).toEqual({ mediaType: MEDIA_TYPES.ociLayerGzip, digest: sha256Digest(whole), size: whole.length });
    const plain = await buildLayer(entries(), { compression: 'none' });
    expect(plain.bytes.equals(tar)).toBe(true);
    expect(plain.descriptor.digest).toBe(plain.diffId);
  });

  it('given up part-way, leaves nothing behind (no unhandled rejection)', async () => {
    const w = new LayerWriter();
    await w.add({ name: 'a', data: 'a' });
    w.abort(new Error('stop'));
    await new Promise((r) => setTimeout(r, 20));
  });
});

describe('release new --from-dir, the layer made while assembling', () => {
  it('hands the files on in payload order, keeps none, and makes the layer of the whole list', async () => {
    const held = await assemblePayload(options(FIXTURE));
    const seen: PayloadFile[] = [];
    const handed = await assemblePayload({ ...options(FIXTURE), onFile: async (f) => void seen.push(f) });
    expect(handed.files).toEqual([]);
    expect(seen.map((f) => [f.name, f.data.toString('utf8')])).toEqual(held.files.map((f) => [f.name, f.data.toString('utf8')]));
    expect(handed.imageStream).toEqual(held.imageStream);

    const streamed = await assemblePayloadLayer(options(FIXTURE));
    const whole = await releaseLayer(held.files, CREATED, false);
    expect(streamed.files).toEqual([]);
    expect(streamed.layer?.bytes.equals(whole.bytes)).toBe(true);
    expect(streamed.layer?.diffId).toBe(whole.diffId);
  });

  it('a manifest that fails the check part-way is reported as before', async () => {
    const dir = join(tmp.dir, 'bad-second');
    await cp(FIXTURE, dir, { recursive: true });
    await writeFile(join(dir, 'machine-config-operator', '0000_31_z.yaml'), 'kind: ConfigMap\n');
    const held = await assemblePayload(options(dir)).catch((e: Error) => e.message);
    const streamed = await assemblePayloadLayer(options(dir)).catch((e: Error) => e.message);
    expect(held).toMatch(/0000_31_z\.yaml: manifests must contain Kubernetes API objects with 'kind' and 'apiVersion' set/);
    expect(streamed).toBe(held);
  });

  it('files read ahead of the check are still reported in file order', async () => {
    const dir = join(tmp.dir, 'order');
    await mkdir(join(dir, 'op'), { recursive: true });
    await writeFile(join(dir, 'op', 'a.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
    await writeFile(join(dir, 'op', 'b.yaml'), 'just a string\n');
    // Sparse: larger than a manifest may be, without writing it.
    await writeFile(join(dir, 'op', 'c.yaml'), '');
    await truncate(join(dir, 'op', 'c.yaml'), MAX_MANIFEST_BYTES + 1);
    const first = await assemblePayloadLayer(options(dir, { toImageBaseTag: '' })).catch((e: Error) => e.message);
    expect(first).toMatch(/op\/b\.yaml: not a valid YAML\/JSON object/);
    await writeFile(join(dir, 'op', 'b.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
    const later = await assemblePayloadLayer(options(dir, { toImageBaseTag: '' })).catch((e: Error) => e.message);
    expect(later).toMatch(/c\.yaml is larger than the 16 MiB/);
  });
});
