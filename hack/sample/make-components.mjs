#!/usr/bin/env node
// Builds hack/sample/components.oci-archive, a release with its component images for the offline demo of
// `release new --from-release` (the OS swap), and the channel rhcos-4.16 of the sample release browser
// (hack/sample/releases/rhcos-4.16) whose two builds publish the OS images inside the archive.
//
// The archive holds, by digest, every image the release names: the cluster-version-operator (the release's base),
// the machine-config-operator and the cluster-dns-operator (operator images with /manifests), cli and coredns
// (plain images), and the OS images (rhel-coreos, rhel-coreos-extensions) of both builds; the release 4.16.3
// ships the older build. The release is made the way releases are made: a seed that holds only image-references
// and release-metadata is rebuilt in full by `osimage release new --from-release SEED --full-rebuild`.
//
// Deterministic: the same bytes on every run. Needs `npm run build` first (it uses the compiled builder and CLI).
// Usage: node hack/sample/make-components.mjs [OUT_DIR]   (default hack/sample; writes OUT_DIR/components.oci-archive
// and OUT_DIR/releases/rhcos-4.16/)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extract as tarExtract } from 'tar-stream';
import { buildImage, buildLayer } from '../../dist/release/build-layer.js';
import { writeOciArchive, writeOciLayout } from '../../dist/registry/oci-write.js';
import { ocImageStream, ocTag } from '../../test/infra/image-stream.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const outDir = resolve(process.argv[2] ?? here);
const bin = fileURLToPath(new URL('../../bin/osimage', import.meta.url));

const VERSION = '4.16.3';
const CHANNEL = 'rhcos-4.16';
const ART = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
const PLACEHOLDER = 'placeholder.url.oc.will.replace.this.org/placeholdernamespace';
const CREATED = '2024-07-10T09:00:00Z';
const RELEASE_CREATED = '2024-07-16T12:14:51Z';
/** The two builds: the release ships the older, the swap takes the newer. */
const BUILDS = [
  { id: '416.94.202406251923-0', created: '2024-06-25T19:23:00Z', kernel: '5.14.0-427.22.1.el9_4' },
  { id: '416.94.202407081958-0', created: '2024-07-08T19:58:00Z', kernel: '5.14.0-427.24.1.el9_4' },
];
const OPERATOR = { 'io.openshift.release.operator': 'true' };
const source = (repo, commit) => ({
  'io.openshift.build.commit.id': commit.repeat(40 / commit.length),
  'io.openshift.build.source-location': `https://github.com/openshift/${repo}`,
});
/** Fake but stable hex of a name (disk images and AMIs the sample browser lists but nobody downloads). */
const hex = (s, n = 64) => createHash('sha256').update(s).digest('hex').slice(0, n);

async function image(layers, labels, created = CREATED) {
  const built = [];
  for (const entries of layers) built.push(await buildLayer(entries));
  return buildImage({ created, labels, layers: built });
}

const base = [
  { name: 'etc', type: 'directory' },
  { name: 'etc/os-release', data: 'NAME="Red Hat Enterprise Linux"\nVERSION_ID="9.4"\nID="rhel"\n' },
  { name: 'etc/redhat-release', data: 'Red Hat Enterprise Linux release 9.4 (Plow)\n' },
  { name: 'usr', type: 'directory' },
  { name: 'usr/bin', type: 'directory' },
];
const bin1 = (name) => ({ name: `usr/bin/${name}`, data: `#!/bin/sh\necho ${name} sample\n`, mode: 0o755 });
const manifestsDir = { name: 'manifests', type: 'directory' };
/** An operator's image-references (YAML, as operator repos write it): every tag a placeholder oc substitutes. */
const imageReferences = (tags) =>
  `kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags:\n${tags
    .map(([name, from]) => `  - name: ${name}\n    from:\n      kind: DockerImage\n      name: ${from}\n`)
    .join('')}`;
