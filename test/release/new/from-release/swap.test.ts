/**
 * `release new --from-release` against the real distribution registry: the OS swap from an RHCOS build, for
 * every generation of the OS image, read back with release info and verify; oc-style overrides; the fast path
 * (the release's own files kept where they cannot change) against the full rebuild; refusals that push nothing.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { osimage } from '../../../helpers/cli.js';
import { pushComponentRelease, type ComponentRelease, type Generation } from '../../../helpers/component-release.js';
import { tempDir, type Temp } from '../../../helpers/oci-builder.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../../../helpers/registry.js';

let reg: TestRegistry | undefined;
let tmp: Temp;
const rel: Partial<Record<Generation, ComponentRelease>> = {};
printLogsOnFailure(() => reg);

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  tmp = await tempDir('osimage-from-release-');
  for (const g of ['legacy', 'mixed', 'layered', 'two-stream'] as const) rel[g] = await pushComponentRelease(reg.host, tmp.dir, g);
}, 120_000);
afterAll(async () => {
  await reg?.stop();
  await tmp?.cleanup();
});

const base = ['release', 'new', '--insecure', '--no-cache'];

/** `release new --from-release` of r's release with the OS taken from r's release browser (channel rhcos-test). */
const swap = (r: ComponentRelease, ...extra: string[]) =>
  osimage([...base, '--from-release', r.release, '--base-url', r.browser, '--channel', 'rhcos-test', ...extra]);

async function readDir(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of (await readdir(dir)).sort()) out[f] = await readFile(join(dir, f), 'utf8');
  return out;
}

interface Tag {
  name: string;
  annotations: Record<string, string>;
  from: { name: string };
}
const tagsOf = (files: Record<string, string>) =>
  new Map((JSON.parse(files['image-references']!) as { spec: { tags: Tag[] } }).spec.tags.map((t) => [t.name, t]));

async function tagExists(ref: string): Promise<boolean> {
  const [repo, tag] = ref.slice(reg!.host.length + 1).split(':');
  const res = await fetch(`${reg!.url}/v2/${repo}/manifests/${tag}`, {
    method: 'HEAD',
    headers: { accept: 'application/vnd.oci.image.manifest.v1+json' },
  });
  return res.status === 200;
}

describe.each(['legacy', 'mixed', 'layered'] as const)('the OS swap of a %s release from a release browser build', (gen) => {
  let r: ComponentRelease;
  let files: Record<string, string>;
  let run: Awaited<ReturnType<typeof osimage>>;
  const out = () => `${reg!.host}/ocp-${gen}/release:swapped`;
  beforeAll(async () => {
    r = rel[gen]!;
    run = await swap(r, '--to-image', out());
    const dir = join(tmp.dir, `swap-${gen}`);
    const d = await swap(r, '--to-dir', dir);
    expect(d.exitCode).toBe(0);
    files = await readDir(dir);
  });

  it('sets every OS tag of the generation from the build, as overrides with the build as machine-os', () => {
    expect(run.exitCode, run.stderr).toBe(0);
    const tags = tagsOf(files);
    for (const [tag, pullspec] of Object.entries(r.newImages)) {
      const t = tags.get(tag)!;
      expect(t.from.name).toBe(pullspec);
      expect(t.annotations['io.openshift.release.override']).toBe('true');
      if (!tag.endsWith('-extensions')) {
        expect(t.annotations['io.openshift.build.versions']).toBe(`machine-os=${r.builds.new}`);
        expect(t.annotations['io.openshift.build.version-display-names']).toBe('machine-os=Red Hat Enterprise Linux CoreOS');
      }
    }
    // No OS tag is left with the old build.
    for (const t of tags.values()) expect(t.annotations['io.openshift.build.versions'] ?? '').not.toContain(r.builds.old);
  });

  it('writes the new pullspecs into the osimageurl ConfigMap and says what changed on stderr', () => {
    const cm = Object.entries(files).find(([n]) => n.includes('osimageurl'))![1];
    for (const [tag, pullspec] of Object.entries(r.newImages)) {
      if (tag === 'machine-os-content' || !tag.includes('-8') || gen !== 'legacy') expect(cm).toContain(pullspec);
    }
    expect(cm).not.toContain('placeholder');
    expect(cm).toContain(`releaseVersion: ${r.version}`);
    const main = Object.keys(r.newImages)[0]!;
    expect(run.stderr).toContain(`info: ${main}: ${r.builds.old} → ${r.builds.new}`);
    expect(run.stdout).toMatch(new RegExp(`^sha256:[0-9a-f]{64} ${r.version.replace(/\./g, '\\.')} 1970-01-01T00:00:00Z$`));
  });

  it('release info shows the new machine-os, and verify says consistent', async () => {
    const info = await osimage(['release', 'info', '--insecure', '--no-cache', out()]);
    expect(info.stdout).toMatch(new RegExp(`machine-os +${r.builds.new}`));
    const v = await osimage(['verify', '--insecure', '--no-cache', '--base-url', r.browser, '--channel', 'rhcos-test', '--release', out()]);
    expect(v.stdout + v.stderr).toContain('consistent');
    expect(v.exitCode).toBe(0);
  });

  it('the fast path gives the full rebuild, byte for byte', async () => {
    const dir = join(tmp.dir, `full-${gen}`);
    const full = await swap(r, '--full-rebuild', '--to-dir', dir);
    expect(full.exitCode, full.stderr).toBe(0);
    expect(await readDir(dir)).toEqual(files);
    expect(run.stderr).toMatch(/Kept the payload files of 2 of 3 operators/);
  });
});

