/**
 * `osimage release extract` run from the source (in-process): --file byte identity, missing files, --to writing every
 * file atomically, and refusal of anything that would land outside the folder.
 */
import { lstat, mkdir, readFile, readdir, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage, osimageRaw } from '../helpers/cli.js';
import {
  archive,
  baseEntries,
  entry,
  image,
  imageReferences,
  layout,
  releaseEntries,
  tempDir,
  whiteout,
  type Temp,
} from '../helpers/oci-builder.js';
import type { LayerEntry } from '../../src/release/build-layer.js';

let tmp: Temp;
let ref: string;
let refArchive: string;
beforeAll(async () => {
  tmp = await tempDir();
  const img = await image([
    {
      entries: [
        ...baseEntries(),
        { name: 'release-manifests/0000_10_stale.yaml', data: 'stale: true\n' },
        { name: 'release-manifests/0000_20_gone.yaml', data: 'gone\n' },
      ],
    },
    {
      entries: [
        ...releaseEntries({
          extra: [
            { name: 'release-manifests/sub/dir/nested.json', data: '{"a":1}' },
            { name: 'release-manifests/binary.bin', data: Buffer.from([0, 1, 2, 0xff, 0xfe, 10, 13]) },
          ],
        }),
        { name: 'release-manifests/0000_10_stale.yaml', data: 'fresh: true\n' },
        whiteout('release-manifests/0000_20_gone.yaml'),
      ],
    },
  ]);
  ref = await layout(tmp.dir, 'rel', [entry(img, 'v')], 'v');
  refArchive = await archive(tmp.dir, 'rel.tar', [entry(img, 'v')], 'v');
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('--file', () => {
  test.each([
    ['oci:', () => ref],
    ['oci-archive:', () => refArchive],
  ])('image-references over %s is byte-identical to the layer entry (no newline added)', async (_t, r) => {
    const out = await osimageRaw(['release', 'extract', r(), '--file', 'image-references']);
    expect(out.exitCode).toBe(0);
    expect(out.stderr).toBe('');
    expect(out.stdout.equals(Buffer.from(imageReferences()))).toBe(true);
  });

  test('binary content and nested paths come out exactly', async () => {
    const bin = await osimageRaw(['release', 'extract', ref, '--file', 'binary.bin']);
    expect([...bin.stdout]).toEqual([0, 1, 2, 0xff, 0xfe, 10, 13]);
    const nested = await osimageRaw(['release', 'extract', ref, '--file', 'sub/dir/nested.json']);
    expect(nested.stdout.toString()).toBe('{"a":1}');
  });

  test('the highest copy wins; a whited-out file is missing', async () => {
    expect((await osimageRaw(['release', 'extract', ref, '--file', '0000_10_stale.yaml'])).stdout.toString()).toBe('fresh: true\n');
    const gone = await osimage(['release', 'extract', ref, '--file', '0000_20_gone.yaml']);
    expect(gone).toEqual({ stdout: '', stderr: 'error: image did not contain 0000_20_gone.yaml', exitCode: 1 });
  });

  test("a missing file: oc's error, exit 1", async () => {
    const r = await osimage(['release', 'extract', ref, '--file', 'missing']);
    expect(r).toEqual({ stdout: '', stderr: 'error: image did not contain missing', exitCode: 1 });
  });

  test('a name that climbs out of release-manifests/ is simply not there', async () => {
    const r = await osimage(['release', 'extract', ref, '--file', '../etc/os-release']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('error: image did not contain ../etc/os-release');
  });

  test('--file with --to is a usage error', async () => {
    const r = await osimage(['release', 'extract', ref, '--file', 'x', '--to', tmp.dir]);
    expect(r).toEqual({ stdout: '', stderr: 'error: only one of --to and --file may be set', exitCode: 2 });
  });
});

describe('--to', () => {
  test('writes every visible file (highest copies, whiteouts applied), creating the folder', async () => {
    const to = join(tmp.dir, 'out', 'deeper');
    const r = await osimage(['release', 'extract', refArchive, '--to', to]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Extracted release payload from digest sha256:[a-f0-9]{64} created at 2023-05-25T08:25:20Z$/);
    const names = (await readdir(to, { recursive: true })).map(String).sort();
    expect(names).toEqual([
      '0000_10_stale.yaml',
      '0000_50_x_a.yaml',
      'binary.bin',
      'image-references',
      'release-metadata',
      'sub',
      'sub/dir',
      'sub/dir/nested.json',
    ]);
    expect(await readFile(join(to, 'image-references'), 'utf8')).toBe(imageReferences());
    expect(await readFile(join(to, '0000_10_stale.yaml'), 'utf8')).toBe('fresh: true\n');
    // No temp files left behind.
    expect(names.some((n) => n.endsWith('.tmp'))).toBe(false);
  });

  test('re-extracting over an existing folder replaces files in place', async () => {
    const to = join(tmp.dir, 'again');
    expect((await osimage(['release', 'extract', ref, '--to', to])).exitCode).toBe(0);
    expect((await osimage(['release', 'extract', ref, '--to', to])).exitCode).toBe(0);
    expect(await readFile(join(to, '0000_50_x_a.yaml'), 'utf8')).toContain('kind: ConfigMap');
  });

  const refusals: Array<[string, LayerEntry[], RegExp]> = [
    [
      'an absolute path',
      [{ name: '/release-manifests/abs.yaml', data: 'x' }],
      /refusing to extract \/release-manifests\/abs\.yaml from .*: the path is absolute/,
    ],
    [
      'a .. path',
      [{ name: 'release-manifests/../../escape.yaml', data: 'x' }],
      /refusing to extract release-manifests\/\.\.\/\.\.\/escape\.yaml from .*: the path contains \.\./,
    ],
    [
      'a symlink to an absolute path',
      [{ name: 'release-manifests/passwd', type: 'symlink', linkname: '/etc/passwd' }],
      /refusing to extract release-manifests\/passwd from .*: it is a symlink to the absolute path \/etc\/passwd/,
    ],
    [
      'a symlink climbing out',
      [{ name: 'release-manifests/up', type: 'symlink', linkname: '../../outside' }],
      /refusing to extract release-manifests\/up from .*: it is a symlink to \.\.\/\.\.\/outside/,
    ],
  ];
  test.each(refusals)('%s is refused and nothing is written', async (label, extra, message) => {
    const img = await image([{ entries: [...releaseEntries(), ...extra] }]);
    const bad = await layout(tmp.dir, `bad-${label.replace(/\W+/g, '-')}`, [entry(img)]);
    const to = join(tmp.dir, `to-${label.replace(/\W+/g, '-')}`);
    const r = await osimage(['release', 'extract', bad, '--to', to]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(1);
    const written = await readdir(to).catch(() => []);
    expect(written).toEqual([]);
    await expect(lstat(join(tmp.dir, 'escape.yaml'))).rejects.toThrow();
  });

  test('a symlink that stays inside is written as a symlink', async () => {
    const img = await image([
      { entries: [...releaseEntries(), { name: 'release-manifests/alias.yaml', type: 'symlink', linkname: '0000_50_x_a.yaml' }] },
    ]);
    const to = join(tmp.dir, 'inside-link');
    const r = await osimage(['release', 'extract', await layout(tmp.dir, 'inside', [entry(img)]), '--to', to]);
    expect(r.exitCode).toBe(0);
    expect(await readlink(join(to, 'alias.yaml'))).toBe('0000_50_x_a.yaml');
  });

  test('a folder in DIR that is a symlink to elsewhere is not written through', async () => {
    const to = join(tmp.dir, 'preexisting');
    const elsewhere = join(tmp.dir, 'elsewhere');
    await mkdir(to, { recursive: true });
    await mkdir(elsewhere, { recursive: true });
    await symlink(elsewhere, join(to, 'sub'));
    const r = await osimage(['release', 'extract', ref, '--to', to]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/refusing to extract release-manifests\/sub\/dir\/nested\.json from .*: .* resolves to /);
    expect(await readdir(elsewhere)).toEqual([]);
  });
});
