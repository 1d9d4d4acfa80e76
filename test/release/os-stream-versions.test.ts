/**
 * Two OS streams in one release: the default stream's OS tags (`rhel-coreos`,
 * `rhel-coreos-extensions`) carry `machine-os=418.94…`, stream rhel-10's (`rhel-coreos-10`,
 * `rhel-coreos-10-extensions`) `machine-os=10.2…`. `release new` accepts one machine-os version per stream
 * (in-process to an oci-archive, and to the real registry), `release info` shows both in text and JSON without a
 * warning, `release diff` reports each stream; within one stream the versions must still agree.
 * Also (item 9): a manifest holding `{{.ReleaseImage}}` gives no `(node:PID) Warning:` on stderr.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { osimage, osimageBin } from '../helpers/cli.js';
import { tempDir, type Temp } from '../helpers/oci-builder.js';
import { useRegistry } from '../helpers/registry.js';

const RHEL9 = '418.94.202605101521-0';
const RHEL10 = '10.2.20260217-0';
const RHEL10_NEXT = '10.2.20260301-0';
const RHCOS = 'Red Hat Enterprise Linux CoreOS';
const ART = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:';
const PLACEHOLDER = 'placeholder.url.oc.will.replace.this.org/placeholdernamespace';
const digest = (c: string) => `${ART}${c.repeat(64)}`;

interface Versions {
  'rhel-coreos': string;
  'rhel-coreos-extensions': string;
  'rhel-coreos-10': string;
  'rhel-coreos-10-extensions': string;
}
const DUAL: Versions = {
  'rhel-coreos': RHEL9,
  'rhel-coreos-extensions': RHEL9,
  'rhel-coreos-10': RHEL10,
  'rhel-coreos-10-extensions': RHEL10,
};

/** An ImageStream in YAML, as operators and release input streams write it: [tag, pullspec, annotations]. */
function imageStreamYaml(tags: Array<[string, string, Record<string, string>?]>): string {
  const tag = ([name, pullspec, annotations]: (typeof tags)[number]) =>
    `  - name: ${name}\n${
      annotations
        ? `    annotations:\n${Object.entries(annotations)
            .map(([k, v]) => `      ${k}: ${v}\n`)
            .join('')}`
        : ''
    }    from:\n      kind: DockerImage\n      name: ${pullspec}\n`;
  return `kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags:\n${tags.map(tag).join('')}`;
}

/** The OS images' annotations in a release input stream: version and display name. */
const machineOs = (version: string) => ({
  'io.openshift.build.versions': `machine-os=${version}`,
  'io.openshift.build.version-display-names': `machine-os=${RHCOS}`,
});

/**
 * An operator folder of today's MCO (2026: the default stream and stream rhel-10, placeholders by tag) plus the
 * CVO's deployment, whose image is the `{{.ReleaseImage}}` template the CVO renders.
 */
