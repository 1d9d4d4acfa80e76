/**
 * Bringing MachineConfig Ignition configs to spec 3 as the machine-config-operator's ParseAndConvertConfig does.
 * Ported by hand: TestParseAndConvert and TestRemoveIgnDuplicateFilesAndUnits of openshift/machine-config-operator
 * pkg/controller/common/helpers_test.go (commit 7ff337a4f, main), and TestTranslate2_3to3_0 / TestCheck2_3 of
 * coreos/ign-converter translate_test.go (commit 2f77307), the latter with the MCO's filesystem map (root only)
 * in place of the test's own. The rest pin the MCO's error texts case by case.
 */
import { describe, expect, it } from 'vitest';
import { PayloadError } from '../../src/payload/errors.js';
import { parseGoSemver, supportedSpecVersions, toSpec3 } from '../../src/payload/ignition/translate.js';

const SRC = 'manifests/99-worker-x.yaml';
const HASH = `sha512-${'c6100de5624cfb3c'.repeat(8)}`;
const SUPPORTED = '2.2,3.0,3.1,3.2,3.3,3.4,3.5';

/** The message toSpec3 throws (without the source prefix), or a failure when it does not throw. */
function errorOf(config: unknown, opts = {}): string {
  try {
    toSpec3(config, SRC, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(PayloadError);
    const message = (e as Error).message;
    expect(message.startsWith(`${SRC}: `)).toBe(true);
    return message.slice(SRC.length + 2);
  }
  throw new Error('toSpec3 did not throw');
}

const v2Failed = (report: string) =>
  `failed to parse Ignition config: parsing Ignition spec v2 failed with error: config is not valid\nReport: ${report}`;
const v3Failed = (report: string) =>
  `failed to parse Ignition config: parsing Ignition config spec v3 failed with error: config is not valid\nReport: ${report}`;
const convertFailed = (why: string) =>
  `failed to convert Ignition config spec v2 to v3: unable to convert Ignition spec v2 config to v3: ${why}`;
const spec22 = (rest: object) => ({ ignition: { version: '2.2.0' }, ...rest });

describe('toSpec3: which versions the MCO takes (ParseAndConvertConfig, main)', () => {
  const core = { name: 'core', sshAuthorizedKeys: ['5678', 'abc'] };

  it.each(['3.0.0', '3.1.0', '3.2.0', '3.3.0', '3.4.0', '3.5.0'])('parses %s as it is and raises it to 3.5.0', (version) => {
    expect(toSpec3({ ignition: { version }, passwd: { users: [core] } }, SRC)).toEqual({
      ignition: { version: '3.5.0' },
      passwd: { users: [core] },
    });
  });

  it('converts 2.2.0, dropping a repeated SSH key', () => {
    const v22 = { ignition: { version: '2.2.0' }, passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['5678', '5678', 'abc'] }] } };
    expect(toSpec3(v22, SRC)).toEqual({ ignition: { version: '3.5.0' }, passwd: { users: [core] } });
  });

  it.each(['21.0.0', '2.3.0', '2.4.0', '3.6.0', '3.5.0-experimental', '3.5.0+build', '2.2.1', '1.0.0'])(
    'refuses %s as an unknown version',
    (version) => {
      expect(errorOf({ ignition: { version } })).toBe(
        `failed to parse Ignition config: parsing Ignition config failed: unknown version. Supported spec versions: ${SUPPORTED}`,
      );
    },
  );

  it.each([
    ['an empty version', { ignition: { version: '' } }],
    ['a version that is not X.Y.Z', { ignition: { version: '3.5' } }],
    ['no ignition section', { storage: {} }],
    ['null', null],
  ])('refuses %s as an invalid version', (_what, config) => {
    expect(errorOf(config)).toBe(
      `failed to parse Ignition config: parsing Ignition config failed: invalid version. Supported spec versions: ${SUPPORTED}`,
    );
  });

  it('reads the version from keys in any case, as Go matches struct fields', () => {
    expect(toSpec3({ Ignition: { VERSION: '3.1.0' } }, SRC)).toEqual({ ignition: { version: '3.5.0' } });
  });

  it('reports a config whose version cannot be read in encoding/json’s words', () => {
    expect(errorOf([])).toBe(v3Failed('error: json: cannot unmarshal array into Go value of type util.versionStub\n'));
    expect(errorOf({ ignition: 'x' })).toBe(
      v3Failed('error: json: cannot unmarshal string into Go struct field versionStub.Ignition of type struct { Version string }\n'),
    );
    expect(errorOf({ ignition: { version: 3 } })).toBe(
      v3Failed('error: json: cannot unmarshal number into Go struct field .Ignition.Version of type string\n'),
    );
  });

  it('produces an earlier era’s spec when asked, refusing what that era did not know', () => {
    expect(toSpec3({ ignition: { version: '2.2.0' } }, SRC, { target: 1 })).toEqual({ ignition: { version: '3.1.0' } });
    expect(toSpec3({ ignition: { version: '3.0.0' } }, SRC, { target: 2 })).toEqual({ ignition: { version: '3.2.0' } });
    expect(errorOf({ ignition: { version: '3.4.0' } }, { target: 2 })).toBe(
      'failed to parse Ignition config: parsing Ignition config failed: unknown version. Supported spec versions: 2.2, 3.0, 3.1, 3.2',
    );
  });

  it('lists the versions as the MCO does in each era', () => {
    expect(supportedSpecVersions()).toBe(SUPPORTED);
    expect(supportedSpecVersions(4)).toBe('2.2, 3.0, 3.1, 3.2, 3.3, 3.4');
  });

  it('reads versions as go-semver does', () => {
    expect(parseGoSemver('3.2.0')).toEqual({ major: 3, minor: 2, patch: 0, preRelease: '', metadata: '' });
    expect(parseGoSemver('03.2.0-rc.1+x')).toEqual({ major: 3, minor: 2, patch: 0, preRelease: 'rc.1', metadata: 'x' });
    expect(parseGoSemver('3.2')).toBeUndefined();
    expect(parseGoSemver('3.2.0.1')).toBeUndefined();
    expect(parseGoSemver('3.2.0-')).toEqual({ major: 3, minor: 2, patch: 0, preRelease: '', metadata: '' });
    expect(parseGoSemver('3.2.0-a..b')).toBeUndefined();
  });
});

