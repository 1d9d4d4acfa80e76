import { execa } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Warning } from '../../src/errors.js';
import { checkPins } from '../../src/pin/check.js';
import { settingsFromPinsFile } from '../../src/verify/pins.js';
import { osimage } from '../helpers/cli.js';
import { addRhel10Stream, OLDER_412, RHEL10_CHANNEL, RHEL10_NEWEST, RHEL10_OLDER, eachScriptSandbox } from './setup.js';

const t = eachScriptSandbox((s) => addRhel10Stream(s.sb.releases));

const pinRhel10 = (extra: string[] = [], env: Record<string, string> = {}) =>
  osimage(['pin', '--os-stream', 'rhel-10', '--write', t.script, ...extra], { env });
const firstPin = (extra: string[] = []) => pinRhel10(['--channel', RHEL10_CHANNEL, '--base-url', t.sb.server.url, '--latest', ...extra]);
const streamLine = (v: string, value: string) => `export RHCOS_RHEL_10_${v}="\${RHCOS_RHEL_10_${v}:-${value}}"`;

/** What bash assigns to both families when it sources the script's pins (the script's commands are cut off). */
async function shellReads(text: string): Promise<string[]> {
  const f = join(t.sb.work, 'pins-only.sh');
  await writeFile(f, text.slice(0, text.indexOf('# osimage: $OSIMAGE')));
  const vars = [
    'RHCOS_BUILD_NAME',
    'RHCOS_DEFAULT_CHANNEL',
    'RHCOS_RHEL_10_BUILD_NAME',
    'RHCOS_RHEL_10_DEFAULT_CHANNEL',
    'RHCOS_RHEL_10_BASE_URL',
  ];
  const r = await execa('bash', ['-c', `. "$1"; printf '%s\\n' ${vars.map((v) => `"$${v}"`).join(' ')}`, 'x', f], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    extendEnv: false,
  });
  return r.stdout.split('\n');
}

