/**
 * The deterministic input set of the side-by-side comparison with `oc adm release`: release payload
 * images whose bytes, and so digests, are the same on every run (fixed timestamps, fixed content, component pull
 * specs on a made-up host so nothing depends on the local registry's port), and `pushSet()` to push them into a
 * registry. Built with the compiled builder (dist/, `npm run build`), pushed with dist/registry/push.js.
 *
 * Repository `ocp/release` on the registry:
 *   4.13.1         a 4.12+ release (rhel-coreos, rhel-coreos-extensions), Docker schema 2, two layers
 *   4.13.1-multi   a Docker manifest list: linux/amd64 and linux/arm64 images of the same payload
 *   4.13.1-oci     the 4.13.1 payload as an OCI manifest; 4.13.1-oci-index: an OCI index of amd64 + arm64
 *   4.1.0          a 2019 release (machine-os-content, RHCOS version 410.8.20190325.0, not semver)
 *   custom         a release whose image-references name is not semver and without release-metadata
 *   4.13.1-lower   the 4.13.1 payload with release-manifests/ in the lower layer (the base layer on top)
 * Repository `ocp/base:cvo`: a one-layer base image for `release new --to-image-base`.
 */
import { buildLayer, jsonBlob } from '../../dist/release/build-layer.js';
import { ocImageStream, ocTag } from '../../test/infra/image-stream.mjs';

export const CREATED = '2023-05-25T08:25:20Z';
export const ART = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
const DOCKER = {
  list: 'application/vnd.docker.distribution.manifest.list.v2+json',
  manifest: 'application/vnd.docker.distribution.manifest.v2+json',
  config: 'application/vnd.docker.container.image.v1+json',
  layer: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
};
const OCI = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
};

/** A made-up digest pull spec on the ART host: `n` repeated (hex digit or short hex word). */
export const art = (hex) => `${ART}@sha256:${hex.repeat(64).slice(0, 64)}`;

const source = (repo, commit, versions) => ({
  'io.openshift.build.commit.id': commit,
  'io.openshift.build.commit.ref': '',
  'io.openshift.build.source-location': `https://github.com/openshift/${repo}`,
  ...(versions ? { 'io.openshift.build.versions': versions } : {}),
});

const os = (version) => ({
  'io.openshift.build.commit.id': '',
  'io.openshift.build.commit.ref': '',
  'io.openshift.build.source-location': '',
  'io.openshift.build.version-display-names': 'machine-os=Red Hat Enterprise Linux CoreOS',
  'io.openshift.build.versions': `machine-os=${version}`,
});

const imageStream = (name, tags) =>
  ocImageStream(name, tags, { created: CREATED, fromImageStream: 'ocp/4.13-art-latest-2023-05-24-134135' });

const RHCOS_413 = '413.92.202305231734-0';

/** The 4.12+ payload: rhel-coreos and its extensions. */
export const RELEASE_413 = imageStream('4.13.1', [
  ocTag('cli', art('1'), source('oc', 'a'.repeat(40), 'kubectl=1.26.1')),
  ocTag('cluster-version-operator', art('2'), source('cluster-version-operator', 'b'.repeat(40))),
  ocTag('machine-config-operator', art('4'), source('machine-config-operator', 'c'.repeat(40))),
  ocTag('rhel-coreos', art('5'), os(RHCOS_413)),
  ocTag('rhel-coreos-extensions', art('6'), os(RHCOS_413)),
]);

/** The 2019 payload: machine-os-content, an RHCOS version that is not semver. */
export const RELEASE_2019 = imageStream('4.1.0', [
  ocTag('cli', art('7'), source('origin', 'd'.repeat(40), 'kubectl=1.13.4')),
  ocTag('cluster-version-operator', art('8'), source('cluster-version-operator', 'e'.repeat(40))),
  ocTag('machine-os-content', art('9'), os('410.8.20190325.0')),
]);

/** No release-metadata, a name that is not a semantic version. */
export const RELEASE_CUSTOM = imageStream('custom-build', [
  ocTag('cli', art('a'), source('oc', 'f'.repeat(40), 'kubectl=1.26.1')),
  ocTag('cluster-version-operator', art('b'), source('cluster-version-operator', '0'.repeat(40))),
]);

const metadata = (version, previous, url) => ({
  kind: 'cincinnati-metadata-v0',
  version,
  previous,
  metadata: { url },
});

const file = (name, data, mode = 0o644) => ({ name: `release-manifests/${name}`, data, mode, mtime: new Date(CREATED) });

const namespace = (name) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;

/** The release layer's entries: release-manifests/ with image-references, release-metadata and manifests. */
function releaseEntries(is, meta) {
  const entries = [
    { name: 'release-manifests', type: 'directory', mode: 0o755, mtime: new Date(CREATED) },
    file('image-references', JSON.stringify(is, null, 2)),
  ];
  if (meta) entries.push(file('release-metadata', JSON.stringify(meta)));
  entries.push(
    file('0000_00_cluster-version-operator_01_namespace.yaml', namespace('openshift-cluster-version')),
    file('0000_80_machine-config-operator_00_namespace.yaml', namespace('openshift-machine-config-operator')),
    file('0000_90_cluster-monitoring_01_rules.json', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"rules"}}\n'),
    file('0000_50_private.yaml', namespace('private'), 0o600),
  );
  return entries;
}

