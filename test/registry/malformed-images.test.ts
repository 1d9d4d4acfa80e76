/**
 * malformed images give one line naming the source and what is wrong, exit 1 — never a
 * JavaScript error (`Cannot read properties of null`, `Maximum call stack size exceeded`). Each hostile image
 * is written by hand (the manifest, index.json, config or release file replaced) and read with the built
 * binary over `oci:`, `oci-archive:` and the real registry (or, where the registry refuses the manifest on
 * push, a small Node server that serves it).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { jsonBlob, tarBytes, type Blob, type BuiltImage } from '../../src/release/build-layer.js';
import { layoutFiles, type LayoutEntry } from '../../src/registry/oci-write.js';
import { MEDIA_TYPES } from '../../src/registry/types.js';
import { osimage, type RunResult } from '../helpers/cli.js';
import {
  archive,
  baseEntries,
  entry,
  image,
  imageReferences,
  layout,
  pushBuilt,
  releaseEntries,
  tempDir,
  type Temp,
} from '../helpers/oci-builder.js';
import { useRegistry } from '../helpers/registry.js';

let tmp: Temp;
let base: BuiltImage;
beforeAll(async () => {
  tmp = await tempDir('osimage-malformed-');
  base = await image([{ entries: baseEntries() }, { entries: releaseEntries() }]);
});
afterAll(async () => {
  await tmp.cleanup();
});

/** A hand-made manifest over the usual image's blobs. */
function manifestOf(doc: Record<string, unknown>, blobs: Blob[] = base.blobs): { top: Blob; blobs: Blob[] } {
  return { top: jsonBlob({ schemaVersion: 2, mediaType: MEDIA_TYPES.ociManifest, ...doc }, MEDIA_TYPES.ociManifest), blobs };
}

/** The usual image with one release-manifests/ file replaced. */
async function releaseWith(name: string, data: string): Promise<BuiltImage> {
  const entries = releaseEntries().filter((e) => e.name !== `release-manifests/${name}`);
  return image([{ entries: baseEntries() }, { entries: [...entries, { name: `release-manifests/${name}`, data }] }]);
}

/** Both offline transports for one image: an `oci:` folder and an `oci-archive:` file. */
async function both(name: string, e: LayoutEntry): Promise<Array<[string, string]>> {
  return [
    ['oci:', await layout(tmp.dir, name, [e])],
    ['oci-archive:', await archive(tmp.dir, `${name}.tar`, [e])],
  ];
}

/** The refusal every case must give: exit 1, nothing on stdout, one line on stderr with no JavaScript error in it. */
function expectOneLine(r: RunResult, ...parts: Array<string | RegExp>): void {
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/Cannot read properties|call stack|is not a function|TypeError|undefined/);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  for (const p of parts) expect(r.stderr).toMatch(p);
  expect(r.exitCode).toBe(1);
}

describe('index.json', () => {
  test('a null entry in index.json names the file and manifests[1] (oci:, oci-archive:)', async () => {
    const index = Buffer.from(JSON.stringify({ schemaVersion: 2, manifests: [base.descriptor, null] }));
    const ref = await layout(tmp.dir, 'null-index', [entry(base)]);
    await writeFile(join(ref.slice('oci:'.length), 'index.json'), index);
    // The archive by hand: the layout's files, with that index.json.
    const files = [...layoutFiles([entry(base)]).files].map(([name, b]) => ({
      name,
      data: name === 'index.json' ? index : (b as Blob).bytes,
    }));
    const path = join(tmp.dir, 'null-index.tar');
    await writeFile(path, await tarBytes(files));
    for (const r of [ref, `oci-archive:${path}`]) {
      expectOneLine(await osimage(['release', 'info', r]), `${r}/index.json`, /manifests\[1\]/, /null/);
    }
  });

  test('an index.json entry whose digest is not a digest names manifests[0].digest', async () => {
    const ref = await layout(tmp.dir, 'bad-digest-index', [entry(base)]);
    await writeFile(
      join(ref.slice('oci:'.length), 'index.json'),
      JSON.stringify({ schemaVersion: 2, manifests: [{ ...base.descriptor, digest: 42 }] }),
    );
    expectOneLine(await osimage(['release', 'info', ref]), /index\.json/, /manifests\[0\]\.digest/);
  });

  test('an index.json entry whose annotations are not a map names manifests[0].annotations', async () => {
    const ref = await layout(tmp.dir, 'bad-annotations-index', [entry(base)]);
    await writeFile(
      join(ref.slice('oci:'.length), 'index.json'),
      JSON.stringify({ schemaVersion: 2, manifests: [{ ...base.descriptor, annotations: ['x'] }] }),
    );
    expectOneLine(await osimage(['release', 'info', ref]), /index\.json/, /manifests\[0\]\.annotations/);
  });
});

