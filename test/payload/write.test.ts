import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { parseImageStream, setImageReferenceTag } from '../../src/payload/image-stream.js';
import { setOsImageUrl } from '../../src/payload/osimageurl.js';
import { writePayload } from '../../src/payload/write.js';
import { osPullspec } from '../../src/payload/pullspec.js';
import { changedLines, CM_FILE, cleanup, FIXTURES, read, snapshot, tempDir, U, V, W } from './helpers.js';
import { renameFault } from '../helpers/rename-fault.js';

// A crash before a rename, without a hook in src/ (see the helper).
vi.mock('node:fs/promises', async (real) => (await import('../helpers/rename-fault.js')).withRenameFault(real));

afterEach(async () => {
  delete renameFault.beforeRename;
  await cleanup();
});

const SIX = [
  'machine-config-operator',
  'machine-config-controller',
  'machine-config-server',
  'machine-config-daemon',
  'etcd',
  'setup-etcd-environment',
];

describe('payload write: a new folder', () => {
  it('creates an ImageStream with one machine-os-content tag and the ConfigMap, byte-identical values', async () => {
    const dir = await tempDir();
    const r = await writePayload({ dir, osImage: U });
    expect(r.changed).toBe(true);
    expect(r.imageReferences.action).toBe('created');
    const is = parse(await read(join(dir, 'image-references')));
    expect(is).toEqual({
      kind: 'ImageStream',
      apiVersion: 'image.openshift.io/v1',
      spec: { tags: [{ name: 'machine-os-content', from: { kind: 'DockerImage', name: U } }] },
    });
    const cm = parse(await read(join(dir, CM_FILE)));
    expect(cm).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: 'openshift-machine-config-operator' },
    });
    expect(Object.keys(cm.data)).toEqual(['osImageURL']);
    expect(cm.data.osImageURL).toBe(is.spec.tags[0].from.name);
    expect(Buffer.from(cm.data.osImageURL).equals(Buffer.from(U))).toBe(true);
  });

  it('uses the configured ConfigMap file name', async () => {
    const dir = await tempDir();
    await writePayload({ dir, osImage: U, configMapFile: '0000_80_machine-config-operator_05_osimageurl.yaml' });
    expect((await readdir(dir)).sort()).toEqual(['0000_80_machine-config-operator_05_osimageurl.yaml', 'image-references']);
  });
});