const deployment = (name, namespace, containers) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\nspec:\n  template:\n    spec:\n      containers:\n${containers
    .map(([c, img]) => `      - name: ${c}\n        image: ${img}\n`)
    .join('')}`;

// The component images, by the tag the release gives them.
const components = {};
components['cluster-version-operator'] = await image(
  [
    base,
    [
      bin1('cluster-version-operator'),
      manifestsDir,
      {
        name: 'manifests/0000_00_cluster-version-operator_03_deployment.yaml',
        data: deployment('cluster-version-operator', 'openshift-cluster-version', [
          ['cluster-version-operator', 'quay.io/openshift/origin-cluster-version-operator:latest'],
          ['cli', 'quay.io/openshift/origin-cli:latest'],
        ]),
      },
      {
        name: 'manifests/image-references',
        data: imageReferences([
          ['cluster-version-operator', 'quay.io/openshift/origin-cluster-version-operator:latest'],
          ['cli', 'quay.io/openshift/origin-cli:latest'],
        ]),
      },
    ],
  ],
  { ...OPERATOR, ...source('cluster-version-operator', 'c') },
);
components['machine-config-operator'] = await image(
  [
    base,
    [
      bin1('machine-config-operator'),
      manifestsDir,
      {
        name: 'manifests/0000_80_machine-config-operator_04_deployment.yaml',
        data: deployment('machine-config-operator', 'openshift-machine-config-operator', [
          ['machine-config-operator', `${PLACEHOLDER}:machine-config-operator`],
        ]),
      },
      {
        // The 4.16 MCO's osimageurl ConfigMap: the layered OS image and its extensions, no machine-os-content.
        name: 'manifests/0000_80_machine-config-operator_05_osimageurl.yaml',
        data: `apiVersion: v1
kind: ConfigMap
metadata:
  name: machine-config-osimageurl
  namespace: openshift-machine-config-operator
  annotations:
    include.release.openshift.io/ibm-cloud-managed: "true"
    include.release.openshift.io/self-managed-high-availability: "true"
    include.release.openshift.io/single-node-developer: "true"
data:
  releaseVersion: 0.0.1-snapshot
  baseOSContainerImage: "${PLACEHOLDER}:rhel-coreos"
  baseOSExtensionsContainerImage: "${PLACEHOLDER}:rhel-coreos-extensions"
  osImageURL: ""
