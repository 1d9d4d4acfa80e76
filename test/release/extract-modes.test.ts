/**
 * `release extract --to` gives files oc's modes: every file 0640, a new one or one it replaces, whatever the
 * umask; folders it makes for the image's folders 0755; DIR itself and files it does not write are left as
 * they are. Seen with oc 4.13:
 *   mkdir m1; chmod 700 m1; echo old > m1/image-references; chmod 600 m1/image-references; echo x > m1/keep
 *   chmod 600 m1/keep; (umask 077; oc adm release extract --insecure --to m1 REGISTRY/release:4.99.0)
 *   stat -c '%a %n' m1 m1/*   # 700 m1, 640 for every extracted file (image-references too), 600 m1/keep
 */
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { entry, image, layout, releaseEntries, tempDir, type Temp } from '../helpers/oci-builder.js';

let tmp: Temp;
let umask: number;
beforeAll(async () => {
  tmp = await tempDir();
  umask = process.umask(0o077);
});
afterAll(async () => {
  process.umask(umask);
  await tmp.cleanup();
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o7777;

test("extract --to writes every file 0640 (replaced ones too) and the image's folders 0755, as oc", async () => {
  const extra = [{ name: 'release-manifests/sub/nested.yaml', data: 'a: 1\n' }];
  const ref = await layout(tmp.dir, 'modes', [entry(await image([{ entries: releaseEntries({ extra }) }]))]);
  const dir = join(tmp.dir, 'out');
  await mkdir(dir, { mode: 0o700 });
  await writeFile(join(dir, 'image-references'), 'old');
  await chmod(join(dir, 'image-references'), 0o600);
  await writeFile(join(dir, 'keep'), 'x');
  await chmod(join(dir, 'keep'), 0o600);

  const r = await osimage(['release', 'extract', ref, '--to', dir]);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  expect(await modeOf(dir)).toBe(0o700);
  expect(await modeOf(join(dir, 'image-references'))).toBe(0o640);
  expect(await modeOf(join(dir, 'release-metadata'))).toBe(0o640);
  expect(await modeOf(join(dir, 'sub'))).toBe(0o755);
  expect(await modeOf(join(dir, 'sub', 'nested.yaml'))).toBe(0o640);
  expect(await modeOf(join(dir, 'keep'))).toBe(0o600);
});

test("extract --to gives each file its tar entry's time, a hard link's copy too, as oc's extraction does", async () => {
  const at = new Date('2023-05-24T13:41:35Z');
  const extra = [
    { name: 'release-manifests/0000_60_dated.yaml', data: 'd: 1\n', mtime: at },
    { name: 'release-manifests/0000_61_linked.yaml', type: 'link' as const, linkname: 'release-manifests/0000_60_dated.yaml', mtime: at },
  ];
  const ref = await layout(tmp.dir, 'times', [entry(await image([{ entries: releaseEntries({ extra }) }]))]);
  const dir = join(tmp.dir, 'times-out');
  const r = await osimage(['release', 'extract', ref, '--to', dir]);
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  expect((await stat(join(dir, '0000_60_dated.yaml'))).mtime.toISOString()).toBe(at.toISOString());
  const linked = await stat(join(dir, '0000_61_linked.yaml'));
  expect([linked.mtime.toISOString(), linked.size, linked.mode & 0o7777]).toEqual([at.toISOString(), 5, 0o640]);
});