describe('image manifests', () => {
  test('layers: [null] names the manifest and layers[0] (oci:, oci-archive:)', async () => {
    const e = manifestOf({ config: base.config.descriptor, layers: [null] });
    for (const [, ref] of await both('null-layer', e)) {
      expectOneLine(await osimage(['release', 'info', ref]), ref, e.top.descriptor.digest, /layers\[0\]/, /null/);
    }
  });

  test('a layer with a negative size, a size that is not an integer, a missing media type (oci:)', async () => {
    const layer = base.layers[1]!.descriptor;
    const cases: Array<[string, unknown, RegExp]> = [
      ['negative-size', { ...layer, size: -1 }, /layers\[1\] \(sha256:[0-9a-f]{64}\) has size -1, not a whole number of bytes/],
      ['fraction-size', { ...layer, size: 1.5 }, /layers\[1\] \(sha256:[0-9a-f]{64}\) has size 1\.5/],
      ['no-media-type', { digest: layer.digest, size: layer.size }, /layers\[1\]\.mediaType/],
      ['upper-digest', { ...layer, digest: layer.digest.toUpperCase() }, /layers\[1\]\.digest/],
    ];
    for (const [name, bad, where] of cases) {
      const e = manifestOf({ config: base.config.descriptor, layers: [base.layers[0]!.descriptor, bad] });
      const ref = await layout(tmp.dir, `layer-${name}`, [e]);
      expectOneLine(await osimage(['release', 'info', ref]), ref, where);
    }
  });

  test('a config descriptor that is not an object names config', async () => {
    const e = manifestOf({ config: 'sha256:abc', layers: base.layers.map((l) => l.descriptor) });
    const ref = await layout(tmp.dir, 'config-string', [e]);
    expectOneLine(await osimage(['release', 'info', ref]), ref, /\bconfig\b/);
  });

  test('a multi-arch index with a null entry names manifests[0] (oci-archive:)', async () => {
    const idx = jsonBlob({ schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex, manifests: [null, base.descriptor] }, MEDIA_TYPES.ociIndex);
    const ref = await archive(tmp.dir, 'null-list.tar', [{ top: idx, blobs: [base, ...base.blobs] }]);
    expectOneLine(await osimage(['release', 'info', ref]), ref, idx.descriptor.digest, /manifests\[0\]/);
  });
});

describe('image config', () => {
  const withConfig = (config: unknown) => {
    const blob = jsonBlob(config, MEDIA_TYPES.ociConfig);
    return manifestOf({ config: blob.descriptor, layers: base.layers.map((l) => l.descriptor) }, [blob, ...base.layers]);
  };

  test('a config blob that is null, or whose rootfs/config/created have the wrong type, is named', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['null', null, /not a JSON object/],
      ['rootfs', { os: 'linux', architecture: 'amd64', rootfs: { type: 'layers', diff_ids: [null] } }, /rootfs\.diff_ids\[0\]/],
      ['config', { os: 'linux', architecture: 'amd64', config: { Labels: 'x' } }, /config\.Labels/],
      ['created', { os: 'linux', architecture: 'amd64', created: 5 }, /\bcreated\b/],
    ];
    for (const [name, config, where] of cases) {
      const ref = await layout(tmp.dir, `config-${name}`, [withConfig(config)]);
      expectOneLine(await osimage(['release', 'info', ref]), ref, /image configuration/, where);
    }
  });
});