describe('toSpec3: spec 2.2 through ign-converter v23tov30 (its exhaustive config, on the root filesystem)', () => {
  const ref = { source: 'https://example.com', verification: { hash: HASH } };
  const v22 = {
    ignition: {
      version: '2.2.0',
      config: { append: [ref], replace: ref },
      timeouts: { httpResponseHeaders: 5, httpTotal: 10 },
      security: { tls: { certificateAuthorities: [ref] } },
    },
    storage: {
      disks: [{ device: '/dev/sda', wipeTable: true }],
      raid: [{ name: 'array', level: 'raid10', devices: ['/dev/sdb', '/dev/sdc'], spares: 1, options: ['foobar'] }],
      files: [
        {
          filesystem: 'root',
          path: '/etc/motd',
          overwrite: false,
          append: true,
          mode: 420,
          contents: { source: 'data:text/plain;base64,Zm9vCg==' },
        },
        { filesystem: 'root', path: '/empty', mode: 420 },
        {
          filesystem: 'root',
          path: '/etc/owned',
          user: { id: 1000 },
          group: { name: 'groupname' },
          mode: 384,
          contents: { source: 'https://example.com', compression: 'gzip', verification: { hash: HASH } },
        },
      ],
      directories: [{ filesystem: 'root', path: '/rootdir', overwrite: true, user: { id: 1000 }, group: { name: 'groupname' }, mode: 493 }],
      links: [
        {
          filesystem: 'root',
          path: '/rootlink',
          overwrite: true,
          user: { id: 1000 },
          group: { name: 'groupname' },
          hard: false,
          target: '/foobar',
        },
      ],
    },
    systemd: {
      units: [
        { name: 'a.service', enable: true, contents: '[Unit]\n[Install]\nWantedBy=multi-user.target\n' },
        { name: 'b.service', enabled: false, enable: true, mask: true },
        { name: 'c.service', dropins: [{ name: '10-x.conf', contents: '[Service]\n' }] },
      ],
    },
    passwd: {
      users: [{ name: 'core', sshAuthorizedKeys: ['k1'], passwordHash: 'x', groups: ['wheel'] }],
      groups: [{ name: 'grp', gid: 1001, system: true }],
    },
  };
  const owner = { group: { name: 'groupname' }, user: { id: 1000 } };

  it('translates every field, files and units coming out in reverse (the MCO keeps the last of each)', () => {
    expect(toSpec3(v22, SRC)).toEqual({
      ignition: {
        config: { merge: [ref], replace: ref },
        security: { tls: { certificateAuthorities: [ref] } },
        timeouts: { httpResponseHeaders: 5, httpTotal: 10 },
        version: '3.5.0',
      },
      passwd: {
        groups: [{ gid: 1001, name: 'grp', system: true }],
        users: [{ groups: ['wheel'], name: 'core', passwordHash: 'x', sshAuthorizedKeys: ['k1'] }],
      },
      storage: {
        directories: [{ ...owner, overwrite: true, path: '/rootdir', mode: 493 }],
        disks: [{ device: '/dev/sda', wipeTable: true }],
        files: [
          {
            ...owner,
            overwrite: true,
            path: '/etc/owned',
            contents: { compression: 'gzip', source: 'https://example.com', verification: { hash: HASH } },
            mode: 384,
          },
          // A spec 2 file without contents is an empty file: its source becomes "", which spec 3 keeps.
          { overwrite: true, path: '/empty', contents: { source: '' }, mode: 420 },
          { overwrite: false, path: '/etc/motd', append: [{ source: 'data:text/plain;base64,Zm9vCg==' }], mode: 420 },
        ],
        links: [{ ...owner, overwrite: true, path: '/rootlink', target: '/foobar' }],
        raid: [{ devices: ['/dev/sdb', '/dev/sdc'], level: 'raid10', name: 'array', options: ['foobar'], spares: 1 }],
      },
      systemd: {
        units: [
          { dropins: [{ contents: '[Service]\n', name: '10-x.conf' }], name: 'c.service' },
          // `enabled: false` beats the deprecated `enable: true`.
          { enabled: false, mask: true, name: 'b.service' },
          { contents: '[Unit]\n[Install]\nWantedBy=multi-user.target\n', enabled: true, name: 'a.service' },
        ],
      },
    });
  });

  it('writes the result in the Go structs’ field order', () => {
    const out = toSpec3(
      spec22({ storage: { files: [{ filesystem: 'root', path: '/etc/a', mode: 420, contents: { source: 'data:,a' } }] } }),
      SRC,
    );
    expect(JSON.stringify(out)).toBe(
      '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"overwrite":true,"path":"/etc/a","contents":{"source":"data:,a"},"mode":420}]}}',
    );
  });

  it('refuses a filesystem other than root: the MCO maps no other to a mount point', () => {
    const config = spec22({ storage: { filesystems: [{ name: 'var', mount: { device: '/dev/disk/by-partlabel/var', format: 'xfs' } }] } });
    expect(errorOf(config)).toBe(
      convertFailed(
        'Config defined filesystem "var" but no mapping was defined.Please specify a path to be used as the filesystem mountpoint.',
      ),
    );
  });

  it('refuses any partition: 2.3 makes its size and start pointers, which 2.3 deprecates', () => {
    const config = spec22({ storage: { disks: [{ device: '/dev/sda', partitions: [{ label: 'var', number: 1 }] }] } });
    expect(errorOf(config)).toBe(
      convertFailed(
        'Invalid input config:\ndeprecated: size is deprecated; use sizeMB instead\ndeprecated: start is deprecated; use startMB instead',
      ),
    );
  });
});