describe('payload write: the MCO install/ folder of early 2019 (YAML with comments)', () => {
  it('replaces only the machine-os-content value and the ConfigMap value', async () => {
    const dir = await tempDir('mco-2019');
    const refsBefore = await read(join(dir, 'image-references'));
    const cmBefore = await read(join(dir, CM_FILE));
    const r = await writePayload({ dir, osImage: U });
    expect(r.imageReferences).toMatchObject({ action: 'updated', previous: V });
    expect(r.configMap).toMatchObject({ action: 'updated', previous: V });
    const refsAfter = await read(join(dir, 'image-references'));
    const cmAfter = await read(join(dir, CM_FILE));
    // every other byte stays: one line differs in each file
    expect(changedLines(refsBefore, refsAfter)).toEqual([[`      name: ${V}`, `      name: ${U}`]]);
    expect(changedLines(cmBefore, cmAfter)).toEqual([[`  osImageURL: "${V}"`, `  osImageURL: "${U}"`]]);
    expect(cmAfter).toContain('releaseVersion: 0.0.1-snapshot');
    const is = parseImageStream(refsAfter, 'image-references');
    expect(is.spec.tags.map((t) => t.name)).toEqual([...SIX, 'machine-os-content']);
    const before = parseImageStream(refsBefore, 'x');
    expect(is.spec.tags.slice(0, 6)).toEqual(before.spec.tags.slice(0, 6));
    expect(is.spec.tags.filter((t) => t.name === 'machine-os-content')).toHaveLength(1);
    expect(parse(cmAfter).data.osImageURL).toBe(is.spec.tags[6]!.from!.name);
  });

  it('a second run with the same input changes nothing and says so', async () => {
    const dir = await tempDir('mco-2019');
    await writePayload({ dir, osImage: U });
    const first = await snapshot(dir);
    renameFault.beforeRename = (p) => {
      throw new Error(`unexpected write of ${p}`);
    };
    const r = await writePayload({ dir, osImage: U });
    expect(r.changed).toBe(false);
    expect(r.imageReferences.action).toBe('unchanged');
    expect(r.configMap!.action).toBe('unchanged');
    expect(await snapshot(dir)).toEqual(first);
  });

  it('appends the tag, indented like the others, when the file lacks it', async () => {
    const dir = await tempDir('mco-2019');
    const full = await read(join(dir, 'image-references'));
    const cut = full.slice(0, full.indexOf('  # Special:'));
    await writeFile(join(dir, 'image-references'), cut);
    // The folder declares no OS tag: nothing is added unless asked.
    await expect(writePayload({ dir, osImage: U })).rejects.toThrow(
      /image-references: declares no OS image tag; pass --add-missing to add machine-os-content/,
    );
    expect(await read(join(dir, 'image-references'))).toBe(cut);
    const r = await writePayload({ dir, osImage: U, addMissing: true });
    expect(r.imageReferences.action).toBe('appended');
    const after = await read(join(dir, 'image-references'));
    expect(after.startsWith(cut)).toBe(true);
    expect(after.slice(cut.length)).toBe(`  - name: machine-os-content\n    from:\n      kind: DockerImage\n      name: ${U}\n`);
    const again = await writePayload({ dir, osImage: U });
    expect(again.changed).toBe(false);
    expect(parseImageStream(await read(join(dir, 'image-references')), 'x').spec.tags).toHaveLength(7);
  });

  it('appends after a last item that ends the file without a newline', async () => {
    const text =
      'kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n    tags:\n      -   name: a\n          from:\n              kind: DockerImage\n              name: quay.io/a/a:1';
    const r = setImageReferenceTag(text, 'f', 'machine-os-content', U);
    expect(r.text.startsWith(`${text}\n`)).toBe(true);
    expect(r.text.slice(text.length + 1)).toBe(
      `      -   name: machine-os-content\n          from:\n              kind: DockerImage\n              name: ${U}\n`,
    );
  });

  it('keeps CRLF line endings, in a replaced value and in an appended tag', async () => {
    const crlf = (await read(join(FIXTURES, 'mco-2019', 'image-references'))).replace(/\n/g, '\r\n');
    const replaced = setImageReferenceTag(crlf, 'f', 'machine-os-content', U);
    expect(replaced.text).toBe(crlf.replace(V, U));
    const cut = crlf.slice(0, crlf.indexOf('  # Special:'));
    const appended = setImageReferenceTag(cut, 'f', 'machine-os-content', U);
    expect(appended.text).toBe(`${cut}  - name: machine-os-content\r\n    from:\r\n      kind: DockerImage\r\n      name: ${U}\r\n`);
  });

  it('fills in a machine-os-content tag that has no from yet, keeping the comments', () => {
    const text = 'kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags:\n  # the OS\n  - name: machine-os-content\n';
    const r = setImageReferenceTag(text, 'f', 'machine-os-content', U);
    expect(r.action).toBe('updated');
    expect(r.text).toContain('# the OS');
    expect(parseImageStream(r.text, 'f').spec.tags).toEqual([{ name: 'machine-os-content', from: { kind: 'DockerImage', name: U } }]);
    expect(() =>
      setImageReferenceTag(
        text.replace('machine-os-content\n', 'machine-os-content\n    from:\n      kind: ImageStreamTag\n      name: os:latest\n'),
        'f',
        'machine-os-content',
        U,
      ),
    ).toThrow(/points at kind ImageStreamTag, not DockerImage/);
  });

  it('warns when the two files disagreed before', async () => {
    const dir = await tempDir('mco-2019');
    const cm = await read(join(dir, CM_FILE));
    await writeFile(join(dir, CM_FILE), cm.replace(V, W));
    const r = await writePayload({ dir, osImage: U });
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]!.code).toBe('osimageurl-disagreed');
    expect(r.warnings[0]!.message).toContain('disagreed');
    expect(parse(await read(join(dir, CM_FILE))).data.osImageURL).toBe(U);
  });
});

describe('payload write: a JSON image-references as oc writes it', () => {
  it('replaces the value in place: one line changes, no final newline added', async () => {
    const dir = await tempDir('oc-json');
    const before = await read(join(dir, 'image-references'));
    expect(before.endsWith('}')).toBe(true);
    // the tag's machine-os= build version names the same build, so only the image line changes
    await writePayload({ dir, osImage: U, buildId: '413.92.202305231734-0' });
    const after = await read(join(dir, 'image-references'));
    const diff = changedLines(before, after);
    expect(diff).toHaveLength(1);
    expect(diff[0]![1]).toBe(`          "name": "${U}"`);
    expect(after.endsWith('}')).toBe(true);
  });

  it('appends with the indentation the file uses (tabs), keeping key order', async () => {
    const doc = {
      kind: 'ImageStream',
      apiVersion: 'image.openshift.io/v1',
      metadata: { name: 'x' },
      spec: { tags: [{ name: 'cli', from: { kind: 'DockerImage', name: W } }] },
    };
    const text = `${JSON.stringify(doc, null, '\t')}\n`;
    const r = setImageReferenceTag(text, 'f', 'machine-os-content', U);
    expect(r.action).toBe('appended');
    doc.spec.tags.push({ name: 'machine-os-content', from: { kind: 'DockerImage', name: U } });
    expect(r.text).toBe(`${JSON.stringify(doc, null, '\t')}\n`);
    const compact = setImageReferenceTag(JSON.stringify({ ...doc, spec: { tags: [] } }), 'f', 'machine-os-content', U);
    expect(compact.text).toBe(
      JSON.stringify({ ...doc, spec: { tags: [{ name: 'machine-os-content', from: { kind: 'DockerImage', name: U } }] } }),
    );
  });
});

