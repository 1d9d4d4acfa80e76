/**
 * `release diff OLD NEW` (osimage's report of what changed): the pure diff over two releases read back from OCI
 * archives and layouts, and the CLI offline and against the real registry. oc's comparison, `release info
 * --changes-from`, is test/release/changes.test.ts and the changes- pairs of the side-by-side test.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openImage } from '../../src/registry/open.js';
import { diffReleases } from '../../src/release/diff.js';
import { loadReleaseInfo } from '../../src/release/info.js';
import { osimage } from '../helpers/cli.js';
import {
  archive,
  baseEntries,
  entry,
  image,
  layout,
  pushBuilt,
  releaseEntries,
  tempDir,
  type TagSpec,
  type Temp,
} from '../helpers/oci-builder.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';

const REPO = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
const at = (c: string, repo = REPO) => `${repo}@sha256:${c.repeat(64)}`;
const moc = (version: string, pullspec: string): TagSpec => ({
  name: 'machine-os-content',
  pullspec,
  annotations: {
    'io.openshift.build.version-display-names': 'machine-os=Red Hat Enterprise Linux CoreOS',
    'io.openshift.build.versions': `machine-os=${version}`,
  },
});

const OLD_TAGS: TagSpec[] = [
  {
    name: 'cli',
    pullspec: at('1'),
    annotations: { 'io.openshift.build.commit.id': 'f'.repeat(40), 'io.openshift.build.versions': 'kubectl=1.26.1' },
  },
  { name: 'hyperkube', pullspec: at('2'), annotations: { 'io.openshift.build.versions': 'kubernetes=1.26.1' } },
  { name: 'installer', pullspec: at('3') },
  { name: 'legacy-thing', pullspec: at('4') },
  moc('413.92.202305231734-0', at('5')),
];
const NEW_TAGS: TagSpec[] = [
  // rebuilt from the same commit
  {
    name: 'cli',
    pullspec: at('6'),
    annotations: { 'io.openshift.build.commit.id': 'f'.repeat(40), 'io.openshift.build.versions': 'kubectl=1.26.1' },
  },
  // a new kubernetes and a new component
  { name: 'hyperkube', pullspec: at('7'), annotations: { 'io.openshift.build.versions': 'kubernetes=1.26.5,crio=1.26.3' } },
  // same digest, mirrored repository
  { name: 'installer', pullspec: at('3', 'registry.example/ocp/release') },
  { name: 'new-thing', pullspec: at('8') },
  moc('413.92.202306070210-0', at('9')),
];

const release = (name: string, tags: TagSpec[]) => image([{ entries: baseEntries() }, { entries: releaseEntries({ name, tags }) }]);

let tmp: Temp;
let oldRef: string;
let newRef: string;
let sameRef: string;

beforeAll(async () => {
  tmp = await tempDir('osimage-diff-');
  const o = await release('4.13.1', OLD_TAGS);
  const n = await release('4.13.2', NEW_TAGS);
  oldRef = await archive(tmp.dir, 'old.tar', [entry(o, '4.13.1')], '4.13.1');
  newRef = await layout(tmp.dir, 'new', [entry(n, '4.13.2')], '4.13.2');
  sameRef = await archive(tmp.dir, 'same.tar', [entry(o, '4.13.1')]);
});
afterAll(async () => {
  await tmp.cleanup();
});

async function load(ref: string) {
  const source = await openImage(ref);
  try {
    return await loadReleaseInfo(ref, source);
  } finally {
    await source.close();
  }
}

describe('diffReleases', () => {
  test('machine-os, component versions, images added, removed and changed', async () => {
    const d = diffReleases(await load(oldRef), await load(newRef));
    expect(d.from).toMatchObject({ image: oldRef, name: '4.13.1' });
    expect(d.to).toMatchObject({ image: newRef, name: '4.13.2' });
    expect(d.machineOs).toEqual({ from: '413.92.202305231734-0', to: '413.92.202306070210-0', changed: true });
    expect(d.components).toEqual([
      { component: 'crio', stream: null, displayName: '', from: null, to: '1.26.3' },
      { component: 'kubernetes', stream: null, displayName: '', from: '1.26.1', to: '1.26.5' },
      {
        component: 'machine-os',
        stream: null,
        displayName: 'Red Hat Enterprise Linux CoreOS',
        from: '413.92.202305231734-0',
        to: '413.92.202306070210-0',
      },
    ]);
    expect(d.images.added).toEqual([{ name: 'new-thing', pullspec: at('8'), digest: `sha256:${'8'.repeat(64)}` }]);
    expect(d.images.removed).toEqual([{ name: 'legacy-thing', pullspec: at('4'), digest: `sha256:${'4'.repeat(64)}` }]);
    expect(d.images.changed.map((c) => [c.name, c.digestChanged, c.rebuilt])).toEqual([
      ['cli', true, true],
      ['hyperkube', true, false],
      ['installer', false, false],
      ['machine-os-content', true, false],
    ]);
    expect(d.images.changed[3]).toEqual({
      name: 'machine-os-content',
      from: at('5'),
      to: at('9'),
      fromDigest: `sha256:${'5'.repeat(64)}`,
      toDigest: `sha256:${'9'.repeat(64)}`,
      digestChanged: true,
      rebuilt: false,
    });
    expect(d.images.unchanged).toBe(0);
  });

  test('a release against itself has no changes', async () => {
    const d = diffReleases(await load(oldRef), await load(sameRef));
    expect(d.machineOs).toEqual({ from: '413.92.202305231734-0', to: '413.92.202305231734-0', changed: false });
    expect(d.components).toEqual([]);
    expect(d.images).toEqual({ added: [], removed: [], changed: [], unchanged: 5 });
  });
});

describe('release diff (offline)', () => {
  test('text view', async () => {
    const r = await osimage(['release', 'diff', oldRef, newRef]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Changes from 4\.13\.1 to 4\.13\.2$/m);
    expect(r.stdout).toMatch(/^Machine OS: 413\.92\.202305231734-0 -> 413\.92\.202306070210-0$/m);
    expect(r.stdout).toMatch(/^ {2}kubernetes +1\.26\.1 +-> 1\.26\.5$/m);
    expect(r.stdout).toMatch(/^ {2}crio +<none> +-> 1\.26\.3$/m);
    expect(r.stdout).toMatch(/^Images Changed \(4\):$/m);
    expect(r.stdout).toMatch(/^ {2}cli +sha256:1{64} sha256:6{64} rebuilt \(same commit\)$/m);
    expect(r.stdout).toMatch(/^ {2}installer +sha256:3{64} sha256:3{64} moved repository, same digest$/m);
    expect(r.stdout).toMatch(/^Images Added \(1\):\n {2}NAME +PULL SPEC\n {2}new-thing +\S+@sha256:8{64}$/m);
    expect(r.stdout).toMatch(/^Images Removed \(1\):\n {2}NAME +PULL SPEC\n {2}legacy-thing +\S+@sha256:4{64}$/m);
  });

  test('-o json is the documented object', async () => {
    const r = await osimage(['release', 'diff', oldRef, newRef, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j)).toEqual(['from', 'to', 'machineOs', 'machineOsStreams', 'components', 'images']);
    expect(j.machineOsStreams).toEqual([]);
    expect(Object.keys(j.images)).toEqual(['added', 'removed', 'changed', 'unchanged']);
    expect(j.from).toEqual({ image: oldRef, name: '4.13.1', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(j.machineOs.changed).toBe(true);
    expect(j.images.changed.map((c: { name: string }) => c.name)).toEqual(['cli', 'hyperkube', 'installer', 'machine-os-content']);
  });

  test('no changes says so', async () => {
    const r = await osimage(['release', 'diff', oldRef, sameRef]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Machine OS: 413\.92\.202305231734-0 \(unchanged\)$/m);
    expect(r.stdout).toMatch(/^Images: no changes$/m);
    expect(r.stdout).toMatch(/^5 images unchanged$/m);
  });

  test("info's views and other formats are usage errors (exit 2)", async () => {
    for (const flag of [['--image-for', 'cli'], ['--pullspecs'], ['--commits'], ['-o', 'name'], ['-o', 'digest']]) {
      const r = await osimage(['release', 'diff', oldRef, newRef, ...flag]);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: /);
      expect(r.exitCode).toBe(2);
    }
    const one = await osimage(['release', 'diff', oldRef]);
    expect(one.exitCode).toBe(2);
    expect(one.stderr).toMatch(/missing required argument 'new'/);
  });

  test('an unreadable OLD names it', async () => {
    const r = await osimage(['release', 'diff', `oci-archive:${tmp.dir}/missing.tar`, newRef]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: .*missing\.tar/);
  });

  test('plain release info still works beside it', async () => {
    const r = await osimage(['release', 'info', '--image-for', 'machine-os-content', newRef]);
    expect(r).toEqual({ stdout: at('9'), stderr: '', exitCode: 0 });
  });
});

describe('release diff (registry)', () => {
  let reg: TestRegistry | undefined;
  printLogsOnFailure(() => reg);
  beforeAll(async () => {
    reg = await startRegistry({ mode: 'open' });
  });
  afterAll(async () => {
    await reg?.stop();
    reg = undefined;
  });

  test('two releases in a registry, and one against an archive', async () => {
    const repo = `${reg!.host}/ocp/release`;
    await pushBuilt(`${repo}:4.13.1`, await release('4.13.1', OLD_TAGS));
    const newDigest = await pushBuilt(`${repo}:4.13.2`, await release('4.13.2', NEW_TAGS));
    const r = await osimage(['release', 'diff', '--insecure', `${repo}:4.13.1`, `${repo}:4.13.2`, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.to).toEqual({ image: `${repo}:4.13.2`, name: '4.13.2', digest: newDigest });
    expect(j.machineOs).toEqual({ from: '413.92.202305231734-0', to: '413.92.202306070210-0', changed: true });
    expect(j.images.added.map((a: { name: string }) => a.name)).toEqual(['new-thing']);
    const mixed = await osimage(['release', 'diff', '--insecure', oldRef, `${repo}@${newDigest}`]);
    expect(mixed.exitCode).toBe(0);
    expect(mixed.stdout).toMatch(/^Machine OS: 413\.92\.202305231734-0 -> 413\.92\.202306070210-0$/m);
  });
});
