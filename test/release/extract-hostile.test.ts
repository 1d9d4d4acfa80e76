/**
 * `release extract --to` against hostile layouts: symlink chains through the image's own links or
 * DIR's, entries another entry needs as a folder, and the promise that a refusal leaves DIR as it was.
 */
import { lstat, mkdir, readdir, readFile, readlink, realpath, symlink, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { LayerEntry } from '../../src/release/build-layer.js';
import { osimage } from '../helpers/cli.js';
import { releaseEntries, tempLayouts } from '../helpers/oci-builder.js';

const tmp = tempLayouts();
const refOf = (layers: LayerEntry[][]) => tmp.refOf(layers);

/** Every path under `dir` whose real path is outside it (symlinks followed). */
async function escapees(dir: string): Promise<string[]> {
  const realDir = await realpath(dir);
  const out: string[] = [];
  for (const name of (await readdir(dir, { recursive: true })).map(String)) {
    const real = await realpath(join(dir, name)).catch(() => undefined);
    if (real === undefined) continue; // dangling: resolves nowhere
    const rel = relative(realDir, real);
    if (rel === '..' || rel.startsWith(`..${sep}`) || rel.startsWith(sep)) out.push(`${name} -> ${real}`);
  }
  return out;
}

const dirs = Array.from({ length: 12 }, (_, i) => `d${i + 1}`);
const deep = dirs.join('/');

describe('symlink chains', () => {
  test('a link through the image’s own 12-level `up` link to /etc/passwd is refused; nothing under DIR resolves outside', async () => {
    const ref = await refOf([
      [
        ...releaseEntries(),
        ...dirs.map((_, i) => ({ name: `release-manifests/${dirs.slice(0, i + 1).join('/')}`, type: 'directory' as const })),
        // Back to release-manifests/ itself: lexically inside.
        { name: `release-manifests/${deep}/up`, type: 'symlink', linkname: Array(12).fill('..').join('/') },
        // Through `up`, 13 levels further up, then etc/passwd: lexically `etc/passwd`, inside.
        { name: 'release-manifests/passwd.yaml', type: 'symlink', linkname: `${deep}/up/${Array(13).fill('..').join('/')}/etc/passwd` },
      ],
    ]);
    const to = join(tmp.dir, 'chain');
    const r = await osimage(['release', 'extract', ref, '--to', to]);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: refusing to extract release-manifests/passwd\\.yaml from .*: it is a symlink to ${deep}/up/.*/etc/passwd, which leads outside the folder through the symlink ${deep}/up `,
      ),
    );
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    // Refused before anything was written: DIR was not even created.
    await expect(lstat(to)).rejects.toThrow();
  });

  test('the same chain into an existing DIR leaves it as it was', async () => {
    const ref = await refOf([
      [
        ...releaseEntries(),
        { name: 'release-manifests/a/b/up', type: 'symlink', linkname: '../..' },
        { name: 'release-manifests/x.yaml', type: 'symlink', linkname: 'a/b/up/../../../etc/passwd' },
      ],
    ]);
    const to = join(tmp.dir, 'chain-existing');
    await mkdir(to);
    await writeFile(join(to, 'mine'), 'kept');
    const r = await osimage(['release', 'extract', ref, '--to', to]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/refusing to extract release-manifests\/x\.yaml .* through the symlink a\/b\/up/);
    expect((await readdir(to)).sort()).toEqual(['mine']);
    expect(await escapees(to)).toEqual([]);
  });

  test('a link through a symlink already in DIR that leads out is refused', async () => {
    const ref = await refOf([[...releaseEntries(), { name: 'release-manifests/x.yaml', type: 'symlink', linkname: 'out/passwd' }]]);
    const to = join(tmp.dir, 'through-dir');
    await mkdir(to);
    await symlink('/etc', join(to, 'out'));
    const r = await osimage(['release', 'extract', ref, '--to', to]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/refusing to extract release-manifests\/x\.yaml .*through the symlink out/);
    expect((await readdir(to)).sort()).toEqual(['out']);
  });

  test('chains that stay inside are laid out as written', async () => {
    const ref = await refOf([
      [
        ...releaseEntries(),
        { name: 'release-manifests/d1/d2/f.yaml', data: 'f' },
        { name: 'release-manifests/a', type: 'symlink', linkname: 'd1' },
        { name: 'release-manifests/b', type: 'symlink', linkname: 'a/d2/../d2' },
        { name: 'release-manifests/c.yaml', type: 'symlink', linkname: 'b/f.yaml' },
      ],
    ]);
    const to = join(tmp.dir, 'inside-chain');
    const r = await osimage(['release', 'extract', ref, '--to', to]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(await readlink(join(to, 'c.yaml'))).toBe('b/f.yaml');
    expect(await readFile(join(to, 'c.yaml'), 'utf8')).toBe('f');
    expect(await escapees(to)).toEqual([]);
  });
});

describe('a refusal leaves DIR as it was', () => {
  const sameLayer: LayerEntry[] = [
    ...releaseEntries(),
    { name: 'release-manifests/a/b', data: 'child' },
    { name: 'release-manifests/a', data: 'file' },
  ];

  test('`a/b` then the file `a` in one layer: the image entry is named, nothing is written', async () => {
    const ref = await refOf([sameLayer]);
    const to = join(tmp.dir, 'conflict');
    await mkdir(to);
    await writeFile(join(to, 'mine'), 'kept');
    const r = await osimage(['release', 'extract', ref, '--to', to]);
    expect(r).toMatchObject({ stdout: '', exitCode: 1 });
    expect(r.stderr).toMatch(
      /^error: cannot extract release-manifests\/a from .*: the image also has release-manifests\/a\/b, which needs it to be a folder$/,
    );
    expect(await readdir(to, { recursive: true })).toEqual(['mine']);
    expect(await readFile(join(to, 'mine'), 'utf8')).toBe('kept');
  });

  test('a DIR that did not exist is not left behind', async () => {
    const to = join(tmp.dir, 'conflict-new', 'deeper');
    const r = await osimage(['release', 'extract', await refOf([sameLayer]), '--to', to]);
    expect(r.exitCode).toBe(1);
    await expect(lstat(join(tmp.dir, 'conflict-new'))).rejects.toThrow();
  });

  test('a folder already in DIR where the image has a file: refused before anything is written', async () => {
    const to = join(tmp.dir, 'folder-in-way');
    await mkdir(join(to, '0000_50_x_a.yaml'), { recursive: true });
    const r = await osimage(['release', 'extract', await refOf([releaseEntries()]), '--to', to]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^error: cannot extract release-manifests\/0000_50_x_a\.yaml from .*: .*0000_50_x_a\.yaml is a folder$/);
    expect(await readdir(to)).toEqual(['0000_50_x_a.yaml']);
  });
});
