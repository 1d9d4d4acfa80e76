/** payload write on the MCO folders of every generation (hack/sample/generations) and the rules of its generation. */
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { parseImageStream } from '../../src/payload/image-stream.js';
import { writePayload, type PayloadWriteOptions } from '../../src/payload/write.js';
import { BASE, BASE_LIST, buildSource, EXT, EXT_LIST, generation, OSC } from './generations-helpers.js';
import { checkOsImageFlags } from '../../src/commands/os-image-flags.js';
import { changedLines, cleanup, read, snapshot, U, W, Z } from './helpers.js';
import { osPullspec } from '../../src/payload/pullspec.js';
import { renameFault } from '../helpers/rename-fault.js';

// A crash before a rename, without a hook in src/ (see the helper).
vi.mock('node:fs/promises', async (real) => (await import('../helpers/rename-fault.js')).withRenameFault(real));

afterEach(async () => {
  delete renameFault.beforeRename;
  await cleanup();
});

const P = 'placeholder.url.oc.will.replace.this.org/placeholdernamespace';
const CM80 = '0000_80_machine-config-operator_05_osimageurl.yaml';
const CM80_2024 = '0000_80_machine-config_05_osimageurl.yaml';
const ALL = buildSource('413.92.202305231734-0', ['oscontainer', 'base-oscontainer', 'extensions-container']);
const LAYERED = buildSource('418.94.202605101521-0', ['base-oscontainer', 'extensions-container']);

const tagsOf = async (dir: string) =>
  Object.fromEntries(parseImageStream(await read(join(dir, 'image-references')), 'x').spec.tags.map((t) => [t.name, t.from?.name]));
const dataOf = async (dir: string, file: string) => parse(await read(join(dir, file))).data as Record<string, string>;

/** Write, then check a second run writes nothing. */
async function writeTwice(opts: PayloadWriteOptions) {
  const r = await writePayload(opts);
  const files = await snapshot(opts.dir);
  renameFault.beforeRename = (p) => {
    throw new Error(`unexpected write of ${p}`);
  };
  const again = await writePayload(opts);
  delete renameFault.beforeRename;
  expect(again.changed).toBe(false);
  expect(await snapshot(opts.dir)).toEqual(files);
  return r;
}

describe('legacy folders: machine-os-content and osImageURL, as in 2019', () => {
  it('2019-04 on: updates the 0000_80 ConfigMap and creates no second 0000_30 one', async () => {
    const dir = await generation('2019-04-0000_80');
    const names = await readdir(dir);
    const r = await writeTwice({ dir, osImage: U });
    expect(r.generation).toBe('legacy');
    expect(r.configMap!.path).toBe(join(dir, CM80));
    expect((await readdir(dir)).sort()).toEqual(names.sort());
    expect((await tagsOf(dir))['machine-os-content']).toBe(U);
    expect((await dataOf(dir, CM80)).osImageURL).toBe(U);
  });

  it('2019-01: the build oscontainer into both files, one line each', async () => {
    const dir = await generation('2019-01-0000_30');
    const cm = '0000_30_machine-config-operator_05_osimageurl.yaml';
    const [refs, cmText] = [await read(join(dir, 'image-references')), await read(join(dir, cm))];
    const r = await writePayload({ dir, build: async () => ALL });
    expect(r.tags.map((t) => [t.tag, t.source])).toEqual([['machine-os-content', 'build']]);
    expect(changedLines(refs, await read(join(dir, 'image-references')))).toHaveLength(1);
    expect(changedLines(cmText, await read(join(dir, cm)))).toHaveLength(1);
    expect((await dataOf(dir, cm)).osImageURL).toBe(OSC);
  });

  it('2020-01: releaseVersion and the include.release annotations stay', async () => {
    const dir = await generation('2020-01-releaseVersion');
    await writePayload({ dir, osImage: U });
    const doc = parse(await read(join(dir, CM80)));
    expect(doc.data).toEqual({ releaseVersion: '0.0.1-snapshot', osImageURL: U });
    expect(Object.keys(doc.metadata.annotations)).toHaveLength(3);
  });

  it('--extensions-image has no place in a legacy folder', async () => {
    const dir = await generation('2019-04-0000_80');
    await expect(writePayload({ dir, osImage: U, extensionsImage: W })).rejects.toThrow(/--extensions-image: .* has no extensions tag/);
  });
});

