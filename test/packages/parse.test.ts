/** commitmeta.json pkglist, meta.json extensions and advisories: accepted shapes and one-line errors. */
import { describe, expect, test } from 'vitest';
import { parseAdvisories } from '../../src/packages/advisories.js';
import { parseExtensions, parsePkglist } from '../../src/packages/commitmeta.js';
import { diffPackages, mainArch, toPkgdiff } from '../../src/packages/diff.js';
import { nameMatcher } from '../../src/packages/load.js';
import { nevra, parseEvrArch, type Package } from '../../src/packages/package.js';

const URL = 'http://browser/c/b/x86_64/commitmeta.json';
const doc = (list: unknown) => ({ 'rpmostree.rpmdb.pkglist': list });
const pkg = (name: string, epoch: string, version: string, release: string, arch = 'x86_64', extension = false): Package => ({
  name,
  epoch,
  version,
  release,
  arch,
  extension,
});

describe('parsePkglist', () => {
  test('[name, epoch, version, release, arch] entries; epoch "0" when none', () => {
    const list = parsePkglist(
      doc([
        ['podman', '5', '5.2.2', '3.rhaos4.18.el9', 'x86_64'],
        ['tzdata', '0', '2025b', '1.el9', 'noarch'],
      ]),
      URL,
    );
    expect(list.map(nevra)).toEqual(['podman-5:5.2.2-3.rhaos4.18.el9.x86_64', 'tzdata-2025b-1.el9.noarch']);
    expect(list[1]!.extension).toBe(false);
  });
  test.each([
    [{}, 'no "rpmostree.rpmdb.pkglist"'],
    [[], 'expected a JSON object'],
    [doc({}), '"rpmostree.rpmdb.pkglist" must be a list'],
    [
      doc([
        ['a', '0', '1', '1', 'x86_64'],
        ['b', '0', '1', '1'],
      ]),
      'rpmostree.rpmdb.pkglist[1]: expected [name, epoch, version, release, arch]',
    ],
    [doc([['a', 0, '1', '1', 'x86_64']]), 'rpmostree.rpmdb.pkglist[0]: epoch must be a string'],
    [doc([['a', 'x', '1', '1', 'x86_64']]), 'rpmostree.rpmdb.pkglist[0]: invalid epoch "x"'],
    [doc([['a b', '0', '1', '1', 'x86_64']]), 'rpmostree.rpmdb.pkglist[0]: invalid name "a b"'],
    [doc([['a', '0', '1-2', '1', 'x86_64']]), 'rpmostree.rpmdb.pkglist[0]: invalid version "1-2"'],
    [doc([['a', '0', '1', '1\u001b[31m', 'x86_64']]), 'rpmostree.rpmdb.pkglist[0]: invalid release'],
    [doc([['a', '0', '1', '1', 'x86/64']]), 'rpmostree.rpmdb.pkglist[0]: invalid arch "x86/64"'],
  ])('%j is refused: %s', (d, message) => {
    expect(() => parsePkglist(d, URL)).toThrow(`invalid commitmeta.json at ${URL}: ${message}`);
  });
  test('a list longer than any OS tree is refused', () => {
    expect(() => parsePkglist(doc(Array(20_001).fill(['a', '0', '1', '1', 'x86_64'])), URL)).toThrow(
      /20001 packages, more than the 20000 allowed/,
    );
  });
});

describe('extensions.manifest', () => {
  test('name → [epoch:]version-release.arch, marked as extensions', () => {
    const list = parseExtensions(
      { extensions: { manifest: { 'qemu-img': '17:8.2.0-11.el9_4.6.x86_64', 'kernel-rt-core': '5.14.0-427.50.1.rt14.341.el9_4.x86_64' } } },
      'M',
    );
    expect(list).toEqual([
      pkg('qemu-img', '17', '8.2.0', '11.el9_4.6', 'x86_64', true),
      pkg('kernel-rt-core', '0', '5.14.0', '427.50.1.rt14.341.el9_4', 'x86_64', true),
    ]);
  });
  test('a build without extensions has none', () => {
    expect(parseExtensions({}, 'M')).toEqual([]);
    expect(parseExtensions({ extensions: {} }, 'M')).toEqual([]);
  });
  test('bad entries name the package', () => {
    expect(() => parseExtensions({ extensions: { manifest: { usbguard: '1.0.0' } } }, 'M')).toThrow(
      'invalid meta.json at M: extensions.manifest["usbguard"]: expected "[epoch:]version-release.arch", got "1.0.0"',
    );
    expect(() => parseExtensions({ extensions: [] }, 'M')).toThrow('"extensions" must be an object');
  });
  test('parseEvrArch', () => {
    expect(parseEvrArch('1:2.3-4.el9.noarch')).toEqual({ epoch: '1', version: '2.3', release: '4.el9', arch: 'noarch' });
    expect(parseEvrArch('2.3-4')).toBeNull();
    expect(parseEvrArch('x:2.3-4.el9.x86_64')).toBeNull();
  });
});