describe('toSpec3: the MCO’s duplicate clean-up of spec 2 (removeIgnDuplicateFilesUnitsUsers)', () => {
  it('keeps the last file of a path and the last unit of a name, adding the dropins it lacks', () => {
    const file = (source: string) => ({ filesystem: 'root', path: '/etc/testfileconfig', mode: 420, contents: { source } });
    const config = spec22({
      storage: { files: [file('data:,old'), file('data:,new')] },
      systemd: {
        units: [
          { name: 'test.service', contents: 'old', dropins: [{ name: 'one.conf', contents: 'old' }] },
          { name: 'test.service', dropins: [{ name: 'one.conf', contents: 'new' }] },
          { name: 'test.service', contents: 'new', dropins: [{ name: 'two.conf', contents: 'new' }] },
        ],
      },
    });
    expect(toSpec3(config, SRC)).toEqual({
      ignition: { version: '3.5.0' },
      storage: { files: [{ overwrite: true, path: '/etc/testfileconfig', contents: { source: 'data:,new' }, mode: 420 }] },
      systemd: {
        units: [
          {
            contents: 'new',
            dropins: [
              { contents: 'new', name: 'two.conf' },
              { contents: 'new', name: 'one.conf' },
            ],
            name: 'test.service',
          },
        ],
      },
    });
  });

  it('merges the SSH keys of repeated core entries, the last entry’s first', () => {
    const config = spec22({
      passwd: {
        users: [
          { name: 'core', sshAuthorizedKeys: ['one', 'two'] },
          { name: 'core', sshAuthorizedKeys: ['three', 'one'] },
        ],
      },
    });
    expect(toSpec3(config, SRC).passwd).toEqual({ users: [{ name: 'core', sshAuthorizedKeys: ['three', 'one', 'two'] }] });
  });

  it('refuses a user other than core, unwrapped', () => {
    expect(errorOf(spec22({ passwd: { users: [{ name: 'core' }, { name: 'bob' }] } }))).toBe(
      'unexpected user with name: bob. Only core user is supported',
    );
  });
});