describe('two OS streams (4.21): node images', () => {
  const out = () => `${reg!.host}/ocp-two-stream/release`;
  it('refuses a build for the default stream, pushing nothing', async () => {
    const r = rel['two-stream']!;
    const run = await swap(r, '--to-image', `${out()}:refused`);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('from 4.19 its rhel-coreos is a node image');
    expect(await tagExists(`${out()}:refused`)).toBe(false);
  });

  it('sets each stream from its node images, with per-stream versions', async () => {
    const r = rel['two-stream']!;
    const node = r.newImages['rhel-coreos']!;
    const ext = r.newImages['rhel-coreos-extensions']!;
    const a = await osimage([
      ...base,
      '--from-release',
      r.release,
      '--node-image',
      '--os-image',
      node,
      '--extensions-image',
      ext,
      '--build-id',
      '9.6.20260204-0',
      '--to-image',
      `${out()}:default`,
    ]);
    expect(a.exitCode, a.stderr).toBe(0);
    const one = await osimage(['release', 'info', '--insecure', '--no-cache', `${out()}:default`]);
    expect(one.stdout).toMatch(/machine-os +9\.6\.20260204-0 +Red Hat Enterprise Linux CoreOS/);
    expect(one.stdout).toMatch(/machine-os \(rhel-10\) +421\.96\.202601010000-0/);
    const b = await osimage([
      ...base,
      '--from-release',
      `${out()}:default`,
      '--os-stream',
      'rhel-10',
      '--node-image',
      '--os-image',
      r.newImages['rhel-coreos-10']!,
      '--extensions-image',
      r.newImages['rhel-coreos-10-extensions']!,
      '--build-id',
      '10.2.20260217-0',
      '--to-image',
      `${out()}:both`,
    ]);
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stderr).toContain('info: rhel-coreos-10: 421.96.202601010000-0 → 10.2.20260217-0');
    const info = await osimage(['release', 'info', '--insecure', '--no-cache', `${out()}:both`]);
    // Rebuilt again, rhel-coreos takes its image's own label, as in oc.
    expect(info.stdout).toMatch(/machine-os +421\.96\.202602020000-0/);
    expect(info.stdout).toMatch(/machine-os \(rhel-10\) +10\.2\.20260217-0/);
  });
});

