#!/usr/bin/env node
// Builds hack/sample/release.oci-archive, a KiB-sized release payload image for the offline demo and docs:
// a base layer and a release layer (image-references, release-metadata, two manifests), tagged 4.13.1.
// Deterministic: the same bytes on every run. Needs `npm run build` first (it uses the compiled builder).
// Usage: node hack/sample/make-release.mjs [OUT_DIR]   (default hack/sample)
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildImage, buildLayer } from '../../dist/release/build-layer.js';
import { writeOciArchive } from '../../dist/registry/oci-write.js';
import { ocImageStream, ocTag } from '../../test/infra/image-stream.mjs';

const out = join(resolve(process.argv[2] ?? fileURLToPath(new URL('.', import.meta.url))), 'release.oci-archive');
const created = '2023-05-25T08:25:20Z';

const repo = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
const imageReferences = ocImageStream(
  '4.13.1',
  [
    ocTag('cli', `${repo}@sha256:${'1'.repeat(64)}`, {
      'io.openshift.build.commit.id': 'a'.repeat(40),
      'io.openshift.build.commit.ref': '',
      'io.openshift.build.source-location': 'https://github.com/openshift/oc',
      'io.openshift.build.versions': 'kubectl=1.26.1',
    }),
    ocTag('cluster-version-operator', `${repo}@sha256:${'2'.repeat(64)}`, {
      'io.openshift.build.commit.id': 'b'.repeat(40),
      'io.openshift.build.commit.ref': '',
      'io.openshift.build.source-location': 'https://github.com/openshift/cluster-version-operator',
    }),
    ocTag('machine-os-content', `${repo}@sha256:${'3'.repeat(64)}`, {
      'io.openshift.build.commit.id': '',
      'io.openshift.build.commit.ref': '',
      'io.openshift.build.source-location': '',
      'io.openshift.build.version-display-names': 'machine-os=Red Hat Enterprise Linux CoreOS',
      'io.openshift.build.versions': 'machine-os=413.92.202305231734-0',
    }),
  ],
  { created, fromImageStream: 'ocp/4.13-art-latest-2023-05-24-134135' },
);
const releaseMetadata = {
  kind: 'cincinnati-metadata-v0',
  version: '4.13.1',
  previous: ['4.12.16', '4.12.17', '4.13.0'],
  metadata: { url: 'https://access.redhat.com/errata/RHSA-2023:3304' },
};

const base = await buildLayer([
  { name: 'usr', type: 'directory' },
  { name: 'usr/bin', type: 'directory' },
  { name: 'usr/bin/cluster-version-operator', data: '#!/bin/sh\necho sample\n', mode: 0o755 },
]);
const release = await buildLayer([
  { name: 'release-manifests', type: 'directory', mode: 0o777 },
  { name: 'release-manifests/image-references', data: JSON.stringify(imageReferences, null, 2), mode: 0o444 },
  { name: 'release-manifests/release-metadata', data: JSON.stringify(releaseMetadata), mode: 0o444 },
  {
    name: 'release-manifests/0000_80_machine-config-operator_05_osimageurl.yaml',
    data: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: machine-config-osimageurl\n  namespace: openshift-machine-config-operator\ndata:\n  releaseVersion: 4.13.1\n  osImageURL: ${repo}@sha256:${'3'.repeat(64)}\n`,
  },
  { name: 'release-manifests/0000_00_cluster-version-operator_01_namespace.yaml', data: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: openshift-cluster-version\n' },
]);
const image = buildImage({
  created,
  labels: { 'io.openshift.release': '4.13.1' },
  history: [{ created, created_by: 'sample base' }, { created, comment: 'Release image for OpenShift' }],
  layers: [base, release],
});
await writeOciArchive(out, [{ top: image, blobs: image.blobs, tag: '4.13.1' }]);
console.log(`wrote ${out} (${image.descriptor.digest})`);