describe('toSpec3: what v23tov30 refuses', () => {
  const f = (path: string, extra: object = {}) => ({ filesystem: 'root', path, mode: 420, ...extra });

  it('refuses a file and a directory at one path', () => {
    expect(errorOf(spec22({ storage: { files: [f('/etc/a')], directories: [f('/etc/a')] } }))).toBe(
      convertFailed(
        'Config has conflicting inodes: "File: /etc/a" and "Directory: /etc/a".  All files, directories and links must specify a unique `path`.',
      ),
    );
  });

  it('refuses a link at a file’s path', () => {
    expect(errorOf(spec22({ storage: { files: [f('/etc/a')], links: [{ filesystem: 'root', path: '/etc/a', target: '/x' }] } }))).toBe(
      convertFailed(
        'Config has conflicting inodes: "File: /etc/a" and "Link: /etc/a".  All files, directories and links must specify a unique `path`.',
      ),
    );
  });

  it('refuses a path through a link the config writes', () => {
    expect(errorOf(spec22({ storage: { files: [f('/etc/l/f')], links: [{ filesystem: 'root', path: '/etc/l', target: '/x' }] } }))).toBe(
      convertFailed('File: /etc/l/f uses link defined in config "/etc/l". Please use a link not defined in Storage:Links'),
    );
  });

  it('refuses two dropins of one name in a unit', () => {
    const unit = { name: 'u.service', dropins: [{ name: 'x.conf' }, { name: 'x.conf' }] };
    expect(errorOf(spec22({ systemd: { units: [unit] } }))).toBe(
      convertFailed('Config has duplicate dropin name "x.conf" in unit "u.service".  All dropins must specify a unique `name`.'),
    );
  });

  it('refuses networkd units', () => {
    expect(errorOf(spec22({ networkd: { units: [{ name: 'x.network', contents: '[Match]\n' }] } }))).toBe(
      convertFailed('config includes deprecated networkd section - use Files instead'),
    );
  });

  it('refuses a file where a unit of the config is written, as the 3.0 validation of the result does', () => {
    const config = spec22({
      storage: { files: [f('/etc/systemd/system/foo.service', { contents: { source: 'data:,x' } })] },
      systemd: { units: [{ name: 'foo.service', contents: '[Unit]\n' }] },
    });
    expect(errorOf(config)).toBe(convertFailed('error at $.storage.files.0.path: path conflicts with systemd unit or dropin\n'));
  });
});

describe('toSpec3: spec 2 validation (config/v2_2)', () => {
  it('refuses append together with overwrite', () => {
    const config = spec22({ storage: { files: [{ filesystem: 'root', path: '/etc/x', append: true, overwrite: true, mode: 420 }] } });
    expect(errorOf(config)).toBe(v2Failed('error: cannot set both append and overwrite to true'));
  });

  it('reports every entry in walk order, warnings included', () => {
    const config = spec22({ storage: { files: [{ filesystem: 'root', path: 'etc/x', bogus: 1 }] } });
    expect(errorOf(config)).toBe(
      v2Failed('error: path not absolute\nwarning: permissions unset, defaulting to 0000\nwarning: Config has unrecognized key: bogus'),
    );
  });

  it('refuses a node without a filesystem and a unit with a bad extension', () => {
    const config = spec22({
      storage: { files: [{ path: '/etc/x', mode: 420 }] },
      systemd: { units: [{ name: 'x.srvice' }] },
    });
    expect(errorOf(config)).toBe(v2Failed('error: no filesystem specified\nerror: invalid systemd unit extension'));
  });

  it('refuses a bad hash and an unknown URL scheme', () => {
    const config = spec22({
      storage: {
        files: [{ filesystem: 'root', path: '/etc/x', mode: 420, contents: { source: 'ftp://x/y', verification: { hash: 'sha256-00' } } }],
      },
    });
    expect(errorOf(config)).toBe(v2Failed('error: invalid url scheme\nerror: unrecognized hash function'));
  });

  it('answers a spec 2 config Go cannot unmarshal with "unknown version" (the fallback to older specs ends there)', () => {
    const config = spec22({ storage: { files: [{ filesystem: 'root', path: '/etc/x', mode: '0644' }] } });
    expect(errorOf(config)).toBe(
      `failed to parse Ignition config: parsing Ignition config failed: unknown version. Supported spec versions: ${SUPPORTED}`,
    );
  });
});

