import { lstat, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan, planPin } from '../../src/pin/plan.js';
import { NEWEST_412, sandbox, type Sandbox } from './setup.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(async () => {
  await sb.close();
});

const pin = async (file: string) =>
  applyPlan(await planPin({ file, flags: { baseUrl: sb.server.url, channel: 'rhcos-4.12' }, env: {}, latest: true }));

describe('the bytes and the file around the pins', () => {
  it('keeps a UTF-8 byte-order mark and non-ASCII comments byte for byte', async () => {
    const file = join(sb.work, 'bom.sh');
    const before = '\uFEFF# Veröffentlichung — ünïcode\nexport RHCOS_BUILD_NAME=old\nRHCOS_DEFAULT_CHANNEL=x\nRHCOS_BASE_URL=y\n';
    await writeFile(file, before);
    await pin(file);
    const after = await readFile(file);
    expect(after.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(after.toString('utf8')).toBe(
      before.replace('=old', `=${NEWEST_412}`).replace('=x', '=rhcos-4.12').replace('=y', `=${sb.server.url}`),
    );
  });

  it('refuses a file that is not UTF-8 instead of mangling its bytes', async () => {
    const file = join(sb.work, 'latin1.sh');
    const bytes = Buffer.concat([Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from('\nRHCOS_BUILD_NAME=old\n')]);
    await writeFile(file, bytes);
    await expect(pin(file)).rejects.toThrow(`${file} is not UTF-8 text (byte offset 5); osimage only edits UTF-8 files`);
    expect(await readFile(file)).toEqual(bytes);
  });

  it('writes through a symlink, keeping the link', async () => {
    const target = join(sb.work, 'real.sh');
    const link = join(sb.work, 'link.sh');
    await writeFile(target, 'RHCOS_BUILD_NAME=old\nRHCOS_DEFAULT_CHANNEL=x\nRHCOS_BASE_URL=y\n');
    await symlink('real.sh', link);
    await pin(link);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe('real.sh');
    expect(await readFile(target, 'utf8')).toContain(`RHCOS_BUILD_NAME=${NEWEST_412}\n`);
  });
});