describe('a second OS stream in its own variables (--os-stream)', () => {
  it('pin --os-stream rhel-10 adds RHCOS_RHEL_10_* in the pins block and leaves the RHEL 9 pins alone; both check', async () => {
    const r = await firstPin();
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      `pinned OS stream rhel-10 build ${RHEL10_NEWEST} (channel ${RHEL10_CHANNEL}, base URL ${t.sb.server.url}) in ${t.script}: the newest build\n` +
        '  added RHCOS_RHEL_10_BUILD_NAME, RHCOS_RHEL_10_DEFAULT_CHANNEL, RHCOS_RHEL_10_BASE_URL in the osimage pins block',
    );
    const after = await readFile(t.script, 'utf8');
    // The block goes after the leading comments, in the form of the script's own pins; nothing else changes.
    const block = [
      '# BEGIN osimage pins (written by `osimage pin`; edit the values with it)',
      streamLine('BUILD_NAME', RHEL10_NEWEST),
      streamLine('DEFAULT_CHANNEL', RHEL10_CHANNEL),
      streamLine('BASE_URL', t.sb.server.url),
      '# END osimage pins',
    ].join('\n');
    const at = t.original.indexOf('set -euo pipefail');
    expect(after).toBe(`${t.original.slice(0, at)}\n${block}\n\n${t.original.slice(at)}`);
    expect(await shellReads(after)).toEqual([OLDER_412, 'rhcos-4.12', RHEL10_NEWEST, RHEL10_CHANNEL, t.sb.server.url]);

    const rhel10 = await osimage(['pin', '--check', '--os-stream', 'rhel-10', '--pins', t.script]);
    expect(rhel10.stderr).toBe('');
    expect(rhel10.stdout).toBe(
      `ok: ${t.script} pins OS stream rhel-10 build ${RHEL10_NEWEST} (channel ${RHEL10_CHANNEL}, arch x86_64, base URL ${t.sb.server.url}); it is in ${t.sb.server.url}/${RHEL10_CHANNEL}/builds.json`,
    );
    // The default stream's check is not upset by the other family (it is no misspelt pin).
    const rhel9 = await osimage(['pin', '--check', '--pins', t.script, '--base-url', t.sb.server.url]);
    expect(rhel9.stderr).toBe('');
    expect(rhel9.stdout).toMatch(new RegExp(`^ok: ${t.script} pins ${OLDER_412} `));

    // Without --latest the stream's pin stays; the stream's variables are edited in place.
    const again = await pinRhel10();
    expect(again.stdout).toBe(
      `${t.script} already pins OS stream rhel-10 build ${RHEL10_NEWEST} (channel ${RHEL10_CHANNEL}, base URL ${t.sb.server.url}); nothing changed`,
    );
    const older = await pinRhel10(['--build', RHEL10_OLDER]);
    expect(older.exitCode).toBe(0);
    expect(await readFile(t.script, 'utf8')).toBe(
      after.replace(streamLine('BUILD_NAME', RHEL10_NEWEST), streamLine('BUILD_NAME', RHEL10_OLDER)),
    );
  });

  it('reads the stream from its environment variables (flag > env > file > default), never from RHCOS_*', async () => {
    const env = {
      RHCOS_RHEL_10_BUILD_NAME: RHEL10_OLDER,
      RHCOS_RHEL_10_DEFAULT_CHANNEL: RHEL10_CHANNEL,
      RHCOS_RHEL_10_BASE_URL: t.sb.server.url,
      RHCOS_BUILD_NAME: 'not-for-this-stream',
    };
    const r = await pinRhel10([], env);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`pinned OS stream rhel-10 build ${RHEL10_OLDER} `);
    expect(r.stdout).toContain('from RHCOS_RHEL_10_BUILD_NAME in the environment');
    const text = await readFile(t.script, 'utf8');
    expect(text).toContain(streamLine('BUILD_NAME', RHEL10_OLDER));
    expect(text).toContain('export RHCOS_BUILD_NAME="${RHCOS_BUILD_NAME:-412.86.202301250001-0}"');

    const over = await pinRhel10([], { ...env, RHCOS_RHEL_10_BUILD_NAME: RHEL10_NEWEST });
    expect(over.exitCode).toBe(0);
    expect(over.stderr).toBe(
      `info: RHCOS_RHEL_10_BUILD_NAME=${RHEL10_NEWEST} from the environment is used instead of the pin ${RHEL10_OLDER} in ${t.script}:13`,
    );
    expect(await readFile(t.script, 'utf8')).toContain(streamLine('BUILD_NAME', RHEL10_NEWEST));
    const flag = await pinRhel10(['--build', RHEL10_OLDER], env);
    expect(flag.exitCode).toBe(0);
    expect(await readFile(t.script, 'utf8')).toContain(streamLine('BUILD_NAME', RHEL10_OLDER));

    // A near miss of the stream's variables is still flagged.
    const typo = await pinRhel10([], { ...env, RHCOS_RHEL_10_BUILDNAME: RHEL10_OLDER });
    expect(typo.stderr).toContain(
      'warning: environment variable RHCOS_RHEL_10_BUILDNAME is set but is not read; did you mean RHCOS_RHEL_10_BUILD_NAME?',
    );
  });

  it('pin --check --os-stream names the stream variable it misses; verify --pins --os-stream reads the same family', async () => {
    const none = await osimage(['pin', '--check', '--os-stream', 'rhel-10', '--pins', t.script]);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toBe(
      `error: ${t.script} has no pin: it does not assign RHCOS_RHEL_10_BUILD_NAME (the build would float to the newest)`,
    );
    await expect(settingsFromPinsFile(t.script, { osStream: 'rhel-10' })).rejects.toThrow(
      `${t.script} has no pin: it does not assign RHCOS_RHEL_10_BUILD_NAME, so there is no pinned bootimage to verify`,
    );
    await firstPin();
    const pinned = await settingsFromPinsFile(t.script, { osStream: 'rhel-10' });
    expect(pinned.settings).toMatchObject({ build: RHEL10_NEWEST, channel: RHEL10_CHANNEL, baseUrl: t.sb.server.url });
    expect(pinned.buildPin).toBe(`${t.script}:13`);
    expect((await settingsFromPinsFile(t.script)).settings).toMatchObject({ build: OLDER_412, channel: 'rhcos-4.12' });

    const bad = await osimage(['pin', '--check', '--os-stream', 'RHEL 10', '--pins', t.script]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--os-stream: invalid OS stream name "RHEL 10"');
  });

  it('--meta keeps base-oscontainer, extensions-container, azure and gcp; an older snapshot lacking them is a warning', async () => {
    expect((await firstPin(['--meta', t.meta])).exitCode).toBe(0);
    const snap = JSON.parse(await readFile(t.meta, 'utf8'));
    expect(Object.keys(snap)).toEqual([
      'amis',
      'azure',
      'base-oscontainer',
      'baseURI',
      'buildid',
      'extensions-container',
      'gcp',
      'images',
      'ostree-commit',
      'ostree-version',
    ]);
    expect(snap['base-oscontainer']).toEqual({
      digest: `sha256:${'b'.repeat(64)}`,
      image: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev',
      'manifest-list-digest': `sha256:${'c'.repeat(64)}`,
      tags: [`${RHEL10_NEWEST}-coreos`, '10.2-coreos'],
    });
    const check = () => osimage(['pin', '--check', '--os-stream', 'rhel-10', '--pins', t.script, '--meta', t.meta]);
    expect((await check()).exitCode).toBe(0);

    // A snapshot written before these fields were kept: a warning with a code, exit 0.
    const { azure: _a, gcp: _g, 'base-oscontainer': _b, 'extensions-container': _e, ...older } = snap;
    await writeFile(t.meta, JSON.stringify(older));
    const warned = await check();
    expect(warned.exitCode).toBe(0);
    const metaUrl = `${t.sb.server.url}/${RHEL10_CHANNEL}/${RHEL10_NEWEST}/x86_64/meta.json`;
    expect(warned.stderr).toBe(
      `warning: ${t.meta} does not record azure, base-oscontainer, extensions-container, gcp, which ${metaUrl} has (a snapshot from before osimage kept them); refresh it with: osimage pin --os-stream rhel-10 --write ${t.script} --meta ${t.meta}`,
    );
    const seen: Warning[] = [];
    await checkPins({ file: t.script, meta: t.meta, osStream: 'rhel-10', onWarning: (w) => seen.push(w) });
    expect(seen.map((w) => w.code)).toEqual(['meta-field-unrecorded']);

    // A field the snapshot records and the build changed still fails.
    await writeFile(
      t.meta,
      JSON.stringify({ ...snap, 'base-oscontainer': { ...snap['base-oscontainer'], digest: `sha256:${'0'.repeat(64)}` } }),
    );
    const changed = await check();
    expect(changed.exitCode).toBe(1);
    expect(changed.stderr).toBe(
      `error: ${t.meta} no longer matches ${metaUrl}: 1 field changed: base-oscontainer.digest: sha256:${'0'.repeat(64)} → sha256:${'b'.repeat(64)}`,
    );
  });

  it('promote --os-stream rhel-10 tests the candidate in RHCOS_RHEL_10_* and writes only that family', async () => {
    expect((await pinRhel10(['--channel', RHEL10_CHANNEL, '--base-url', t.sb.server.url, '--build', RHEL10_OLDER])).exitCode).toBe(0);
    const before = await readFile(t.script, 'utf8');
    const test = [
      `test "$RHCOS_RHEL_10_BUILD_NAME" = ${RHEL10_NEWEST}`,
      `test "$RHCOS_RHEL_10_DEFAULT_CHANNEL" = ${RHEL10_CHANNEL}`,
      `test "$RHCOS_RHEL_10_BASE_URL" = ${t.sb.server.url}`,
      'test -z "${RHCOS_BUILD_NAME:-}"',
    ].join(' && ');
    const r = await osimage(['promote', '--os-stream', 'rhel-10', '--write', t.script, '--test', test]);
    expect(r.stderr).toBe(`testing ${RHEL10_NEWEST} (pinned: ${RHEL10_OLDER}): ${test}`);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`promoted ${RHEL10_NEWEST} in ${t.script} (was ${RHEL10_OLDER})`);
    expect(await readFile(t.script, 'utf8')).toBe(
      before.replace(streamLine('BUILD_NAME', RHEL10_OLDER), streamLine('BUILD_NAME', RHEL10_NEWEST)),
    );
  });
});