describe('toSpec3: specs 2.0 and 2.1', () => {
  it('gives a 2.1 file a mode of 0 when it has none, and ignores the append and overwrite 2.1 does not know', () => {
    const config = {
      ignition: { version: '2.1.0' },
      storage: { files: [{ filesystem: 'root', path: '/etc/a', append: true, overwrite: false, contents: { source: 'data:,a' } }] },
    };
    expect(toSpec3(config, SRC).storage).toEqual({
      files: [{ overwrite: true, path: '/etc/a', contents: { source: 'data:,a' }, mode: 0 }],
    });
  });

  it('gives a 2.0 file user and group id 0 when it names none', () => {
    const config = {
      ignition: { version: '2.0.0' },
      storage: { files: [{ filesystem: 'root', path: '/etc/a', mode: 420, contents: { source: 'data:,a' } }] },
      systemd: { units: [{ name: 'a.service', enable: true, dropins: [{ name: 'x.conf', contents: '[Service]\n' }] }] },
    };
    expect(toSpec3(config, SRC)).toEqual({
      ignition: { version: '3.5.0' },
      storage: {
        files: [{ group: { id: 0 }, overwrite: true, path: '/etc/a', user: { id: 0 }, contents: { source: 'data:,a' }, mode: 420 }],
      },
      systemd: { units: [{ dropins: [{ contents: '[Service]\n', name: 'x.conf' }], enabled: true, name: 'a.service' }] },
    });
  });
});

