/** `packages` and `diff` over the sample release browser on disk (hack/sample/releases). */
import { describe, expect, test } from 'vitest';
import { osimage, SAMPLE_RELEASES } from '../helpers/cli.js';

const OLD = '418.94.202604221012-0';
const NEW = '418.94.202605101521-0';
const CH = '4.18-9.4/builds';
const base = ['--base-url', SAMPLE_RELEASES];

describe('packages', () => {
  test('the newest build: pkglist plus extensions, sorted, extensions marked', async () => {
    const r = await osimage(['packages', ...base, '--channel', CH]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.length).toBeGreaterThan(300);
    expect(lines).toContain('podman-5:5.2.2-3.rhaos4.18.el9.x86_64');
    expect(lines).toContain('qemu-img-17:8.2.0-11.el9_4.6.x86_64  (extension)');
    const names = lines.map((l) => l.split(/-\d|-\d+:/)[0]!);
    expect([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(names);
  });

  test('--package filters by exact name or glob; -o json', async () => {
    const r = await osimage([
      'packages',
      ...base,
      '--channel',
      CH,
      '--build',
      OLD,
      '--package',
      'kernel*',
      '--package',
      'ignition',
      '-o',
      'json',
    ]);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ build: OLD, channel: CH, arch: 'x86_64' });
    expect(j.commitMetaUrl).toMatch(/4\.18-9\.4\/builds\/418\.94\.202604221012-0\/x86_64\/commitmeta\.json$/);
    expect(j.packages.map((p: { nevra: string }) => p.nevra)).toEqual([
      'ignition-2.20.0~rc1-1.rhaos4.18.el9.x86_64',
      'kernel-5.14.0-427.40.1.el9_4.x86_64',
      'kernel-core-5.14.0-427.40.1.el9_4.x86_64',
      'kernel-modules-5.14.0-427.40.1.el9_4.x86_64',
      'kernel-modules-core-5.14.0-427.40.1.el9_4.x86_64',
      'kernel-rt-core-5.14.0-427.40.1.rt14.331.el9_4.x86_64',
    ]);
    expect(j.packages.find((p: { name: string }) => p.name === 'kernel-rt-core').extension).toBe(true);
  });

  test('aarch64 builds list aarch64 packages; a 2019 build without commitmeta.json is a clear error', async () => {
    const a = await osimage(['packages', ...base, '--channel', CH, '--arch', 'aarch64', '--package', 'podman']);
    expect(a.stdout).toBe('podman-5:5.2.2-3.rhaos4.18.el9.aarch64');
    const m = await osimage(['packages', ...base, '--channel', 'maipo']);
    expect(m.exitCode).toBe(1);
    expect(m.stderr).toMatch(
      /^error: build 47\.246 has no commitmeta\.json \(no package list\) at file:\/\/.*\/maipo\/47\.246\/commitmeta\.json$/,
    );
  });

  test('--history on the sample: newest first, one line per change', async () => {
    const r = await osimage(['packages', ...base, '--channel', CH, '--history', '--package', 'podman']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      `${NEW}  podman 5:5.2.2-1.rhaos4.18.el9 → 5:5.2.2-3.rhaos4.18.el9\n${OLD}  podman 5:5.2.2-1.rhaos4.18.el9  (oldest of 2 builds read)`,
    );
  });

  test('usage errors', async () => {
    expect((await osimage(['packages', ...base, '--channel', CH, '--history'])).stderr).toContain(
      '--history needs exactly one --package NAME',
    );
    expect((await osimage(['packages', ...base, '--channel', CH, '--history', '--package', 'k*'])).exitCode).toBe(2);
    expect((await osimage(['packages', ...base, '--channel', CH, '--since', OLD, '--package', 'podman'])).stderr).toContain(
      '--since applies only with --history',
    );
  });
});