describe('pin --check prints its warnings before an error', () => {
  it('a file without RHCOS_DEFAULT_CHANNEL and a pinned build that does not exist: the warning line, then the error', async () => {
    await writeFile(t.script, `#!/bin/sh\nRHCOS_BUILD_NAME=47.999\nRHCOS_BASE_URL=${t.sb.server.url}\n`);
    const r = await osimage(['pin', '--check', '--pins', t.script]);
    expect(r.exitCode).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      `warning: ${t.script} does not pin RHCOS_DEFAULT_CHANNEL; checked against maipo, the channel of release scripts pinned in 2019`,
    );
    expect(lines[1]).toMatch(new RegExp(`^error: ${t.script}:2 pins RHCOS_BUILD_NAME=47\\.999, but no build with name '47\\.999' found`));
  });
});

describe('a release script pinned in 2019: a build, no channel', () => {
  it('pin --check reads it as maipo (with a warning) and passes against a copy of its release browser', async () => {
    await writeFile(t.script, '#!/bin/sh\nRHCOS_BUILD_NAME=47.246\n');
    const r = await osimage(['pin', '--check', '--pins', t.script, '--base-url', t.sb.server.url]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe(
      `warning: ${t.script} does not pin RHCOS_DEFAULT_CHANNEL; checked against maipo, the channel of release scripts pinned in 2019`,
    );
    expect(r.stdout).toMatch(new RegExp(`^ok: ${t.script} pins 47\\.246 \\(channel maipo, arch x86_64, `));
  });

  it('pin re-pins it in maipo, saying so, and writes the channel it meant', async () => {
    await writeFile(t.script, '#!/bin/sh\nRHCOS_BUILD_NAME=47.246\n');
    const r = await osimage(['pin', '--write', t.script, '--base-url', t.sb.server.url]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`info: ${t.script} pins a build but no RHCOS_DEFAULT_CHANNEL: read as maipo`);
    expect(await readFile(t.script, 'utf8')).toMatch(/RHCOS_DEFAULT_CHANNEL='?maipo'?/);
  });

  it("an OS stream's pins without their channel name no build: pin --check fails naming the variable", async () => {
    await writeFile(t.script, `#!/bin/sh\nRHCOS_RHEL_10_BUILD_NAME=${RHEL10_NEWEST}\n`);
    const r = await osimage(['pin', '--check', '--os-stream', 'rhel-10', '--pins', t.script, '--base-url', t.sb.server.url]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`error: ${t.script} pins RHCOS_RHEL_10_BUILD_NAME but not RHCOS_RHEL_10_DEFAULT_CHANNEL, so it names no build`);
  });

  it('a file with no build and no channel, and no --channel: the usage line', async () => {
    await writeFile(t.script, '#!/bin/sh\n');
    const r = await osimage(['pin', '--write', t.script, '--base-url', t.sb.server.url]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: no channel: give --channel or RHCOS_DEFAULT_CHANNEL, e\.g\. --channel 4\.16-9\.4\/builds /);
  });
});