describe('payload write: refusals leave every file as it was', () => {
  async function refuses(dir: string, opts: Partial<Parameters<typeof writePayload>[0]>, why: RegExp) {
    const before = await snapshot(dir);
    await expect(writePayload({ dir, osImage: U, ...opts })).rejects.toThrow(why);
    expect(await snapshot(dir)).toEqual(before);
  }

  // A value is checked once, where it is given (osPullspec; the commands turn a refusal into exit 2).
  it('an empty value (oc rejects an empty from.name)', () => {
    expect(() => osPullspec('')).toThrow(/empty/);
  });

  it('a tag form without allowTag; with it the tag is written', async () => {
    const dir = await tempDir('mco-2019');
    expect(() => osPullspec('quay.io/x/os:latest')).toThrow(/by tag, not by digest/);
    await writePayload({ dir, osImage: osPullspec('quay.io/x/os:latest', { allowTag: true }), allowTag: true });
    expect(parse(await read(join(dir, CM_FILE))).data.osImageURL).toBe('quay.io/x/os:latest');
  });

  it('a bad digest', () => {
    expect(() => osPullspec(`quay.io/x/os@sha256:${'z'.repeat(64)}`)).toThrow(/not hex digits/);
    expect(() => osPullspec(`quay.io/x/os@sha256:${'a'.repeat(40)}`)).toThrow(/64 hex digits, not 40/);
  });

  it('another tag already using the same source repository', async () => {
    const dir = await tempDir('mco-2019');
    await refuses(
      dir,
      { osImage: osPullspec('quay.io/coreos/etcd:v3.3.10', { allowTag: true }), allowTag: true },
      /the source repository "quay.io\/coreos\/etcd:v3.3.10" was defined more than once \(for "etcd" and "machine-os-content"\)/,
    );
  });

  it('the tag listed twice', async () => {
    const dir = await tempDir('mco-2019');
    const text = await read(join(dir, 'image-references'));
    await writeFile(
      join(dir, 'image-references'),
      `${text}  - name: machine-os-content\n    from:\n      kind: DockerImage\n      name: ${W}\n`,
    );
    await refuses(dir, {}, /tag "machine-os-content" is listed 2 times/);
  });

  it('a file that is not UTF-8 (a latin-1 comment), naming the file and byte offset, its bytes untouched', async () => {
    const dir = await tempDir('mco-2019');
    const file = join(dir, 'image-references');
    const bytes = Buffer.concat([Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from('\n'), await readFile(file)]);
    await writeFile(file, bytes);
    await refuses(dir, {}, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not UTF-8 text \\(byte offset 5\\)`));
    expect(await readFile(file)).toEqual(bytes);
  });

  it('invalid YAML, naming the file and line', async () => {
    const dir = await tempDir('mco-2019');
    await writeFile(join(dir, 'image-references'), 'kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags: [\n  - x\n');
    await refuses(dir, {}, new RegExp(`${join(dir, 'image-references').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: invalid YAML`));
  });

  it('invalid JSON, naming the file and line', async () => {
    const dir = await tempDir('oc-json');
    await writeFile(join(dir, 'image-references'), '{\n  "kind": "ImageStream",\n  "spec": {,}\n}');
    await refuses(dir, {}, /image-references:3: invalid JSON/);
  });

  it('a file that is not an ImageStream', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'image-references'), 'kind: ConfigMap\napiVersion: v1\n');
    await refuses(dir, {}, /kind "ConfigMap" is not ImageStream/);
    await writeFile(join(dir, 'image-references'), 'kind: ImageStream\napiVersion: image.openshift.io/v2\n');
    await refuses(dir, {}, /API version "image.openshift.io\/v2" is not image.openshift.io\/v1/);
  });

  it('a ConfigMap file holding something else', async () => {
    const dir = await tempDir('mco-2019');
    await writeFile(join(dir, CM_FILE), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n');
    // Not this ConfigMap, so the folder has none: nothing is created unless asked, and then the file is in the way.
    expect((await writePayload({ dir, osImage: U })).configMap).toBeUndefined();
    await refuses(dir, { addMissing: true }, /holds ConfigMap "other", not ConfigMap "machine-config-osimageurl"/);
    await writeFile(
      join(dir, CM_FILE),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: machine-config-osimageurl\n  namespace: default\n',
    );
    await refuses(dir, { addMissing: true }, /namespace "default" is not openshift-machine-config-operator/);
  });

  it('adds a missing key to one document of a multi-document file, leaving the others', async () => {
    const dir = await tempDir('mco-2019');
    const head = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: machine-config-osimageurl\n';
    await writeFile(join(dir, CM_FILE), `${head}---\nkind: X\n`);
    const skipped = await writePayload({ dir, osImage: U });
    expect(skipped.warnings.map((w) => w.message)).toEqual([
      `${join(dir, CM_FILE)}: declares no data.osImageURL for tag machine-os-content, so none is written (pass --add-missing to add it)`,
    ]);
    expect(await readFile(join(dir, CM_FILE), 'utf8')).toBe(`${head}---\nkind: X\n`);
    await writePayload({ dir, osImage: U, addMissing: true });
    expect(await readFile(join(dir, CM_FILE), 'utf8')).toBe(`${head}data:\n  osImageURL: ${U}\n---\nkind: X\n`);
  });

  it('a bad ConfigMap file name or folder', async () => {
    await refuses(await tempDir(), { configMapFile: '../x.yaml' }, /must be a file name inside --dir/);
    await refuses(await tempDir(), { configMapFile: 'image-references' }, /cannot be image-references/);
    const dir = await tempDir();
    await expect(writePayload({ dir: join(dir, 'nope'), osImage: U })).rejects.toThrow(/nope: no such directory/);
  });
});

describe('payload write: both files or neither', () => {
  it('when the second rename fails, the first file is put back and no temp file is left', async () => {
    const dir = await tempDir('mco-2019');
    const before = await snapshot(dir);
    const renamed: string[] = [];
    renameFault.beforeRename = (p) => {
      renamed.push(p);
      if (renamed.length === 2) throw new Error('simulated crash before the second rename');
    };
    await expect(writePayload({ dir, osImage: U })).rejects.toThrow(/simulated crash/);
    expect(renamed).toEqual([join(dir, 'image-references'), join(dir, CM_FILE)]);
    expect(await snapshot(dir)).toEqual(before);
  });

  it('when the ConfigMap path cannot be written (a folder), image-references is not touched', async () => {
    const dir = await tempDir('mco-2019');
    const refs = await read(join(dir, 'image-references'));
    await rm(join(dir, CM_FILE)); // --configmap-file names the file to create when the folder has no ConfigMap
    await mkdir(join(dir, 'cm.yaml'));
    await expect(writePayload({ dir, osImage: U, configMapFile: 'cm.yaml' })).rejects.toThrow(/cm.yaml: is a directory/);
    expect(await read(join(dir, 'image-references'))).toBe(refs);
    expect((await readdir(dir)).sort()).toEqual(['cm.yaml', 'image-references']);
  });

  it('a new folder gets no file when the second one fails', async () => {
    const dir = await tempDir();
    renameFault.beforeRename = (p) => {
      if (p.endsWith(CM_FILE)) throw new Error('disk full');
    };
    await expect(writePayload({ dir, osImage: U })).rejects.toThrow(/disk full/);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('setOsImageUrl', () => {
  it('keeps a single-quoted or plain style, and adds a missing key', () => {
    const single = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: machine-config-osimageurl\ndata:\n  osImageURL: 'x'\n";
    expect(setOsImageUrl(single, 'f', U).text).toBe(single.replace("'x'", `'${U}'`));
    const plain = single.replace("'x'", 'x # dummy');
    expect(setOsImageUrl(plain, 'f', U).text).toBe(plain.replace('x # dummy', `${U} # dummy`));
    const none = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: machine-config-osimageurl\n';
    expect(parse(setOsImageUrl(none, 'f', U).text).data.osImageURL).toBe(U);
  });
});

it('fixtures are what the tests think they are', async () => {
  const is = parseImageStream(await read(join(FIXTURES, 'mco-2019', 'image-references')), 'x');
  expect(is.spec.tags.map((t) => t.name)).toEqual([...SIX, 'machine-os-content']);
  expect(is.spec.tags[6]!.from!.name).toBe(V);
});
