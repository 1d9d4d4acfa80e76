/**
 * oc's comparison of two releases (`release info --changes-from OLD NEW`, `release info OLD NEW`): the model
 * (release/changes.ts) with oc's quirks, what it reads, the text view, and the CLI offline. Byte-for-byte
 * agreement with oc 4.13 is the changes- pairs of test/oc/side-by-side.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { renderChanges } from '../../src/output/changes-view.js';
import { openImage } from '../../src/registry/open.js';
import { calculateChanges, readReleaseChanges } from '../../src/release/changes.js';
import type { ReleaseInfo } from '../../src/release/info.js';
import { osimage } from '../helpers/cli.js';
import {
  archive,
  baseEntries,
  entry,
  image,
  RecordingSource,
  releaseEntries,
  tempDir,
  type TagSpec,
  type Temp,
} from '../helpers/oci-builder.js';

const REPO = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
const at = (c: string, repo = REPO) => `${repo}@sha256:${c.repeat(64)}`;
const src = (commit: string, repo = 'https://github.com/openshift/oc') => ({
  'io.openshift.build.commit.id': commit,
  'io.openshift.build.source-location': repo,
});

const OLD_TAGS: TagSpec[] = [
  { name: 'cli', pullspec: at('1'), annotations: src('f'.repeat(40)) },
  { name: 'hyperkube', pullspec: at('2'), annotations: src('a'.repeat(40), 'https://github.com/openshift/kubernetes') },
  { name: 'installer', pullspec: at('3'), annotations: src('b'.repeat(40), 'https://github.com/openshift/installer') },
  { name: 'legacy-thing', pullspec: at('4') },
  { name: 'stream-tag', kind: 'ImageStreamTag', pullspec: 'x:y' },
];
const NEW_TAGS: TagSpec[] = [
  { name: 'cli', pullspec: at('6'), annotations: src('f'.repeat(40)) },
  { name: 'hyperkube', pullspec: at('7'), annotations: src('c'.repeat(40), 'https://github.com/openshift/kubernetes') },
  {
    name: 'installer',
    pullspec: at('3', 'registry.example/ocp/release'),
    annotations: src('b'.repeat(40), 'https://github.com/openshift/installer'),
  },
  { name: 'new-thing', pullspec: at('8'), annotations: src('d'.repeat(40), 'https://github.com/openshift/new-thing') },
];
const manifest = (name: string, data: string) => ({ name: `release-manifests/${name}`, data });

let tmp: Temp;
let oldRef: string;
let newRef: string;
let sameRef: string;
let noMetaRef: string;

beforeAll(async () => {
  tmp = await tempDir('osimage-changes-');
  const o = await image(
    [
      { entries: baseEntries() },
      {
        entries: releaseEntries({
          name: '4.13.1',
          tags: OLD_TAGS,
          extra: [manifest('0000_50_b.yaml', 'b: 1\n'), manifest('0000_60_gone.yaml', 'gone: 1\n'), manifest('notes.txt', 'x')],
        }),
      },
    ],
    { created: '2023-05-25T08:25:20Z' },
  );
  const n = await image(
    [
      { entries: baseEntries() },
      {
        entries: releaseEntries({
          name: '4.13.2',
          tags: NEW_TAGS,
          extra: [manifest('0000_50_b.yaml', 'b: 2\n'), manifest('0000_70_new.yaml', 'new: 1\n'), manifest('0000_80_empty.yaml', '')],
        }),
      },
    ],
    { created: '2023-06-07T10:00:00Z', architecture: 'arm64' },
  );
  const custom = await image([
    { entries: baseEntries() },
    { entries: releaseEntries({ name: 'custom', tags: OLD_TAGS, metadata: false }) },
  ]);
  oldRef = await archive(tmp.dir, 'old.tar', [entry(o, '4.13.1')], '4.13.1');
  newRef = await archive(tmp.dir, 'new.tar', [entry(n, '4.13.2')], '4.13.2');
  sameRef = await archive(tmp.dir, 'same.tar', [entry(o)]);
  noMetaRef = await archive(tmp.dir, 'custom.tar', [entry(custom)]);
});
afterAll(async () => {
  await tmp.cleanup();
});

async function changes(manifests: boolean, a = oldRef, b = newRef) {
  const opened: RecordingSource[] = [];
  try {
    const c = await readReleaseChanges(
      a,
      b,
      async (ref) => {
        const s = new RecordingSource(await openImage(ref));
        opened.push(s);
        return s;
      },
      { manifests },
    );
    return { c, opened };
  } finally {
    for (const s of opened) await s.close();
  }
}

describe('the comparison (oc 4.13 calculateDiff)', () => {
  test('images: a tag stays unless both have the same pullspec; only DockerImage tags; by name', async () => {
    const { c } = await changes(false);
    expect(c.images.map((i) => [i.name, i.from?.from?.name ?? null, i.to?.from?.name ?? null])).toEqual([
      ['cli', at('1'), at('6')],
      ['hyperkube', at('2'), at('7')],
      ['installer', at('3'), at('3', 'registry.example/ocp/release')],
      ['legacy-thing', at('4'), null],
      ['new-thing', null, at('8')],
    ]);
    expect(c.manifests).toEqual([]);
  });

  test("manifests, with oc's quirks: a file only NEW has comes in `from`; an empty one is not reported", async () => {
    const { c } = await changes(true);
    expect(c.manifests.map((m) => [m.filename, m.from?.toString() ?? null, m.to?.toString() ?? null])).toEqual([
      ['0000_50_b.yaml', 'b: 1\n', 'b: 2\n'],
      ['0000_60_gone.yaml', 'gone: 1\n', null],
      ['0000_70_new.yaml', 'new: 1\n', null],
    ]);
  });

  test("each release is read once, the manifests' bytes (for -o json) in the same pass", async () => {
    const reads = (r: { opened: RecordingSource[] }) => r.opened.map((s) => s.blobsOpened.length);
    // the config and the release layer of each release: the base layer below it is never read, as in oc
    expect(reads(await changes(false))).toEqual([2, 2]);
    expect(reads(await changes(true))).toEqual([2, 2]);
  });

  test('a tag named twice: the last one counts, as in oc', () => {
    const tag = (name: string, pullspec: string) => ({ name, from: { kind: 'DockerImage', name: pullspec } });
    const rel = (tags: ReturnType<typeof tag>[]) => ({ references: { spec: { tags } } }) as unknown as ReleaseInfo;
    const c = calculateChanges(rel([tag('a', 'x'), tag('a', 'y')]), rel([tag('a', 'y')]));
    expect(c.images).toEqual([]);
  });

  test("OLD's error when only OLD fails; NEW's when both do", async () => {
    const missing = (n: string) => `oci-archive:${tmp.dir}/absent-${n}.tar`;
    await expect(changes(false, missing('old'), newRef)).rejects.toThrow(/absent-old\.tar/);
    await expect(changes(false, missing('one'), missing('two'))).rejects.toThrow(/absent-two\.tar/);
  });
});

describe('the text view', () => {
  const NOW = new Date('2026-12-02T12:00:00Z');
  test('the FROM/TO table and the four sections, laid out as oc lays them out', async () => {
    const { c } = await changes(false);
    expect(renderChanges(c, { commits: false, now: NOW })).toBe(
      [
        '          FROM         TO',
        'Name:     4.13.1       4.13.2',
        'Created:  3y           3y',
        'OS/Arch:  linux/amd64  linux/arm64',
        '',
        'Version:       4.13.1  4.13.2',
        'Upgrade From:          No',
        '',
        'Images Changed:',
        `  hyperkube    sha256:${'2'.repeat(64)} sha256:${'7'.repeat(64)}`,
        '',
        'Images Rebuilt:',
        `  cli          sha256:${'1'.repeat(64)} sha256:${'6'.repeat(64)}`,
        // installer moved repository, same digest: counted in the heading, no line (as in oc)
        '',
        'Images Added:',
        `  new-thing    sha256:${'8'.repeat(64)}`,
        '',
        'Images Removed:',
        '  legacy-thing',
        '',
        '',
      ].join('\n'),
    );
  });

  test('--commits: source links; names padded to the longest, so a removed line ends in spaces', async () => {
    const { c } = await changes(false);
    const t = renderChanges(c, { commits: true, now: NOW });
    expect(t).toContain(`\n  hyperkube    https://github.com/openshift/kubernetes/compare/${'a'.repeat(40)}...${'c'.repeat(40)}\n`);
    expect(t).toContain(`\n  cli          https://github.com/openshift/oc/commit/${'f'.repeat(40)}\n`);
    expect(t).toContain(`\n  new-thing    https://github.com/openshift/new-thing/commit/${'d'.repeat(40)}\n`);
    const { c: back } = await changes(false, newRef, oldRef);
    expect(renderChanges(back, { commits: true, now: NOW })).toContain('\nImages Removed:\n  new-thing   \n');
  });

  test('the same image: Releases are identical', async () => {
    const { c } = await changes(false, oldRef, sameRef);
    expect(renderChanges(c, { commits: false, now: NOW })).toBe('Releases are identical\n');
  });
});

describe('release info OLD NEW / --changes-from OLD NEW (offline)', () => {
  test('two images are the comparison, as --changes-from is', async () => {
    const two = await osimage(['release', 'info', oldRef, newRef]);
    const from = await osimage(['release', 'info', '--changes-from', oldRef, newRef]);
    expect(two.stderr).toBe('');
    expect(two.exitCode).toBe(0);
    expect(two.stdout).toMatch(/^ +FROM +TO\nName: +4\.13\.1 +4\.13\.2\n/);
    expect(from).toEqual(two);
  });

  test('release-metadata on one side only', async () => {
    const r = await osimage(['release', 'info', noMetaRef, newRef]);
    expect(r.stdout).toMatch(/^Has Release Metadata: +Yes$/m);
    const back = await osimage(['release', 'info', newRef, noMetaRef]);
    expect(back.stdout).toMatch(/^Has Release Metadata: +Yes +$/m);
  });

  test("-o json: oc's four keys", async () => {
    const r = await osimage(['release', 'info', '-o', 'json', '--changes-from', oldRef, newRef]);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j)).toEqual(['from', 'to', 'changedImages', 'changedManifests']);
    expect(Object.keys(j.changedManifests)).toEqual(['0000_50_b.yaml', '0000_60_gone.yaml', '0000_70_new.yaml']);
    expect(j.changedImages['new-thing'].from).toBeNull();
  });

  test('--image-for, --pullspecs, --commit-urls do not apply and are ignored, as in oc', async () => {
    const plain = await osimage(['release', 'info', oldRef, newRef]);
    for (const flag of [['--image-for', 'cli'], ['--pullspecs'], ['--commit-urls']]) {
      const r = await osimage(['release', 'info', ...flag, oldRef, newRef]);
      expect(r.stdout).toBe(plain.stdout);
    }
  });

  test("usage errors before any image is read (oc's words, exit 2)", async () => {
    const cases: Array<[string[], string]> = [
      [['-o', 'name'], 'error: unrecognized output mode: name'],
      [['-o', 'jsonpath={.from}'], 'error: unrecognized output mode: jsonpath={.from}'],
      [
        ['-o', 'yaml'],
        'error: --output only supports json, pullspec, digest, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file',
      ],
      [
        ['--commits', '--pullspecs'],
        'error: only one of --commits, --commit-urls, --pullspecs, --contents, --size, --verify may be specified',
      ],
    ];
    for (const [flags, stderr] of cases) {
      const r = await osimage([
        'release',
        'info',
        ...flags,
        '--changes-from',
        'oci-archive:/nonexistent.tar',
        'oci-archive:/nonexistent2.tar',
      ]);
      expect(r).toEqual({ stdout: '', stderr, exitCode: 2 });
    }
    const three = await osimage(['release', 'info', '--changes-from', oldRef, newRef, sameRef]);
    expect(three).toEqual({
      stdout: '',
      stderr: 'error: must specify a single release image as argument when comparing to another release image',
      exitCode: 2,
    });
  });

  test('--contents: only the hint on comparing the extracted files; nothing is read, -o does not apply', async () => {
    const r = await osimage([
      'release',
      'info',
      '--contents',
      '-o',
      'name',
      'oci-archive:/nonexistent-a.tar',
      'oci-archive:/nonexistent-b.tar',
    ]);
    expect(r).toEqual({
      stdout:
        'To see the differences between these releases, run:\n\n' +
        '  osimage release extract oci-archive:/nonexistent-a.tar --to=/tmp/old\n' +
        '  osimage release extract oci-archive:/nonexistent-b.tar --to=/tmp/new\n' +
        // and a blank line (the helper drops the last newline)
        '  diff /tmp/old /tmp/new\n',
      stderr: '',
      exitCode: 0,
    });
  });

  test('an empty --changes-from is no comparison (oc tests its length)', async () => {
    const r = await osimage(['release', 'info', '--changes-from', '', newRef]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Name: +4\.13\.2$/m);
  });
});