const BASE_ENTRIES = [
  { name: 'usr', type: 'directory', mtime: new Date(CREATED) },
  { name: 'usr/bin', type: 'directory', mtime: new Date(CREATED) },
  { name: 'usr/bin/cluster-version-operator', data: '#!/bin/sh\necho cvo\n', mode: 0o755, mtime: new Date(CREATED) },
];

function blob(value, mediaType) {
  return jsonBlob(value, mediaType);
}

/** A single-platform image: config and manifest in the given media types (DOCKER or OCI). */
function image({ layers, arch = 'amd64', labels, types, history }) {
  const config = blob(
    {
      architecture: arch,
      config: { Labels: labels, Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'] },
      created: CREATED,
      history: history ?? layers.map((_, i) => ({ created: CREATED, created_by: `layer ${i}` })),
      os: 'linux',
      rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
    },
    types.config,
  );
  const layerBlobs = layers.map((l) => ({ ...l, descriptor: { ...l.descriptor, mediaType: types.layer } }));
  const manifest = blob(
    { schemaVersion: 2, mediaType: types.manifest, config: config.descriptor, layers: layerBlobs.map((l) => l.descriptor) },
    types.manifest,
  );
  return { manifest, blobs: [config, ...layerBlobs], platform: { architecture: arch, os: 'linux' } };
}

function list(images, mediaType) {
  return blob(
    {
      schemaVersion: 2,
      mediaType,
      manifests: images.map((i) => ({ ...i.manifest.descriptor, platform: i.platform })),
    },
    mediaType,
  );
}

/**
 * Everything to push: `{ repo, tag, manifest: Blob, blobs: Blob[], children?: [{manifest, blobs}] }`, in push
 * order, and the digests by tag (for tests that name an image by digest).
 */
export async function buildSet() {
  const base = await buildLayer(BASE_ENTRIES);
  const release = async (is, meta) => buildLayer(releaseEntries(is, meta));
  const r413 = await release(
    RELEASE_413,
    metadata('4.13.1', ['4.12.16', '4.12.17', '4.13.0'], 'https://access.redhat.com/errata/RHSA-2023:3304'),
  );
  const r2019 = await release(RELEASE_2019, metadata('4.1.0', [], 'https://access.redhat.com/errata/RHBA-2019:0758'));
  const rCustom = await release(RELEASE_CUSTOM, undefined);
  const labels = (v) => ({ 'io.openshift.release': v });

  const amd = image({ layers: [base, r413], labels: labels('4.13.1'), types: DOCKER });
  const arm = image({ layers: [base, r413], arch: 'arm64', labels: labels('4.13.1'), types: DOCKER });
  const ociAmd = image({ layers: [base, r413], labels: labels('4.13.1'), types: OCI });
  const ociArm = image({ layers: [base, r413], arch: 'arm64', labels: labels('4.13.1'), types: OCI });
  const old = image({ layers: [base, r2019], labels: labels('4.1.0'), types: DOCKER });
  const custom = image({ layers: [base, rCustom], labels: labels('custom-build'), types: DOCKER });
  const lower = image({ layers: [r413, base], labels: labels('4.13.1'), types: DOCKER });
  const cvo = image({ layers: [base], labels: { 'io.openshift.build.name': 'cvo' }, types: DOCKER });

  const single = (repo, t, img) => ({ repo, tag: t, manifest: img.manifest, blobs: img.blobs });
  const multi = (repo, t, imgs, mediaType) => ({
    repo,
    tag: t,
    manifest: list(imgs, mediaType),
    blobs: [],
    children: imgs.map((i) => ({ manifest: i.manifest, blobs: i.blobs })),
  });
  const entries = [
    single('ocp/release', '4.13.1', amd),
    multi('ocp/release', '4.13.1-multi', [amd, arm], DOCKER.list),
    single('ocp/release', '4.13.1-oci', ociAmd),
    multi('ocp/release', '4.13.1-oci-index', [ociAmd, ociArm], OCI.index),
    single('ocp/release', '4.1.0', old),
    single('ocp/release', 'custom', custom),
    single('ocp/release', '4.13.1-lower', lower),
    single('ocp/base', 'cvo', cvo),
  ];
  const digests = Object.fromEntries(entries.map((e) => [`${e.repo}:${e.tag}`, e.manifest.descriptor.digest]));
  return { entries, digests };
}

/** Push the set to `host` (127.0.0.1:PORT, plain HTTP). */
export async function pushSet(host, set) {
  const { openPushTarget } = await import('../../dist/registry/push.js');
  const { closeDispatchers } = await import('../../dist/http/dispatcher.js');
  try {
    for (const e of set.entries) {
      const dest = await openPushTarget(`${host}/${e.repo}:${e.tag}`, { insecure: true });
      for (const child of e.children ?? []) {
        for (const b of child.blobs) await dest.pushBlob(b.descriptor, b.bytes);
        await dest.pushManifest(child.manifest.bytes, child.manifest.descriptor.mediaType, child.manifest.descriptor.digest);
      }
      for (const b of e.blobs) await dest.pushBlob(b.descriptor, b.bytes);
      await dest.pushManifest(e.manifest.bytes, e.manifest.descriptor.mediaType, e.tag);
    }
  } finally {
    await closeDispatchers();
  }
}
