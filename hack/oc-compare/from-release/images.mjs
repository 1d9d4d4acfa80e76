/**
 * The component images of the `release new --from-release` oracle, built deterministically (fixed bytes, fixed
 * times) and stored by record.mjs as test/fixtures/oc/from-release/images.json, so the test pushes the very same
 * bytes (and digests) on every run without building anything. All Docker schema 2, in repository ocp/art-dev
 * (tagged with their name), except base-other (ocp/base:other).
 *
 *   cluster-version-operator  operator; layers: os base, CVO binary, manifests (0000_ names, 0.0.1-snapshot,
 *                             a placeholder pull spec); commit labels incl. a commit ref
 *   machine-config-operator   operator; manifests over TWO layers: the lower one has a namespace manifest and
 *                             obsolete.yaml, the top one image-references, the deployment, osimageurl.yaml (no 0000_
 *                             prefix; 0.0.1-snapshot and 0.0.1-snapshot-machine-os) and a whiteout of obsolete.yaml;
 *                             references machine-config-operator, rhel-coreos, rhel-coreos-extensions
 *   console-operator          operator WITHOUT commit labels; 01-namespace.yaml (no 0000_), a deployment naming
 *                             console and cli, README.md (not YAML), a manifests/extra/ subfolder; references
 *                             console-operator, console, cli
 *   console-operator-v2       its replacement whose image-references no longer names console
 *   insights-operator         operator with no image-references; 02_config.yaml and 0000_50_insights-operator_02_config.yaml
 *                             (a name collision once prefixed), 0.0.1-snapshot left as is (no image-references)
 *   cli, console, tests       not operators; tests is referenced by nobody
 *   rhel-coreos               OS image with io.openshift.build.versions=machine-os=… and the display-names label
 *   rhel-coreos-extensions    OS image without either label
 *   rhel-coreos-new           replacement with the versions label (a newer machine-os)
 *   rhel-coreos-nolabel       replacement without it
 *   base-other                a one-layer image for --to-image-base (and the wrong base-image-digest label)
 */
import { dockerImage, layerBlob } from './lib.mjs';

const T = (s) => new Date(s);
const CREATED = '2023-05-24T13:41:35Z';

const commit = (repo, id, ref = '') => ({
  'io.openshift.build.commit.id': id,
  'io.openshift.build.commit.ref': ref,
  'io.openshift.build.source-location': `https://github.com/openshift/${repo}`,
});
const OPERATOR = { 'io.openshift.release.operator': 'true' };
const os = (version) => ({
  'io.openshift.build.version-display-names': 'machine-os=Red Hat Enterprise Linux CoreOS',
  'io.openshift.build.versions': `machine-os=${version}`,
});

const PH = 'placeholder.url.oc.will.replace.this.org/placeholdernamespace';

const imageRefs = (tags) =>
  `${JSON.stringify(
    {
      kind: 'ImageStream',
      apiVersion: 'image.openshift.io/v1',
      spec: { tags: tags.map(([name, from]) => ({ name, from: { kind: 'DockerImage', name: from } })) },
    },
    null,
    2,
  )}\n`;

const dir = (name, mtime) => ({ name, type: 'directory', mtime });
const file = (name, data, mtime, mode = 0o644) => ({ name, data, mtime, mode });

const namespace = (name) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;

async function baseLayer() {
  const m = T('2023-05-01T00:00:00Z');
  return layerBlob([
    dir('etc/', m),
    file('etc/os-release', 'NAME="Red Hat Enterprise Linux"\nVERSION_ID="9.2"\n', m),
    dir('usr/', m),
    dir('usr/bin/', m),
  ]);
}