async function payloadDir(root: string, name: string, v: Versions, rhel10Digest = 'e'): Promise<string> {
  const dir = join(root, name);
  const mco = join(dir, 'machine-config-operator');
  const cvo = join(dir, 'cluster-version-operator');
  await mkdir(mco, { recursive: true });
  await mkdir(cvo, { recursive: true });
  await writeFile(
    join(dir, 'image-references'),
    imageStreamYaml([
      ['machine-config-operator', digest('a')],
      ['cluster-version-operator', digest('b')],
      ['rhel-coreos', digest('c'), machineOs(v['rhel-coreos'])],
      ['rhel-coreos-extensions', digest('d'), machineOs(v['rhel-coreos-extensions'])],
      ['rhel-coreos-10', digest(rhel10Digest), machineOs(v['rhel-coreos-10'])],
      ['rhel-coreos-10-extensions', digest('f'), machineOs(v['rhel-coreos-10-extensions'])],
    ]),
  );
  await writeFile(
    join(mco, 'image-references'),
    imageStreamYaml([
      ['machine-config-operator', 'quay.io/openshift/origin-machine-config-operator'],
      ['rhel-coreos', `${PLACEHOLDER}:rhel-coreos`],
      ['rhel-coreos-extensions', `${PLACEHOLDER}:rhel-coreos-extensions`],
      ['rhel-coreos-10', `${PLACEHOLDER}:rhel10-coreos`],
      ['rhel-coreos-10-extensions', `${PLACEHOLDER}:rhel10-coreos-extensions`],
    ]),
  );
  await writeFile(
    join(mco, '0000_80_machine-config_05_osimageurl.yaml'),
    `apiVersion: v1
kind: ConfigMap
metadata:
  name: machine-config-osimageurl
  namespace: openshift-machine-config-operator
data:
  releaseVersion: 0.0.1-snapshot
  baseOSContainerImage: "${PLACEHOLDER}:rhel-coreos"
  baseOSExtensionsContainerImage: "${PLACEHOLDER}:rhel-coreos-extensions"
  osImageURL: ""
`,
  );
  await writeFile(
    join(mco, 'deployment.yaml'),
    `apiVersion: apps/v1
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
        env:
        - name: OS_VERSION
          value: 0.0.1-snapshot-machine-os
`,
  );
  await writeFile(
    join(cvo, '0000_00_cluster-version-operator_03_deployment.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: cluster-version-operator
  namespace: openshift-cluster-version
spec:
  template:
    spec:
      containers:
      - name: cluster-version-operator
        image: {{.ReleaseImage}}
`,
  );
  return dir;
}

/** Node's process warnings (`(node:PID) Warning: …`) emitted while `fn` runs in this process. */
async function processWarnings<T>(fn: () => Promise<T>): Promise<{ result: T; warnings: string[] }> {
  const warnings: string[] = [];
  const listener = (w: Error) => warnings.push(w.message);
  process.on('warning', listener);
  try {
    const result = await fn();
    // process.emitWarning delivers on the next tick.
    await new Promise((r) => setImmediate(r));
    return { result, warnings };
  } finally {
    process.off('warning', listener);
  }
}

/** stderr carries only `error:`, `warning:` and `info:` lines. */
const onlyOurLines = (stderr: string) => stderr.split('\n').filter((l) => l !== '' && !/^(error|warning|info): /.test(l));

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir('osimage-streams-');
});
afterAll(async () => tmp?.cleanup());

describe('release new and release info: one machine-os version per OS stream', () => {
  let archive: string;
  let flat: string;
  let run: Awaited<ReturnType<typeof osimage>>;
  let nodeWarnings: string[];
  beforeAll(async () => {
    const dir = await payloadDir(tmp.dir, 'dual', DUAL);
    archive = join(tmp.dir, 'dual.tar');
    flat = join(tmp.dir, 'dual-flat');
    const r = await processWarnings(() => osimage(['release', 'new', '--from-dir', dir, '--name', '4.22.0', '--to-file', archive]));
    ({ result: run, warnings: nodeWarnings } = r);
    expect((await osimage(['release', 'new', '--from-dir', dir, '--name', '4.22.0', '--to-dir', flat])).exitCode).toBe(0);
  });

  it('builds the release, with only error/warning/info lines on stderr and no Node warning', () => {
    expect(run.stderr).not.toContain('inconsistent');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^sha256:[0-9a-f]{64} 4\.22\.0 1970-01-01T00:00:00Z$/);
    expect(onlyOurLines(run.stderr)).toEqual([]);
    expect(run.stderr).toContain('info: Found 2 operator manifest directories on disk');
    expect(nodeWarnings).toEqual([]);
  });

  it('substitutes 0.0.1-snapshot-machine-os with the default stream version and keeps every OS tag', async () => {
    const deploy = await readFile(join(flat, '0000_50_machine-config-operator_deployment.yaml'), 'utf8');
    expect(deploy).toContain(`value: ${RHEL9}\n`);
    const is = JSON.parse(await readFile(join(flat, 'image-references'), 'utf8'));
    expect(is.spec.tags.map((t: { name: string }) => t.name)).toEqual([
      'cluster-version-operator',
      'machine-config-operator',
      'rhel-coreos',
      'rhel-coreos-10',
      'rhel-coreos-10-extensions',
      'rhel-coreos-extensions',
    ]);
    const cvo = await readFile(join(flat, '0000_00_cluster-version-operator_03_deployment.yaml'), 'utf8');
    expect(cvo).toContain('image: {{.ReleaseImage}}\n');
  });

  it('release info shows machine-os and machine-os (rhel-10) under Component Versions, without a warning', async () => {
    const info = await osimage(['release', 'info', `oci-archive:${archive}:4.22.0`]);
    expect(info.exitCode).toBe(0);
    expect(info.stderr).toBe('');
    expect(info.stdout).toContain(
      `\nComponent Versions:\n  machine-os           ${RHEL9} ${RHCOS}\n  machine-os (rhel-10) ${RHEL10}       ${RHCOS}\n\nImages:\n`,
    );
    expect(info.stdout).not.toContain('Warnings:');
  });

  it('release info -o json keeps displayVersions for the default stream and adds streamDisplayVersions', async () => {
    const info = await osimage(['release', 'info', `oci-archive:${archive}:4.22.0`, '-o', 'json']);
    expect(info.exitCode).toBe(0);
    const j = JSON.parse(info.stdout);
    expect(j.versions).toEqual({ 'machine-os': RHEL9 });
    expect(j.displayVersions['machine-os'].Version).toBe(RHEL9);
    expect(j.displayVersions).toEqual({ 'machine-os': { Version: RHEL9, DisplayName: RHCOS } });
    expect(j.streamDisplayVersions).toEqual({ 'rhel-10': { 'machine-os': { Version: RHEL10, DisplayName: RHCOS } } });
    expect(j.warnings).toBeNull();
  });
});

describe('release diff between two dual-stream releases', () => {
  let oldRef: string;
  let newRef: string;
  beforeAll(async () => {
    const oldArchive = join(tmp.dir, 'old.tar');
    const newArchive = join(tmp.dir, 'new.tar');
    const oldDir = await payloadDir(tmp.dir, 'old', DUAL);
    const newDir = await payloadDir(
      tmp.dir,
      'new',
      { ...DUAL, 'rhel-coreos-10': RHEL10_NEXT, 'rhel-coreos-10-extensions': RHEL10_NEXT },
      '9',
    );
    expect((await osimage(['release', 'new', '--from-dir', oldDir, '--name', '4.22.0', '--to-file', oldArchive])).exitCode).toBe(0);
    expect((await osimage(['release', 'new', '--from-dir', newDir, '--name', '4.22.1', '--to-file', newArchive])).exitCode).toBe(0);
    oldRef = `oci-archive:${oldArchive}:4.22.0`;
    newRef = `oci-archive:${newArchive}:4.22.1`;
  });

  it('text: each stream has its Machine OS line and its component line', async () => {
    const r = await osimage(['release', 'diff', oldRef, newRef]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`\nMachine OS: ${RHEL9} (unchanged)\nMachine OS (rhel-10): ${RHEL10} -> ${RHEL10_NEXT}\n`);
    expect(r.stdout).toContain(`\nComponent Versions:\n  machine-os (rhel-10) ${RHEL10} -> ${RHEL10_NEXT} ${RHCOS}\n`);
    expect(r.stdout).toMatch(/\n {2}rhel-coreos-10 +sha256:e{64} +sha256:9{64}\n/);
  });

  it('JSON: machineOs stays the default stream; machineOsStreams and components name the stream', async () => {
    const r = await osimage(['release', 'diff', oldRef, newRef, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.machineOs).toEqual({ from: RHEL9, to: RHEL9, changed: false });
    expect(j.machineOsStreams).toEqual([{ stream: 'rhel-10', from: RHEL10, to: RHEL10_NEXT, changed: true }]);
    expect(j.components).toEqual([{ component: 'machine-os', stream: 'rhel-10', displayName: RHCOS, from: RHEL10, to: RHEL10_NEXT }]);
  });
});

describe('release new to the registry: a dual-stream release', () => {
  const registry = useRegistry({ mode: 'open' });

  it('pushes it and release info reads both streams back', async () => {
    const dir = await payloadDir(tmp.dir, 'pushed', DUAL);
    const ref = `${registry().host}/ocp/release:4.22.0`;
    // On no base: the inputs' cluster-version-operator (oc's default base) is not in this registry.
    const r = await osimage([
      'release',
      'new',
      '--insecure',
      '--from-dir',
      dir,
      '--name',
      '4.22.0',
      '--to-image-base-tag',
      '',
      '--to-image',
      ref,
    ]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.exitCode).toBe(0);
    expect(onlyOurLines(r.stderr)).toEqual([]);

    const info = await osimage(['release', 'info', '--insecure', ref, '-o', 'json']);
    expect(info.exitCode).toBe(0);
    const j = JSON.parse(info.stdout);
    expect(j.digest).toBe(r.stdout.split(' ')[0]);
    expect(j.displayVersions['machine-os'].Version).toBe(RHEL9);
    expect(j.streamDisplayVersions['rhel-10']['machine-os'].Version).toBe(RHEL10);
    expect(j.warnings).toBeNull();
  });
});

describe('within one OS stream the versions must still agree', () => {
  it('rhel-coreos-10 and rhel-coreos-10-extensions disagreeing is an error, in oc words', async () => {
    const dir = await payloadDir(tmp.dir, 'bad-10', { ...DUAL, 'rhel-coreos-10-extensions': RHEL10_NEXT });
    const r = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.22.0', '--to-dir', join(tmp.dir, 'bad-10-out')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.split('\n').at(-1)).toBe(
      `error: unable to create a release: operator "machine-config-operator" contained an invalid image-references file: input image stream has multiple versions defined for version machine-os: rhel-coreos-10-extensions defines ${RHEL10_NEXT} but was already set to ${RHEL10} on rhel-coreos-10`,
    );
  });

  it('rhel-coreos and rhel-coreos-extensions disagreeing is an error too', async () => {
    const dir = await payloadDir(tmp.dir, 'bad-9', { ...DUAL, 'rhel-coreos-extensions': '418.94.202605111200-0' });
    const r = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.22.0', '--to-dir', join(tmp.dir, 'bad-9-out')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.split('\n').at(-1)).toBe(
      `error: unable to create a release: operator "machine-config-operator" contained an invalid image-references file: input image stream has multiple versions defined for version machine-os: rhel-coreos-extensions defines 418.94.202605111200-0 but was already set to ${RHEL9} on rhel-coreos`,
    );
  });
});

describe('a manifest holding {{.ReleaseImage}}, run as a subprocess', () => {
  it('prints no (node:PID) Warning on stderr', async () => {
    const dir = await payloadDir(tmp.dir, 'bin', DUAL);
    const r = await osimageBin(['release', 'new', '--from-dir', dir, '--name', '4.22.0', '--to-dir', join(tmp.dir, 'bin-out')]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toContain('(node:');
    expect(r.stderr).not.toContain('Keys with collection values');
    expect(onlyOurLines(r.stderr)).toEqual([]);
    expect(r.stderr).toMatch(/^info: Found 2 operator manifest directories on disk$/m);
  });
});