describe('mixed 4.12-4.14 folders: one build feeds all three tags and keys', () => {
  for (const [name, base] of [
    ['4.12-mixed', 'rhel-coreos-8'],
    ['4.13-mixed', 'rhel-coreos'],
  ] as const) {
    it(`${name}: oscontainer into machine-os-content/osImageURL, base and extensions into ${base}(-extensions) and the base keys`, async () => {
      const dir = await generation(name);
      const [refs, cmText] = [await read(join(dir, 'image-references')), await read(join(dir, CM80))];
      const r = await writeTwice({ dir, build: async () => ALL });
      expect(r.generation).toBe('mixed');
      const tags = await tagsOf(dir);
      expect([tags['machine-os-content'], tags[base], tags[`${base}-extensions`]]).toEqual([OSC, BASE, EXT]);
      expect(await dataOf(dir, CM80)).toEqual({
        releaseVersion: '0.0.1-snapshot',
        baseOSContainerImage: BASE,
        baseOSExtensionsContainerImage: EXT,
        osImageURL: OSC,
      });
      // placeholders replaced by digest, nothing else touched
      expect(changedLines(refs, await read(join(dir, 'image-references')))).toEqual([
        [`      name: ${P}:machine-os-content`, `      name: ${OSC}`],
        [`      name: ${P}:${base}`, `      name: ${BASE}`],
        [`      name: ${P}:${base}-extensions`, `      name: ${EXT}`],
      ]);
      expect(changedLines(cmText, await read(join(dir, CM80)))).toHaveLength(3);
      expect(r.warnings).toEqual([]);
    });
  }

  it('explicit values replace what the build gives, one by one', async () => {
    const dir = await generation('4.13-mixed');
    const r = await writePayload({ dir, legacyOsImage: U, build: async () => ALL });
    expect(r.tags.map((t) => [t.tag, t.source])).toEqual([
      ['rhel-coreos', 'build'],
      ['rhel-coreos-extensions', 'build'],
      ['machine-os-content', 'flag'],
    ]);
    expect((await dataOf(dir, CM80)).osImageURL).toBe(U);
    expect((await dataOf(dir, CM80)).baseOSContainerImage).toBe(BASE);
  });

  it('all three given: no build is resolved', async () => {
    const dir = await generation('4.12-mixed');
    const r = await writePayload({ dir, osImage: U, extensionsImage: W, legacyOsImage: Z });
    expect(r.build).toBeUndefined();
    expect(await tagsOf(dir)).toMatchObject({ 'rhel-coreos-8': U, 'rhel-coreos-8-extensions': W, 'machine-os-content': Z });
  });
});

