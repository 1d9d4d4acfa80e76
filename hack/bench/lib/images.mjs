/**
 * The benchmark's release images, built with the project's own builder (dist/release/build-layer.js) for
 * everything small (the release-manifests layer, configs, manifests) and streamed to disk for the big layers
 * (tar-stream → gzip → file, hashing the tar for the diff_id and the gzip for the digest on the way), so a
 * 1 GiB layer never sits in memory.
 *
 * Layer contents are incompressible: an AES-256-CTR keystream from a fixed key, so every run builds the same
 * bytes (and digests) without paying for /dev/urandom. The gzip stream uses level 0 (stored blocks): on
 * random data every deflate level ends up storing the blocks anyway, so readers see the same kind of stream,
 * and generating 1.25 GiB takes seconds instead of minutes.
 */
import { once } from 'node:events';
import { createCipheriv, createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { join } from 'node:path';
import tarStream from 'tar-stream';
import { buildImage, buildLayer } from '../../../dist/release/build-layer.js';
import { ocImageStream, ocTag } from '../../lib/image-stream.mjs';
import { MEDIA_TYPES } from '../../../dist/registry/types.js';

const MiB = 1024 * 1024;
const EPOCH = new Date(0);
const PER_DIR = 200;
const CREATED = '2026-01-15T08:00:00Z';
const ART_REPO = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';

/** A deterministic 32-bit PRNG (mulberry32): file sizes and names, not data. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Incompressible bytes, deterministic per seed: AES-256-CTR over zeros. */
function keystream(seed) {
  const key = createHash('sha256').update(`osimage-bench-${seed}`).digest();
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  const zeros = Buffer.alloc(MiB);
  return (n) => (n === MiB ? cipher.update(zeros) : cipher.update(zeros.subarray(0, n)));
}

/** A pass-through that hashes (and counts) what flows by. */
function hashing() {
  const hash = createHash('sha256');
  let size = 0;
  const t = new Transform({
    transform(chunk, _enc, cb) {
      hash.update(chunk);
      size += chunk.length;
      cb(null, chunk);
    },
  });
  return { t, result: () => ({ digest: `sha256:${hash.digest('hex')}`, size }) };
}

/**
 * File sizes for a layer of `total` bytes, like a base OS layer: mostly small files, some medium, a few
 * large ones (≈ 1 entry per 100 KiB on average).
 */
function fileSizes(total, rand) {
  const sizes = [];
  let left = total;
  while (left > 0) {
    const r = rand();
    let s;
    if (r < 0.7) s = 512 + Math.floor(rand() * 63 * 1024);
    else if (r < 0.97) s = 64 * 1024 + Math.floor(rand() * 960 * 1024);
    else s = MiB + Math.floor(rand() * 15 * MiB);
    s = Math.min(s, left);
    sizes.push(s);
    left -= s;
  }
  return sizes;
}

/**
 * Write a gzip layer of incompressible files totalling `bytes` (file data; tar headers come on top) to
 * `path`, streaming. Returns a layer object the builder accepts (descriptor + diffId) plus its path.
 */
export async function writeRandomLayer(path, { bytes, seed, root, level = 0 }) {
  const rand = prng(seed);
  const data = keystream(seed);
  const pack = tarStream.pack();
  const tarHash = hashing();
  const gzHash = hashing();
  const done = pipeline(pack, tarHash.t, createGzip({ level }), gzHash.t, createWriteStream(path));
  done.catch(() => undefined); // awaited below; avoid an unhandled rejection while entries are written
  const header = (name, extra) => ({ name, mtime: EPOCH, uid: 0, gid: 0, ...extra });
  const dirName = (i) => `${root}/d${String(Math.floor(i / PER_DIR)).padStart(4, '0')}`;

  const sizes = fileSizes(bytes, rand);
  for (let i = 0; i < sizes.length; i++) {
    if (i % PER_DIR === 0) {
      await new Promise((resolve, reject) =>
        pack.entry(header(dirName(i), { type: 'directory', mode: 0o755 }), (err) => (err ? reject(err) : resolve())),
      );
    }
    const size = sizes[i];
    let finished;
    const ended = new Promise((resolve, reject) => {
      finished = (err) => (err ? reject(err) : resolve());
    });
    const s = pack.entry(header(`${dirName(i)}/f${String(i).padStart(6, '0')}.so`, { type: 'file', size, mode: 0o644 }), (err) =>
      finished(err),
    );
    for (let left = size; left > 0; ) {
      const n = Math.min(left, MiB);
      if (!s.write(data(n))) await once(s, 'drain');
      left -= n;
    }
    s.end();
    await ended;
  }
  pack.finalize();
  await done;
  const tar = tarHash.result();
  const gz = gzHash.result();
  return {
    path,
    diffId: tar.digest,
    tarSize: tar.size,
    files: sizes.length,
    descriptor: { mediaType: MEDIA_TYPES.ociLayerGzip, digest: gz.digest, size: gz.size },
  };
}

/** About 110 component names, as a release's image-references has them. */
export function componentNames(count = 110) {
  const real = [
    'agent-installer-api-server',
    'alibaba-cloud-controller-manager',
    'aws-cloud-controller-manager',
    'aws-ebs-csi-driver',
    'aws-ebs-csi-driver-operator',
    'aws-pod-identity-webhook',
    'azure-cloud-controller-manager',
    'azure-disk-csi-driver',
    'baremetal-installer',
    'baremetal-machine-controller',
    'baremetal-operator',
    'baremetal-runtimecfg',
    'cli',
    'cli-artifacts',
    'cloud-credential-operator',
    'cluster-authentication-operator',
    'cluster-autoscaler',
    'cluster-autoscaler-operator',
    'cluster-baremetal-operator',
    'cluster-bootstrap',
    'cluster-capi-operator',
    'cluster-config-operator',
    'cluster-csi-snapshot-controller-operator',
    'cluster-dns-operator',
    'cluster-etcd-operator',
    'cluster-image-registry-operator',
    'cluster-ingress-operator',
    'cluster-kube-apiserver-operator',
    'cluster-kube-controller-manager-operator',
    'cluster-kube-scheduler-operator',
    'cluster-machine-approver',
    'cluster-monitoring-operator',
    'cluster-network-operator',
    'cluster-node-tuning-operator',
    'cluster-openshift-apiserver-operator',
    'cluster-policy-controller',
    'cluster-samples-operator',
    'cluster-storage-operator',
    'cluster-version-operator',
    'console',
    'console-operator',
    'container-networking-plugins',
    'coredns',
    'csi-external-attacher',
    'csi-external-provisioner',
    'csi-external-resizer',
    'csi-external-snapshotter',
    'csi-livenessprobe',
    'csi-node-driver-registrar',
    'csi-snapshot-controller',
    'deployer',
    'docker-builder',
    'driver-toolkit',
    'etcd',
    'gcp-pd-csi-driver',
    'haproxy-router',
    'hyperkube',
    'insights-operator',
    'installer',
    'installer-artifacts',
    'ironic',
    'keepalived-ipfailover',
    'kube-proxy',
    'kube-rbac-proxy',
    'kube-state-metrics',
    'machine-api-operator',
    'machine-config-operator',
    'machine-os-content',
    'multus-cni',
    'must-gather',
    'network-metrics-daemon',
    'oauth-apiserver',
    'oauth-proxy',
    'oauth-server',
    'openshift-apiserver',
    'openshift-controller-manager',
    'openshift-state-metrics',
    'operator-lifecycle-manager',
    'operator-marketplace',
    'ovn-kubernetes',
    'pod',
    'prometheus',
    'prometheus-alertmanager',
    'prometheus-config-reloader',
    'prometheus-node-exporter',
    'prometheus-operator',
    'rhel-coreos',
    'rhel-coreos-extensions',
    'service-ca-operator',
    'telemeter',
    'tests',
    'thanos',
    'tools',
  ];
  const names = real.slice(0, count);
  for (let i = names.length; i < count; i++) names.push(`extra-component-${String(i).padStart(3, '0')}`);
  return names.sort();
}

function hex(rand, n) {
  let s = '';
  while (s.length < n)
    s += Math.floor(rand() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return s.slice(0, n);
}

/** The image-references ImageStream (oc's JSON), with `tags` tags; returns it and machine-os-content's pullspec. */
export function imageReferences(version, tags = 110, seed = 7) {
  const rand = prng(seed);
  const names = componentNames(tags);
  let mosc = '';
  const spec = names.map((name) => {
    const pullspec = `${ART_REPO}@sha256:${hex(rand, 64)}`;
    if (name === 'machine-os-content') mosc = pullspec;
    const annotations =
      name === 'machine-os-content'
        ? {
            'io.openshift.build.commit.id': '',
            'io.openshift.build.commit.ref': '',
            'io.openshift.build.source-location': '',
            'io.openshift.build.version-display-names': 'machine-os=Red Hat Enterprise Linux CoreOS',
            'io.openshift.build.versions': 'machine-os=416.94.202601141512-0',
          }
        : {
            'io.openshift.build.commit.id': hex(rand, 40),
            'io.openshift.build.commit.ref': '',
            'io.openshift.build.source-location': `https://github.com/openshift/${name}`,
            ...(name === 'hyperkube' ? { 'io.openshift.build.versions': 'kubernetes=1.29.5' } : {}),
          };
    return ocTag(name, pullspec, annotations);
  });
  const doc = ocImageStream(version, spec, { created: CREATED, fromImageStream: 'ocp/4.16-art-latest-2026-01-14-120000' });
  return { json: JSON.stringify(doc, null, 2), mosc };
}

/** A manifest of a few KiB, shaped like an operator's Deployment or a CRD. */
function manifestYaml(i, component, rand) {
  const lines = [
    i % 3 === 0 ? 'apiVersion: apiextensions.k8s.io/v1' : 'apiVersion: apps/v1',
    i % 3 === 0 ? 'kind: CustomResourceDefinition' : 'kind: Deployment',
    'metadata:',
    `  name: ${component}-${i}`,
    `  namespace: openshift-${component}`,
    '  annotations:',
    '    include.release.openshift.io/self-managed-high-availability: "true"',
    '    include.release.openshift.io/single-node-developer: "true"',
    `    kubernetes.io/description: ${component} manifest ${i}`,
    'spec:',
  ];
  const fields = 20 + Math.floor(rand() * 120);
  for (let f = 0; f < fields; f++) {
    lines.push(
      `  field${f}:`,
      `    description: ${component} setting ${f}, value ${hex(rand, 16)}; see the operator documentation.`,
      '    type: string',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The release-manifests layer: image-references, release-metadata and `manifests` manifests, built in memory. */
export async function releaseLayer({ version, tags = 110, manifests = 400 }) {
  const rand = prng(11);
  const refs = imageReferences(version, tags);
  const names = componentNames(tags);
  const entries = [
    { name: 'release-manifests', type: 'directory', mode: 0o777 },
    { name: 'release-manifests/image-references', data: refs.json, mode: 0o444 },
    {
      name: 'release-manifests/release-metadata',
      data: JSON.stringify({
        kind: 'cincinnati-metadata-v0',
        version,
        previous: ['4.15.30', '4.15.31', '4.16.0'],
        metadata: { url: 'https://access.redhat.com/errata/RHSA-2026:0001' },
      }),
      mode: 0o444,
    },
  ];
  for (let i = 0; i < manifests; i++) {
    const component = names[i % names.length];
    const name = `release-manifests/0000_${String(10 + (i % 80)).padStart(2, '0')}_${component}_${String(i).padStart(3, '0')}_manifest.yaml`;
    entries.push({ name, data: manifestYaml(i, component, rand), mode: 0o444 });
  }
  const layer = await buildLayer(entries);
  return {
    layer,
    mosc: refs.mosc,
    files: entries.length - 1,
    tarBytes: entries.reduce((n, e) => n + (e.data ? Buffer.byteLength(e.data) : 0), 0),
  };
}

/**
 * Build both images in `dir`: `standard` = two base layers + release-manifests on top; `deep` = the same
 * plus a `topMiB` layer above release-manifests. Big layers are files; small blobs stay in memory.
 */
export async function buildBenchImages(dir, { baseMiB, topMiB, version = '4.16.0-bench', onStep = () => undefined }) {
  const base1MiB = Math.max(1, Math.round((baseMiB * 5) / 8));
  const base2MiB = Math.max(1, baseMiB - base1MiB);
  onStep(`base layer 1 (${base1MiB} MiB)`);
  const base1 = await writeRandomLayer(join(dir, 'base1.tar.gz'), { bytes: base1MiB * MiB, seed: 1, root: 'usr/lib64/base1' });
  onStep(`base layer 2 (${base2MiB} MiB)`);
  const base2 = await writeRandomLayer(join(dir, 'base2.tar.gz'), { bytes: base2MiB * MiB, seed: 2, root: 'usr/share/base2' });
  onStep('release-manifests layer');
  const rel = await releaseLayer({ version });
  onStep(`top layer (${topMiB} MiB)`);
  const top = await writeRandomLayer(join(dir, 'top.tar.gz'), { bytes: topMiB * MiB, seed: 3, root: 'usr/lib/top' });

  const history = (n) => Array.from({ length: n }, (_, i) => ({ created: CREATED, created_by: `bench layer ${i}` }));
  const labels = { 'io.openshift.release': version };
  const standard = buildImage({ created: CREATED, labels, history: history(3), layers: [base1, base2, rel.layer] });
  const deep = buildImage({ created: CREATED, labels, history: history(4), layers: [base1, base2, rel.layer, top] });
  /** Where each blob's bytes are: a Buffer, or a file to stream. */
  const content = new Map();
  for (const l of [base1, base2, top]) content.set(l.descriptor.digest, { path: l.path });
  for (const b of [rel.layer, standard.config, deep.config]) content.set(b.descriptor.digest, { bytes: b.bytes });
  return {
    version,
    mosc: rel.mosc,
    releaseFiles: rel.files,
    sizes: { base1: base1.descriptor.size, base2: base2.descriptor.size, release: rel.layer.descriptor.size, top: top.descriptor.size },
    files: { base1: base1.files, base2: base2.files, top: top.files },
    images: {
      standard: { image: standard, releaseLayer: rel.layer.descriptor, mustRead: [rel.layer.descriptor] },
      deep: { image: deep, releaseLayer: rel.layer.descriptor, mustRead: [top.descriptor, rel.layer.descriptor] },
    },
    content,
    layerFiles: [base1.path, base2.path, top.path],
  };
}