describe('diff of two builds', () => {
  test('text: counts, upgraded (epoch, ~rc), downgraded, added, removed, extensions, advisories', async () => {
    const r = await osimage(['diff', ...base, '--channel', CH, OLD, NEW]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(
      `Packages of RHCOS x86_64: ${CH}/${OLD} → ${CH}/${NEW}\n11 upgraded, 1 downgraded, 1 added, 1 removed, 299 unchanged\n`,
    );
    expect(r.stdout).toMatch(/^ {2}ignition +2\.20\.0~rc1-1\.rhaos4\.18\.el9 → 2\.20\.0-1\.rhaos4\.18\.el9$/m);
    expect(r.stdout).toMatch(/^ {2}NetworkManager +1:1\.46\.0-19\.el9_4 → 1:1\.46\.0-26\.el9_4$/m);
    expect(r.stdout).toMatch(/^Downgraded \(1\):\n {2}conmon {2}3:2\.1\.12-2\.rhaos4\.18\.el9 → 3:2\.1\.12-1\.rhaos4\.18\.el9$/m);
    expect(r.stdout).toMatch(/^Added \(1\):\n {2}tpm2-tools {2}tpm2-tools-5\.2-3\.el9\.x86_64$/m);
    expect(r.stdout).toMatch(/^Removed \(1\):\n {2}toolbox {2}toolbox-/m);
    expect(r.stdout).toMatch(
      /^ {2}kernel-rt-core +5\.14\.0-427\.40\.1\.rt14\.331\.el9_4 → 5\.14\.0-427\.50\.1\.rt14\.341\.el9_4 +\(extension\)$/m,
    );
    expect(r.stdout).toContain(
      `Advisories (2, from ${NEW}'s meta.json, against its previous build):\n  RHSA-2026:4312 (Important)  CVE-2026-21371\n  RHBA-2026:4290`,
    );
    expect(r.stdout).not.toContain('Unchanged');
  });

  test('-o json is the pkgdiff shape; CHANNEL/BUILD names a prod channel with a slash; --all adds unchanged', async () => {
    const r = await osimage(['diff', ...base, `${CH}/${OLD}`, `${CH}/${NEW}`, '-o', 'json', '--all']);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.from).toMatchObject({ channel: CH, build: OLD, arch: 'x86_64', release: null });
    expect(j.counts).toEqual({ added: 1, removed: 1, upgraded: 11, downgraded: 1, unchanged: 299 });
    expect(j.pkgdiff).toContainEqual([
      'podman',
      2,
      { PreviousPackage: ['podman', '5:5.2.2-1.rhaos4.18.el9', 'x86_64'], NewPackage: ['podman', '5:5.2.2-3.rhaos4.18.el9', 'x86_64'] },
    ]);
    expect(j.pkgdiff).toContainEqual(['tpm2-tools', 0, { NewPackage: ['tpm2-tools', '5.2-3.el9', 'x86_64'] }]);
    expect(j.pkgdiff.filter((e: [string, number]) => e[1] === 3).map((e: [string]) => e[0])).toEqual(['conmon']);
    expect(j.unchanged).toHaveLength(299);
    expect(j.advisories[0]).toMatchObject({ id: 'RHSA-2026:4312', severity: 'Important' });
  });

  test('the other direction swaps upgrades and downgrades; the rhel-10 and 4.12 channels diff too', async () => {
    const back = JSON.parse((await osimage(['diff', ...base, '--channel', CH, NEW, OLD, '-o', 'json'])).stdout);
    expect(back.counts).toMatchObject({ upgraded: 1, downgraded: 11, added: 1, removed: 1 });
    const ten = await osimage(['diff', ...base, '--channel', 'rhel-10.2/builds', '10.2.20260212-0', '10.2.20260217-0']);
    expect(ten.stdout).toMatch(/^ {2}podman +6:5\.6\.0-2\.el10 → 6:5\.6\.1-1\.el10$/m);
    const twelve = await osimage(['diff', ...base, '--channel', 'rhcos-4.12', '412.86.202301250001-0', '412.86.202301311551-0']);
    expect(twelve.stdout).toContain('4 upgraded, 0 downgraded, 0 added, 0 removed');
  });

  test('an unknown build and a missing arch: clear errors', async () => {
    const u = await osimage(['diff', ...base, '--channel', CH, OLD, '418.94.209912310000-0']);
    expect(u.exitCode).toBe(1);
    expect(u.stderr).toContain("error: no build with name '418.94.209912310000-0' found at");
    const a = await osimage([
      'diff',
      ...base,
      '--channel',
      'rhcos-4.12',
      '--arch',
      'aarch64',
      '412.86.202301250001-0',
      '412.86.202301311551-0',
    ]);
    expect(a.exitCode).toBe(1);
    expect(a.stderr).toContain('build 412.86.202301250001-0 has no aarch64');
  });
});
