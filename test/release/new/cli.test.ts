/**
 * `release new` run from the source (in-process), offline: --to-dir and --to-file, read back with release info
 * and release extract; oc's errors for missing images, bad mappings and bad manifests.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, readdir, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { osimage } from '../../helpers/cli.js';
import { baseEntries, entry, image, layout, tempDir, type Temp } from '../../helpers/oci-builder.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/release-new/payload', import.meta.url));
const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const MOC = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${B}`;
let tmp: Temp;

beforeAll(async () => {
  tmp = await tempDir('osimage-new-');
});
afterAll(async () => tmp.cleanup());

/** A fresh copy of the fixture payload folder that a test may change. */
async function payloadCopy(name: string, opts: { osVersion?: boolean } = {}): Promise<string> {
  const dir = join(tmp.dir, name);
  await cp(FIXTURE, dir, { recursive: true });
  if (opts.osVersion === false) {
    // An override clears the tag's annotations, so machine-os has no version to substitute.
    const file = join(dir, 'machine-config-operator', 'deployment.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(/ {8}- name: OS_VERSION\n {10}value: 0\.0\.1-snapshot-machine-os\n/, ''));
  }
  return dir;
}

describe('release new --to-dir', () => {
  let out: string;
  let run: Awaited<ReturnType<typeof osimage>>;
  beforeAll(async () => {
    out = join(tmp.dir, 'flat');
    run = await osimage(['release', 'new', '--from-dir', FIXTURE, '--name', '4.99.0', '--previous', '4.98.1,4.98.0', '--to-dir', out]);
  });

  it('succeeds and says what it kept', () => {
    expect(run.exitCode).toBe(0);
    expect(run.stderr.split('\n')).toEqual([
      `info: Using ${FIXTURE} as the input to the release`,
      'info: Found 2 operator manifest directories on disk',
      'info: Included 3 images from 2 input operators into the release',
    ]);
    expect(run.stdout).toBe('');
  });

  it('names files as oc does', async () => {
    expect((await readdir(out)).sort()).toEqual([
      '0000_00_cluster-version-operator_03_deployment.yaml',
      '0000_30_machine-config-operator_05_osimageurl.yaml',
      '0000_50_machine-config-operator_deployment.yaml',
      'image-references',
      'release-metadata',
    ]);
  });

  it('substitutes pullspecs (placeholder and source repository with a tag) and versions', async () => {
    const cm = await readFile(join(out, '0000_30_machine-config-operator_05_osimageurl.yaml'), 'utf8');
    expect(cm).toContain(`osImageURL: "${MOC}"`);
    expect(cm).toContain('releaseVersion: 4.99.0');
    const deploy = await readFile(join(out, '0000_50_machine-config-operator_deployment.yaml'), 'utf8');
    expect(deploy).toContain(`image: quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${A}\n`);
    expect(deploy).toContain('value: 4.99.0\n');
    expect(deploy).toContain('value: 413.92.202305231734-0\n');
    expect(deploy).not.toContain('0.0.1-snapshot');
  });

  it('writes image-references as 2-space JSON without a final newline, tags sorted, unreferenced tags pruned', async () => {
    const text = await readFile(join(out, 'image-references'), 'utf8');
    expect(text.endsWith('}')).toBe(true);
    const is = JSON.parse(text);
    expect(JSON.stringify(is, null, 2)).toBe(text);
    expect(is.metadata.name).toBe('4.99.0');
    expect(is.spec.tags.map((t: { name: string }) => t.name)).toEqual([
      'cluster-version-operator',
      'machine-config-operator',
      'machine-os-content',
    ]);
    expect(is.spec.tags[2]).toMatchObject({
      from: { kind: 'DockerImage', name: MOC },
      generation: null,
      importPolicy: {},
      referencePolicy: { type: '' },
    });
  });

  it('writes release-metadata as cincinnati-metadata-v0', async () => {
    expect(JSON.parse(await readFile(join(out, 'release-metadata'), 'utf8'))).toEqual({
      kind: 'cincinnati-metadata-v0',
      version: '4.99.0',
      previous: ['4.98.0', '4.98.1'],
    });
  });
});

describe('release new --to-file', () => {
  it('is reproducible and reads back with release info and extract', async () => {
    const f1 = join(tmp.dir, 'r1.tar');
    const f2 = join(tmp.dir, 'r2.tar');
    const a = await osimage(['release', 'new', '--from-dir', FIXTURE, '--name', '4.99.0', '--to-file', f1]);
    const b = await osimage(['release', 'new', '--from-dir', FIXTURE, '--name', '4.99.0', '--to-file', f2]);
    expect(a.exitCode).toBe(0);
    expect(a.stdout).toMatch(/^sha256:[0-9a-f]{64} 4\.99\.0 1970-01-01T00:00:00Z$/);
    expect(b.stdout).toBe(a.stdout);
    expect(await readFile(f1)).toEqual(await readFile(f2));

    const digest = a.stdout.split(' ')[0];
    const info = await osimage(['release', 'info', `oci-archive:${f1}:4.99.0`, '-o', 'json']);
    expect(info.exitCode).toBe(0);
    const j = JSON.parse(info.stdout);
    expect(j.digest).toBe(digest);
    expect(j.config.config.Labels).toEqual({ 'io.openshift.release': '4.99.0' });

    const pull = await osimage(['release', 'info', '--image-for', 'machine-os-content', `oci-archive:${f1}:4.99.0`]);
    expect(pull.stdout).toBe(MOC);

    const dir = join(tmp.dir, 'flat-for-compare');
    await osimage(['release', 'new', '--from-dir', FIXTURE, '--name', '4.99.0', '--to-dir', dir]);
    const extracted = await osimage(['release', 'extract', `oci-archive:${f1}:4.99.0`, '--file', 'image-references']);
    expect(extracted.stdout).toBe(await readFile(join(dir, 'image-references'), 'utf8'));
  });

  it('another time or version gives another digest', async () => {
    const a = await osimage([
      'release',
      'new',
      '--from-dir',
      FIXTURE,
      '--name',
      '4.99.0',
      '--to-file',
      join(tmp.dir, 't1.tar'),
      '--created',
      '2026-01-02T03:04:05Z',
    ]);
    const b = await osimage([
      'release',
      'new',
      '--from-dir',
      FIXTURE,
      '--name',
      '4.99.1',
      '--to-file',
      join(tmp.dir, 't2.tar'),
      '--created',
      '2026-01-02T03:04:05Z',
    ]);
    const c = await osimage(['release', 'new', '--from-dir', FIXTURE, '--name', '4.99.0', '--to-file', join(tmp.dir, 't3.tar')], {
      env: { SOURCE_DATE_EPOCH: '1767323045' },
    });
    expect(a.stdout).toMatch(/ 4\.99\.0 2026-01-02T03:04:05Z$/);
    expect(c.stdout).toMatch(/ 4\.99\.0 2026-01-02T03:04:05Z$/);
    expect(c.stdout.split(' ')[0]).toBe(a.stdout.split(' ')[0]);
    expect(b.stdout.split(' ')[0]).not.toBe(a.stdout.split(' ')[0]);
  });
});

describe('release new --to-image-base with a tampered base', () => {
  it('fails; with --skip-verification it is written with the same warning as release info', async () => {
    const base = await image([{ entries: baseEntries(), compression: 'none' }]);
    const ref = await layout(tmp.dir, 'tampered-base', [entry(base, 'base')], 'base');
    const digest = base.layers[0]!.descriptor.digest;
    const file = join(ref.slice('oci:'.length).replace(/:base$/, ''), 'blobs', 'sha256', digest.slice('sha256:'.length));
    const bytes = await readFile(file);
    bytes[bytes.indexOf('ID=rhel') + 3] = 'f'.charCodeAt(0); // same size, another digest
    await writeFile(file, bytes);
    const args = ['release', 'new', '--from-dir', FIXTURE, '--name', '4.99.0', '--to-image-base', ref, '--to-file'];
    const strict = await osimage([...args, join(tmp.dir, 'tampered-strict.tar')]);
    expect(strict.exitCode).toBe(1);
    expect(strict.stderr).toMatch(/digest mismatch/);
    const lenient = await osimage([...args, join(tmp.dir, 'tampered-lenient.tar'), '--skip-verification']);
    expect(lenient.exitCode).toBe(0);
    expect(lenient.stderr).toContain('warning: the release image failed content verification and may have been tampered with');
  });
});

describe("the seed's case: machine-os-content referenced by the MCO", () => {
  it("fails in oc's words when the inputs lack it, reporting every missing tag at once", async () => {
    const dir = await payloadCopy('missing', { osVersion: false });
    const refs = await readFile(join(dir, 'image-references'), 'utf8');
    await writeFile(
      join(dir, 'image-references'),
      refs.replace(/ {2}- name: machine-os-content[\s\S]*?(?= {2}- name: cluster-version-operator)/, ''),
    );
    await mkdir(join(dir, 'other-operator'));
    await writeFile(
      join(dir, 'other-operator', 'image-references'),
      'kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags:\n  - name: other\n    from:\n      kind: DockerImage\n      name: quay.io/openshift/origin-other\n',
    );
    const out = join(tmp.dir, 'missing-out');
    const r = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', out]);
    expect(r.exitCode).toBe(1);
    // oc stops at the first (its line is the first here); every line has oc's prefix.
    expect(r.stderr.split('\n')).toEqual([
      `info: Using ${dir} as the input to the release`,
      'info: Found 3 operator manifest directories on disk',
      'info: Included 2 images from 3 input operators into the release',
      'error: unable to create a release: operator "machine-config-operator" contained an invalid image-references file: no input image tag named "machine-os-content"',
      'error: unable to create a release: operator "other-operator" contained an invalid image-references file: no input image tag named "other"',
    ]);
    await expect(readdir(out)).rejects.toThrow();

    const mapped = await osimage([
      'release',
      'new',
      '--from-dir',
      dir,
      '--name',
      '4.99.0',
      '--to-dir',
      out,
      `machine-os-content=${MOC}`,
      `other=reg.example/other@sha256:${'e'.repeat(64)}`,
    ]);
    expect(mapped.exitCode).toBe(0);
    const is = JSON.parse(await readFile(join(out, 'image-references'), 'utf8'));
    const moc = is.spec.tags.find((t: { name: string }) => t.name === 'machine-os-content');
    expect(moc).toMatchObject({ annotations: { 'io.openshift.release.override': 'true' }, from: { name: MOC } });
    expect(await readFile(join(out, '0000_30_machine-config-operator_05_osimageurl.yaml'), 'utf8')).toContain(MOC);
  });

  it('--allow-missing-images leaves the reference unchanged', async () => {
    const dir = await payloadCopy('allow', { osVersion: false });
    const refs = await readFile(join(dir, 'image-references'), 'utf8');
    await writeFile(
      join(dir, 'image-references'),
      refs.replace(/ {2}- name: machine-os-content[\s\S]*?(?= {2}- name: cluster-version-operator)/, ''),
    );
    const out = join(tmp.dir, 'allow-out');
    const r = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--allow-missing-images', '--to-dir', out]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('referenced an image "machine-os-content" that is not part of the input images, skipping');
    expect(await readFile(join(out, '0000_30_machine-config-operator_05_osimageurl.yaml'), 'utf8')).toContain(
      'placeholder.url.oc.will.replace.this.org/placeholdernamespace:machine-os-content',
    );
  });

  it('a mapping file overrides an input, and its errors name the file and line', async () => {
    const map = join(tmp.dir, 'map.txt');
    const other = `reg.example/os@sha256:${'f'.repeat(64)}`;
    await writeFile(map, `# overrides\nmachine-os-content=${other}\n`);
    const out = join(tmp.dir, 'mapfile-out');
    const cleared = await osimage(['release', 'new', '--from-dir', FIXTURE, '--name', '4.99.0', '--mapping-file', map, '--to-dir', out]);
    expect(cleared.exitCode).toBe(1);
    expect(cleared.stderr.split('\n').at(-1)).toBe('error: unable to create a release: unknown version reference "machine-os"');
    const dir = await payloadCopy('mapfile', { osVersion: false });
    const r = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--mapping-file', map, '--to-dir', out]);
    expect(r.exitCode).toBe(0);
    expect(await readFile(join(out, '0000_30_machine-config-operator_05_osimageurl.yaml'), 'utf8')).toContain(other);

    await writeFile(map, `machine-os-content=${other}\nnot-a-mapping\n`);
    const bad = await osimage(['release', 'new', '--from-dir', FIXTURE, '--name', '4.99.0', '--mapping-file', map, '--to-dir', out]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe(`error: file ${map}, line 2: all arguments must be valid SRC=DST mappings`);

    await writeFile(map, `machine-os-content=${other}\n`);
    const dup = await osimage([
      'release',
      'new',
      '--from-dir',
      FIXTURE,
      '--name',
      '4.99.0',
      '--mapping-file',
      map,
      `machine-os-content=${MOC}`,
      '--to-dir',
      out,
    ]);
    expect(dup.stderr).toBe(`error: file ${map}, line 1: each source tag may only be specified once: machine-os-content`);
  });
});

describe('release new errors', () => {
  const base = ['release', 'new', '--from-dir', FIXTURE, '--name', '4.99.0'];
  it.each([
    [['--to-dir', '/tmp/x', '--to-file', '/tmp/y'], 'error: give at most one of --to-image, --to-file and --to-dir'],
    [['--to-image', `127.0.0.1:1/ocp/release@sha256:${A}`], 'error: --to-image may only point to a repository or tag, not a digest'],
    [['--to-dir', '/tmp/x', 'nonsense'], 'error: all arguments must be valid SRC=DST mappings'],
    [
      ['--to-dir', '/tmp/x', '--metadata', '[1]'],
      'error: invalid --metadata: json: cannot unmarshal array into Go value of type release.CincinnatiMetadata',
    ],
    [
      ['--to-dir', '/tmp/x', '--metadata', '{bad'],
      "error: invalid --metadata: invalid character 'b' looking for beginning of object key string",
    ],
    [['--to-dir', '/tmp/x', '--to-signature', '/tmp/sig'], 'error: --to-signature requires --to-image'],
    [
      ['--to-dir', '/tmp/x', '--component-versions', 'kubernetes'],
      'error: --component-versions is invalid: the version pair "kubernetes" must be NAME=VERSION',
    ],
    [
      ['--to-dir', '/tmp/x', '--from-release', 'quay.io/x/y:1'],
      'error: only one of --from-image-stream, --from-image-stream-file, --from-release, or --from-dir may be specified',
    ],
  ])('%j is a usage error', async (extra, message) => {
    const r = await osimage([...base, ...extra]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(message);
  });

  it('a version that is not semver is a usage error', async () => {
    // oc adm release new --from-dir DIR --name notsemver --to-dir x: oc's words (oc exits 1; a usage error is 2 here)
    const r = await osimage(['release', 'new', '--from-dir', FIXTURE, '--name', 'notsemver', '--to-dir', join(tmp.dir, 'x')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('error: --name must be a semantic version: No Major.Minor.Patch elements found');
    const v = await osimage(['release', 'new', '--from-dir', FIXTURE, '--name', 'v4.99.0', '--to-dir', join(tmp.dir, 'x')]);
    expect(v.stderr).toBe('error: --name must be a semantic version: Invalid character(s) found in major number "v4"');
  });

  it('a manifest that is not a Kubernetes object names the file', async () => {
    const dir = await payloadCopy('badmanifest');
    await writeFile(join(dir, 'machine-config-operator', 'notes.yaml'), 'just: data\n');
    const r = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', join(tmp.dir, 'bad-out')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /^error: unable to create a release: machine-config-operator\/notes\.yaml: manifests must contain Kubernetes API objects with 'kind' and 'apiVersion' set/m,
    );
    const skipped = await osimage([
      'release',
      'new',
      '--from-dir',
      dir,
      '--name',
      '4.99.0',
      '--skip-manifest-check',
      '--to-dir',
      join(tmp.dir, 'bad-out'),
    ]);
    expect(skipped.exitCode).toBe(0);
  });

  it('a ConfigMap OS key apart from its tag (another image, or folded over lines) is refused, naming both files', async () => {
    const dir = await payloadCopy('os-pairs');
    const file = join(dir, 'machine-config-operator', '0000_30_machine-config-operator_05_osimageurl.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(/osImageURL: .*/, `osImageURL: "${MOC}"`));
    const r = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', join(tmp.dir, 'pairs-out')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.split('\n').at(-1)).toBe(
      `error: unable to create a release: machine-config-operator/0000_30_machine-config-operator_05_osimageurl.yaml: data.osImageURL is ${MOC}, but tag machine-os-content in machine-config-operator/image-references is placeholder.url.oc.will.replace.this.org/placeholdernamespace:machine-os-content: oc substitutes both by text, so the release would ship two different OS images; make them equal (osimage payload write does)`,
    );
    // Folded as a YAML serialiser folds at 80 columns: the same value, but no longer one piece of text.
    await writeFile(file, text.replace(/placeholdernamespace:machine-os-content"/, 'placeholdernamespace:machine-os-\\\n    content"'));
    const folded = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', join(tmp.dir, 'pairs-out')]);
    expect(folded.exitCode).toBe(1);
    expect(folded.stderr).toMatch(
      /data\.osImageURL holds the from\.name of tag machine-os-content in machine-config-operator\/image-references, but not as one piece of text/,
    );
    await expect(readdir(join(tmp.dir, 'pairs-out'))).rejects.toThrow();
  });

  it('a top-level image-references that is a link or a FIFO is refused, never followed or waited on', async () => {
    const dir = await payloadCopy('hostile-input');
    const refs = join(dir, 'image-references');
    const real = join(tmp.dir, 'elsewhere-image-references');
    await cp(refs, real);
    await rm(refs);
    await symlink(real, refs);
    const link = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', join(tmp.dir, 'h1')]);
    expect(link.exitCode).toBe(1);
    expect(link.stderr).toContain(`${refs}: a symbolic link is not read as the input image-references`);
    await rm(refs);
    execFileSync('mkfifo', [refs]);
    const fifo = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', join(tmp.dir, 'h2')]);
    expect(fifo.exitCode).toBe(1);
    expect(fifo.stderr).toContain(`${refs} is a FIFO, not a regular file`);
  });

  it('an operator file past 16 MiB is refused before it is read or parsed', async () => {
    const dir = await payloadCopy('huge-manifest');
    const file = join(dir, 'machine-config-operator', 'huge.yaml');
    await writeFile(file, '');
    await truncate(file, 300 * 1024 * 1024);
    const r = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', join(tmp.dir, 'h4')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.split('\n').at(-1)).toBe(
      `error: unable to create a release: ${file} is larger than the 16 MiB osimage reads of such a file`,
    );
  });

  it('a mapping file with more mappings than any release is one line naming it', async () => {
    const file = join(tmp.dir, 'many-mappings');
    await writeFile(file, Array.from({ length: 10_001 }, (_, i) => `t${i}=quay.io/x/y@sha256:${'a'.repeat(64)}`).join('\n'));
    const r = await osimage([
      'release',
      'new',
      '--from-dir',
      FIXTURE,
      '--name',
      '4.99.0',
      '--mapping-file',
      file,
      '--to-dir',
      join(tmp.dir, 'h3'),
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`error: file ${file}, line 10001: more than 10000 mappings (a release has a few hundred images)`);
  });

  it('an input image-references that is not an ImageStream', async () => {
    const dir = await payloadCopy('badinput');
    await writeFile(join(dir, 'image-references'), 'kind: ConfigMap\napiVersion: v1\n');
    const r = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', join(tmp.dir, 'x2')]);
    expect(r.exitCode).toBe(1);
    // Not a failure while the payload is made: no `unable to create a release: ` prefix, as in oc.
    expect(r.stderr).toBe(
      `info: Using ${dir} as the input to the release\nerror: could not parse images: ${join(dir, 'image-references')}: invalid kind/apiVersion`,
    );
  });

  it('an unquoted annotation that YAML reads as a number', async () => {
    const dir = await payloadCopy('badannotation');
    const refs = await readFile(join(dir, 'image-references'), 'utf8');
    await writeFile(
      join(dir, 'image-references'),
      refs.replace('"1111111111111111111111111111111111111111"', '1111111111111111111111111111111111111111'),
    );
    const r = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', join(tmp.dir, 'x3')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/annotation io\.openshift\.build\.commit\.id is not a string .*quote it$/);
  });

  it('file names that collide get _2', async () => {
    const dir = await payloadCopy('collide');
    await cp(join(dir, 'cluster-version-operator'), join(dir, 'zz-operator'), { recursive: true });
    const out = join(tmp.dir, 'collide-out');
    const r = await osimage(['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', out]);
    expect(r.exitCode).toBe(0);
    expect(await readdir(out)).toContain('0000_00_cluster-version-operator_03_deployment_2.yaml');
    await rm(out, { recursive: true });
  });
});