function cvoManifests() {
  const m = T('2023-05-20T10:00:00Z');
  return [
    dir('manifests/', m),
    file('manifests/0000_00_cluster-version-operator_01_namespace.yaml', namespace('openshift-cluster-version'), m),
    file(
      'manifests/0000_00_cluster-version-operator_03_deployment.yaml',
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  name: cluster-version-operator',
        '  namespace: openshift-cluster-version',
        '  annotations:',
        '    release.openshift.io/version: 0.0.1-snapshot',
        'spec:',
        '  template:',
        '    spec:',
        '      containers:',
        '      - name: cluster-version-operator',
        `        image: '${PH}:cluster-version-operator'`,
        '        args: ["--release-image=0.0.1-snapshot"]',
        '',
      ].join('\n'),
      T('2023-05-20T10:00:01Z'),
    ),
    file('manifests/image-references', imageRefs([['cluster-version-operator', `${PH}:cluster-version-operator`]]), m),
  ];
}

function mcoLower() {
  const m = T('2023-05-21T09:00:00Z');
  return [
    dir('manifests/', m),
    file('manifests/0000_80_machine-config-operator_00_namespace.yaml', namespace('openshift-machine-config-operator'), m),
    file('manifests/obsolete.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: obsolete\n', m),
  ];
}

function mcoTop() {
  const m = T('2023-05-22T09:30:00Z');
  return [
    dir('manifests/', m),
    file('manifests/.wh.obsolete.yaml', '', m),
    file(
      'manifests/0000_80_machine-config-operator_04_deployment.yaml',
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  name: machine-config-operator',
        '  namespace: openshift-machine-config-operator',
        '  annotations:',
        '    release.openshift.io/version: 0.0.1-snapshot',
        'spec:',
        '  template:',
        '    spec:',
        '      containers:',
        '      - name: machine-config-operator',
        '        image: quay.io/openshift/origin-machine-config-operator:latest',
        '',
      ].join('\n'),
      m,
    ),
    file(
      'manifests/image-references',
      imageRefs([
        ['machine-config-operator', 'quay.io/openshift/origin-machine-config-operator'],
        ['rhel-coreos', `${PH}:rhel-coreos`],
        ['rhel-coreos-extensions', `${PH}:rhel-coreos-extensions`],
      ]),
      m,
    ),
    file(
      'manifests/osimageurl.yaml',
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: machine-config-osimageurl',
        '  namespace: openshift-machine-config-operator',
        'data:',
        '  releaseVersion: 0.0.1-snapshot',
        `  baseOSContainerImage: "${PH}:rhel-coreos"`,
        `  baseOSExtensionsContainerImage: "${PH}:rhel-coreos-extensions"`,
        '  osImageURL: ""',
        '  displayVersion: 0.0.1-snapshot-machine-os',
        '',
      ].join('\n'),
      T('2023-05-22T09:30:05Z'),
    ),
  ];
}

function consoleOperatorManifests(v2) {
  const m = T(v2 ? '2023-06-01T12:00:00Z' : '2023-05-19T08:00:00Z');
  const containers = v2
    ? ['      - name: console-operator', '        image: quay.io/openshift/origin-console-operator:latest']
    : [
        '      - name: console-operator',
        '        image: quay.io/openshift/origin-console-operator:latest',
        '        env:',
        '        - name: CONSOLE_IMAGE',
        '          value: quay.io/openshift/origin-console:latest',
        '        - name: CLI_IMAGE',
        `          value: "${PH}:cli"`,
      ];
  const refs = [
    ['cli', `${PH}:cli`],
    ...(v2 ? [] : [['console', 'quay.io/openshift/origin-console']]),
    ['console-operator', 'quay.io/openshift/origin-console-operator'],
  ];
  return [
    dir('manifests/', m),
    file('manifests/01-namespace.yaml', namespace('openshift-console-operator'), m),
    file(
      'manifests/0000_50_console-operator_05_deployment.yaml',
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  name: console-operator',
        '  namespace: openshift-console-operator',
        'spec:',
        '  template:',
        '    spec:',
        '      containers:',
        ...containers,
        '',
      ].join('\n'),
      m,
    ),
    file('manifests/README.md', `The console operator's manifests${v2 ? ' (v2)' : ''}.\n`, m),
    dir('manifests/extra/', m),
    file('manifests/extra/ignored.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: in-a-subfolder\n', m),
    file('manifests/image-references', imageRefs(refs), m),
  ];
}

