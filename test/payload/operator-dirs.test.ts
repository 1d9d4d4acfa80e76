/**
 * The one operator-folder reader (payload check --dir, release new --from-dir): symbolic links are refused,
 * never followed, so both commands see the same files.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readOperatorDirs } from '../../src/payload/operator-dirs.js';
import { assemblePayload } from '../../src/release/new/assemble.js';
import { cleanup, tempDir } from './helpers.js';

afterEach(cleanup);

const REFS =
  'kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags:\n  - name: cli\n    from: {kind: DockerImage, name: quay.io/x/cli:1}\n';

async function operators(): Promise<string> {
  const dir = await tempDir();
  await mkdir(join(dir, 'a'));
  await writeFile(join(dir, 'a', '01.yaml'), 'kind: ConfigMap\napiVersion: v1\nmetadata: {name: a}\n');
  await writeFile(join(dir, 'a', 'image-references'), REFS);
  await writeFile(join(dir, 'a', 'README'), 'not a manifest');
  await mkdir(join(dir, '.git'));
  return dir;
}

const assemble = (fromDir: string) =>
  assemblePayload({
    fromDir,
    metadata: { kind: 'cincinnati-metadata-v0', version: '4.99.0', previous: [] },
    mappings: [],
    created: '2026-01-01T00:00:00Z',
  });

describe('readOperatorDirs', () => {
  it('reads each operator: its files, manifests and image-references; hidden folders skipped', async () => {
    const [a, ...rest] = await readOperatorDirs(await operators());
    expect(rest).toEqual([]);
    expect(a).toMatchObject({ operator: 'a', files: ['01.yaml', 'README'], manifests: 1 });
    expect(a!.references!.spec.tags.map((t) => t.name)).toEqual(['cli']);
  });

  it('refuses a symbolic link inside an operator folder, even one that stays inside it, in both commands', async () => {
    const dir = await operators();
    await symlink('01.yaml', join(dir, 'a', '02.yaml'));
    const why = `${join(dir, 'a')}: symbolic links are not copied into a payload: 02.yaml`;
    await expect(readOperatorDirs(dir)).rejects.toThrow(why);
    await expect(assemble(dir)).rejects.toThrow(why);
  });

  it('refuses a symbolic link to a folder at the top level', async () => {
    const dir = await operators();
    const elsewhere = await operators();
    await symlink(join(elsewhere, 'a'), join(dir, 'b'));
    await expect(readOperatorDirs(dir)).rejects.toThrow(`${join(dir, 'b')}: a symbolic link to a folder is not read as an operator folder`);
  });

  it("wraps a bad image-references in oc's words, naming the file and the rule", async () => {
    const dir = await operators();
    await writeFile(
      join(dir, 'a', 'image-references'),
      'kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags:\n  - from: {}\n',
    );
    const why = `operator "a" contained an invalid image-references file: ${join(dir, 'a', 'image-references')}: spec.tags[0] has no name`;
    await expect(readOperatorDirs(dir)).rejects.toThrow(why);
    await expect(assemble(dir)).rejects.toThrow(why);
  });
});
