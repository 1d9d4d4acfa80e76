/**
 * every YAML error in a file osimage reads names FILE:LINE, also the ones the `yaml`
 * package only finds while building the value (aliases, merge keys, alias bombs), and a billion-laughs
 * document is refused at once.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/payload/machineconfig.js';
import { checkManifest } from '../../src/release/new/check.js';
import { osimage } from '../helpers/cli.js';
import { cleanup, read, tempDir, U } from './helpers.js';

afterEach(cleanup);

const STREAM_HEAD = 'kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags:\n';

/** Nine aliases per level, eight levels: 9^8 (43 million) strings if expanded. */
function billionLaughs(): string {
  const lines = ['lol0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i <= 8; i++)
    lines.push(
      `lol${i}: &l${i} [${Array(9)
        .fill(`*l${i - 1}`)
        .join(',')}]`,
    );
  return `${lines.join('\n')}\n`;
}

const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('YAML errors name FILE:LINE', () => {
  it('payload write: an unresolved alias in an existing image-references names the file and line', async () => {
    const dir = await tempDir('mco-2019');
    const file = join(dir, 'image-references');
    const before = `${STREAM_HEAD}  - name: machine-os-content\n    from:\n      kind: DockerImage\n      name: *nowhere\n`;
    await writeFile(file, before);
    const r = await osimage(['payload', 'write', '--dir', dir, '--os-image', U]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^error: ${reEscape(file)}:8: invalid YAML: alias \\*nowhere has no anchor &nowhere before it`, 'm'),
    );
    expect(await read(file)).toBe(before);
  });

  it('payload write: a billion-laughs image-references is refused quickly, naming the file and line', async () => {
    const dir = await tempDir('mco-2019');
    const file = join(dir, 'image-references');
    await writeFile(file, `${billionLaughs()}${STREAM_HEAD.slice(0, -1)} []\n`);
    const t0 = Date.now();
    const r = await osimage(['payload', 'write', '--dir', dir, '--os-image', U]);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: ${reEscape(file)}:\\d+: invalid YAML: aliases expand more than 100 times`, 'm'));
  });

  it('an alias inside the node it names (a cycle) is refused, naming the file and line', async () => {
    const dir = await tempDir();
    const file = join(dir, 'mc.yaml');
    await writeFile(file, 'kind: MachineConfig\napiVersion: v1\nspec: &s\n  inner: *s\n');
    await expect(loadManifests([file])).rejects.toThrow(
      new RegExp(`^${reEscape(file)}:4: invalid YAML: alias \\*s is inside the node it refers to`),
    );
  });

  it('a YAML 1.1 merge key over a scalar names the file and line of the merge key', async () => {
    const dir = await tempDir();
    const file = join(dir, 'mc.yaml');
    await writeFile(file, '%YAML 1.1\n---\nkind: MachineConfig\nbase: &b 3\nspec:\n  <<: *b\n');
    await expect(loadManifests([file])).rejects.toThrow(
      new RegExp(`^${reEscape(file)}:6: invalid YAML: a merge key \\(<<\\) must refer to a map`),
    );
  });

  it('machine configs: an unresolved alias names the file and line', async () => {
    const dir = await tempDir();
    const file = join(dir, 'mc.yaml');
    await writeFile(file, 'kind: MachineConfig\napiVersion: v1\n---\nkind: MachineConfig\nspec: *gone\n');
    await expect(loadManifests([file])).rejects.toThrow(new RegExp(`^${reEscape(file)}:5: invalid YAML: alias \\*gone has no anchor`));
  });

  it('a document nested 100,000 deep is one line naming the file, not a stack overflow', async () => {
    const dir = await tempDir();
    const file = join(dir, 'mc.yaml');
    await writeFile(file, `kind: MachineConfig\nspec: ${'['.repeat(100000)}${']'.repeat(100000)}\n`);
    await expect(loadManifests([file])).rejects.toThrow(new RegExp(`^${reEscape(file)}(:\\d+)?: invalid YAML: nested too deeply to read$`));
  });

  it('release new manifest check: an unresolved alias and a billion laughs name the manifest and line', () => {
    expect(() => checkManifest('op/a.yaml', 'kind: A\napiVersion: v1\nx: *gone\n')).toThrow(/^op\/a\.yaml:3: invalid YAML: alias \*gone/);
    const t0 = Date.now();
    expect(() => checkManifest('op/b.yaml', billionLaughs())).toThrow(/^op\/b\.yaml:\d+: invalid YAML: aliases expand more than 100 times/);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