`,
      },
      {
        name: 'manifests/image-references',
        data: imageReferences(
          ['machine-config-operator', 'coredns', 'rhel-coreos', 'rhel-coreos-extensions'].map((t) => [t, `${PLACEHOLDER}:${t}`]),
        ),
      },
    ],
  ],
  { ...OPERATOR, ...source('machine-config-operator', 'd') },
);
components['cluster-dns-operator'] = await image(
  [
    base,
    [
      bin1('dns-operator'),
      manifestsDir,
      {
        name: 'manifests/0000_70_dns-operator_02-deployment.yaml',
        data: deployment('dns-operator', 'openshift-dns-operator', [
          ['dns-operator', 'quay.io/openshift/origin-cluster-dns-operator:latest'],
          ['coredns', 'quay.io/openshift/origin-coredns:latest'],
        ]),
      },
      {
        name: 'manifests/image-references',
        data: imageReferences([
          ['cluster-dns-operator', 'quay.io/openshift/origin-cluster-dns-operator:latest'],
          ['coredns', 'quay.io/openshift/origin-coredns:latest'],
        ]),
      },
    ],
  ],
  { ...OPERATOR, ...source('cluster-dns-operator', 'e') },
);
components.cli = await image([base, [bin1('oc'), { name: 'usr/bin/kubectl', type: 'symlink', linkname: 'oc' }]], {
  ...source('oc', 'f'),
  'io.openshift.build.versions': 'kubectl=1.29.6',
});
components.coredns = await image([base, [bin1('coredns')]], source('coredns', '0'));

// The OS images of both builds (a layer each, not an OS): rhel-coreos carries machine-os=<build>, the extensions
// image no versions (as ART's carry none).
const osImages = BUILDS.map((b) => ({
  build: b,
  os: image(
    [
      [
        { name: 'usr', type: 'directory' },
        { name: 'usr/lib', type: 'directory' },
        { name: 'usr/lib/os-release', data: `NAME="Red Hat Enterprise Linux CoreOS"\nVERSION="${b.id}"\nID="rhcos"\n` },
      ],
    ],
    {
      'io.openshift.build.version-display-names': 'machine-os=Red Hat Enterprise Linux CoreOS',
      'io.openshift.build.versions': `machine-os=${b.id}`,
      'ostree.bootable': 'true',
      'ostree.linux': `${b.kernel}.x86_64`,
      version: b.id,
    },
    b.created,
  ),
  extensions: image(
    [
      [
        { name: 'usr', type: 'directory' },
        { name: 'usr/share', type: 'directory' },
        { name: 'usr/share/rpm-ostree', type: 'directory' },
        { name: 'usr/share/rpm-ostree/extensions.json', data: `{"kernel-rt-core":"${b.kernel.replace('.el9', '.rt14.el9')}"}\n` },
      ],
    ],
    { version: b.id },
    b.created,
  ),
}));
for (const o of osImages) {
  o.os = await o.os;
  o.extensions = await o.extensions;
}
const pullspec = (img) => `${ART}@${img.descriptor.digest}`;
const shipped = osImages[0];

// The seed: image-references (every tag, by digest, with the build's labels oc would copy) and release-metadata,
// on the CVO's layers; the full rebuild reads every image and fills in the rest.
const refs = ocImageStream(
  VERSION,
  Object.entries({ ...components, 'rhel-coreos': shipped.os, 'rhel-coreos-extensions': shipped.extensions })
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([tag, img]) => ocTag(tag, pullspec(img), {})),
  { created: RELEASE_CREATED, fromImageStream: 'ocp/4.16-art-latest-2024-07-16-105031' },
);
const metadata = {
  kind: 'cincinnati-metadata-v0',
  version: VERSION,
  previous: ['4.15.18', '4.15.19', '4.16.0', '4.16.1', '4.16.2'],
  metadata: { url: 'https://access.redhat.com/errata/RHSA-2024:4469' },
};
const cvo = components['cluster-version-operator'];
const seedLayer = await buildLayer([
  { name: 'release-manifests', type: 'directory', mode: 0o777 },
  { name: 'release-manifests/image-references', data: JSON.stringify(refs, null, 2), mode: 0o444 },
  { name: 'release-manifests/release-metadata', data: JSON.stringify(metadata), mode: 0o444 },
]);
const seed = buildImage({
  created: RELEASE_CREATED,
  labels: { 'io.openshift.release': VERSION, 'io.openshift.release.base-image-digest': cvo.descriptor.digest },
  layers: [...cvo.layers, seedLayer], // the CVO's layers keep their diffIds (built by buildLayer)
});

const entry = (img, tag) => ({ top: img, blobs: img.blobs, tag });
const all = [
  ...Object.entries(components).map(([tag, img]) => entry(img, tag)),
  ...osImages.flatMap((o) => [entry(o.os, `rhel-coreos-${o.build.id}`), entry(o.extensions, `rhel-coreos-extensions-${o.build.id}`)]),
];

const tmp = await mkdtemp(join(tmpdir(), 'osimage-components-'));
try {
  await writeOciLayout(join(tmp, 'seed'), [entry(seed, VERSION), ...all]);
  try {
    execFileSync(
      process.execPath,
      [
        bin,
        'release',
        'new',
        '--no-cache',
        '--from-release',
        `oci:seed:${VERSION}`, // relative: the release records it (release.openshift.io/from-release)
        '--full-rebuild',
        '--name',
        VERSION,
        '--created',
        RELEASE_CREATED,
        '--to-file',
        'release.tar',
      ],
      { cwd: tmp, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
  } catch (err) {
    process.stderr.write(err.stderr ?? '');
    throw err;
  }
  const release = await readArchive(join(tmp, 'release.tar'));
  await writeOciArchive(join(outDir, 'components.oci-archive'), [release, ...all]);
  console.log(`wrote ${join(outDir, 'components.oci-archive')} (release ${VERSION}: ${release.top.descriptor.digest})`);
} finally {
  await rm(tmp, { recursive: true, force: true });
}

// The release browser: channel rhcos-4.16 (legacy layout: CHANNEL/builds.json, CHANNEL/BUILD/ARCH/meta.json).
const channel = join(outDir, 'releases', CHANNEL);
for (const o of osImages) {
  const id = o.build.id;
  const disk = (platform, file, size) => ({
    path: `rhcos-${id}-${platform}.x86_64.${file}`,
    sha256: hex(`${id} ${platform}`),
    size,
  });
  const container = (img, suffix) => ({
    image: ART,
    digest: img.descriptor.digest,
    tags: [`4.16-9.4-${suffix}`, `${id}-${suffix}`],
  });
  const meta = {
    buildid: id,
    name: 'rhcos',
    'coreos-assembler.basearch': 'x86_64',
    'coreos-assembler.build-timestamp': o.build.created,
    'ostree-commit': hex(`${id} ostree`),
    'ostree-timestamp': o.build.created,
    'ostree-version': id,
    images: {
      metal: disk('metal', 'raw.gz', 1134567890),
      qemu: disk('qemu', 'qcow2.gz', 1187654321),
      'live-iso': disk('live', 'iso', 1212153856),
    },
    amis: [{ name: 'us-east-1', hvm: `ami-${hex(`${id} ami`, 17)}`, snapshot: `snap-${hex(`${id} snap`, 17)}` }],
    'base-oscontainer': container(o.os, 'coreos'),
    'extensions-container': container(o.extensions, 'coreos-extensions'),
    extensions: { manifest: { 'kernel-rt-core': `${o.build.kernel.replace('.el9', '.rt14.el9')}.x86_64` } },
  };
  await mkdir(join(channel, id, 'x86_64'), { recursive: true });
  await writeFile(join(channel, id, 'x86_64', 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
}
const builds = {
  'schema-version': '1.0.0',
  builds: [...BUILDS].reverse().map((b) => ({ id: b.id, arches: ['x86_64'] })),
  timestamp: '2024-07-08T21:00:00Z',
};
await writeFile(join(channel, 'builds.json'), `${JSON.stringify(builds, null, 2)}\n`);
console.log(`wrote ${channel} (${BUILDS.map((b) => b.id).join(', ')})`);

/** The image of a one-image oci-archive, as a layout entry (top manifest, its blobs, its tag). */
async function readArchive(file) {
  const files = new Map();
  const ex = tarExtract();
  const done = new Promise((res, rej) => {
    ex.on('entry', (h, stream, next) => {
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      stream.on('end', () => {
        files.set(h.name.replace(/^\.\//, ''), Buffer.concat(chunks));
        next();
      });
    });
    ex.on('finish', res);
    ex.on('error', rej);
  });
  ex.end(await readFile(file));
  await done;
  const [desc] = JSON.parse(files.get('index.json').toString()).manifests;
  const blob = (d) => ({ descriptor: d, bytes: files.get(`blobs/sha256/${d.digest.slice('sha256:'.length)}`) });
  const manifest = JSON.parse(blob(desc).bytes.toString());
  const { annotations, ...top } = desc;
  return {
    top: blob(top),
    blobs: [manifest.config, ...manifest.layers].map(blob),
    tag: annotations['org.opencontainers.image.ref.name'],
  };
}
