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
import { mkdir, writeFile } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import tarStream from 'tar-stream';
import { buildImage, buildLayer, tarBytes } from '../../../dist/release/build-layer.js';
import { sha256Digest } from '../../../dist/oci/digest.js';
import { ocImageStream, ocTag } from '../../../test/infra/image-stream.mjs';
import { MEDIA_TYPES } from '../../../dist/registry/types.js';
import { prng } from '../../../test/infra/prng.mjs';

const MiB = 1024 * 1024;
const EPOCH = new Date(0);
const PER_DIR = 200;
const CREATED = '2026-01-15T08:00:00Z';
const ART_REPO = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';

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

/** A manifest of a few KiB (`scale` times as many fields), shaped like an operator's Deployment or a CRD. */
function manifestYaml(i, component, rand, scale = 1) {
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
  const fields = Math.round((20 + Math.floor(rand() * 120)) * scale);
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
 * Build the bench's images in `dir`: `standard` = two base layers + release-manifests on top; `deep` = the same
 * plus a `topMiB` layer above release-manifests (skipped when `topMiB` is 0). With `payload`, also the
 * components of a full-size release payload on the same base layers (see buildPayload) for `release new
 * --from-release`. Big layers are files; small blobs stay in memory.
 */
export async function buildBenchImages(dir, { baseMiB, topMiB, version = '4.16.0-bench', payload, onStep = () => undefined }) {
  const base1MiB = Math.max(1, Math.round((baseMiB * 5) / 8));
  const base2MiB = Math.max(1, baseMiB - base1MiB);
  onStep(`base layer 1 (${base1MiB} MiB)`);
  const base1 = await writeRandomLayer(join(dir, 'base1.tar.gz'), { bytes: base1MiB * MiB, seed: 1, root: 'usr/lib64/base1' });
  onStep(`base layer 2 (${base2MiB} MiB)`);
  const base2 = await writeRandomLayer(join(dir, 'base2.tar.gz'), { bytes: base2MiB * MiB, seed: 2, root: 'usr/share/base2' });
  onStep('release-manifests layer');
  const rel = await releaseLayer({ version });
  let top;
  if (topMiB > 0) {
    onStep(`top layer (${topMiB} MiB)`);
    top = await writeRandomLayer(join(dir, 'top.tar.gz'), { bytes: topMiB * MiB, seed: 3, root: 'usr/lib/top' });
  }

  const history = (n) => Array.from({ length: n }, (_, i) => ({ created: CREATED, created_by: `bench layer ${i}` }));
  const labels = { 'io.openshift.release': version };
  const standard = buildImage({ created: CREATED, labels, history: history(3), layers: [base1, base2, rel.layer] });
  const deep = top && buildImage({ created: CREATED, labels, history: history(4), layers: [base1, base2, rel.layer, top] });
  /** Where each blob's bytes are: a Buffer, or a file to stream. */
  const content = new Map();
  for (const l of [base1, base2, top]) if (l) content.set(l.descriptor.digest, { path: l.path });
  for (const b of [rel.layer, standard.config, deep?.config]) if (b) content.set(b.descriptor.digest, { bytes: b.bytes });
  const images = { standard: { image: standard, releaseLayer: rel.layer.descriptor, mustRead: [rel.layer.descriptor] } };
  if (deep) images.deep = { image: deep, releaseLayer: rel.layer.descriptor, mustRead: [top.descriptor, rel.layer.descriptor] };
  const layerFiles = [base1.path, base2.path, ...(top ? [top.path] : [])];
  const built = payload ? await buildPayload(dir, { base1, base2, version, content, onStep, ...payload }) : undefined;
  if (built) layerFiles.push(...built.layerFiles);
  return {
    version,
    mosc: rel.mosc,
    releaseFiles: rel.files,
    sizes: {
      base1: base1.descriptor.size,
      base2: base2.descriptor.size,
      release: rel.layer.descriptor.size,
      top: top?.descriptor.size ?? 0,
    },
    files: { base1: base1.files, base2: base2.files, top: top?.files ?? 0 },
    images,
    payload: built,
    content,
    layerFiles,
  };
}

// ---------------------------------------------------------------- the full-size payload (release new --from-release)

const OPERATOR_LABEL = 'io.openshift.release.operator';
const BASE_DIGEST_LABEL = 'io.openshift.release.base-image-digest';
const VERSIONS_LABEL = 'io.openshift.build.versions';
const DISPLAY_LABEL = 'io.openshift.build.version-display-names';
const PLACEHOLDER = 'placeholder.url.oc.will.replace.this.org/placeholdernamespace';
export const OS_TAGS = ['machine-os-content', 'rhel-coreos', 'rhel-coreos-extensions'];
const CVO = 'cluster-version-operator';
const MCO = 'machine-config-operator';
const MANIFEST_TIME = new Date(CREATED);

/** Where an operator's manifests point before `release new` substitutes them (its own image-references' from.name). */
const sourceRef = (tag) => (OS_TAGS.includes(tag) ? `${PLACEHOLDER}:${tag}` : `quay.io/openshift/origin-${tag}:latest`);

/** Sorted keys, as Go's encoding/json writes a map. */
const sortedObject = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * The payload's components: `tags` names (componentNames), `operators` of them labelled as release operators
 * (the real names with "operator" in them, then extra components), the three OS tags, the CVO (the base image:
 * not an operator here, so no tool reads its layers) and the rest plain components. Each operator references
 * its own image and about two plain components; the machine-config-operator also references the OS tags, so
 * every tag survives oc's pruning.
 */
export function payloadPlan({ tags = 190, operators = 60, seed = 21 } = {}) {
  const rand = prng(seed);
  const names = componentNames(tags);
  const special = new Set([...OS_TAGS, CVO]);
  const real = names.filter((n) => /operator/.test(n) && !special.has(n) && !n.startsWith('extra-'));
  const extra = names.filter((n) => n.startsWith('extra-'));
  const ops = [...real, ...extra].slice(0, operators).sort();
  if (!ops.includes(MCO)) throw new Error('payloadPlan: the machine-config-operator must be one of the operators');
  const opSet = new Set(ops);
  const plain = names.filter((n) => !opSet.has(n) && !special.has(n));
  const refs = Object.fromEntries(ops.map((op) => [op, [op]]));
  for (const [i, n] of plain.entries()) refs[ops[i % ops.length]].push(n);
  refs[MCO].push(...OS_TAGS);
  const labels = {};
  for (const name of names) {
    const l = {
      'io.openshift.build.commit.id': OS_TAGS.includes(name) ? '' : hex(rand, 40),
      'io.openshift.build.commit.ref': '',
      'io.openshift.build.source-location': OS_TAGS.includes(name) ? '' : `https://github.com/openshift/${name}`,
    };
    if (opSet.has(name)) l[OPERATOR_LABEL] = 'true';
    if (name === 'hyperkube') l[VERSIONS_LABEL] = 'kubernetes=1.29.5';
    labels[name] = l;
  }
  return { names, operators: ops, plain, refs, labels };
}

/** The OS images' labels for one RHCOS build. */
function osLabels(build) {
  return {
    'io.openshift.build.commit.id': '',
    'io.openshift.build.commit.ref': '',
    'io.openshift.build.source-location': '',
    [DISPLAY_LABEL]: 'machine-os=Red Hat Enterprise Linux CoreOS',
    [VERSIONS_LABEL]: `machine-os=${build}`,
  };
}

/** One operator's /manifests: `count` YAML files of a few KiB plus image-references, as the operator's repo ships them. */
function operatorManifests(op, refTags, count, rand, scale = 1) {
  const files = [];
  for (let i = 0; i < count; i++) {
    // Most files carry the 0000_NN_ prefix; one does not, so oc names it 0000_50_<operator>_<file>.
    const base =
      i === 0
        ? 'operator-config.yaml'
        : `0000_${String(10 + ((op.length * 7 + i) % 80)).padStart(2, '0')}_${op}_${String(i).padStart(2, '0')}_manifest.yaml`;
    let body = manifestYaml(i + 1, op, rand, scale); // i + 1: file 0 is a Deployment, not a CRD
    if (i === 0) {
      body = [
        'apiVersion: config.openshift.io/v1',
        'kind: ClusterOperator',
        'metadata:',
        `  name: ${op}`,
        'status:',
        '  versions:',
        '  - name: operator',
        '    version: "0.0.1-snapshot"',
        '',
      ].join('\n');
    } else if (i === 1) {
      const containers = refTags
        .filter((t) => !OS_TAGS.includes(t))
        .flatMap((t) => [`      - name: ${t}`, `        image: ${sourceRef(t)}`]);
      body = `${body}  template:\n    spec:\n      containers:\n${containers.join('\n')}\n`;
    }
    files.push({ name: base, data: body });
  }
  if (op === MCO) {
    files.push({
      name: '0000_80_machine-config-operator_05_osimageurl.yaml',
      data: [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: machine-config-osimageurl',
        '  namespace: openshift-machine-config-operator',
        'data:',
        '  releaseVersion: 0.0.1-snapshot',
        `  baseOSContainerImage: "${sourceRef('rhel-coreos')}"`,
        `  baseOSExtensionsContainerImage: "${sourceRef('rhel-coreos-extensions')}"`,
        `  osImageURL: "${sourceRef('machine-os-content')}"`,
        '',
      ].join('\n'),
    });
  }
  files.sort((a, b) => (a.name < b.name ? -1 : 1));
  const is = ocImageStream(
    op,
    refTags.map((t) => ocTag(t, sourceRef(t), {})),
    { created: CREATED, fromImageStream: '' },
  );
  return {
    files,
    imageReferences: JSON.stringify(
      { kind: is.kind, apiVersion: is.apiVersion, spec: { tags: is.spec.tags.map((t) => ({ name: t.name, from: t.from })) } },
      null,
      2,
    ),
  };
}

/** An operator image's top layer: /manifests (the files, then image-references) and a random "binary". */
async function writeOperatorLayer(path, { op, manifests, binaryBytes, seed }) {
  const data = keystream(seed);
  let bin = Buffer.alloc(0);
  if (binaryBytes > 0) {
    const parts = [];
    for (let left = binaryBytes; left > 0; left -= MiB) parts.push(data(Math.min(left, MiB)));
    bin = Buffer.concat(parts);
  }
  const entries = [
    { name: 'manifests', type: 'directory', mtime: MANIFEST_TIME },
    ...manifests.files.map((f) => ({ name: `manifests/${f.name}`, data: f.data, mtime: MANIFEST_TIME })),
    { name: 'manifests/image-references', data: manifests.imageReferences, mtime: MANIFEST_TIME },
    { name: 'usr', type: 'directory' },
    { name: 'usr/bin', type: 'directory' },
    { name: `usr/bin/${op}`, data: bin, mode: 0o755 },
  ];
  const tar = await tarBytes(entries);
  const gz = gzipSync(tar, { level: 0 }); // random data: stored blocks, as writeRandomLayer writes
  await writeFile(path, gz);
  return {
    path,
    diffId: sha256Digest(tar),
    descriptor: { mediaType: MEDIA_TYPES.ociLayerGzip, digest: sha256Digest(gz), size: gz.length },
  };
}

/** A tiny layer of its own for a non-operator component (or an OS image: no tool reads those). */
async function smallLayer(name, bytes, seed) {
  const data = keystream(seed);
  return buildLayer([{ name: `usr/bin/${name}`, data: data(bytes), mode: 0o755, mtime: MANIFEST_TIME }]);
}

/**
 * What `oc adm release new` writes under release-manifests/ for `pullspecs` (tag → pullspec) and `labels`
 * (tag → the image's config labels): image-references (tags sorted, annotations from the labels as oc copies
 * them), release-metadata, then every operator's manifests (operators sorted by tag, files by name), with
 * source references and 0.0.1-snapshot substituted and oc's 0000_50_<operator>_ naming.
 */
export function payloadManifests({ version, plan, manifests, pullspecs, labels, overrides = [], annotations = {}, created = CREATED }) {
  const tags = Object.keys(pullspecs)
    .sort()
    .map((name) => {
      const l = labels[name] ?? {};
      const a = {
        'io.openshift.build.commit.id': l['io.openshift.build.commit.id'] ?? '',
        'io.openshift.build.commit.ref': l['io.openshift.build.commit.ref'] ?? '',
        'io.openshift.build.source-location': l['io.openshift.build.source-location'] ?? '',
      };
      if (l[VERSIONS_LABEL]) {
        a[VERSIONS_LABEL] = l[VERSIONS_LABEL];
        a[DISPLAY_LABEL] = l[DISPLAY_LABEL] ?? '';
      }
      if (overrides.includes(name)) a['io.openshift.release.override'] = 'true';
      return ocTag(name, pullspecs[name], sortedObject(a));
    });
  const is = ocImageStream(version, tags, { created, fromImageStream: 'ocp/4.16-art-latest-2026-01-14-120000' });
  is.metadata.annotations = sortedObject({ ...is.metadata.annotations, ...annotations });
  const files = [
    { name: 'image-references', data: JSON.stringify(is, null, 2) },
    {
      name: 'release-metadata',
      data: JSON.stringify(
        {
          kind: 'cincinnati-metadata-v0',
          version,
          previous: ['4.15.30', '4.15.31', '4.16.0'],
          metadata: { url: 'https://access.redhat.com/errata/RHSA-2026:0001' },
        },
        null,
        2,
      ),
    },
  ];
  const release = version.replace(/\+.*$/, '');
  for (const op of plan.operators) {
    // oc's image mapper (image_mapper.go patternImageFormat): a source reference after a non-word character or
    // the start, with an optional :tag or @digest, before whitespace, a quote or the end.
    const bySource = new Map(plan.refs[op].map((t) => [sourceRef(t), pullspecs[t]]));
    const alternatives = [...bySource.keys()].map((k) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
    const re = new RegExp(
      `(^|[^\\w])(${alternatives})(:[\\w][\\w.-]{0,127}|@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{2,})?(?=[\\s"']|$)`,
      'g',
    );
    for (const f of manifests[op].files) {
      let data = f.data.replace(re, (_m, pre, src) => `${pre}${bySource.get(src)}`);
      data = data.replace(/(^|[^\w])0\.0\.1-snapshot(?![a-z0-9-])/g, (_m, pre) => `${pre}${release}`);
      files.push({ name: f.name.startsWith('0000_') ? f.name : `0000_50_${op}_${f.name}`, data });
    }
  }
  return files;
}

/**
 * The full-size payload's component images, sharing the bench's base layers by blob: every component is
 * `base1` + one layer of its own; operators' own layer holds /manifests and a random `operatorMiB` binary;
 * the CVO is `base1` + `base2` (the base the release is built on); the OS images (and their replacements,
 * one new RHCOS build) have a small layer nobody reads. Returns the images, their labels, the manifests, and
 * `release(registry, repo)`, which builds the release image (CVO + release-manifests) for components pushed
 * to `registry/repo`. Blobs' bytes (or files) go into `content` (digest → {bytes} or {path}), the bench's one map.
 */
async function buildPayload(
  dir,
  // The defaults give the shape of an OCP 4.16 payload: 196 tags, 60 operators, ~840 manifests in a ~2 MB gzip layer.
  { base1, base2, version, operatorMiB = 6, tags = 196, operators = 60, manifestsPerOperator = 14, manifestScale = 2.1, content, onStep },
) {
  const plan = payloadPlan({ tags, operators });
  const rand = prng(31);
  const manifests = Object.fromEntries(
    plan.operators.map((op) => [op, operatorManifests(op, plan.refs[op], manifestsPerOperator, rand, manifestScale)]),
  );
  const layerFiles = [];
  const images = {};
  const labels = { ...plan.labels };
  const history = (n) => Array.from({ length: n }, (_, i) => ({ created: CREATED, created_by: `bench layer ${i}` }));
  onStep(
    `${plan.operators.length} operator images (${operatorMiB} MiB binary each), ${plan.names.length - plan.operators.length} other components`,
  );
  let seed = 1000;
  for (const name of plan.names) {
    seed++;
    let layers;
    if (name === CVO) {
      layers = [base1, base2];
    } else if (plan.operators.includes(name)) {
      const top = await writeOperatorLayer(join(dir, `op-${name}.tar.gz`), {
        op: name,
        manifests: manifests[name],
        binaryBytes: operatorMiB * MiB,
        seed,
      });
      content.set(top.descriptor.digest, { path: top.path });
      layerFiles.push(top.path);
      layers = [base1, top];
    } else {
      const own = await smallLayer(name, OS_TAGS.includes(name) ? 64 * 1024 : 4096 + (seed % 8) * 1024, seed);
      content.set(own.descriptor.digest, { bytes: own.bytes });
      layers = [base1, own];
    }
    if (OS_TAGS.includes(name)) labels[name] = osLabels('416.94.202601141512-0');
    const image = buildImage({ created: CREATED, labels: labels[name], history: history(layers.length), layers });
    content.set(image.config.descriptor.digest, { bytes: image.config.bytes });
    images[name] = image;
  }
  // The new RHCOS build to swap in: one image per OS tag.
  const nextBuild = '416.94.202601200815-0';
  const next = {};
  for (const name of OS_TAGS) {
    const own = await smallLayer(`${name}-next`, 64 * 1024, ++seed);
    content.set(own.descriptor.digest, { bytes: own.bytes });
    const l = osLabels(nextBuild);
    const image = buildImage({ created: CREATED, labels: l, history: history(2), layers: [base1, own] });
    content.set(image.config.descriptor.digest, { bytes: image.config.bytes });
    next[name] = { image, labels: l };
  }

  /**
   * The release image for components at `host/repo` (digests): CVO + release-manifests, labelled as oc labels it.
   * `v` names another version and `swapOs` points the OS tags at the next build (an older or newer release to compare).
   */
  async function release(host, repo, { version: v = version, swapOs = false } = {}) {
    const pullspecs = Object.fromEntries(plan.names.map((n) => [n, `${host}/${repo}@${images[n].descriptor.digest}`]));
    const tagLabels = { ...labels };
    if (swapOs)
      for (const t of OS_TAGS) {
        pullspecs[t] = `${host}/${repo}@${next[t].image.descriptor.digest}`;
        tagLabels[t] = next[t].labels;
      }
    const files = payloadManifests({ version: v, plan, manifests, pullspecs, labels: tagLabels });
    const entries = [
      { name: 'release-manifests', type: 'directory', mode: 0o777, mtime: MANIFEST_TIME },
      ...files.map((f) => ({ name: `release-manifests/${f.name}`, data: f.data, mode: 0o444, mtime: MANIFEST_TIME })),
    ];
    const layer = await buildLayer(entries);
    const image = buildImage({
      created: CREATED,
      labels: { 'io.openshift.release': v, [BASE_DIGEST_LABEL]: images[CVO].descriptor.digest },
      history: [{ created: CREATED, comment: 'Release image for OpenShift' }],
      layers: [base1, base2, layer],
    });
    content.set(layer.descriptor.digest, { bytes: layer.bytes });
    content.set(image.config.descriptor.digest, { bytes: image.config.bytes });
    return {
      image,
      layer,
      pullspecs,
      files,
      tarBytes: files.reduce((n, f) => n + Buffer.byteLength(f.data), 0),
      version: v,
      base: images[CVO],
      // The same release as a `release new --from-dir` input, its components at `h/repo` (swapOs aside).
      writeFromDir: (dir, h) => writeFromDir(dir, h, repo, { version: v }),
    };
  }

  /**
   * A `release new --from-dir` input for components at `host/repo`, shaped like the payload's release-manifests/:
   * image-references (every tag, annotated as the release's own), release-metadata, and the operators' manifests,
   * each operator's in a folder of its own with its image-references (the shape --from-dir reads). Returns the
   * files the tools should write for it (`payloadManifests`, version `v`).
   */
  async function writeFromDir(dir, host, repo, { version: v = version } = {}) {
    const pullspecs = Object.fromEntries(plan.names.map((n) => [n, `${host}/${repo}@${images[n].descriptor.digest}`]));
    const files = payloadManifests({ version: v, plan, manifests, pullspecs, labels });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'image-references'), files[0].data);
    await writeFile(join(dir, 'release-metadata'), files[1].data);
    for (const op of plan.operators) {
      await mkdir(join(dir, op));
      await writeFile(join(dir, op, 'image-references'), manifests[op].imageReferences);
      for (const f of manifests[op].files) await writeFile(join(dir, op, f.name), f.data);
    }
    return files;
  }

  const operatorLayerBytes = plan.operators.reduce((n, op) => n + images[op].layers[1].descriptor.size, 0);
  return {
    writeFromDir,
    plan,
    manifests,
    labels,
    images,
    next,
    nextBuild,
    content,
    layerFiles,
    release,
    sizes: {
      tags: plan.names.length,
      operators: plan.operators.length,
      manifestsPerOperator,
      operatorMiB,
      operatorLayerBytes,
      manifestFiles: plan.operators.reduce((n, op) => n + manifests[op].files.length, 0),
    },
  };
}