describe('advisories-diff', () => {
  test('id, severity, packages and CVEs', () => {
    const a = parseAdvisories(
      {
        'advisories-diff': [
          ['RHSA-2026:1', 1, 3, ['kernel-1-1.x86_64'], { cve_references: [{ title: 'CVE-2026-1', url: 'u' }] }],
          ['RHBA-2026:2', 2, 0, [], {}],
        ],
      },
      'M',
    );
    expect(a).toEqual([
      { id: 'RHSA-2026:1', severity: 'Important', packages: ['kernel-1-1.x86_64'], cves: ['CVE-2026-1'] },
      { id: 'RHBA-2026:2', severity: null, packages: [], cves: [] },
    ]);
    expect(() => parseAdvisories({ 'advisories-diff': [[42]] }, 'M')).toThrow('invalid meta.json at M: advisories-diff[0]');
  });
});

describe('diffPackages', () => {
  const from = [
    pkg('podman', '5', '5.2.2', '1.el9'),
    pkg('conmon', '3', '2.1.12', '2.el9'),
    pkg('ignition', '0', '2.20.0~rc1', '1.el9'),
    pkg('toolbox', '0', '0.1', '1.el9'),
    pkg('bash', '0', '5.1.8', '9.el9'),
    pkg('gpg-pubkey', '0', 'fd431d51', '4ae0493b', 'noarch'),
    pkg('kernel-rt-core', '0', '5.14.0', '1.rt', 'x86_64', true),
  ];
  const to = [
    pkg('podman', '5', '5.2.2', '3.el9'),
    pkg('conmon', '3', '2.1.12', '1.el9'),
    pkg('ignition', '0', '2.20.0', '1.el9'),
    pkg('tpm2-tools', '0', '5.2', '3.el9'),
    pkg('bash', '0', '5.1.8', '9.el9'),
    pkg('gpg-pubkey', '0', 'fd431d51', '4ae0493b', 'noarch'),
    pkg('gpg-pubkey', '0', '5a6340b3', '6229229e', 'noarch'),
    pkg('kernel-rt-core', '0', '5.14.0', '2.rt', 'x86_64', true),
  ];
  const d = diffPackages(from, to);
  const kinds = Object.fromEntries(d.changes.map((c) => [`${c.name}:${c.kind}`, c.kind]));
  test('upgrades by rpm order (~rc before the release), downgrades, adds, removes; extensions included', () => {
    expect(d.counts).toEqual({ added: 2, removed: 1, upgraded: 3, downgraded: 1, unchanged: 2 });
    expect(kinds).toMatchObject({
      'ignition:upgraded': 'upgraded',
      'conmon:downgraded': 'downgraded',
      'toolbox:removed': 'removed',
      'tpm2-tools:added': 'added',
      'kernel-rt-core:upgraded': 'upgraded',
    });
  });
  test('a name listed twice pairs by NEVRA', () => {
    const gpg = d.changes.filter((c) => c.name === 'gpg-pubkey');
    expect(gpg.map((c) => c.kind).sort()).toEqual(['added', 'unchanged']);
  });
  test('the pkgdiff shape: [name, type, {PreviousPackage, NewPackage}]', () => {
    const p = toPkgdiff(d);
    expect(p).toContainEqual([
      'podman',
      2,
      { PreviousPackage: ['podman', '5:5.2.2-1.el9', 'x86_64'], NewPackage: ['podman', '5:5.2.2-3.el9', 'x86_64'] },
    ]);
    expect(p).toContainEqual([
      'conmon',
      3,
      { PreviousPackage: ['conmon', '3:2.1.12-2.el9', 'x86_64'], NewPackage: ['conmon', '3:2.1.12-1.el9', 'x86_64'] },
    ]);
    expect(p).toContainEqual(['tpm2-tools', 0, { NewPackage: ['tpm2-tools', '5.2-3.el9', 'x86_64'] }]);
    expect(p).toContainEqual(['toolbox', 1, { PreviousPackage: ['toolbox', '0.1-1.el9', 'x86_64'] }]);
    expect(p.some((e) => e[0] === 'bash')).toBe(false);
  });
  test('mainArch ignores noarch and extensions', () => {
    expect(mainArch(to)).toBe('x86_64');
    expect(mainArch([])).toBeNull();
  });
});

test('nameMatcher: exact names and * ? globs, nothing else special', () => {
  const m = nameMatcher(['kernel*', 'podma?', 'python3.9']);
  expect(['kernel', 'kernel-core', 'podman', 'python3.9'].every(m)).toBe(true);
  expect(['xkernel', 'podmann', 'python3x9'].some(m)).toBe(false);
});
