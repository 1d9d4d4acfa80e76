/**
 * `osimage release info`, run from the source, offline (oci: and oci-archive:): oc's views, texts and
 * exit codes, and the oc scenarios that do not need a registry.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildLayer, buildImage } from '../../src/release/build-layer.js';
import { osimage } from '../helpers/cli.js';
import {
  CLI_PULLSPEC,
  MOC_PULLSPEC,
  archive,
  baseEntries,
  entry,
  image,
  imageReferences,
  layout,
  multiArch,
  releaseEntries,
  releaseImage,
  tempDir,
  whiteout,
  type Temp,
} from '../helpers/oci-builder.js';

let tmp: Temp;
let basic: string; // oci:DIR:4.13.1
let basicDigest: string;
let basicArchive: string;
beforeAll(async () => {
  tmp = await tempDir();
  const img = await image([
    { entries: baseEntries() },
    { entries: releaseEntries({ extra: [{ name: 'release-manifests/notes.txt', data: 'release notes\n' }] }) },
  ]);
  basicDigest = img.descriptor.digest;
  basic = await layout(tmp.dir, 'basic', [entry(img, '4.13.1')], '4.13.1');
  basicArchive = await archive(tmp.dir, 'basic.tar', [entry(img, '4.13.1')], '4.13.1');
});
afterAll(async () => {
  await tmp.cleanup();
});

const layoutPath = (ref: string) => ref.slice('oci:'.length).replace(/:[^/:]*$/, '');

describe('basic info', () => {
  test.each([
    ['oci:', () => basic],
    ['oci-archive:', () => basicArchive],
  ])('the default summary over %s, laid out as oc lays it out', async (_t, ref) => {
    const r = await osimage(['release', 'info', ref()]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const pull = `${ref().replace(/:4\.13\.1$/, '')}@${basicDigest}`;
    expect(r.stdout).toBe(
      [
        'Name:           4.13.1',
        `Digest:         ${basicDigest}`,
        'Created:        2023-05-25T08:25:20Z',
        'OS/Arch:        linux/amd64',
        'Manifests:      1',
        'Metadata files: 1',
        '',
        `Pull From: ${pull}`,
        '',
        'Release Metadata:',
        '  Version:  4.13.1',
        '  Upgrades: 4.12.16, 4.12.17, 4.13.0',
        '  Metadata:',
        '    url: https://access.redhat.com/errata/RHSA-2023:3304',
        '',
        'Component Versions:',
        '  kubectl    1.26.1                ',
        '  machine-os 413.92.202305231734-0 Red Hat Enterprise Linux CoreOS',
        '',
        'Images:',
        '  NAME               DIGEST',
        `  cli                sha256:${'a'.repeat(64)}`,
        `  machine-os-content sha256:${'b'.repeat(64)}`,
        '',
      ].join('\n'),
    );
  });

  test('--pullspecs and --commits swap the Images table', async () => {
    const p = await osimage(['release', 'info', basic, '--pullspecs']);
    expect(p.exitCode).toBe(0);
    expect(p.stdout).toContain(
      `Images:\n  NAME               PULL SPEC\n  cli                ${CLI_PULLSPEC}\n  machine-os-content ${MOC_PULLSPEC}\n`,
    );
    const c = await osimage(['release', 'info', basic, '--commits']);
    expect(c.exitCode).toBe(0);
    // As Go's tabwriter: COMMIT is a terminated cell only on the header line, so it is padded by one space.
    expect(c.stdout).toContain('  NAME               REPO                            COMMIT \n');
    expect(c.stdout).toContain(`  cli                https://github.com/openshift/oc ${'1'.repeat(40)}\n`);
    const u = await osimage(['release', 'info', basic, '--commit-urls']);
    expect(u.stdout).toContain(`  cli                https://github.com/openshift/oc/commit/${'1'.repeat(40)}\n`);
  });

  test('-o name, pullspec, digest: one value a line', async () => {
    // (the test runner strips one final newline from stdout)
    expect((await osimage(['release', 'info', basic, '-o', 'name'])).stdout).toBe('cli\nmachine-os-content');
    expect((await osimage(['release', 'info', basic, '-o', 'pullspec'])).stdout).toBe(`${CLI_PULLSPEC}\n${MOC_PULLSPEC}`);
    expect((await osimage(['release', 'info', basic, '-o', 'digest'])).stdout).toBe(`sha256:${'a'.repeat(64)}\nsha256:${'b'.repeat(64)}`);
  });

  test('-o json: the documented object', async () => {
    const r = await osimage(['release', 'info', basic, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(j)).toEqual([
      'image',
      'name',
      'digest',
      'contentDigest',
      'listDigest',
      'pullFrom',
      'platform',
      'config',
      'metadata',
      'references',
      'versions',
      'displayVersions',
      'streamDisplayVersions',
      'manifests',
      'metadataFiles',
      'images',
      'warnings',
    ]);
    expect(j).toMatchObject({
      image: basic,
      name: '4.13.1',
      digest: basicDigest,
      listDigest: '',
      platform: 'linux/amd64',
      metadata: { version: '4.13.1', previous: ['4.13.0', '4.12.17', '4.12.16'] },
      versions: { kubectl: '1.26.1', 'machine-os': '413.92.202305231734-0' },
      displayVersions: { 'machine-os': { Version: '413.92.202305231734-0', DisplayName: 'Red Hat Enterprise Linux CoreOS' } },
      streamDisplayVersions: {},
      manifests: ['0000_50_x_a.yaml'],
      metadataFiles: ['notes.txt'],
      images: null,
      warnings: null,
    });
    expect((j.references as { spec: { tags: Array<{ name: string }> } }).spec.tags.map((t) => t.name)).toEqual([
      'cli',
      'machine-os-content',
    ]);
    expect((j.config as { created: string }).created).toBe('2023-05-25T08:25:20.123456789Z');
  });
});

describe('--image-for', () => {
  test('a hit prints the pullspec and nothing else', async () => {
    const r = await osimage(['release', 'info', '--image-for=machine-os-content', basicArchive]);
    expect(r).toEqual({ stdout: MOC_PULLSPEC, stderr: '', exitCode: 0 });
  });

  test('a miss names the tag and the image as typed; exit 1', async () => {
    const r = await osimage(['release', 'info', '--image-for=nope', basic]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: no image tag "nope" exists in the release image ${basic}\n`.trimEnd());
    expect(r.exitCode).toBe(1);
  });

  test('a tag that is not a DockerImage is a miss too', async () => {
    const img = await image([
      {
        entries: releaseEntries({
          tags: [
            { name: 'ist', kind: 'ImageStreamTag', pullspec: 'ns/is:tag' },
            { name: 'cli', pullspec: CLI_PULLSPEC },
          ],
        }),
      },
    ]);
    const ref = await layout(tmp.dir, 'ist', [entry(img)]);
    const r = await osimage(['release', 'info', '--image-for', 'ist', ref]);
    expect(r.stderr).toBe(`error: no image tag "ist" exists in the release image ${ref}`);
    expect(r.exitCode).toBe(1);
    // -o name lists every tag; -o pullspec only DockerImage ones.
    expect((await osimage(['release', 'info', ref, '-o', 'name'])).stdout).toBe('cli\nist');
    expect((await osimage(['release', 'info', ref, '-o', 'pullspec'])).stdout).toBe(CLI_PULLSPEC);
  });

  test('-o digest reports tags without a digest on stderr and carries on, as oc does', async () => {
    const img = await image([
      {
        entries: releaseEntries({
          tags: [
            { name: 'bytag', pullspec: 'quay.io/x/y:latest' },
            { name: 'cli', pullspec: CLI_PULLSPEC },
          ],
        }),
      },
    ]);
    const ref = await layout(tmp.dir, 'bytag', [entry(img)]);
    const r = await osimage(['release', 'info', ref, '-o', 'digest']);
    expect(r.stdout).toBe(`sha256:${'a'.repeat(64)}`);
    expect(r.stderr).toBe('error: bytag does not point to a digest');
    expect(r.exitCode).toBe(0);
  });
});

describe('flag conflicts (usage errors: exit 2)', () => {
  test.each([
    [['--image-for=cli', '-o', 'json'], 'error: --output and --image-for may not both be specified'],
    [
      ['--pullspecs', '--commits'],
      'error: only one of --commits, --commit-urls, --pullspecs, --contents, --size, --verify may be specified',
    ],
    [
      ['--image-for=cli', '--pullspecs'],
      'error: only one of --commits, --commit-urls, --pullspecs, --contents, --size, --verify may be specified',
    ],
    [
      ['--commit-urls', '--commits', '-o', 'json'],
      'error: only one of --commits, --commit-urls, --pullspecs, --contents, --size, --verify may be specified',
    ],
  ])('%j', async (flags, message) => {
    const r = await osimage(['release', 'info', basic, ...flags]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(message);
    expect(r.exitCode).toBe(2);
  });

  test("an unknown -o format is a usage error in oc's words (oc 4.13: `oc adm release info IMAGE -o yaml`)", async () => {
    const r = await osimage(['release', 'info', basic, '-o', 'yaml']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      'error: --output only supports json, pullspec, digest, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file',
    );
  });

  test('no image argument is a usage error', async () => {
    expect((await osimage(['release', 'info'])).exitCode).toBe(2);
  });
});

describe('layers', () => {
  test('lower layer has tag old, top has new: -o name prints only new', async () => {
    const img = await image([
      { entries: releaseEntries({ tags: [{ name: 'old' }] }) },
      { entries: releaseEntries({ tags: [{ name: 'new' }] }) },
    ]);
    const ref = await layout(tmp.dir, 'oldnew', [entry(img)]);
    const r = await osimage(['release', 'info', ref, '-o', 'name']);
    expect(r).toEqual({ stdout: 'new', stderr: '', exitCode: 0 });
  });

  test('only a lower layer has release-manifests/: found (oc would miss it)', async () => {
    const img = await image([{ entries: releaseEntries() }, { entries: baseEntries() }]);
    const ref = await layout(tmp.dir, 'lower', [entry(img)]);
    const r = await osimage(['release', 'info', ref, '--image-for', 'cli']);
    expect(r).toEqual({ stdout: CLI_PULLSPEC, stderr: '', exitCode: 0 });
  });

  test("no image-references anywhere: oc's error, exit 1", async () => {
    const img = await image([{ entries: baseEntries() }, { entries: [{ name: 'release-manifests/0000_50_x.yaml', data: 'a: 1\n' }] }]);
    const ref = await layout(tmp.dir, 'norefs', [entry(img)]);
    for (const args of [[], ['--image-for', 'cli'], ['-o', 'json']]) {
      const r = await osimage(['release', 'info', ref, ...args]);
      expect(r).toEqual({ stdout: '', stderr: 'error: release image did not contain an image-references file', exitCode: 1 });
    }
  });

  test('image-references deleted by a whiteout above: the same error', async () => {
    const img = await image([{ entries: releaseEntries() }, { entries: [whiteout('release-manifests/image-references')] }]);
    const ref = await layout(tmp.dir, 'whiteref', [entry(img)]);
    const r = await osimage(['release', 'info', ref]);
    expect(r.stderr).toBe('error: release image did not contain an image-references file');
    expect(r.exitCode).toBe(1);
  });

  test('a manifest deleted by a whiteout is not counted', async () => {
    const img = await image([
      { entries: releaseEntries({ extra: [{ name: 'release-manifests/0000_90_gone.yaml', data: 'a: 1\n' }] }) },
      { entries: [whiteout('release-manifests/0000_90_gone.yaml')] },
    ]);
    const ref = await layout(tmp.dir, 'whitemanifest', [entry(img)]);
    const r = await osimage(['release', 'info', ref]);
    expect(r.stdout).toMatch(/^Manifests: +1$/m);
  });
});

describe('parsing', () => {
  test('a plain-tar top layer whose descriptor claims gzip is parsed', async () => {
    const img = await image([
      { entries: baseEntries() },
      { entries: releaseEntries(), compression: 'none', mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip' },
    ]);
    const ref = await layout(tmp.dir, 'plainclaimsgzip', [entry(img)]);
    const r = await osimage(['release', 'info', ref]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Name: +4\.13\.1$/m);
  });

  test('image-references in YAML is accepted; the wrong kind is oc\'s "unrecognized" error', async () => {
    const yaml =
      'kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: yaml-release\nspec:\n  tags:\n  - name: cli\n    from:\n      kind: DockerImage\n      name: quay.io/x/cli@sha256:' +
      'c'.repeat(64) +
      '\n';
    const ok = await image([{ entries: [{ name: 'release-manifests/image-references', data: yaml }] }]);
    const r = await osimage(['release', 'info', await layout(tmp.dir, 'yaml', [entry(ok)])]);
    expect(r.stdout).toMatch(/^Name: +yaml-release$/m);
    const bad = await image([{ entries: [{ name: 'release-manifests/image-references', data: '{"kind":"List","apiVersion":"v1"}' }] }]);
    const b = await osimage(['release', 'info', await layout(tmp.dir, 'badkind', [entry(bad)])]);
    expect(b).toEqual({
      stdout: '',
      stderr: 'error: release image could not be read: unrecognized image-references in release payload',
      exitCode: 1,
    });
  });

  test('release-metadata that is not JSON is reported, naming the problem', async () => {
    const img = await image([
      { entries: [...releaseEntries({ metadata: false }), { name: 'release-manifests/release-metadata', data: '{nope' }] },
    ]);
    const r = await osimage(['release', 'info', await layout(tmp.dir, 'badmeta', [entry(img)])]);
    expect(r.stderr).toMatch(/^error: release image could not be read: invalid release metadata: /);
    expect(r.exitCode).toBe(1);
  });

  test('without release-metadata the name is metadata.name and there is no Release Metadata section', async () => {
    const img = await image([{ entries: releaseEntries({ name: '4.99.0-ec.1', metadata: false }) }]);
    const r = await osimage(['release', 'info', await layout(tmp.dir, 'nometa', [entry(img)])]);
    expect(r.stdout).toMatch(/^Name: +4\.99\.0-ec\.1$/m);
    expect(r.stdout).not.toContain('Release Metadata:');
  });

  test('conflicting component versions become a Warnings section', async () => {
    const tags = [
      { name: 'a', annotations: { 'io.openshift.build.versions': 'kubernetes=1.26.1' } },
      { name: 'b', annotations: { 'io.openshift.build.versions': 'kubernetes=1.26.2' } },
    ];
    const img = await image([{ entries: releaseEntries({ tags }) }]);
    const r = await osimage(['release', 'info', await layout(tmp.dir, 'multiver', [entry(img)])]);
    expect(r.stdout).toContain('\nWarnings:\n* multiple versions or display names reported for the following component(s): kubernetes\n');
    expect(r.stdout).toMatch(/^ {2}kubernetes 1\.26\.1 $/m);
  });

  test("a version oc's parser refuses is a warning with its reason, in oc's words", async () => {
    const tags = [
      { name: 'cli', annotations: { 'io.openshift.build.versions': 'kubectl=v1.26.1' } },
      { name: 'machine-os-content', annotations: { 'io.openshift.build.versions': 'machine-os=410.8.20190325.0' } },
    ];
    const img = await image([{ entries: releaseEntries({ tags }) }]);
    const r = await osimage(['release', 'info', await layout(tmp.dir, 'badsemver', [entry(img)])]);
    expect(r.exitCode).toBe(0);
    // oc adm release info --insecure 127.0.0.1:PORT/ocp/bad:4.13.1 (the sample with these two annotations), stdout:
    expect(r.stdout).toContain(
      [
        'Warnings:',
        '* the referenced image cli had an invalid version annotation: the version pair "kubectl=v1.26.1" must have a valid semantic version: Invalid character(s) found in major number "v1"',
        '* the referenced image machine-os-content had an invalid version annotation: the version pair "machine-os=410.8.20190325.0" must have a valid semantic version: Invalid character(s) found in patch number "20190325.0"',
      ].join('\n'),
    );
  });
});

describe('manifest lists', () => {
  let ref: string;
  let indexDigest: string;
  beforeAll(async () => {
    const amd = await releaseImage({ name: '4.13.1' });
    const arm = await releaseImage({ name: '4.13.1', architecture: 'arm64' });
    const idx = multiArch([
      { image: amd, platform: { os: 'linux', architecture: 'amd64' } },
      { image: arm, platform: { os: 'linux', architecture: 'arm64' } },
    ]);
    indexDigest = idx.descriptor.digest;
    ref = await archive(tmp.dir, 'multi.tar', [entry(idx, 'multi')], 'multi');
  });

  test('--filter-by-os=linux/arm64: Digest is the list digest, OS/Arch multi (linux/arm64)', async () => {
    const r = await osimage(['release', 'info', ref, '--filter-by-os=linux/arm64']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Digest: +${indexDigest}$`, 'm'));
    expect(r.stdout).toMatch(/^OS\/Arch: +multi \(linux\/arm64\)$/m);
    expect(r.stdout).toContain(`Pull From: ${ref.replace(/:multi$/, '')}@${indexDigest}\n`);
  });

  test('default filter: linux/amd64', async () => {
    const r = await osimage(['release', 'info', ref]);
    expect(r.stdout).toMatch(/^OS\/Arch: +multi \(linux\/amd64\)$/m);
  });

  test("--filter-by-os=linux/s390x: oc's error, listing the platforms there are; exit 1", async () => {
    const r = await osimage(['release', 'info', ref, '--filter-by-os=linux/s390x']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: unable to read image ${ref}: filtered all images from manifest list (no platform matches linux/s390x; the list has linux/amd64, linux/arm64)`,
    );
    expect(r.exitCode).toBe(1);
  });

  test('a single-entry list is accepted whatever the filter', async () => {
    const s390 = await releaseImage({ architecture: 's390x' });
    const one = await layout(tmp.dir, 'single', [entry(multiArch([{ image: s390, platform: { os: 'linux', architecture: 's390x' } }]))]);
    const r = await osimage(['release', 'info', one, '--filter-by-os', 'linux/arm64']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^OS\/Arch: +multi \(linux\/s390x\)$/m);
  });
});

describe('integrity', () => {
  test("a tampered layer fails; with --skip-verification it is read with oc's warning", async () => {
    const top = await buildLayer(releaseEntries(), { compression: 'none' });
    const img = buildImage({ created: '2023-05-25T08:25:20Z', layers: [await buildLayer(baseEntries()), top] });
    const ref = await layout(tmp.dir, 'tampered', [entry(img)]);
    const blob = join(layoutPath(ref), 'blobs', 'sha256', top.descriptor.digest.slice(7));
    const bytes = await readFile(blob);
    // Change one byte of the 0000_50_x_a.yaml body ("ConfigMap" → "ConfigMaq"): same size, new digest.
    const at = bytes.indexOf('ConfigMap');
    bytes[at + 8] = 'q'.charCodeAt(0);
    await writeFile(blob, bytes);
    const r = await osimage(['release', 'info', ref]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: .*digest mismatch for blob ${top.descriptor.digest} in oci:.*tampered: expected ${top.descriptor.digest}, got sha256:[a-f0-9]{64}$`,
      ),
    );
    expect(r.exitCode).toBe(1);
    const s = await osimage(['release', 'info', ref, '--skip-verification']);
    expect(s.exitCode).toBe(0);
    expect(s.stdout).toMatch(/^Name: +4\.13\.1$/m);
    expect(s.stderr).toContain('warning: the release image failed content verification and may have been tampered with');
  });
});

describe('errors name the image', () => {
  test('a missing layout', async () => {
    const r = await osimage(['release', 'info', `oci:${join(tmp.dir, 'missing')}`]);
    expect(r.stderr).toMatch(/^error: cannot open oci:.*missing: /);
    expect(r.exitCode).toBe(1);
  });

  test('an unknown tag', async () => {
    const r = await osimage(['release', 'info', basic.replace(/:4\.13\.1$/, ':4.0.0')]);
    expect(r.stderr).toMatch(/^error: no image tagged "4\.0\.0" in oci:.*basic \(tags: 4\.13\.1\)$/);
    expect(r.exitCode).toBe(1);
  });

  test('image-references stays byte-exact in the json references (parsed, sorted)', async () => {
    const raw = imageReferences();
    const r = await osimage(['release', 'info', basic, '-o', 'json']);
    expect((JSON.parse(r.stdout) as { references: unknown }).references).toEqual(JSON.parse(raw));
  });
});
