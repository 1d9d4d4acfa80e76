/**
 * A small but whole release in a real registry, for `release new --from-release`: a CVO image (the base, with
 * its manifests), a machine-config-operator image whose manifests name the OS tags of a generation, another
 * operator, plain images, OS images with and without version labels, and an RHCOS release browser on disk whose
 * builds name OS images pushed beside them. The release itself is made the way releases are made: a seed
 * release that holds only image-references is rebuilt in full (every operator image read) by osimage.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildLayer, buildImage, type BuiltImage, type LayerEntry } from '../../src/release/build-layer.js';
import { osimage } from './cli.js';
import { baseEntries, pushBuilt } from './oci-builder.js';

export type Generation = 'legacy' | 'mixed' | 'layered' | 'two-stream';

export const OS_TAGS: Record<Generation, string[]> = {
  legacy: ['machine-os-content'],
  mixed: ['machine-os-content', 'rhel-coreos-8', 'rhel-coreos-8-extensions'],
  layered: ['rhel-coreos', 'rhel-coreos-extensions'],
  'two-stream': ['rhel-coreos', 'rhel-coreos-extensions', 'rhel-coreos-10', 'rhel-coreos-10-extensions'],
};

export const VERSION_OF: Record<Generation, string> = {
  legacy: '4.11.0',
  mixed: '4.13.0',
  layered: '4.16.0',
  'two-stream': '4.21.0',
};

const PLACEHOLDER = 'placeholder.url.oc.will.replace.this.org/placeholdernamespace';
const CREATED = '2024-01-02T03:04:05Z';
const OPERATOR = { 'io.openshift.release.operator': 'true' };

const yaml = (s: string) => `${s.trim()}\n`;

function imageStream(tags: Array<[string, string]>): string {
  return JSON.stringify({
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    spec: { tags: tags.map(([name, from]) => ({ name, from: { kind: 'DockerImage', name: from } })) },
  });
}

async function img(layers: LayerEntry[][], labels: Record<string, string>): Promise<BuiltImage> {
  const built = [];
  for (const entries of layers) built.push(await buildLayer(entries));
  return buildImage({ created: CREATED, layers: built, labels });
}

/** The ConfigMap keys and image-references tags the MCO of each generation declares. */
function mcoManifests(gen: Generation): LayerEntry[] {
  const osTags = OS_TAGS[gen];
  const keys: string[] = [];
  if (osTags.includes('machine-os-content')) keys.push(`  osImageURL: "${PLACEHOLDER}:machine-os-content"`);
  else keys.push('  osImageURL: ""');
  const base = osTags.find((t) => t === 'rhel-coreos' || t === 'rhel-coreos-8');
  if (base) {
    keys.push(`  baseOSContainerImage: "${PLACEHOLDER}:${base}"`);
    keys.push(`  baseOSExtensionsContainerImage: "${PLACEHOLDER}:${base}-extensions"`);
  }
  // Only where one tag of the default stream carries machine-os (oc refuses two claims of one component).
  const snapshot = gen === 'legacy' || gen === 'layered' ? '    machine-os: 0.0.1-snapshot-machine-os\n' : '';
  return [
    { name: 'manifests', type: 'directory' },
    {
      name: 'manifests/0000_80_machine-config-operator_05_osimageurl.yaml',
      data: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: machine-config-osimageurl\n  namespace: openshift-machine-config-operator\n  annotations:\n${snapshot}    release.openshift.io/version: 0.0.1-snapshot\ndata:\n  releaseVersion: 0.0.1-snapshot\n${keys.join('\n')}\n`,
    },
    {
      name: 'manifests/0000_80_machine-config-operator_04_deployment.yaml',
      data: yaml(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: machine-config-operator
  namespace: openshift-machine-config-operator
spec:
  template:
    spec:
      containers:
      - name: machine-config-operator
        image: quay.io/openshift/origin-machine-config-operator:latest
`),
    },
    {
      name: 'manifests/image-references',
      data: imageStream([
        ['machine-config-operator', 'quay.io/openshift/origin-machine-config-operator:latest'],
        ...osTags.map((t): [string, string] => [t, `${PLACEHOLDER}:${t}`]),
      ]),
    },
  ];
}