describe('release-manifests/', () => {
  test('image-references with tags: [null] names spec.tags[2] (oci:, oci-archive:)', async () => {
    const refs = JSON.parse(imageReferences());
    refs.spec.tags.push(null);
    const img = await releaseWith('image-references', JSON.stringify(refs));
    for (const [, ref] of await both('null-tag', entry(img))) {
      expectOneLine(await osimage(['release', 'info', ref]), ref, /image-references/, /spec\.tags\[2\]/);
      expectOneLine(await osimage(['release', 'info', '--image-for=cli', ref]), ref, /spec\.tags\[2\]/);
    }
  });

  test('image-references with a tag whose annotations hold a number names the annotation', async () => {
    const refs = JSON.parse(imageReferences());
    refs.spec.tags[0].annotations['io.openshift.build.versions'] = 5;
    const img = await releaseWith('image-references', JSON.stringify(refs));
    const ref = await layout(tmp.dir, 'number-annotation', [entry(img)]);
    expectOneLine(
      await osimage(['release', 'info', ref]),
      ref,
      'spec.tags[0] (cli): annotation io.openshift.build.versions is not a string (5); quote it',
    );
  });

  test('release-metadata nested 100,000 deep names release-metadata', async () => {
    const deep = `{"kind":"cincinnati-metadata-v0","version":"4.13.1","previous":[],"metadata":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const img = await releaseWith('release-metadata', deep);
    for (const [, ref] of await both('deep-metadata', entry(img))) {
      for (const args of [[], ['-o', 'json']]) {
        expectOneLine(await osimage(['release', 'info', ...args, ref]), ref, /release-metadata/, /nested/);
      }
    }
  }, 30_000);

  test('image-references nested 100,000 deep names image-references', async () => {
    const refs = JSON.parse(imageReferences());
    const text = JSON.stringify(refs).replace('"status":{', `"deep":${'['.repeat(100_000)}${']'.repeat(100_000)},"status":{`);
    const img = await releaseWith('image-references', text);
    const ref = await layout(tmp.dir, 'deep-references', [entry(img)]);
    expectOneLine(await osimage(['release', 'info', '-o', 'json', ref]), ref, /image-references/, /nested/);
  }, 30_000);
  test('image-references in YAML with flow lists nested 100,000 deep names image-references', async () => {
    const yamlText = `kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags: []\nx: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    const img = await releaseWith('image-references', yamlText);
    const ref = await layout(tmp.dir, 'deep-yaml-references', [entry(img)]);
    expectOneLine(await osimage(['release', 'info', ref]), ref, /image-references is nested more than 100 levels deep/);
  }, 30_000);
});

describe('over a registry', () => {
  const reg = useRegistry({ mode: 'open' });

  test('image-references with tags: [null], pushed to the real registry, names the image and spec.tags[2]', async () => {
    const refs = JSON.parse(imageReferences());
    refs.spec.tags.push(null);
    const img = await releaseWith('image-references', JSON.stringify(refs));
    const ref = `${reg().host}/ocp/null-tag:4.13.1`;
    await pushBuilt(ref, img);
    expectOneLine(await osimage(['release', 'info', '--insecure', ref]), ref, /spec\.tags\[2\]/);
  });

  test('the real registry refuses a manifest with layers: [null] on push', async () => {
    const e = manifestOf({ config: base.config.descriptor, layers: [null] });
    const ref = `${reg().host}/ocp/null-layer:bad`;
    const err = (await pushBuilt(ref, { ...base, bytes: e.top.bytes, descriptor: e.top.descriptor }).catch((x: unknown) => x)) as Error;
    // distribution answers 400 DIGEST_INVALID / MANIFEST_BLOB_UNKNOWN: the Node server below serves it instead.
    expect(err.message).toMatch(/400 Bad Request.*MANIFEST_BLOB_UNKNOWN/);
  });
});

describe('over a Node server speaking the distribution API', () => {
  let server: Server;
  let host: string;
  const served = new Map<string, { body: Buffer; type: string }>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = req.url ?? '';
      if (url === '/v2/') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      const m = /^\/v2\/ocp\/hostile\/manifests\/([^/]+)$/.exec(url);
      const hit = m ? served.get(decodeURIComponent(m[1]!)) : undefined;
      if (!hit) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"code":"MANIFEST_UNKNOWN","message":"unknown"}]}');
        return;
      }
      res.writeHead(200, { 'content-type': hit.type, 'content-length': hit.body.length }).end(hit.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('a registry serving layers: [null] gets one line naming the image and layers[0]', async () => {
    const e = manifestOf({ config: base.config.descriptor, layers: [null] });
    served.set('null-layer', { body: e.top.bytes, type: MEDIA_TYPES.ociManifest });
    const ref = `${host}/ocp/hostile:null-layer`;
    expectOneLine(await osimage(['release', 'info', '--insecure', ref]), ref, /layers\[0\]/, /null/);
  });

  test('a registry serving a manifest list with a null entry gets one line naming manifests[1]', async () => {
    const idx = jsonBlob({ schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex, manifests: [base.descriptor, null] }, MEDIA_TYPES.ociIndex);
    served.set('null-list', { body: idx.bytes, type: MEDIA_TYPES.ociIndex });
    const ref = `${host}/ocp/hostile:null-list`;
    expectOneLine(await osimage(['release', 'info', '--insecure', ref]), ref, /manifests\[1\]/);
  });
});