describe('the MCO of mid-2022: baseOperatingSystemContainer keys', () => {
  it('writes the keys the folder has, under their 2022-08 names, and adds none', async () => {
    const dir = await generation('2022-08-baseOperatingSystem');
    const [refs, cmText] = [await read(join(dir, 'image-references')), await read(join(dir, CM80))];
    const r = await writeTwice({ dir, build: async () => ALL });
    expect(r.generation).toBe('mixed');
    expect(await dataOf(dir, CM80)).toEqual({
      releaseVersion: '0.0.1-snapshot',
      baseOperatingSystemContainer: BASE,
      baseOperatingSystemExtensionsContainer: EXT,
      osImageURL: OSC,
    });
    // Only the three values changed, each on its own line, unfolded.
    expect(changedLines(cmText, await read(join(dir, CM80)))).toEqual([
      [`  baseOperatingSystemContainer: "${P}:rhel-coreos-8"`, `  baseOperatingSystemContainer: "${BASE}"`],
      [`  baseOperatingSystemExtensionsContainer: "${P}:rhel-coreos-8-extensions"`, `  baseOperatingSystemExtensionsContainer: "${EXT}"`],
      [`  osImageURL: "${P}:machine-os-content"`, `  osImageURL: "${OSC}"`],
    ]);
    expect(changedLines(refs, await read(join(dir, 'image-references')))).toHaveLength(3);
    expect(r.warnings).toEqual([]);
  });

  it('an extensions tag and key still commented out stay commented, and the run says how to add them', async () => {
    const dir = await generation('2022-08-extensions-commented');
    const [refs, cmText] = [await read(join(dir, 'image-references')), await read(join(dir, CM80))];
    const r = await writeTwice({ dir, build: async () => ALL });
    expect(r.tags.map((t) => t.tag)).toEqual(['rhel-coreos-8', 'machine-os-content']);
    expect(r.keys.map((k) => k.key)).toEqual(['baseOperatingSystemContainer', 'osImageURL']);
    expect(r.warnings.map((w) => w.message)).toEqual([
      `${join(dir, 'image-references')}: declares no rhel-coreos-8-extensions tag, so none is written (pass --add-missing to add it)`,
    ]);
    const after = await read(join(dir, 'image-references'));
    expect(changedLines(refs, after)).toHaveLength(2);
    expect(after).toContain(`  #     name: ${P}:rhel-coreos-8-extensions\n`);
    expect(changedLines(cmText, await read(join(dir, CM80)))).toHaveLength(2);
    expect(await read(join(dir, CM80))).toContain(`  #baseOperatingSystemExtensionsContainer: "${P}:rhel-coreos-8-extensions"\n`);
  });

  it('--extensions-image there is an error naming the missing tag and --add-missing; with it, tag and key are added', async () => {
    const dir = await generation('2022-08-extensions-commented');
    const before = await snapshot(dir);
    await expect(writePayload({ dir, osImage: U, extensionsImage: W, legacyOsImage: Z })).rejects.toThrow(
      /--extensions-image: .*image-references declares no rhel-coreos-8-extensions tag .*; pass --add-missing to add it/,
    );
    expect(await snapshot(dir)).toEqual(before);
    const r = await writePayload({ dir, osImage: U, extensionsImage: W, legacyOsImage: Z, addMissing: true });
    expect(r.warnings).toEqual([]);
    expect(await tagsOf(dir)).toMatchObject({ 'rhel-coreos-8': U, 'rhel-coreos-8-extensions': W, 'machine-os-content': Z });
    expect(await dataOf(dir, CM80)).toEqual({
      releaseVersion: '0.0.1-snapshot',
      baseOperatingSystemContainer: U,
      osImageURL: Z,
      baseOperatingSystemExtensionsContainer: W,
    });
    expect(await read(join(dir, CM80))).toContain(`  #baseOperatingSystemExtensionsContainer: "${P}:rhel-coreos-8-extensions"\n`);
  });
});