export interface ComponentRelease {
  /** `host/ocp/release:VERSION` */
  release: string;
  version: string;
  /** Pullspecs by tag, as the release names them. */
  pullspecs: Record<string, string>;
  /** A release browser folder (file:// base URL) with channel `rhcos-test`: builds `old` and `new`. */
  browser: string;
  builds: { old: string; new: string };
  /** The new build's OS images: tag → pullspec (by the generation's pairing). */
  newImages: Record<string, string>;
  /** An OS image without any version label (for oc-style mappings). */
  unlabelled: string;
}

/** Build and push the release of `gen` into `host` and a release browser into `dir`. */
export async function pushComponentRelease(
  host: string,
  dir: string,
  gen: Generation,
  opts: { repo?: string } = {},
): Promise<ComponentRelease> {
  const repo = opts.repo ?? `ocp-${gen}`;
  const version = VERSION_OF[gen];
  const base1 = baseEntries();
  const base2: LayerEntry[] = [{ name: 'usr/share/doc/base', data: 'second base layer' }];
  const pushed: Record<string, string> = {};
  const push = async (tag: string, image: BuiltImage, into = `${repo}/c`) => {
    const digest = await pushBuilt(`${host}/${into}:${tag}`, image);
    const pullspec = `${host}/${into}@${digest}`;
    return pullspec;
  };

  const cvo = await img(
    [
      base1,
      base2,
      [
        { name: 'manifests', type: 'directory' },
        {
          name: 'manifests/0000_00_cluster-version-operator_03_deployment.yaml',
          data: yaml(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: cluster-version-operator
  namespace: openshift-cluster-version
  annotations:
    release.openshift.io/version: 0.0.1-snapshot
spec:
  template:
    spec:
      containers:
      - name: cluster-version-operator
        image: quay.io/openshift/origin-cluster-version-operator:latest
      - name: cli
        image: quay.io/openshift/origin-cli:latest
`),
        },
        {
          name: 'manifests/image-references',
          data: imageStream([
            ['cluster-version-operator', 'quay.io/openshift/origin-cluster-version-operator:latest'],
            ['cli', 'quay.io/openshift/origin-cli:latest'],
          ]),
        },
      ],
    ],
    {
      ...OPERATOR,
      'io.openshift.build.commit.id': 'c'.repeat(40),
      'io.openshift.build.source-location': 'https://github.com/openshift/cluster-version-operator',
    },
  );
  pushed['cluster-version-operator'] = await push('cvo', cvo);
  pushed['machine-config-operator'] = await push(
    'mco',
    await img([base1, mcoManifests(gen)], { ...OPERATOR, 'io.openshift.build.commit.id': 'd'.repeat(40) }),
  );
  pushed['cluster-foo-operator'] = await push(
    'foo',
    await img(
      [
        base1,
        [
          {
            name: 'manifests/deploy.yaml',
            data: yaml(
              'apiVersion: v1\nkind: Pod\nmetadata:\n  name: foo\nspec:\n  containers:\n  - image: quay.io/openshift/origin-tests:latest',
            ),
          },
          { name: 'manifests/nested/ignored.yaml', data: 'kind: Ignored\n' },
          { name: 'manifests/image-references', data: imageStream([['tests', 'quay.io/openshift/origin-tests:latest']]) },
        ],
      ],
      OPERATOR,
    ),
  );
  pushed.cli = await push(
    'cli',
    await img([base1, [{ name: 'usr/bin/oc', data: 'oc' }]], { 'io.openshift.build.versions': 'kubectl=1.29.1' }),
  );
  pushed.tests = await push('tests', await img([base1, [{ name: 'usr/bin/tests', data: 'tests' }]], {}));

  // OS images of two builds; the extensions images carry no versions, as ART's do not.
  const builds =
    gen === 'two-stream'
      ? { old: '421.96.202601010000-0', new: '421.96.202602020000-0' }
      : { old: `4${version.split('.')[1]}.94.202401010000-0`, new: `4${version.split('.')[1]}.94.202402020000-0` };
  const containers: Record<'old' | 'new', Record<string, string>> = { old: {}, new: {} };
  for (const which of ['old', 'new'] as const) {
    const id = builds[which];
    for (const key of ['oscontainer', 'base-oscontainer', 'extensions-container']) {
      const labels: Record<string, string> =
        key === 'extensions-container' ? {} : { 'io.openshift.build.versions': `machine-os=${id}`, version: id };
      const image = await img([[{ name: `etc/${key}`, data: `${key} ${id}` }]], labels);
      containers[which][key] = await push(`${key}-${which}`, image, `${repo}/os`);
    }
  }
  const pairing: Record<string, string> = {
    'machine-os-content': 'oscontainer',
    'rhel-coreos-8': 'base-oscontainer',
    'rhel-coreos': 'base-oscontainer',
    'rhel-coreos-10': 'base-oscontainer',
    'rhel-coreos-8-extensions': 'extensions-container',
    'rhel-coreos-extensions': 'extensions-container',
    'rhel-coreos-10-extensions': 'extensions-container',
  };
  const newImages: Record<string, string> = {};
  for (const t of OS_TAGS[gen]) {
    pushed[t] = containers.old[pairing[t]!]!;
    newImages[t] = containers.new[pairing[t]!]!;
  }
  const unlabelled = await push('unlabelled', await img([[{ name: 'etc/unlabelled', data: 'no labels' }]], {}), `${repo}/os`);

  // The release browser: channel rhcos-test with both builds.
  const browser = join(dir, `browser-${gen}`);
  for (const which of ['old', 'new'] as const) {
    const id = builds[which];
    const meta: Record<string, unknown> = { buildid: id, 'coreos-assembler.basearch': 'x86_64' };
    for (const [key, pullspec] of Object.entries(containers[which])) {
      const [image, digest] = pullspec.split('@');
      meta[key] = { image, digest };
    }
    await mkdir(join(browser, 'rhcos-test', id, 'x86_64'), { recursive: true });
    await writeFile(join(browser, 'rhcos-test', id, 'x86_64', 'meta.json'), JSON.stringify(meta));
  }
  await writeFile(
    join(browser, 'rhcos-test', 'builds.json'),
    JSON.stringify({
      'schema-version': '1.0.0',
      builds: [
        { id: builds.new, arches: ['x86_64'] },
        { id: builds.old, arches: ['x86_64'] },
      ],
    }),
  );

  // The seed: image-references and release-metadata only, on the CVO's layers, then rebuilt in full.
  const tags = Object.entries(pushed)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, pullspec]) => ({
      name,
      annotations: {},
      from: { kind: 'DockerImage', name: pullspec },
      generation: null,
      importPolicy: {},
      referencePolicy: { type: '' },
    }));
  const seedRefs = JSON.stringify(
    {
      kind: 'ImageStream',
      apiVersion: 'image.openshift.io/v1',
      metadata: { name: version, creationTimestamp: CREATED, annotations: { 'release.openshift.io/from-image-stream': 'ocp/test' } },
      spec: { lookupPolicy: { local: false }, tags },
      status: { dockerImageRepository: '' },
    },
    null,
    2,
  );
  const seedMeta = JSON.stringify({
    kind: 'cincinnati-metadata-v0',
    version,
    previous: ['4.0.0'],
    metadata: { url: 'https://example.com/errata' },
  });
  const cvoDigest = pushed['cluster-version-operator']!.split('@')[1]!;
  const seed = await img(
    [
      base1,
      base2,
      [
        { name: 'release-manifests', type: 'directory', mode: 0o777 },
        { name: 'release-manifests/image-references', data: seedRefs, mode: 0o444 },
        { name: 'release-manifests/release-metadata', data: seedMeta, mode: 0o444 },
      ],
    ],
    { 'io.openshift.release': version, 'io.openshift.release.base-image-digest': cvoDigest },
  );
  const seedRef = `${host}/${repo}/release:seed`;
  await pushBuilt(seedRef, seed);
  const release = `${host}/${repo}/release:${version}`;
  const r = await osimage([
    'release',
    'new',
    '--insecure',
    '--no-cache',
    '--from-release',
    seedRef,
    '--full-rebuild',
    '--name',
    version,
    '--to-image',
    release,
  ]);
  if (r.exitCode !== 0) throw new Error(`building the ${gen} release failed: ${r.stderr}`);
  return { release, version, pullspecs: pushed, browser, builds, newImages, unlabelled };
}
