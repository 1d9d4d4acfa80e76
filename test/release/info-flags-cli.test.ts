/**
 * `release info --contents / --size / --verify / --include-images / --icsp-file / --idms-file /
 * --max-per-registry / --dir / --changelog / --bugs / --skip-bug-check` offline: oc's validation (its words,
 * exit 2, before any network), pflag's integer flag, --contents on a layout, and policy files read first. The
 * reads of component images, mirrors, file:// layouts and git histories against oc 4.13 are the infoflag-
 * pairs of test/oc/side-by-side.test.ts; the pieces are unit-tested beside their modules.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { goParseInt } from '../../src/commands/release-info-flags.js';
import { osimage, osimageRaw } from '../helpers/cli.js';
import { entry, image, layout, releaseEntries, tempDir, whiteout, type Temp } from '../helpers/oci-builder.js';

describe('goParseInt (pflag IntVar: strconv.ParseInt(s, 0, 64))', () => {
  test.each([
    ['4', 4n],
    ['-2', -2n],
    ['+7', 7n],
    ['0x1F', 31n],
    ['0o17', 15n],
    ['017', 15n],
    ['0b101', 5n],
    ['1_000', 1000n],
    ['0x_1', 1n],
    ['0', 0n],
    ['9223372036854775807', 9223372036854775807n],
  ])('%s is %s', (text, n) => {
    expect(goParseInt(text)).toBe(n);
  });
  test.each([['abc'], [''], ['1_'], ['_1'], ['1__0'], ['08'], ['0x'], ['1.5'], [' 1']])('%j is invalid syntax', (text) => {
    expect(goParseInt(text)).toBe('invalid syntax');
  });
  test('past int64 is out of range', () => {
    expect(goParseInt('9223372036854775808')).toBe('value out of range');
  });
});

describe('release info flags, offline', () => {
  let tmp: Temp;
  let ref: string;
  beforeAll(async () => {
    tmp = await tempDir('osimage-info-flags-');
    const lower = releaseEntries({ extra: [{ name: 'release-manifests/0000_10_old.yaml', data: 'old: true\n' }] });
    const upper = [
      { name: 'release-manifests/0000_05_b.json', data: '{"kind":"X"}' },
      { name: 'release-manifests/0000_01_a.yml', data: '' },
      { name: 'release-manifests/notes.txt', data: 'not shown\n' },
      whiteout('release-manifests/0000_10_old.yaml'),
    ];
    const img = await image([{ entries: lower }, { entries: upper }]);
    ref = await layout(tmp.dir, 'release', [entry(img)]);
  });
  afterAll(async () => {
    await tmp.cleanup();
  });

  test('--contents: image-references and release-metadata, then the manifests by name, each under `# NAME`', async () => {
    // The release is split over two layers, so its files are those of the merged view.
    const r = await osimageRaw(['release', 'info', '--merged-layers', '--contents', ref]);
    expect(r.exitCode).toBe(0);
    const text = r.stdout.toString();
    const heads = text.split('\n').filter((l) => l.startsWith('# '));
    expect(heads).toEqual(['# image-references', '# release-metadata', '# 0000_01_a.yml', '# 0000_05_b.json', '# 0000_50_x_a.yaml']);
    // A file without a final newline gets one; an empty file adds nothing; a whited-out file is gone.
    expect(text).toContain('# 0000_01_a.yml\n# 0000_05_b.json\n{"kind":"X"}\n# 0000_50_x_a.yaml\n');
    expect(text).not.toContain('old: true');
    expect(text).not.toContain('not shown');
    // Without the flag the top layer, which holds release-manifests/ files, answers alone, as in oc.
    const top = await osimage(['release', 'info', '--contents', ref]);
    expect(top).toEqual({ stdout: '', stderr: 'error: release image did not contain an image-references file', exitCode: 1 });
  });

  test.each([
    [['--size', '--verify'], 'only one of --commits, --commit-urls, --pullspecs, --contents, --size, --verify may be specified'],
    [
      ['--contents', '--image-for', 'cli'],
      'only one of --commits, --commit-urls, --pullspecs, --contents, --size, --verify may be specified',
    ],
    [['--skip-bug-check'], '--skip-bug-check requires --bugs'],
    [['--bugs', 'd', '--skip-bug-check'], "--skip-bug-check requires --output to be set to 'name' or 'json'"],
    [['--changelog', 'd'], '--changelog/--bugs require --changes-from'],
    [['--changelog', 'd', '--bugs', 'e', '--changes-from', 'x'], '--changelog and --bugs may not both be specified'],
    [['--bugs', 'd', '-o', 'digest', '--changes-from', 'x'], "--output only supports 'name' or 'json' for --bugs"],
    [['--changelog', 'd', '-o', 'name', '--changes-from', 'x'], "--output only supports 'json' for --changelog"],
    [['--icsp-file', 'a', '--idms-file', 'b'], 'icsp-file and idms-file are mutually exclusive'],
    [
      ['--max-per-registry', '1.5'],
      'invalid argument "1.5" for "--max-per-registry" flag: strconv.ParseInt: parsing "1.5": invalid syntax',
    ],
  ])("%j: oc's usage error, exit 2", async (flags, message) => {
    const r = await osimage(['release', 'info', ...flags, ref]);
    expect(r.stderr.split('\n')[0]).toBe(`error: ${message}`);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
  });

  test('a policy file is read before any image: a missing one is the error, and nothing is read', async () => {
    const missing = join(tmp.dir, 'none.yaml');
    const r = await osimage(['release', 'info', '--icsp-file', missing, 'quay.invalid/ocp/release:4.13.1']);
    expect(r.stderr).toBe(`error: unable to read ImageContentSourceFile ${missing}: open ${missing}: no such file or directory`);
    expect(r.exitCode).toBe(1);
  });

  test('with a policy file, an image named by tag gets the warning that mirrors serve digests only', async () => {
    const icsp = join(tmp.dir, 'icsp.yaml');
    await writeFile(icsp, 'apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nspec: {}\n');
    const idms = join(tmp.dir, 'idms.yaml');
    await writeFile(idms, 'apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nspec: {}\n');
    const a = await osimage(['release', 'info', '--icsp-file', icsp, '-o', 'name', `file://ocp/release:1`, '--dir', tmp.dir]);
    expect(a.stderr.split('\n')[0]).toBe('warning: --icsp-file only applies to images referenced by digest and will be ignored for tags');
    const b = await osimage(['release', 'info', '--idms-file', idms, '--merged-layers', '-o', 'name', ref]);
    expect(b.stderr).toBe('');
    expect(b.stdout).toBe('cli\nmachine-os-content');
  });
});
