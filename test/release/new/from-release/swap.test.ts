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
    run = await osimage([...base, '--from-release', r.release, '--base-url', r.browser, '--channel', 'rhcos-test', '--to-image', out()]);
    const dir = join(tmp.dir, `swap-${gen}`);
    const d = await osimage([...base, '--from-release', r.release, '--base-url', r.browser, '--channel', 'rhcos-test', '--to-dir', dir]);
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
    const full = await osimage([
      ...base,
      '--from-release',
      r.release,
      '--base-url',
      r.browser,
      '--channel',
      'rhcos-test',
      '--full-rebuild',
      '--to-dir',
      dir,
    ]);
    expect(full.exitCode, full.stderr).toBe(0);
    expect(await readDir(dir)).toEqual(files);
    expect(run.stderr).toMatch(/Kept the payload files of 2 of 3 operators/);
  });
});