function insightsManifests() {
  const m = T('2023-05-18T07:00:00Z');
  const config = (name) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: openshift-insights\n  annotations:\n    release.openshift.io/version: 0.0.1-snapshot\n`;
  return [
    dir('manifests/', m),
    file('manifests/02_config.yaml', config('insights-config'), m),
    file('manifests/0000_50_insights-operator_02_config.yaml', config('insights-config-global'), m),
  ];
}

/** The layer of an image that is only a binary (non-operators). */
const binLayer = (path, content, mtime) =>
  layerBlob([dir('usr/', T(mtime)), dir('usr/bin/', T(mtime)), file(`usr/bin/${path}`, content, T(mtime), 0o755)]);

/** Build every component image: `[{name, repo, tag, manifest, config, layers}]`. */
export async function buildImages() {
  const base = await baseLayer();
  const out = [];
  const add = (name, layers, labels, repo = 'ocp/art-dev', tag = name) =>
    out.push({ name, repo, tag, ...dockerImage({ layers, labels, created: CREATED }) });

  add(
    'cluster-version-operator',
    [await binLayer('cluster-version-operator', '#!/bin/sh\necho cvo\n', '2023-05-20T09:00:00Z'), base, await layerBlob(cvoManifests())],
    { ...OPERATOR, ...commit('cluster-version-operator', '1'.repeat(40), 'release-4.13'), 'io.openshift.build.name': 'cvo' },
  );
  add('machine-config-operator', [base, await layerBlob(mcoLower()), await layerBlob(mcoTop())], {
    ...OPERATOR,
    ...commit('machine-config-operator', '2'.repeat(40)),
  });
  add('console-operator', [base, await layerBlob(consoleOperatorManifests(false))], { ...OPERATOR });
  add('console-operator-v2', [base, await layerBlob(consoleOperatorManifests(true))], { ...OPERATOR });
  add('insights-operator', [base, await layerBlob(insightsManifests())], {
    ...OPERATOR,
    ...commit('insights-operator', '3'.repeat(40)),
  });
  add('cli', [base, await binLayer('oc', '#!/bin/sh\necho oc\n', '2023-05-17T00:00:00Z')], commit('oc', '4'.repeat(40)));
  add('console', [base, await binLayer('console', '#!/bin/sh\necho console\n', '2023-05-17T00:00:00Z')], commit('console', '5'.repeat(40)));
  add(
    'tests',
    [base, await binLayer('openshift-tests', '#!/bin/sh\necho tests\n', '2023-05-17T00:00:00Z')],
    commit('origin', '6'.repeat(40)),
  );
  add(
    'rhel-coreos',
    [base, await binLayer('rpm-ostree', 'rhcos 413.92.202305231734-0\n', '2023-05-23T17:34:00Z')],
    os('413.92.202305231734-0'),
  );
  add(
    'rhel-coreos-extensions',
    [base, await binLayer('extensions', 'extensions 413.92.202305231734-0\n', '2023-05-23T17:34:00Z')],
    undefined,
  );
  add(
    'rhel-coreos-new',
    [base, await binLayer('rpm-ostree', 'rhcos 413.92.202306070210-0\n', '2023-06-07T02:10:00Z')],
    os('413.92.202306070210-0'),
  );
  add('rhel-coreos-nolabel', [base, await binLayer('rpm-ostree', 'rhcos unlabelled\n', '2023-06-07T02:10:00Z')], {
    'io.openshift.build.commit.id': '',
  });
  add(
    'base-other',
    [await binLayer('other', '#!/bin/sh\necho other base\n', '2023-05-02T00:00:00Z')],
    { 'io.openshift.build.name': 'other' },
    'ocp/base',
    'other',
  );
  return out;
}