describe('oc-style overrides', () => {
  it('an OS image without a versions label where the MCO names machine-os fails as oc does', async () => {
    const r = rel.layered!;
    const run = await osimage([
      ...base,
      '--from-release',
      r.release,
      `rhel-coreos=${r.unlabelled}`,
      '--to-dir',
      join(tmp.dir, 'unlabelled'),
    ]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr.split('\n').at(-1)).toBe('error: unable to create a release: unknown version reference "machine-os"');
  });

  it('an OS image without a versions label leaves the tag without versions; one with the label gives them', async () => {
    const r = rel.mixed!;
    const dir = join(tmp.dir, 'oc-style');
    const run = await osimage([
      ...base,
      '--from-release',
      r.release,
      `rhel-coreos-8=${r.unlabelled}`,
      `machine-os-content=${r.newImages['machine-os-content']}`,
      '--to-dir',
      dir,
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const tags = tagsOf(await readDir(dir));
    expect(tags.get('machine-os-content')!.annotations['io.openshift.build.versions']).toBe(`machine-os=${r.builds.new}`);
    expect(tags.get('rhel-coreos-8')!.annotations).toEqual({
      'io.openshift.build.commit.id': '',
      'io.openshift.build.commit.ref': '',
      'io.openshift.build.source-location': '',
      'io.openshift.release.override': 'true',
    });
    expect(tags.get('cli')!.annotations['io.openshift.build.versions']).toBe('kubectl=1.29.1');
    const refs = JSON.parse((await readDir(dir))['image-references']!) as { metadata: { annotations: Record<string, string> } };
    expect(refs.metadata.annotations['release.openshift.io/from-release']).toBe(r.release);
  });

  it('a mapping and an OS setting for one tag is a usage error naming both, before anything is read', async () => {
    const r = rel.layered!;
    const run = await osimage([
      ...base,
      '--from-release',
      r.release,
      `rhel-coreos=${r.unlabelled}`,
      '--base-url',
      r.browser,
      '--channel',
      'rhcos-test',
      '--to-image',
      `${reg!.host}/x/y:z`,
    ]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`rhel-coreos=${r.unlabelled} and the OS settings both set tag "rhel-coreos"`);
    expect(await tagExists(`${reg!.host}/x/y:z`)).toBe(false);
  });

  it('a build without a container the generation needs is refused, naming the meta.json field', async () => {
    const r = rel.mixed!;
    const { mkdir, writeFile } = await import('node:fs/promises');
    const browser = join(tmp.dir, 'broken-browser');
    await mkdir(join(browser, 'c', '413.94.202403030000-0', 'x86_64'), { recursive: true });
    const meta = JSON.parse(await readFile(join(r.browser, 'rhcos-test', r.builds.new, 'x86_64', 'meta.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    delete meta.oscontainer;
    meta.buildid = '413.94.202403030000-0';
    await writeFile(join(browser, 'c', '413.94.202403030000-0', 'x86_64', 'meta.json'), JSON.stringify(meta));
    await writeFile(
      join(browser, 'c', 'builds.json'),
      JSON.stringify({ 'schema-version': '1.0.0', builds: [{ id: '413.94.202403030000-0', arches: ['x86_64'] }] }),
    );
    const run = await osimage([
      ...base,
      '--from-release',
      r.release,
      '--base-url',
      browser,
      '--channel',
      'c',
      '--to-image',
      `${reg!.host}/x/broken:z`,
    ]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/RHCOS build 413\.94\.202403030000-0 has no "oscontainer" in .*meta\.json: pass --legacy-os-image/);
    expect(await tagExists(`${reg!.host}/x/broken:z`)).toBe(false);
  });
});

describe('no override: the canonical rebuild', () => {
  it('gives the input payload files and, for a release osimage built, the same digest', async () => {
    const r = rel.layered!;
    const run = await osimage([...base, '--from-release', r.release]);
    expect(run.exitCode, run.stderr).toBe(0);
    const info = await osimage(['release', 'info', '--insecure', '--no-cache', '-o', 'digest', r.release]);
    const digest = (await osimage(['release', 'info', '--insecure', '--no-cache', r.release])).stdout.match(/Digest: +(\S+)/)![1];
    expect(info.exitCode).toBe(0);
    expect(run.stderr).toContain(`info: Release ${digest} built from 7 images`);
    expect(run.stdout).toBe(`${digest} ${r.version} 1970-01-01T00:00:00Z`);
  });
});

describe('-o json and the fast path falling back', () => {
  it('-o json prints the ImageStream with the overrides and reads no component', async () => {
    const r = rel.layered!;
    const run = await osimage([...base, '--from-release', r.release, `rhel-coreos=${r.unlabelled}`, '-o', 'json']);
    expect(run.exitCode, run.stderr).toBe(0);
    const is = JSON.parse(run.stdout) as { spec: { tags: Tag[] } };
    expect(is.spec.tags.find((t) => t.name === 'rhel-coreos')!.from.name).toBe(r.unlabelled);
    expect(run.stderr).not.toContain('Loading');
  });

  it('a new name reads every operator, and still equals the full rebuild', async () => {
    const r = rel.legacy!;
    const a = join(tmp.dir, 'rename-fast');
    const b = join(tmp.dir, 'rename-full');
    const fast = await osimage([
      ...base,
      '--from-release',
      r.release,
      '--name',
      '4.11.1',
      `machine-os-content=${r.newImages['machine-os-content']}`,
      '--to-dir',
      a,
    ]);
    const full = await osimage([
      ...base,
      '--from-release',
      r.release,
      '--name',
      '4.11.1',
      `machine-os-content=${r.newImages['machine-os-content']}`,
      '--full-rebuild',
      '--to-dir',
      b,
    ]);
    expect(fast.exitCode, fast.stderr).toBe(0);
    expect(full.exitCode, full.stderr).toBe(0);
    expect(fast.stderr.match(/info: Loading/g)).toHaveLength(3);
    expect(await readDir(a)).toEqual(await readDir(b));
    expect((await readDir(a))['0000_00_cluster-version-operator_03_deployment.yaml']).toContain('release.openshift.io/version: 4.11.1');
  });

  it('--exclude of a referenced tag fails as oc does, in full', async () => {
    const r = rel.layered!;
    const run = await osimage([...base, '--from-release', r.release, '--exclude', 'tests', '--to-dir', join(tmp.dir, 'excl')]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      'error: unable to create a release: operator "cluster-foo-operator" contained an invalid image-references file: no input image tag named "tests"',
    );
  });
});

describe('the build pinned in a release script', () => {
  it('--pins FILE swaps to the pinned build, as verify --pins reads it', async () => {
    const r = rel.layered!;
    const { writeFile } = await import('node:fs/promises');
    const script = join(tmp.dir, 'release.sh');
    await writeFile(
      script,
      `#!/bin/bash\nexport RHCOS_BUILD_NAME="\${RHCOS_BUILD_NAME:-${r.builds.new}}"\nexport RHCOS_DEFAULT_CHANNEL="\${RHCOS_DEFAULT_CHANNEL:-rhcos-test}"\n`,
    );
    const dir = join(tmp.dir, 'pinned');
    const run = await osimage([...base, '--from-release', r.release, '--pins', script, '--base-url', r.browser, '--to-dir', dir]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(`info: rhel-coreos: ${r.builds.old} → ${r.builds.new}`);
    expect(tagsOf(await readDir(dir)).get('rhel-coreos')!.from.name).toBe(r.newImages['rhel-coreos']);
    const both = await osimage([...base, '--from-release', r.release, '--pins', script, '--build', r.builds.old, '--to-dir', dir]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--pins reads the build and channel from FILE');
  });

  it('a swap to the build the release ships says so', async () => {
    const r = rel.layered!;
    const run = await swap(r, '--build', r.builds.old, '--to-dir', join(tmp.dir, 'same'));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(`info: rhel-coreos: already ${r.builds.old}`);
  });
});
