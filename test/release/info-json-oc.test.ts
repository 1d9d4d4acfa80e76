/**
 * `release info -o json` byte for byte against oc 4.13's output for the same image in a real registry
 * (test/fixtures/oc-4.13/release-info-json.json), the documented extra keys aside. The image is made to
 * show how oc re-encodes what it reads: a config with keys oc's type lacks, times with offsets and zero
 * fractions, labels that need sorting and HTML escaping; an ImageStream with unknown fields and unsorted
 * annotations; release-metadata with nested maps; no component versions (displayVersions null).
 *
 * Recorded with (the image pushed by this test to the registry named in OSIMAGE_OC_RECORD_REGISTRY):
 *   OSIMAGE_OC_RECORD_REGISTRY=127.0.0.1:45123 npx vitest run test/release/info-json-oc.test.ts
 *   oc adm release info --insecure -o json 127.0.0.1:45123/ocp/release:4.13.1 \
 *     | sed 's/127.0.0.1:45123/{{HOST}}/g' > test/fixtures/oc-4.13/release-info-json.json
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_TYPES } from '../../src/registry/types.js';
import { buildLayer, buildManifest, jsonBlob } from '../../src/release/build-layer.js';
import { osimage } from '../helpers/cli.js';
import { CLI_PULLSPEC, MOC_PULLSPEC, baseEntries, pushBuilt } from '../helpers/oci-builder.js';
import { useRegistry } from '../helpers/registry.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/oc-4.13/release-info-json.json', import.meta.url));

const imageReferences = {
  kind: 'ImageStream',
  apiVersion: 'image.openshift.io/v1',
  metadata: {
    name: '4.13.1',
    creationTimestamp: '2023-05-25T10:25:20.5+02:00',
    annotations: { 'release.openshift.io/z': '1', a: '<&>' },
    extra: 'not in the Go type',
  },
  spec: {
    lookupPolicy: { local: false },
    tags: [
      {
        name: 'cli',
        annotations: { 'io.openshift.build.commit.id': 'abc', b: 'tab\there\bend\u2028', '10': 'x', '2': 'y' },
        from: { kind: 'DockerImage', name: CLI_PULLSPEC, namespace: 'ns' },
        generation: 3,
        importPolicy: { scheduled: true },
        referencePolicy: { type: 'Source' },
        unknown: 1,
      },
      { name: 'machine-os-content', from: { kind: 'DockerImage', name: MOC_PULLSPEC } },
    ],
  },
};

const releaseMetadata = {
  version: '4.13.1',
  kind: 'cincinnati-metadata-v0',
  previous: ['4.13.0'],
  metadata: { url: 'https://example.com/?a=1&b=2', b: { z: 1, a: [1.5e-7, 1e21, 100] } },
};

async function ocJsonImage() {
  const base = await buildLayer(baseEntries());
  const top = await buildLayer([
    { name: 'release-manifests', type: 'directory' },
    { name: 'release-manifests/image-references', data: JSON.stringify(imageReferences) },
    { name: 'release-manifests/release-metadata', data: JSON.stringify(releaseMetadata) },
    { name: 'release-manifests/0000_50_x.yaml', data: 'kind: ConfigMap\napiVersion: v1\n' },
  ]);
  const config = {
    architecture: 'amd64',
    os: 'linux',
    created: '2023-05-25T08:25:20.120000000+00:00',
    config: {
      Labels: { z: '1', 'io.openshift.release': '4.13.1', '<&>': 'a&b', '10': 'ten', '2': 'two' },
      Env: ['PATH=/usr/bin'],
      ArgsEscaped: true,
      StopSignal: 'SIGTERM',
      ExposedPorts: { '8080/tcp': {}, '443/tcp': {} },
      cmd: ['/bin/sh'],
    },
    rootfs: { type: 'layers', diff_ids: [base.diffId, top.diffId] },
    history: [
      { created: '2023-05-25T08:25:20Z', created_by: '/bin/sh -c #(nop) LABEL', empty_layer: true },
      { created: '2023-05-25T10:25:20.500+02:00', comment: 'release' },
    ],
    'moby.buildkit.buildinfo.v1': 'e30=',
  };
  return buildManifest(jsonBlob(config, MEDIA_TYPES.ociConfig), [base, top]);
}

/** osimage's documented extra keys, as top-level members of the 2-space-indented text. */
const EXTRAS = ['name', 'pullFrom', 'platform', 'streamDisplayVersions', 'manifests', 'metadataFiles'];

/** The text without the extra members (a member runs to the next top-level key); `versions` as oc prints it. */
function withoutExtras(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let skipping = false;
  for (const line of lines) {
    const key = /^ {2}"([^"]+)": /.exec(line)?.[1];
    if (key !== undefined || line === '}') skipping = key !== undefined && EXTRAS.includes(key);
    if (!skipping) out.push(line);
  }
  return out.join('\n').replace(/,\n}/, '\n}');
}

describe('release info -o json, side by side with oc 4.13', () => {
  const registry = useRegistry();
  let ref: string;
  beforeAll(async () => {
    const img = await ocJsonImage();
    ref = `${registry().host}/ocp/release:4.13.1`;
    await pushBuilt(ref, img);
    const record = process.env.OSIMAGE_OC_RECORD_REGISTRY;
    if (record) await pushBuilt(`${record}/ocp/release:4.13.1`, img);
  });

  it("prints oc's keys in oc's order and bytes, with the documented extras besides", async () => {
    const r = await osimage(['release', 'info', '--insecure', '-o', 'json', ref]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const oc = (await readFile(FIXTURE, 'utf8')).replaceAll('{{HOST}}', registry().host);
    expect(`${withoutExtras(r.stdout)}\n`).toBe(oc);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(doc.name).toBe('4.13.1');
    expect(doc.manifests).toEqual(['0000_50_x.yaml']);
  });
});