describe('toSpec3: spec 3 validation (ValidateWithContext of the config’s own version)', () => {
  const v = (version: string, rest: Record<string, unknown>): Record<string, unknown> => ({ ignition: { version }, ...rest });

  it('refuses two entries of one path, across files, directories and links', () => {
    expect(errorOf(v('3.2.0', { storage: { files: [{ path: '/a' }, { path: '/a' }] } }))).toBe(
      v3Failed('error at $.storage.files.1: duplicate entry defined\n'),
    );
    expect(errorOf(v('3.5.0', { storage: { files: [{ path: '/a' }], links: [{ path: '/a', target: '/b' }] } }))).toBe(
      v3Failed('error at $.storage.links.0: duplicate entry defined\n'),
    );
  });

  it('refuses two units of one name, and a repeated SSH key', () => {
    expect(errorOf(v('3.1.0', { systemd: { units: [{ name: 'a.service' }, { name: 'a.service' }] } }))).toBe(
      v3Failed('error at $.systemd.units.1: duplicate entry defined\n'),
    );
    expect(errorOf(v('3.4.0', { passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k', 'k'] }] } }))).toBe(
      v3Failed('error at $.passwd.users.0.sshAuthorizedKeys.1: duplicate entry defined\n'),
    );
  });

  it('refuses overwrite without a source', () => {
    expect(errorOf(v('3.5.0', { storage: { files: [{ path: '/a', overwrite: true }] } }))).toBe(
      v3Failed('error at $.storage.files.0.overwrite: overwrite must be false if source is unspecified\n'),
    );
  });

  it('reports a value of the wrong JSON type in encoding/json’s words', () => {
    expect(errorOf(v('3.4.0', { storage: { files: [{ path: '/a', mode: '0644' }] } }))).toBe(
      v3Failed('error: json: cannot unmarshal string into Go struct field File.storage.files.mode of type int\n'),
    );
  });

  it('lists warnings and unused keys after the errors when the config is refused', () => {
    const config = v('3.5.0', {
      storage: { files: [{ path: 'a', bogus: 1 }] },
      systemd: { units: [{ name: 'x', enabled: true, contents: '[Service]\nExecStart=/bin/true\n' }] },
    });
    expect(errorOf(config)).toBe(
      v3Failed(
        [
          'error at $.storage.files.0.path: path not absolute',
          'error at $.systemd.units.0.name: invalid systemd unit extension',
          'warning at $.systemd.units.0.contents: unit "x" is enabled, but has no install section so enable does nothing',
          'warning at $.storage.files.0.bogus: unused key bogus',
          '',
        ].join('\n'),
      ),
    );
  });

  it('counts an [Install] section only when it sets something', () => {
    const unit = (contents: string) =>
      v('3.5.0', {
        storage: { files: [{ path: '/a', overwrite: true }] },
        systemd: { units: [{ name: 'u.service', enabled: true, contents }] },
      });
    const overwrite = 'error at $.storage.files.0.overwrite: overwrite must be false if source is unspecified\n';
    expect(errorOf(unit('[Unit]\n[Install]\n'))).toBe(
      v3Failed(
        `${overwrite}warning at $.systemd.units.0.contents: unit "u.service" is enabled, but has no install section so enable does nothing\n`,
      ),
    );
    expect(errorOf(unit('[Unit]\n[Install]\nWantedBy=multi-user.target\n'))).toBe(v3Failed(overwrite));
  });

  it('checks sources: the scheme, a data URL’s base64, an S3 version', () => {
    const source = (s: string) => v('3.5.0', { storage: { files: [{ path: '/a', contents: { source: s } }] } });
    const at = '$.storage.files.0.contents.source';
    expect(errorOf(source('ftp://example.com/a'))).toBe(v3Failed(`error at ${at}: invalid url scheme\n`));
    expect(errorOf(source('data:;base64,Zm9vC'))).toBe(v3Failed(`error at ${at}: illegal base64 data at input byte 4\n`));
    expect(errorOf(source('data:;base64,Zm9vCg'))).toBe(v3Failed(`error at ${at}: illegal base64 data at input byte 4\n`));
    expect(errorOf(source('s3://bucket/key?versionId='))).toBe(v3Failed(`error at ${at}: invalid S3 object VersionId\n`));
    expect(errorOf(source('http://host:port/a'))).toBe(v3Failed(`error at ${at}: unable to parse url\n`));
    expect(toSpec3(source('gs://bucket/key'), SRC).storage).toEqual({ files: [{ path: '/a', contents: { source: 'gs://bucket/key' } }] });
    expect(errorOf({ ...source('gs://bucket/key'), ignition: { version: '3.1.0' } })).toBe(
      v3Failed(`error at ${at}: invalid url scheme\n`),
    );
  });

  it('checks a version’s own rules: sha256 hashes from 3.1, link targets from 3.3', () => {
    const hashed = (version: string) =>
      v(version, {
        storage: { files: [{ path: '/a', contents: { source: 'data:,', verification: { hash: `sha256-${'0'.repeat(64)}` } } }] },
      });
    expect(errorOf(hashed('3.0.0'))).toBe(v3Failed('error at $.storage.files.0.contents.verification.hash: unrecognized hash function\n'));
    expect(toSpec3(hashed('3.1.0'), SRC).storage).toEqual(hashed('3.1.0').storage);
    expect(toSpec3(v('3.2.0', { storage: { links: [{ path: '/l' }] } }), SRC).storage).toEqual({ links: [{ path: '/l', target: '' }] });
    expect(errorOf(v('3.3.0', { storage: { links: [{ path: '/l' }] } }))).toBe(
      v3Failed('error at $.storage.links.0.target: link target is required\n'),
    );
  });

  it('drops what the config’s own version does not have, as Go’s decoder does', () => {
    expect(toSpec3(v('3.2.0', { kernelArguments: { shouldExist: ['a'] } }), SRC)).toEqual({ ignition: { version: '3.5.0' } });
    expect(toSpec3(v('3.3.0', { kernelArguments: { shouldExist: ['a'] } }), SRC)).toEqual({
      ignition: { version: '3.5.0' },
      kernelArguments: { shouldExist: ['a'] },
    });
  });

  it('raises 3.0 references and 3.2 clevis pointers to their 3.5 shapes', () => {
    const config30 = v('3.0.0', {
      ignition: { version: '3.0.0', security: { tls: { certificateAuthorities: [{ source: 'https://ca' }] } } },
    });
    expect(toSpec3(config30, SRC).ignition).toEqual({
      security: { tls: { certificateAuthorities: [{ source: 'https://ca' }] } },
      version: '3.5.0',
    });
    const luks = { name: 'root', device: '/dev/disk/by-label/root', clevis: { custom: { config: '{}', pin: 'tpm2' } } };
    expect(toSpec3(v('3.2.0', { storage: { luks: [luks] } }), SRC).storage).toEqual({ luks: [luks] });
  });
});
