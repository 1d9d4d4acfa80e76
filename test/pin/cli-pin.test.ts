import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { stableJson } from '../../src/pin/snapshot.js';
import { NEWEST_412, OLDER_412, scriptSandbox, type Sandbox } from './setup.js';

let sb: Sandbox;
let script: string;
let meta: string;
let original: string;
beforeEach(async () => {
  ({ sb, script, meta, original } = await scriptSandbox());
});
afterEach(async () => {
  await sb.close();
});

const buildLine = (b: string) => `export RHCOS_BUILD_NAME="\${RHCOS_BUILD_NAME:-${b}}"`;
const baseLine = (u: string) => `export RHCOS_BASE_URL="\${RHCOS_BASE_URL:-${u}}"`;
const MIRROR = 'https://rhcos.mirror.openshift.com/art/storage/releases';

describe('osimage pin --write (a copy of hack/release.sh, over HTTP)', () => {
  it('--latest pins the newest build in place, then a second run changes nothing and says so', async () => {
    const r = await osimage(['pin', '--write', script, '--latest', '--base-url', sb.server.url]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      `pinned ${NEWEST_412} (channel rhcos-4.12, base URL ${sb.server.url}) in ${script}: the newest build; was ${OLDER_412}`,
    );
    const after = await readFile(script, 'utf8');
    expect(after).toBe(original.replace(buildLine(OLDER_412), buildLine(NEWEST_412)).replace(baseLine(MIRROR), baseLine(sb.server.url)));
    const mtime = (await stat(script)).mtimeMs;

    const again = await osimage(['pin', '--write', script, '--latest', '--base-url', sb.server.url]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toBe(`${script} already pins ${NEWEST_412} (channel rhcos-4.12, base URL ${sb.server.url}); nothing changed`);
    expect(await readFile(script, 'utf8')).toBe(after);
    expect((await stat(script)).mtimeMs).toBe(mtime);
  });

  it('without --latest keeps the pin the file has; flag and environment beat the file; --latest beats them', async () => {
    const keep = await osimage(['pin', '--write', script, '--base-url', sb.server.url]);
    expect(keep.exitCode).toBe(0);
    expect(keep.stdout).toContain(`pinned ${OLDER_412} `);
    expect(keep.stdout).toContain('the pin already in the file');
    expect(await readFile(script, 'utf8')).toContain(buildLine(OLDER_412));

    const env = await osimage(['pin', '--write', script], { env: { RHCOS_BUILD_NAME: NEWEST_412, RHCOS_BASE_URL: sb.server.url } });
    expect(env.exitCode).toBe(0);
    expect(env.stderr).toContain(
      `info: RHCOS_BUILD_NAME=${NEWEST_412} from the environment is used instead of the pin ${OLDER_412} in ${script}:13`,
    );
    expect(await readFile(script, 'utf8')).toContain(buildLine(NEWEST_412));

    const flag = await osimage(['pin', '--write', script, '--build', OLDER_412], { env: { RHCOS_BUILD_NAME: NEWEST_412 } });
    expect(flag.exitCode).toBe(0);
    expect(await readFile(script, 'utf8')).toContain(buildLine(OLDER_412));

    const latest = await osimage(['pin', '--write', script, '--latest'], { env: { RHCOS_BUILD_NAME: OLDER_412 } });
    expect(latest.exitCode).toBe(0);
    expect(latest.stderr).toContain(`--latest: ignoring RHCOS_BUILD_NAME=${OLDER_412} from the environment`);
    expect(await readFile(script, 'utf8')).toContain(buildLine(NEWEST_412));
  });

  it('refuses an unknown build before writing anything, naming what exists', async () => {
    const r = await osimage(['pin', '--write', script, '--base-url', sb.server.url, '--build', '412.86.999']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `error: no build with name '412.86.999' found at '${sb.server.url}/rhcos-4.12/builds.json'. Available builds are: [${NEWEST_412}, ${OLDER_412}]`,
    );
    expect(await readFile(script, 'utf8')).toBe(original);
  });

  it('--latest with --build is a usage error', async () => {
    const r = await osimage(['pin', '--write', script, '--latest', '--build', OLDER_412]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: --latest and --build contradict each other/m);
  });

  it('--dry-run prints a unified diff and writes nothing', async () => {
    const r = await osimage(['pin', '--write', script, '--meta', meta, '--latest', '--base-url', sb.server.url, '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`--- ${script}\n+++ ${script}\n@@ -10,9 +10,9 @@\n`);
    expect(r.stdout).toContain(
      ` set -euo pipefail\n \n-${buildLine(OLDER_412)}\n+${buildLine(NEWEST_412)}\n export RHCOS_DEFAULT_CHANNEL="\${RHCOS_DEFAULT_CHANNEL:-rhcos-4.12}"\n` +
        `-${baseLine(MIRROR)}\n+${baseLine(sb.server.url)}\n \n`,
    );
    expect(r.stdout).toContain(`--- /dev/null\n+++ ${meta}\n@@ -0,0 +1,`);
    expect(r.stdout).toContain(`+    "buildid": "${NEWEST_412}",\n`);
    expect(r.stderr).toContain('dry run: nothing written');
    expect(await readFile(script, 'utf8')).toBe(original);
    await expect(stat(meta)).rejects.toMatchObject({ code: 'ENOENT' });

    // Once pinned, the dry run has nothing to show.
    await osimage(['pin', '--write', script, '--meta', meta, '--latest', '--base-url', sb.server.url]);
    const none = await osimage(['pin', '--write', script, '--meta', meta, '--latest', '--dry-run']);
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('nothing would change');
  });

  it('--meta writes the snapshot (sorted keys, 4-space indent, trailing newline) together with the script', async () => {
    const r = await osimage(['pin', '--write', script, '--meta', meta, '--latest', '--base-url', sb.server.url]);
    expect(r.exitCode).toBe(0);
    const dir = `${sb.server.url}/rhcos-4.12/${NEWEST_412}/x86_64/`;
    const expected = {
      buildid: NEWEST_412,
      baseURI: dir,
      amis: { 'us-east-1': { hvm: 'ami-0066999812964904f' }, 'eu-central-1': { hvm: 'ami-07038d298e7d082d7' } },
      images: JSON.parse(await readFile(join(sb.releases, `rhcos-4.12/${NEWEST_412}/x86_64/meta.json`), 'utf8')).images,
      oscontainer: {
        image: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev',
        digest: 'sha256:1992a6a15b26ab3a1aac7b5617ec526a7663100e7a6035203fdae22d47cb1154',
      },
      'ostree-commit': '9a2d654a5670568a0379abf830649c6870ef4e336bc4d6bff6689bcc4956085f',
      'ostree-version': NEWEST_412,
    };
    const text = await readFile(meta, 'utf8');
    expect(text).toBe(stableJson(expected));
    expect(text.startsWith('{\n    "amis": {\n        "eu-central-1": {\n            "hvm": "ami-07038d298e7d082d7"\n')).toBe(true);
    expect((await stat(meta)).mode & 0o777).toBe(0o644);
  });

  it('creates a missing FILE as a minimal executable script that a shell can source', async () => {
    const fresh = join(sb.work, 'new-release.sh');
    const r = await osimage(['pin', '--write', fresh, '--base-url', sb.server.url, '--channel', 'rhcos-4.12', '--arch', 'aarch64']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`in ${fresh} (created)`);
    const text = await readFile(fresh, 'utf8');
    expect(text).toMatch(/^#!\/usr\/bin\/env bash\n# .*\n\n# BEGIN osimage pins/);
    expect(text).toContain(buildLine(NEWEST_412));
    expect((await stat(fresh)).mode & 0o777).toBe(0o755);
  });

  it('keeps the mode and the CRLF line ends of an existing file', async () => {
    await writeFile(script, original.replace(/\n/g, '\r\n'));
    await chmod(script, 0o700);
    const r = await osimage(['pin', '--write', script, '--latest', '--base-url', sb.server.url]);
    expect(r.exitCode).toBe(0);
    const text = await readFile(script, 'utf8');
    expect(text).toBe(
      original
        .replace(buildLine(OLDER_412), buildLine(NEWEST_412))
        .replace(baseLine(MIRROR), baseLine(sb.server.url))
        .replace(/\n/g, '\r\n'),
    );
    expect((await stat(script)).mode & 0o777).toBe(0o700);
  });

  it('refuses a value that cannot be written safely in the form, and leaves the file alone', async () => {
    const odd = join(sb.dir, 'odd$dir');
    const { cp } = await import('node:fs/promises');
    await cp(sb.releases, odd, { recursive: true });
    const r = await osimage(['pin', '--write', script, '--base-url', odd]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: ${script.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:15: refusing to write RHCOS_BASE_URL="file://.*odd\\$dir": it contains "\\$"`,
        'm',
      ),
    );
    expect(await readFile(script, 'utf8')).toBe(original);
  });

  it('warns about a misspelt pin variable in FILE but still pins', async () => {
    await writeFile(script, original.replace('set -euo pipefail\n', 'set -euo pipefail\nRHCOS_BUILDNAME=47.245\n'));
    const r = await osimage(['pin', '--write', script, '--base-url', sb.server.url]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(
      `warning: ${script}:12 assigns RHCOS_BUILDNAME, which osimage does not read; did you mean RHCOS_BUILD_NAME?`,
    );
  });
});

describe('osimage pin --check', () => {
  async function pinned(): Promise<void> {
    const r = await osimage(['pin', '--write', script, '--meta', meta, '--base-url', sb.server.url]);
    expect(r.exitCode).toBe(0);
  }
  const check = (extra: string[] = [], env: Record<string, string> = {}) =>
    osimage(['pin', '--check', '--pins', script, ...extra], { env });

  it('exits 0 with a one-line summary when the pins are sound, ignoring the environment', async () => {
    await pinned();
    const r = await check(['--meta', meta], { RHCOS_BUILD_NAME: 'bogus', RHCOS_BASE_URL: 'http://127.0.0.1:9/nowhere' });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      `ok: ${script} pins ${OLDER_412} (channel rhcos-4.12, arch x86_64, base URL ${sb.server.url}); it is in ${sb.server.url}/rhcos-4.12/builds.json; ${meta} matches its meta.json`,
    );
    expect(r.stderr).toContain('ignoring RHCOS_BUILD_NAME, RHCOS_BASE_URL from the environment');
  });

  it('--base-url checks against a mirror; the snapshot baseURI still follows the pin', async () => {
    await pinned();
    const { serveFolder } = await import('../helpers/file-server.js');
    const mirror = await serveFolder(sb.releases);
    try {
      const r = await check(['--meta', meta, '--base-url', mirror.url]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain(`(checked at ${mirror.url})`);
      expect(mirror.requests).toEqual(['/rhcos-4.12/builds.json', `/rhcos-4.12/${OLDER_412}/x86_64/meta.json`]);
    } finally {
      await mirror.close();
    }
  });

  it('fails when the pinned build is gone from builds.json, listing what exists', async () => {
    await pinned();
    const list = join(sb.releases, 'rhcos-4.12/builds.json');
    const doc = JSON.parse(await readFile(list, 'utf8'));
    doc.builds = doc.builds.filter((b: { id: string }) => b.id !== OLDER_412);
    await writeFile(list, JSON.stringify(doc));
    const r = await check();
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      `error: ${script}:13 pins RHCOS_BUILD_NAME=${OLDER_412}, but no build with name '${OLDER_412}' found at '${sb.server.url}/rhcos-4.12/builds.json'. Available builds are: [${NEWEST_412}]; closest match: ${NEWEST_412}`,
    );
  });

  it('fails when the pinned build has no build for the arch', async () => {
    await pinned();
    const r = await check(['--arch', 'aarch64']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`error: ${script}:13 pins RHCOS_BUILD_NAME=${OLDER_412}, but build ${OLDER_412} has no aarch64 in`);
  });

  it('fails naming every metadata field that changed, old → new', async () => {
    await pinned();
    const file = join(sb.releases, `rhcos-4.12/${OLDER_412}/x86_64/meta.json`);
    const doc = JSON.parse(await readFile(file, 'utf8'));
    doc.amis[0].hvm = 'ami-replaced';
    doc.oscontainer.digest = `sha256:${'0'.repeat(64)}`;
    doc['ostree-timestamp'] = 'not in the snapshot, so not compared';
    await writeFile(file, JSON.stringify(doc));
    const r = await check(['--meta', meta]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      `error: ${meta} no longer matches ${sb.server.url}/rhcos-4.12/${OLDER_412}/x86_64/meta.json: 2 fields changed: ` +
        `amis.us-east-1.hvm: ami-0230eb125ce693bf5 → ami-replaced; oscontainer.digest: sha256:aaa1ff187dc06443725193db792304c42df8219102b68bac333a6a6de6bbd3da → sha256:${'0'.repeat(64)}`,
    );
    // Without --meta the pin itself is still sound.
    expect((await check()).exitCode).toBe(0);
  });

  it('fails when the snapshot is missing or belongs to another build', async () => {
    await osimage(['pin', '--write', script, '--base-url', sb.server.url]);
    const missing = await check(['--meta', meta]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain(`error: ${meta}: no such file (write it with: osimage pin --write ${script} --meta ${meta})`);
    await osimage(['pin', '--write', script, '--meta', meta, '--latest']);
    await writeFile(script, (await readFile(script, 'utf8')).replace(NEWEST_412, OLDER_412));
    const other = await check(['--meta', meta]);
    expect(other.exitCode).toBe(1);
    expect(other.stderr).toContain(`error: ${meta} is the snapshot of build ${NEWEST_412}, but ${script}:13 pins ${OLDER_412}`);
  });

  it('fails when FILE has no pin, or an empty one', async () => {
    await writeFile(script, '#!/bin/sh\nexport RHCOS_DEFAULT_CHANNEL=rhcos-4.12\n');
    const none = await check();
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toBe(`error: ${script} has no pin: it does not assign RHCOS_BUILD_NAME (the build would float to the newest)`);
    await writeFile(script, original.replace(buildLine(OLDER_412), buildLine('')));
    const empty = await check();
    expect(empty.exitCode).toBe(1);
    expect(empty.stderr).toBe(`error: ${script} has no pin: RHCOS_BUILD_NAME is empty on line 13 (the build would float to the newest)`);
  });

  it('fails when FILE assigns a misspelt pin variable, before any request', async () => {
    await writeFile(script, original.replace(buildLine(OLDER_412), `export RELEASE_BUILD_NAME="${OLDER_412}"`));
    const r = await check(['--base-url', sb.server.url]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      `error: ${script} assigns RELEASE_BUILD_NAME (line 13; did you mean RHCOS_BUILD_NAME?), which osimage does not read: the pin would be silently ignored`,
    );
    expect(sb.server.requests).toEqual([]);
  });

  it('fails when FILE does not exist, and refuses flags that would check something other than the pin', async () => {
    const gone = await osimage(['pin', '--check', '--pins', join(sb.work, 'nope.sh')]);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toBe(`error: ${join(sb.work, 'nope.sh')}: no such file`);
    const usage = await check(['--build', OLDER_412]);
    expect(usage.exitCode).toBe(2);
    const usage2 = await check(['--latest']);
    expect(usage2.exitCode).toBe(2);
  });

  it('--write is still accepted as the old name of --pins; --check needs one of them, and --pins is for --check only', async () => {
    await pinned();
    const old = await osimage(['pin', '--check', '--write', script]);
    expect(old.exitCode).toBe(0);
    expect(old.stdout).toMatch(new RegExp(`^ok: ${script} pins ${OLDER_412} `));
    expect(await osimage(['pin', '--check'])).toEqual({
      stdout: '',
      stderr: "error: required option '--pins <file>' not specified",
      exitCode: 2,
    });
    const both = await osimage(['pin', '--check', '--pins', script, '--write', `${script}.other`]);
    expect(both).toEqual({ stdout: '', stderr: 'error: --write is the old name of --pins: give one of them', exitCode: 2 });
    const misplaced = await osimage(['pin', '--pins', script]);
    expect(misplaced.exitCode).toBe(2);
    expect(misplaced.stderr).toBe('error: --pins is read by --check; to write the pins give --write FILE');
    expect(await osimage(['pin'])).toMatchObject({ stderr: "error: required option '--write <file>' not specified", exitCode: 2 });
  });
});
