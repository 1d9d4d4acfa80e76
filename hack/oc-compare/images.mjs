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
 *   4.13.2         an update of 4.13.1 for the comparisons (`info --changes-from`): images changed, rebuilt, moved
 *                  and added, manifests changed, removed and added, created two weeks later
 * Repository `ocp/base:cvo`: a one-layer base image for `release new --to-image-base`.
 *
 * For `release extract --command/--tools/--credentials-requests/--git` (the extractflag- pairs): component images
 * with made-up binaries (text around oc's version and release-image markers) in `ocp/<component>:tools`, fixed like
 * the rest; and the releases that point at them (`buildRunSet`), built for each run because their image-references
 * name the registry at hand (and, for --git, the folder of the run's git repositories), so their digests vary.
 */
import { buildLayer, jsonBlob } from '../../dist/release/build-layer.js';
import { ocImageStream, ocTag } from '../../test/infra/image-stream.mjs';

export const CREATED = '2023-05-25T08:25:20Z';
export const ART = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
export const DOCKER = {
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

export const os = (version) => ({
  'io.openshift.build.commit.id': '',
  'io.openshift.build.commit.ref': '',
  'io.openshift.build.source-location': '',
  'io.openshift.build.version-display-names': 'machine-os=Red Hat Enterprise Linux CoreOS',
  'io.openshift.build.versions': `machine-os=${version}`,
});

export const imageStream = (name, tags) =>
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

const RHCOS_4132 = '413.92.202306070210-0';
const ART_MIRROR = 'quay.io/openshift-release-dev/ocp-v4.0-art-mirror';
export const CREATED_4132 = '2023-06-07T10:00:00Z';

/**
 * 4.13.2, against 4.13.1: cli rebuilt from the same commit, cluster-version-operator from a new one,
 * machine-config-operator moved to another repository with the same digest, new RHCOS images (no commit),
 * installer added from a repository that is not on GitHub.
 */
export const RELEASE_4132 = imageStream('4.13.2', [
  ocTag('cli', art('c1'), source('oc', 'a'.repeat(40), 'kubectl=1.26.1')),
  ocTag('cluster-version-operator', art('c2'), source('cluster-version-operator', 'd'.repeat(40))),
  ocTag('installer', art('c3'), {
    'io.openshift.build.commit.id': 'e'.repeat(40),
    'io.openshift.build.commit.ref': '',
    'io.openshift.build.source-location': 'https://gitlab.example.com/openshift/installer',
  }),
  ocTag('machine-config-operator', `${ART_MIRROR}@sha256:${'4'.repeat(64)}`, source('machine-config-operator', 'c'.repeat(40))),
  ocTag('rhel-coreos', art('c5'), os(RHCOS_4132)),
  ocTag('rhel-coreos-extensions', art('c6'), os(RHCOS_4132)),
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

export const metadata = (version, previous, url) => ({
  kind: 'cincinnati-metadata-v0',
  version,
  previous,
  metadata: { url },
});

const file = (name, data, mode = 0o644) => ({ name: `release-manifests/${name}`, data, mode, mtime: new Date(CREATED) });

const namespace = (name) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;

/**
 * The release layer's entries: release-manifests/ with image-references, release-metadata and manifests;
 * `manifests` edits the list of manifest files (name, data, mode) of the other releases.
 */
export function releaseEntries(is, meta, manifests = (m) => m, created = CREATED) {
  const entries = [
    { name: 'release-manifests', type: 'directory', mode: 0o755, mtime: new Date(CREATED) },
    file('image-references', JSON.stringify(is, null, 2)),
  ];
  if (meta) entries.push(file('release-metadata', JSON.stringify(meta)));
  const files = manifests([
    ['0000_00_cluster-version-operator_01_namespace.yaml', namespace('openshift-cluster-version')],
    ['0000_80_machine-config-operator_00_namespace.yaml', namespace('openshift-machine-config-operator')],
    ['0000_90_cluster-monitoring_01_rules.json', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"rules"}}\n'],
    ['0000_50_private.yaml', namespace('private'), 0o600],
  ]);
  entries.push(...files.map(([name, data, mode]) => ({ ...file(name, data, mode), mtime: new Date(created) })));
  return entries;
}

export const BASE_ENTRIES = [
  { name: 'usr', type: 'directory', mtime: new Date(CREATED) },
  { name: 'usr/bin', type: 'directory', mtime: new Date(CREATED) },
  { name: 'usr/bin/cluster-version-operator', data: '#!/bin/sh\necho cvo\n', mode: 0o755, mtime: new Date(CREATED) },
];

function blob(value, mediaType) {
  return jsonBlob(value, mediaType);
}

/** A single-platform image: config and manifest in the given media types (DOCKER or OCI). */
export function image({ layers, arch = 'amd64', labels, types, history, created = CREATED }) {
  const config = blob(
    {
      architecture: arch,
      config: { Labels: labels, Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'] },
      created,
      history: history ?? layers.map((_, i) => ({ created, created_by: `layer ${i}` })),
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

export function list(images, mediaType) {
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
  // 4.13.2's manifests against 4.13.1's: one changed, one removed, one added, one empty file added.
  const r4132 = await buildLayer(
    releaseEntries(
      RELEASE_4132,
      metadata('4.13.2', ['4.12.17', '4.13.0', '4.13.1'], 'https://access.redhat.com/errata/RHBA-2023:3367'),
      (m) => [
        ...m
          .filter(([name]) => name !== '0000_90_cluster-monitoring_01_rules.json')
          .map(([name, data, mode]) =>
            name.startsWith('0000_80_machine-config-operator')
              ? [name, `${data}  labels:\n    openshift.io/run-level: ""\n`, mode]
              : [name, data, mode],
          ),
        ['0000_50_installer_coreos-bootimages.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coreos-bootimages\n'],
        ['0000_99_empty.yaml', ''],
      ],
      CREATED_4132,
    ),
  );
  const labels = (v) => ({ 'io.openshift.release': v });

  const amd = image({ layers: [base, r413], labels: labels('4.13.1'), types: DOCKER });
  const arm = image({ layers: [base, r413], arch: 'arm64', labels: labels('4.13.1'), types: DOCKER });
  const ociAmd = image({ layers: [base, r413], labels: labels('4.13.1'), types: OCI });
  const ociArm = image({ layers: [base, r413], arch: 'arm64', labels: labels('4.13.1'), types: OCI });
  const old = image({ layers: [base, r2019], labels: labels('4.1.0'), types: DOCKER });
  const custom = image({ layers: [base, rCustom], labels: labels('custom-build'), types: DOCKER });
  const lower = image({ layers: [r413, base], labels: labels('4.13.1'), types: DOCKER });
  const cvo = image({ layers: [base], labels: { 'io.openshift.build.name': 'cvo' }, types: DOCKER });
  const next = image({ layers: [base, r4132], labels: labels('4.13.2'), types: DOCKER, created: CREATED_4132 });

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
    single('ocp/release', '4.13.2', next),
  ];
  entries.push(...(await componentEntries(base)));
  const digests = Object.fromEntries(entries.map((e) => [`${e.repo}:${e.tag}`, e.manifest.descriptor.digest]));
  return { entries, digests };
}

// ---- release extract --command / --tools / --credentials-requests / --git --------------------------------

/** oc's placeholders in the binaries it patches: a NUL, the name, a NUL, the room (X…) and a closing NUL. */
export const VERSION_MARKER = `\0_RELEASE_VERSION_LOCATION_\0${'X'.repeat(64)}\0`;
export const IMAGE_MARKER = `\0_RELEASE_IMAGE_LOCATION_\0${'X'.repeat(300)}\0`;
/** The time in the tar headers of the binaries, unlike CREATED so that a copied time shows. */
export const BINARY_TIME = '2023-05-24T13:41:35Z';

/** A made-up binary: lines of text around the markers it carries. */
const binary = (what, markers) => `#!/bin/sh\n# ${what}\n${markers.join('\n')}\necho ${what}\n`;
const bin = (name, what, markers, mode = 0o755) => ({ name, data: binary(what, markers), mode, mtime: new Date(BINARY_TIME) });
const dirs = (...names) => names.map((name) => ({ name, type: 'directory', mtime: new Date(CREATED) }));

/** Component name -> its layer entries (beside the shared base layer). */
const COMPONENTS = {
  cli: [
    ...dirs('usr', 'usr/bin'),
    bin('usr/bin/oc', 'oc linux release-arch', [VERSION_MARKER]),
    { name: 'usr/bin/kubectl', type: 'symlink', linkname: 'oc', mtime: new Date(BINARY_TIME) },
  ],
  'cli-artifacts': [
    ...dirs('usr', 'usr/share', 'usr/share/openshift'),
    ...['mac', 'mac_arm64', 'linux_amd64', 'linux_arm64', 'windows'].flatMap((d) => [
      ...dirs(`usr/share/openshift/${d}`),
      // The mac one lacks the marker: oc warns that it could not patch it.
      bin(`usr/share/openshift/${d}/${d === 'windows' ? 'oc.exe' : 'oc'}`, `oc ${d}`, d === 'mac' ? [] : [VERSION_MARKER]),
    ]),
  ],
  installer: [...dirs('usr', 'usr/bin'), bin('usr/bin/openshift-install', 'openshift-install linux', [IMAGE_MARKER, VERSION_MARKER])],
  'installer-artifacts': [
    ...dirs('usr', 'usr/share', 'usr/share/openshift'),
    ...['mac', 'mac_arm64', 'linux_amd64', 'linux_arm64'].flatMap((d) => [
      ...dirs(`usr/share/openshift/${d}`),
      bin(`usr/share/openshift/${d}/openshift-install`, `openshift-install ${d}`, [VERSION_MARKER, IMAGE_MARKER]),
    ]),
  ],
  // Only the image marker: oc warns that the release version could not be set.
  'baremetal-installer': [...dirs('usr', 'usr/bin'), bin('usr/bin/openshift-install', 'openshift-baremetal-install', [IMAGE_MARKER])],
  'cloud-credential-operator': [...dirs('usr', 'usr/bin'), bin('usr/bin/ccoctl', 'ccoctl', [], 0o700)],
};

/** The cli image's lower layer holds an older oc: the top layer's copy is the one taken. */
const STALE_OC = [...dirs('usr', 'usr/bin'), bin('usr/bin/oc', 'stale oc', [VERSION_MARKER])];

async function componentEntries(base) {
  const out = [];
  for (const [name, layerEntries] of Object.entries(COMPONENTS)) {
    const layers =
      name === 'cli' ? [base, await buildLayer(STALE_OC), await buildLayer(layerEntries)] : [base, await buildLayer(layerEntries)];
    const img = image({ layers, labels: { 'io.openshift.build.name': name }, types: DOCKER });
    out.push({ repo: `ocp/${name}`, tag: 'tools', manifest: img.manifest, blobs: img.blobs });
  }
  return out;
}

/** CredentialsRequest manifests (and manifests that are not) for --credentials-requests. */
const CREDENTIALS_FILES = {
  '0000_30_cloud-credential-operator_01-aws.yaml': `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: openshift-image-registry
  namespace: openshift-cloud-credential-operator
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
    capability.openshift.io/name: ImageRegistry
spec:
  serviceAccountNames:
  - cluster-image-registry-operator
  - registry
  secretRef:
    name: installer-cloud-credentials
    namespace: openshift-image-registry
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    statementEntries:
    - effect: Allow
      action:
      - s3:CreateBucket
      - s3:DeleteBucket
      resource: "*"
      policyCondition:
        StringEquals:
          aws:RequestedRegion: [us-east-1, "us-west-2"]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: not-a-credentials-request
  namespace: openshift-cloud-credential-operator
data:
  key: value
---
apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: openshift-image-registry-gcs
  namespace: openshift-cloud-credential-operator
spec:
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: GCPProviderSpec
    predefinedRoles:
    - roles/storage.admin
    - roles/iam.serviceAccountUser
    skipServiceCheck: true
  secretRef: {name: installer-cloud-credentials, namespace: openshift-image-registry}
  serviceAccountNames: []
`,
  '0000_50_cluster-ingress-operator_00-ingress-credentials-request.yaml': `---
apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: openshift-ingress-azure
  namespace: openshift-cloud-credential-operator
  labels:
    controller-tools.k8s.io: "1.0"
spec:
  secretRef:
    name: cloud-credentials
    namespace: openshift-ingress-operator
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AzureProviderSpec
    roleBindings:
    - role: DNS Zone Contributor
    permissions:
    - Microsoft.Network/dnsZones/A/delete
    - Microsoft.Network/dnsZones/A/write
    description: The ingress operator manages DNS records in the cluster's public and private zones, and needs these permissions for it.
    notes: |
      first line
      second line: with a colon
    empty: ""
    quoted: 'yes'
    number: 0.5
    count: 3
    Zeta: 1
    _private: true
    a10: ten
    a9: nine
    A1: upper
`,
  '0000_50_ibm_credentials.json':
    '{"apiVersion":"cloudcredential.openshift.io/v1","kind":"CredentialsRequest","metadata":{"name":"ibm-cloud","namespace":"openshift-cloud-credential-operator"},"spec":{"providerSpec":{"apiVersion":"cloudcredential.openshift.io/v1","kind":"IBMCloudProviderSpec","policies":[{"roles":["crn:v1:bluemix:public:iam::::serviceRole:Manager"],"attributes":[{"name":"serviceName","value":"cloud-object-storage"}]}]},"secretRef":{"name":"ibm","namespace":"openshift-image-registry"}}}\n',
  '0000_60_vsphere.yml': `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: vsphere-csi
  namespace: openshift-cloud-credential-operator
spec:
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: VSphereProviderSpec
  secretRef:
    name: vsphere-csi-creds
    namespace: openshift-cluster-csi-drivers
`,
  '0000_70_no-credentials.yaml': namespace('no-credentials'),
  'README.md': 'not a manifest\n',
};

/** A component's tag in a release of the run set: the image on `host`, with source annotations. */
const componentTag = (host, digests, name, annotations) => ocTag(name, `${host}/ocp/${name}@${digests[`ocp/${name}:tools`]}`, annotations);

const NO_SOURCE = { 'io.openshift.build.commit.id': '', 'io.openshift.build.commit.ref': '', 'io.openshift.build.source-location': '' };
const at = (location, commit) => ({
  'io.openshift.build.commit.id': commit,
  'io.openshift.build.commit.ref': '',
  'io.openshift.build.source-location': location,
});

/**
 * The releases of one run, which name `host` (and `git.dir`, the run's git repositories, hack/oc-compare/git-repos.mjs)
 * in their image-references. `digests` are buildSet's. Tags, in repository `ocp/release` on `host`:
 *   tools          4.13.1 with every component of oc's table, and CredentialsRequest manifests
 *   tools-partial  4.13.1 without cli-artifacts, installer-artifacts and cloud-credential-operator
 *   tools-multi    a manifest list of tools for linux/amd64 and linux/arm64
 *   tools-mirror   tools whose components are named on {{CLOSED}} (nothing listens): only an --icsp-file finds them
 *   git            sources: cli and cli-artifacts at one commit of oc.git, installer at another, rhel-coreos none
 *   git-no-repo    cli from a repository that does not exist
 *   git-no-commit  cli at a commit oc.git does not have
 */
export async function buildRunSet(host, closed, digests, git) {
  const all = ['cli', 'cli-artifacts', 'installer', 'installer-artifacts', 'baremetal-installer', 'cloud-credential-operator'];
  const partial = ['cli', 'installer', 'baremetal-installer'];
  const tags = (h, names) => names.map((n) => componentTag(h, digests, n, NO_SOURCE));
  const rhcos = ocTag('rhel-coreos', art('5'), os(RHCOS_413));
  const stream = (t) =>
    imageStream(
      '4.13.1',
      [...t].sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
  const meta = metadata('4.13.1', ['4.12.16', '4.13.0'], 'https://access.redhat.com/errata/RHSA-2023:3304');
  const withFiles = async (is, files = {}) =>
    buildLayer([...releaseEntries(is, meta), ...Object.entries(files).map(([name, data]) => file(name, data))]);
  const base = await buildLayer(BASE_ENTRIES);
  const labels = { 'io.openshift.release': '4.13.1' };
  const one = (layer, arch = 'amd64') => image({ layers: [base, layer], arch, labels, types: DOCKER });

  const tools = await withFiles(stream([...tags(host, all), rhcos]), CREDENTIALS_FILES);
  const toolsAmd = one(tools);
  const toolsArm = one(tools, 'arm64');
  const oc = `file://${git.dir}/oc.git`;
  const gitTags = [
    componentTag(host, digests, 'cli', at(oc, git.commits[1])),
    componentTag(host, digests, 'cli-artifacts', at(oc, git.commits[1])),
    componentTag(host, digests, 'installer', at(oc, git.commits[0])),
    rhcos,
  ];
  const releases = {
    tools: toolsAmd,
    'tools-partial': one(await withFiles(stream([...tags(host, partial), rhcos]))),
    'tools-mirror': one(await withFiles(stream([...tags(closed, all), rhcos]))),
    git: one(await withFiles(stream(gitTags))),
    'git-no-repo': one(await withFiles(stream([componentTag(host, digests, 'cli', at(`file://${git.dir}/missing.git`, git.commits[1]))]))),
    'git-no-commit': one(await withFiles(stream([componentTag(host, digests, 'cli', at(oc, 'f'.repeat(40)))]))),
  };
  const entries = Object.entries(releases).map(([t, img]) => ({ repo: 'ocp/release', tag: t, manifest: img.manifest, blobs: img.blobs }));
  entries.push({
    repo: 'ocp/release',
    tag: 'tools-multi',
    manifest: list([toolsAmd, toolsArm], DOCKER.list),
    blobs: [],
    children: [toolsAmd, toolsArm].map((i) => ({ manifest: i.manifest, blobs: i.blobs })),
  });
  return { entries, digests: Object.fromEntries(entries.map((e) => [`${e.repo}:${e.tag}`, e.manifest.descriptor.digest])) };
}

/**
 * Push the set to `host` (127.0.0.1:PORT, plain HTTP or HTTPS unverified); `registryConfig`: an auth file for a
 * registry that asks for credentials.
 */
export async function pushSet(host, set, { registryConfig } = {}) {
  const { openPushTarget } = await import('../../dist/registry/push.js');
  const { closeDispatchers } = await import('../../dist/http/dispatcher.js');
  try {
    for (const e of set.entries) {
      const dest = await openPushTarget(`${host}/${e.repo}:${e.tag}`, { insecure: true, ...(registryConfig ? { registryConfig } : {}) });
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
