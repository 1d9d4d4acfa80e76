import { chmod, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { applyPlan, planPin } from '../../src/pin/plan.js';
import { NEWEST_412, OLDER_412, sandbox, type Sandbox } from './setup.js';
import { renameFault } from '../helpers/rename-fault.js';

// A crash before a rename, without a hook in src/ (see the helper).
vi.mock('node:fs/promises', async (real) => (await import('../helpers/rename-fault.js')).withRenameFault(real));

let sb: Sandbox;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(async () => {
  await sb.close();
});
afterEach(() => {
  delete renameFault.beforeRename;
});

describe('a pin write interrupted before the rename', () => {
  it('leaves the old script and the old snapshot intact, and no temp files behind', async () => {
    const script = join(sb.work, 'release.sh');
    const meta = join(sb.work, 'rhcos.json');
    const flags = { baseUrl: sb.server.url };
    // A first, complete pin: the script and the snapshot of the older build.
    await applyPlan(await planPin({ file: script, meta, flags, env: {} }));
    const oldScript = await readFile(script, 'utf8');
    const oldMeta = await readFile(meta, 'utf8');
    expect(oldScript).toContain(`RHCOS_BUILD_NAME:-${OLDER_412}}`);
    expect(JSON.parse(oldMeta).buildid).toBe(OLDER_412);

    const plan = await planPin({ file: script, meta, flags, env: {}, latest: true });
    expect(plan.script.after).toContain(`RHCOS_BUILD_NAME:-${NEWEST_412}}`);
    // Crash before the second rename: the script would already be replaced, the snapshot not yet.
    let renames = 0;
    renameFault.beforeRename = () => {
      if (++renames === 2) throw new Error('simulated crash');
    };
    await expect(applyPlan(plan)).rejects.toThrow(/simulated crash/);
    expect(renames).toBe(2);
    expect(await readFile(script, 'utf8')).toBe(oldScript);
    expect(await readFile(meta, 'utf8')).toBe(oldMeta);
    expect((await readdir(sb.work)).sort()).toEqual(['release.sh', 'rhcos.json']);

    // Crash before the first rename, too.
    renameFault.beforeRename = () => {
      throw new Error('simulated crash');
    };
    await expect(applyPlan(plan)).rejects.toThrow(/simulated crash/);
    expect(await readFile(script, 'utf8')).toBe(oldScript);
    expect((await readdir(sb.work)).sort()).toEqual(['release.sh', 'rhcos.json']);

    // Without the crash the same plan goes through, keeping the script's mode.
    delete renameFault.beforeRename;
    await chmod(script, 0o750);
    await applyPlan(plan);
    expect(await readFile(script, 'utf8')).toBe(plan.script.after);
    expect(JSON.parse(await readFile(meta, 'utf8')).buildid).toBe(NEWEST_412);
    expect((await stat(script)).mode & 0o777).toBe(0o750);
  });

  it('does not create a new file when interrupted', async () => {
    const script = join(sb.work, 'new.sh');
    renameFault.beforeRename = () => {
      throw new Error('simulated crash');
    };
    const plan = await planPin({ file: script, flags: { baseUrl: sb.server.url, channel: 'rhcos-4.12' }, env: {} });
    await expect(applyPlan(plan)).rejects.toThrow(/simulated crash/);
    await expect(stat(script)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(sb.work)).filter((f) => f.startsWith('.'))).toEqual([]);
  });
});