describe('no edit folds a pull spec', () => {
  // 300 characters: a repository path near the 255 the reference grammar allows, then the digest.
  const LONG = `quay.io/${'openshift-release-dev-mirror/'.repeat(7)}ocp-v4.0-art-devs@sha256:${'e'.repeat(64)}`;

  it('a 300-character pull spec added to a ConfigMap missing its key stays one line, equal to its tag', async () => {
    expect(LONG).toHaveLength(300);
    const dir = await generation('4.12-mixed');
    const cmPath = join(dir, CM80);
    await writePayload({ dir, osImage: U, extensionsImage: W, legacyOsImage: Z });
    const cmText = await read(cmPath);
    const cut = cmText.replace(/ {2}# The extensions[^\n]*\n {2}baseOSExtensionsContainerImage: [^\n]*\n/, '');
    expect(cut).not.toBe(cmText);
    await writeFile(cmPath, cut);
    await writePayload({ dir, osImage: U, extensionsImage: osPullspec(LONG), legacyOsImage: Z, addMissing: true });
    const after = await read(cmPath);
    // Every line that was there is still there, unchanged and in order; one line was added.
    expect(after.split('\n').filter((l) => !cut.split('\n').includes(l))).toEqual([`  baseOSExtensionsContainerImage: "${LONG}"`]);
    expect((await dataOf(dir, CM80)).baseOSExtensionsContainerImage).toBe(LONG);
    // oc substitutes by text: replacing the tag's from.name in both files must change both values alike.
    const refs = await read(join(dir, 'image-references'));
    expect(refs).toContain(`name: ${LONG}\n`);
    const NEXT = `quay.io/x/y@sha256:${'f'.repeat(64)}`;
    expect(parse(after.split(LONG).join(NEXT)).data.baseOSExtensionsContainerImage).toBe(NEXT);
    expect(
      parseImageStream(refs.split(LONG).join(NEXT), 'x').spec.tags.find((t) => t.name === 'rhel-coreos-8-extensions')!.from!.name,
    ).toBe(NEXT);
  });

  it('a long value set in place stays on its line, whatever its length', async () => {
    const dir = await generation('2022-08-baseOperatingSystem');
    const cmText = await read(join(dir, CM80));
    await writePayload({ dir, osImage: osPullspec(LONG), extensionsImage: W, legacyOsImage: Z });
    const lines = changedLines(cmText, await read(join(dir, CM80)));
    expect(lines[0]![1]).toBe(`  baseOperatingSystemContainer: "${LONG}"`);
    expect(lines).toHaveLength(3);
  });
});

describe('layered folders (2023-09 on)', () => {
  it('4.15: rhel-coreos and its extensions from base-oscontainer/extensions-container; osImageURL "" stays', async () => {
    const dir = await generation('4.15-layered');
    const r = await writeTwice({ dir, build: async () => LAYERED });
    expect(r.generation).toBe('layered');
    const tags = await tagsOf(dir);
    expect([tags['rhel-coreos'], tags['rhel-coreos-extensions'], tags['machine-os-content']]).toEqual([BASE, EXT, undefined]);
    expect(await dataOf(dir, CM80)).toEqual({
      releaseVersion: '0.0.1-snapshot',
      baseOSContainerImage: BASE,
      baseOSExtensionsContainerImage: EXT,
      osImageURL: '',
    });
    expect(r.warnings).toEqual([]);
  });

  it('--manifest-list writes the manifest list digests', async () => {
    const dir = await generation('4.15-layered');
    await writePayload({ dir, build: async () => ({ ...LAYERED, manifestList: true }) });
    expect(await dataOf(dir, CM80)).toMatchObject({ baseOSContainerImage: BASE_LIST, baseOSExtensionsContainerImage: EXT_LIST });
  });

  it('a build without extensions-container is an error naming its meta.json and the flag; nothing is written', async () => {
    const dir = await generation('4.15-layered');
    const before = await snapshot(dir);
    const b = buildSource('418.94.202605101521-0', ['base-oscontainer']);
    await expect(writePayload({ dir, build: async () => b })).rejects.toThrow(
      'RHCOS build 418.94.202605101521-0 has no "extensions-container" in file:///browser/418.94.202605101521-0/meta.json: pass --extensions-image',
    );
    expect(await snapshot(dir)).toEqual(before);
  });

  it('--legacy-os-image has nowhere to go', async () => {
    const dir = await generation('4.15-layered');
    await expect(writePayload({ dir, legacyOsImage: U, build: async () => LAYERED })).rejects.toThrow(/has no machine-os-content tag/);
  });
});

describe('OS streams (4.21 on)', () => {
  it('--os-stream rhel-10 writes only rhel-coreos-10(-extensions); the ConfigMap is left alone', async () => {
    const dir = await generation('4.21-two-streams');
    const cm = await read(join(dir, CM80_2024));
    const before = await tagsOf(dir);
    const r = await writeTwice({
      dir,
      stream: 'rhel-10',
      build: async () => buildSource('10.2.20260217-0', ['base-oscontainer', 'extensions-container']),
    });
    expect(r.configMap).toBeUndefined();
    expect(await read(join(dir, CM80_2024))).toBe(cm);
    expect(await tagsOf(dir)).toEqual({ ...before, 'rhel-coreos-10': BASE, 'rhel-coreos-10-extensions': EXT });
  });

  it('the default stream leaves the rhel-10 tags alone', async () => {
    const dir = await generation('4.21-two-streams');
    await writePayload({ dir, osImage: U, extensionsImage: W });
    expect(await tagsOf(dir)).toMatchObject({ 'rhel-coreos': U, 'rhel-coreos-extensions': W, 'rhel-coreos-10': `${P}:rhel10-coreos` });
    expect(await dataOf(dir, CM80_2024)).toMatchObject({ baseOSContainerImage: U, baseOSExtensionsContainerImage: W, osImageURL: '' });
  });

  it('a stream the folder does not declare, or a name that is no stream, is refused', async () => {
    const dir = await generation('4.21-two-streams');
    await expect(writePayload({ dir, stream: 'rhel-11', osImage: U, extensionsImage: W })).rejects.toThrow(
      /has no tag "rhel-coreos-11" or "rhel-coreos-11-extensions" for OS stream rhel-11 \(streams it declares besides the default: rhel-10\)/,
    );
    await expect(writePayload({ dir, stream: 'centos', osImage: U })).rejects.toThrow(/unknown OS stream "centos"/);
  });
});

describe('node images (4.19+)', () => {
  it('--node-image needs both images and writes them without a build', async () => {
    const dir = await generation('4.19-node-image');
    // Both images are required where they are given (one rule, at the edge).
    expect(() => checkOsImageFlags({ nodeImage: true, osImage: U })).toThrow(/--node-image needs --os-image and --extensions-image/);
    const r = await writePayload({ dir, nodeImage: true, osImage: U, extensionsImage: W });
    expect(r.build).toBeUndefined();
    expect(await dataOf(dir, CM80_2024)).toMatchObject({ baseOSContainerImage: U, baseOSExtensionsContainerImage: W });
  });

  it('a folder whose ConfigMap says release 4.19 or later refuses the release browser base image', async () => {
    const dir = await generation('4.19-node-image');
    const file = join(dir, CM80_2024);
    await writeFile(file, (await read(file)).replace('releaseVersion: 0.0.1-snapshot', 'releaseVersion: 4.19.2'));
    const before = await snapshot(dir);
    await expect(writePayload({ dir, build: async () => LAYERED })).rejects.toThrow(
      /says release 4\.19\.2: from 4\.19 the payload's rhel-coreos is a node image .* pass --node-image --os-image/,
    );
    expect(await snapshot(dir)).toEqual(before);
    await writeFile(file, (await read(file)).replace('releaseVersion: 4.19.2', 'releaseVersion: 4.18.9'));
    await expect(writePayload({ dir, build: async () => LAYERED })).resolves.toMatchObject({ build: '418.94.202605101521-0' });
  });

  it('--node-image in a folder with machine-os-content is refused', async () => {
    const dir = await generation('4.13-mixed');
    await expect(writePayload({ dir, nodeImage: true, osImage: U, extensionsImage: W, legacyOsImage: Z })).rejects.toThrow(
      /--node-image: .* has machine-os-content/,
    );
  });
});

describe('the ConfigMap is found by kind, name and namespace', () => {
  it('two of them is an error naming both files; nothing is written', async () => {
    const dir = await generation('4.15-layered');
    const text = await read(join(dir, CM80));
    await writeFile(join(dir, '0000_30_machine-config-operator_05_osimageurl.yaml'), text);
    const before = await snapshot(dir);
    await expect(writePayload({ dir, build: async () => LAYERED })).rejects.toThrow(
      new RegExp(`holds 2 machine-config-osimageurl ConfigMaps: ${dir}/0000_30_machine-config-operator_05_osimageurl.yaml, ${dir}/${CM80}`),
    );
    expect(await snapshot(dir)).toEqual(before);
  });

  it('--configmap-file naming another file while one exists is an error naming it; naming the same file is fine', async () => {
    const dir = await generation('2019-04-0000_80');
    await expect(writePayload({ dir, osImage: U, configMapFile: 'x.yaml' })).rejects.toThrow(
      `--configmap-file x.yaml names another file, but ${dir}/${CM80} already holds`,
    );
    await expect(writePayload({ dir, osImage: U, configMapFile: CM80 })).resolves.toMatchObject({ changed: true });
  });

  it('another namespace is not it; a ConfigMap in a multi-document file is edited in place', async () => {
    const dir = await generation('4.15-layered');
    const text = await read(join(dir, CM80));
    await rm(join(dir, CM80));
    const other = text.replace('namespace: openshift-machine-config-operator', 'namespace: default');
    await writeFile(join(dir, '0000_80_all.yaml'), `${other}---\n${text}`);
    const r = await writePayload({ dir, build: async () => LAYERED });
    expect(r.configMap!.path).toBe(join(dir, '0000_80_all.yaml'));
    const after = await read(join(dir, '0000_80_all.yaml'));
    expect(after.startsWith(other)).toBe(true);
    expect(changedLines(`${other}---\n${text}`, after)).toHaveLength(2);
    expect((await readdir(dir)).sort()).toEqual(['0000_80_all.yaml', 'image-references']);
  });
});

describe('ConfigMap keys belong to the tag whose from.name is the same text', () => {
  it('a key follows the tag it names, whatever its name', async () => {
    const dir = await generation('4.13-mixed');
    const file = join(dir, CM80);
    // osImageURL names the rhel-coreos placeholder: it is rhel-coreos's, not machine-os-content's
    await writeFile(file, (await read(file)).replace(`osImageURL: "${P}:machine-os-content"`, `osImageURL: "${P}:rhel-coreos"`));
    const r = await writePayload({ dir, build: async () => ALL });
    expect((await dataOf(dir, CM80)).osImageURL).toBe(BASE);
    expect(r.keys.find((k) => k.key === 'osImageURL')!.tag).toBe('rhel-coreos');
    expect(r.warnings).toEqual([]);
  });

  it('a key matching no tag falls back to the pairing, with a warning', async () => {
    const dir = await generation('4.13-mixed');
    const file = join(dir, CM80);
    await writeFile(file, (await read(file)).replace(`"${P}:rhel-coreos-extensions"`, `"${W}"`));
    const r = await writePayload({ dir, build: async () => ALL });
    expect((await dataOf(dir, CM80)).baseOSExtensionsContainerImage).toBe(EXT);
    expect(r.warnings.map((w) => w.code)).toEqual(['osimageurl-disagreed']);
    expect(r.warnings[0]!.message).toContain(`data.baseOSExtensionsContainerImage (${W}) matches no tag's from.name`);
  });
});

describe('machine-os= build versions of an input image stream', () => {
  const withVersions = async (id: string) => {
    const dir = await generation('4.15-layered');
    const file = join(dir, 'image-references');
    const text = (await read(file)).replace(
      '  - name: rhel-coreos\n',
      `  - name: rhel-coreos\n    annotations:\n      io.openshift.build.versions: "kernel=5.14.0,machine-os=${id}"\n`,
    );
    await writeFile(file, text);
    return { dir, file, text };
  };

  it('follow the build written, changing only that id', async () => {
    const { dir, file, text } = await withVersions('416.94.202401010000-0');
    const r = await writeTwice({ dir, build: async () => LAYERED });
    expect(r.buildVersions).toEqual([{ tag: 'rhel-coreos', previous: '416.94.202401010000-0', value: '418.94.202605101521-0' }]);
    const diff = changedLines(text, await read(file));
    expect(diff[0]).toEqual([
      '      io.openshift.build.versions: "kernel=5.14.0,machine-os=416.94.202401010000-0"',
      '      io.openshift.build.versions: "kernel=5.14.0,machine-os=418.94.202605101521-0"',
    ]);
    expect(diff).toHaveLength(3);
  });

  it('with --os-image: --build-id, or a refusal naming the stale id (never deleted)', async () => {
    const { dir, file } = await withVersions('416.94.202401010000-0');
    const before = await snapshot(dir);
    await expect(writePayload({ dir, osImage: U, extensionsImage: W })).rejects.toThrow(
      /tag "rhel-coreos" carries io.openshift.build.versions machine-os=416.94.202401010000-0, which would be stale .* pass --build-id/,
    );
    expect(await snapshot(dir)).toEqual(before);
    await writePayload({ dir, osImage: U, extensionsImage: W, buildId: '4.21.9.6.202602041851-0' });
    expect(parseImageStream(await read(file), 'x').spec.tags.find((t) => t.name === 'rhel-coreos')!.annotations).toEqual({
      'io.openshift.build.versions': 'kernel=5.14.0,machine-os=4.21.9.6.202602041851-0',
    });
  });
});

it('every file changes or none: a failed ConfigMap rename puts image-references back', async () => {
  const dir = await generation('4.13-mixed');
  const before = await snapshot(dir);
  renameFault.beforeRename = (p) => {
    if (p.endsWith(CM80)) throw new Error('simulated crash');
  };
  await expect(writePayload({ dir, build: async () => ALL })).rejects.toThrow(/simulated crash/);
  expect(await snapshot(dir)).toEqual(before);
});
