/**
 * Ignition spec 3 merging. The first group restates, as JSON configs, the cases of TestMerge and
 * TestMergeStructPointers in coreos/ignition config/merge/merge_test.go (commit a5d574a8, main, 2026; the Go
 * structs become the JSON the MCO would marshal them to, transcripts left out); the rest pin the rules the
 * machine-config-operator depends on and its own merge loop (MergeMachineConfigs).
 */
import { describe, expect, it } from 'vitest';
import { PayloadError } from '../../src/payload/errors.js';
import { mergeIgnition3, mergeRenderedIgnition } from '../../src/payload/ignition/merge.js';

const CONFIG_URL = 'http://example.com/myconf.ign';
const CA_URL = 'http://example.com/myca.cert';
const FILE_URL = 'http://example.com/myfile.txt';

/** The three header lists every header case of merge_test.go uses. */
const HEADERS = {
  parent: [
    { name: 'old-header', value: 'old-value' },
    { name: 'same-header', value: 'old-value' },
    { name: 'to-remove-header', value: 'some-value' },
  ],
  child: [{ name: 'to-remove-header' }, { name: 'new-header', value: 'new-value' }, { name: 'same-header', value: 'new-value' }],
  merged: [
    { name: 'old-header', value: 'old-value' },
    { name: 'same-header', value: 'new-value' },
    { name: 'new-header', value: 'new-value' },
  ],
};

describe('mergeIgnition3: the cases of ignition config/merge TestMerge', () => {
  it('merges two empty configs into an empty one (its version an empty string, which Go always writes)', () => {
    expect(mergeIgnition3({}, {})).toEqual({ ignition: { version: '' } });
  });

  it("takes the child's version, unvalidated", () => {
    expect(mergeIgnition3({ ignition: { version: '1234' } }, { ignition: { version: "haha this isn't validated" } })).toEqual({
      ignition: { version: "haha this isn't validated" },
    });
  });

  it('merges disks, partitions, appends, nodes across kinds and SSH keys', () => {
    const parent = {
      storage: {
        disks: [
          { device: 'foo', wipeTable: true, partitions: [{ number: 1, label: 'label', startMiB: 4 }] },
          { device: 'bar', wipeTable: true },
        ],
        files: [
          { path: '/foo', append: [{ source: 'source1' }] },
          { path: '/bar', contents: { compression: 'gzip' } },
        ],
      },
      passwd: { users: [{ name: 'bovik', sshAuthorizedKeys: ['one', 'two'] }] },
    };
    const child = {
      storage: {
        disks: [
          {
            device: 'foo',
            wipeTable: false,
            partitions: [
              { number: 1, label: 'labelchanged' },
              { number: 2, label: 'label2' },
            ],
          },
          { device: 'bar' },
          { device: 'baz', wipeTable: true },
        ],
        files: [{ path: '/foo', append: [{ source: 'source1' }, { source: 'source2' }] }],
        directories: [{ path: '/bar' }],
        links: [{ path: '/baz' }],
      },
      passwd: { users: [{ name: 'bovik', sshAuthorizedKeys: ['three', 'two'] }] },
    };
    expect(mergeIgnition3(parent, child)).toEqual({
      ignition: { version: '' },
      passwd: { users: [{ name: 'bovik', sshAuthorizedKeys: ['one', 'two', 'three'] }] },
      storage: {
        // The file /bar of the parent gives way to the child's directory /bar.
        directories: [{ path: '/bar' }],
        disks: [
          {
            device: 'foo',
            partitions: [
              { label: 'labelchanged', number: 1, startMiB: 4 },
              { label: 'label2', number: 2 },
            ],
            wipeTable: false,
          },
          { device: 'bar', wipeTable: true },
          { device: 'baz', wipeTable: true },
        ],
        files: [{ path: '/foo', append: [{ source: 'source1' }, { source: 'source1' }, { source: 'source2' }] }],
        links: [{ path: '/baz' }],
      },
    });
  });

  it.each([
    ['ignition.config.merge', (h: object[]) => ({ ignition: { config: { merge: [{ source: CONFIG_URL, httpHeaders: h }] } } })],
    ['ignition.config.replace', (h: object[]) => ({ ignition: { config: { replace: { source: CONFIG_URL, httpHeaders: h } } } })],
    [
      'certificateAuthorities',
      (h: object[]) => ({ ignition: { security: { tls: { certificateAuthorities: [{ source: CA_URL, httpHeaders: h }] } } } }),
    ],
    ['a file’s contents', (h: object[]) => ({ storage: { files: [{ path: '', contents: { source: FILE_URL, httpHeaders: h } }] } })],
  ])('merges the HTTP headers of %s by name, a child header without a value deleting the parent’s', (_what, shape) => {
    const out = mergeIgnition3(shape(HEADERS.parent), shape(HEADERS.child));
    const expected: Record<string, unknown> = shape(HEADERS.merged);
    expect(out).toEqual({ ...expected, ignition: { ...(expected.ignition as object | undefined), version: '' } });
  });

  it('concatenates a file’s append entries whole, headers and all, even with one source', () => {
    const parentEntry = {
      source: FILE_URL,
      httpHeaders: [
        { name: 'old-header', value: 'old-value' },
        { name: 'same-header', value: 'old-value' },
      ],
    };
    const childEntry = {
      source: FILE_URL,
      httpHeaders: [
        { name: 'new-header', value: 'new-value' },
        { name: 'same-header', value: 'new-value' },
      ],
    };
    const out = mergeIgnition3(
      { storage: { files: [{ path: '', append: [parentEntry] }] } },
      { storage: { files: [{ path: '', append: [childEntry] }] } },
    );
    expect(out.storage).toEqual({ files: [{ path: '', append: [parentEntry, childEntry] }] });
  });

  it('merges subtrees only one side has: filesystem options concatenate, file fields fill in', () => {
    const parent = {
      storage: {
        filesystems: [
          { device: '/dev/sda', options: ['a', 'b'] },
          { device: '/dev/sdb', options: ['a', 'b'] },
        ],
        files: [
          { path: '/a', contents: { source: 'data:' } },
          { path: '/b', mode: 0o644 },
          { path: '/c', contents: { source: 'data:' } },
        ],
        directories: [{ path: '/d' }],
      },
    };
    const child = {
      storage: {
        filesystems: [
          { device: '/dev/sda', mountOptions: ['c', 'd'] },
          { device: '/dev/sdb', options: ['c', 'd'] },
        ],
        files: [
          { path: '/a', mode: 0o644 },
          { path: '/b', contents: { source: 'data:' } },
          { path: '/c', contents: { compression: 'gzip' } },
        ],
        links: [{ path: '/e' }],
      },
    };
    expect(mergeIgnition3(parent, child).storage).toEqual({
      directories: [{ path: '/d' }],
      files: [
        { path: '/a', contents: { source: 'data:' }, mode: 0o644 },
        { path: '/b', contents: { source: 'data:' }, mode: 0o644 },
        { path: '/c', contents: { compression: 'gzip', source: 'data:' } },
      ],
      filesystems: [
        { device: '/dev/sda', mountOptions: ['c', 'd'], options: ['a', 'b'] },
        { device: '/dev/sdb', options: ['a', 'b', 'c', 'd'] },
      ],
      links: [{ path: '/e' }],
    });
  });

  const ONE_SIDED = {
    storage: {
      files: [
        {
          path: '/a',
          contents: { source: 'data:', httpHeaders: [{ name: 'header', value: 'value' }] },
          append: [{ source: 'data:', httpHeaders: [{ name: 'header', value: 'value' }] }],
        },
      ],
      filesystems: [{ device: '/dev/sda', options: ['z'] }],
    },
  };

  it('keeps a subtree only the parent has', () => {
    expect(mergeIgnition3(ONE_SIDED, {})).toEqual({
      ignition: { version: '' },
      storage: { files: [ONE_SIDED.storage.files[0]], filesystems: ONE_SIDED.storage.filesystems },
    });
  });

  it('takes a subtree only the child has', () => {
    expect(mergeIgnition3({}, ONE_SIDED)).toEqual({
      ignition: { version: '' },
      storage: { files: [ONE_SIDED.storage.files[0]], filesystems: ONE_SIDED.storage.filesystems },
    });
  });

  it("lets the child's kernelArguments.shouldNotExist take an argument out of the parent's shouldExist", () => {
    const out = mergeIgnition3(
      { kernelArguments: { shouldExist: ['foo', 'bar baz', 'test'], shouldNotExist: ['brown fox'] } },
      { kernelArguments: { shouldNotExist: ['test'] } },
    );
    expect(out.kernelArguments).toEqual({ shouldExist: ['foo', 'bar baz'], shouldNotExist: ['brown fox', 'test'] });
  });
});

describe('mergeIgnition3: TestMergeStructPointers (luks clevis)', () => {
  const parent = {
    ignition: { version: '3.2.0' },
    storage: { luks: [{ clevis: { custom: { config: 'cfg', pin: 'pin' }, threshold: 1 }, device: '/dev/foo', name: 'bar' }] },
  };
  const child = {
    ignition: { version: '3.2.0' },
    storage: {
      luks: [
        { clevis: { threshold: 2 }, name: 'bar' },
        { clevis: { tpm2: true }, device: '/dev/baz', name: 'bleh' },
      ],
    },
  };
  const merged = [
    { clevis: { custom: { config: 'cfg', pin: 'pin' }, threshold: 2 }, device: '/dev/foo', name: 'bar' },
    { clevis: { tpm2: true }, device: '/dev/baz', name: 'bleh' },
  ];

  it('merges the pointers of spec 3.2 (Luks.Clevis, Clevis.Custom) field by field', () => {
    expect(mergeIgnition3(parent, child, 2).storage).toEqual({ luks: merged });
  });

  it('gives the same result with the structs that replaced them in 3.3', () => {
    expect(mergeIgnition3(parent, child, 5).storage).toEqual({ luks: merged });
  });
});

describe('mergeIgnition3: the rules the MCO relies on', () => {
  const v = { version: '3.5.0' };

  it("lets a child's explicit false, 0 or empty string win, and a missing or null one keep the parent's", () => {
    const parent = {
      ignition: v,
      storage: { files: [{ path: '/a', overwrite: true, mode: 420, contents: { source: 'data:,x', compression: 'gzip' } }] },
    };
    const child = {
      ignition: v,
      storage: { files: [{ path: '/a', overwrite: false, mode: 0, contents: { source: '', compression: null } }] },
    };
    expect(mergeIgnition3(parent, child).storage).toEqual({
      files: [{ path: '/a', overwrite: false, mode: 0, contents: { source: '', compression: 'gzip' } }],
    });
  });

  it('replaces a file by a child link at its path: the file leaves the files, the link joins the links', () => {
    const parent = { ignition: v, storage: { files: [{ path: '/x' }, { path: '/y' }], links: [{ path: '/l', target: '/t' }] } };
    const child = { ignition: v, storage: { links: [{ path: '/x', target: '/z' }] } };
    expect(mergeIgnition3(parent, child).storage).toEqual({
      files: [{ path: '/y' }],
      links: [
        { path: '/l', target: '/t' },
        { path: '/x', target: '/z' },
      ],
    });
  });

  it('keeps the parent’s order and merges in place, appending the child’s new entries in its order', () => {
    const parent = {
      ignition: v,
      systemd: { units: [{ name: 'a.service' }, { name: 'b.service', enabled: true }, { name: 'c.service' }] },
    };
    const child = { ignition: v, systemd: { units: [{ name: 'd.service' }, { name: 'b.service', contents: 'x' }, { name: 'e.service' }] } };
    expect(mergeIgnition3(parent, child).systemd).toEqual({
      units: [
        { name: 'a.service' },
        { contents: 'x', enabled: true, name: 'b.service' },
        { name: 'c.service' },
        { name: 'd.service' },
        { name: 'e.service' },
      ],
    });
  });

  it('merges dropins by name within a unit', () => {
    const parent = {
      ignition: v,
      systemd: {
        units: [
          {
            name: 'k.service',
            dropins: [
              { name: '1.conf', contents: 'a' },
              { name: '2.conf', contents: 'b' },
            ],
          },
        ],
      },
    };
    const child = {
      ignition: v,
      systemd: { units: [{ name: 'k.service', mask: true, dropins: [{ name: '2.conf', contents: 'c' }, { name: '3.conf' }] }] },
    };
    expect(mergeIgnition3(parent, child).systemd).toEqual({
      units: [
        {
          name: 'k.service',
          mask: true,
          dropins: [{ name: '1.conf', contents: 'a' }, { name: '2.conf', contents: 'c' }, { name: '3.conf' }],
        },
      ],
    });
  });

  it('unions SSH keys, but keeps duplicates a list already had', () => {
    const out = mergeIgnition3(
      { ignition: v, passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['a', 'a', 'b'] }] } },
      { ignition: v, passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['b', 'c', 'c'] }] } },
    );
    expect(out.passwd).toEqual({ users: [{ name: 'core', sshAuthorizedKeys: ['a', 'a', 'b', 'c', 'c'] }] });
  });

  it('matches partitions by number, else by label', () => {
    const parent = {
      ignition: v,
      storage: {
        disks: [
          {
            device: '/dev/vda',
            partitions: [
              { label: 'root', sizeMiB: 1 },
              { number: 4, label: 'x' },
            ],
          },
        ],
      },
    };
    const child = {
      ignition: v,
      storage: {
        disks: [
          {
            device: '/dev/vda',
            partitions: [
              { label: 'root', sizeMiB: 2 },
              { number: 4, resize: true },
            ],
          },
        ],
      },
    };
    expect(mergeIgnition3(parent, child).storage).toEqual({
      disks: [
        {
          device: '/dev/vda',
          partitions: [
            { label: 'root', sizeMiB: 2 },
            { label: 'x', number: 4, resize: true },
          ],
        },
      ],
    });
  });

  it('merges with the last of a child’s duplicate keys, and appends every duplicate the parent lacks', () => {
    const out = mergeIgnition3(
      { ignition: v, passwd: { groups: [{ name: 'g', gid: 1 }] } },
      {
        ignition: v,
        passwd: {
          groups: [
            { name: 'g', system: true },
            { name: 'g', passwordHash: 'h' },
            { name: 'n', gid: 2 },
            { name: 'n', gid: 3 },
          ],
        },
      },
    );
    expect(out.passwd).toEqual({
      groups: [
        { gid: 1, name: 'g', passwordHash: 'h' },
        { gid: 2, name: 'n' },
        { gid: 3, name: 'n' },
      ],
    });
  });

  it('writes no empty struct, drops unknown keys and keeps the untagged key fields', () => {
    const out = mergeIgnition3(
      { ignition: v, passwd: {}, storage: { files: [{ path: '/a', user: {}, bogus: 1 }] } },
      { ignition: v, systemd: { units: [] } },
    );
    expect(JSON.stringify(out)).toBe('{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/a"}]}}');
  });

  it('writes fields in the Go structs’ order', () => {
    const out = mergeIgnition3({ systemd: { units: [{ name: 'a.service', enabled: true, contents: 'c' }] }, ignition: v }, { ignition: v });
    expect(JSON.stringify(out)).toBe(
      '{"ignition":{"version":"3.5.0"},"systemd":{"units":[{"contents":"c","enabled":true,"name":"a.service"}]}}',
    );
  });

  it('refuses a config Go could not decode, with encoding/json’s words', () => {
    expect(() => mergeIgnition3({ ignition: v, storage: { files: [{ path: '/a', mode: '0644' }] } }, { ignition: v })).toThrow(
      PayloadError,
    );
    expect(() => mergeIgnition3({ ignition: v }, { ignition: v, storage: { files: [{ path: '/a', mode: '0644' }] } })).toThrow(
      'cannot merge the child Ignition config: json: cannot unmarshal string into Go struct field File.storage.files.mode of type int',
    );
    expect(() => mergeIgnition3([], {})).toThrow('json: cannot unmarshal array into Go value of type types.Config');
  });
});

describe('mergeRenderedIgnition: the Ignition half of MergeMachineConfigs', () => {
  const v = { version: '3.5.0' };
  const file = (extra: object) => ({ ignition: v, storage: { files: [{ path: '/etc/f', mode: 420, ...extra }] } });

  it('does not let new contents inherit an old compression', () => {
    const out = mergeRenderedIgnition([
      file({ contents: { source: 'data:;base64,H4sI', compression: 'gzip' } }),
      file({ contents: { source: 'data:,hello' } }),
    ]);
    expect(out.storage).toEqual({ files: [{ overwrite: true, path: '/etc/f', contents: { source: 'data:,hello' }, mode: 420 }] });
  });

  it('lets plain Ignition merging keep the old compression (what the MCO did before 2025-04)', () => {
    const out = mergeRenderedIgnition(
      [file({ contents: { source: 'data:;base64,H4sI', compression: 'gzip' } }), file({ contents: { source: 'data:,hello' } })],
      {
        compressionReset: false,
      },
    );
    expect(out.storage).toEqual({
      files: [{ overwrite: true, path: '/etc/f', contents: { compression: 'gzip', source: 'data:,hello' }, mode: 420 }],
    });
  });

  it('defaults overwrite to true, keeping an explicit false', () => {
    const out = mergeRenderedIgnition([{ ignition: v, storage: { files: [{ path: '/a' }, { path: '/b', overwrite: false }] } }]);
    expect(out.storage).toEqual({
      files: [
        { overwrite: true, path: '/a' },
        { overwrite: false, path: '/b' },
      ],
    });
    expect(mergeRenderedIgnition([{ ignition: v, storage: { files: [{ path: '/a' }] } }], { overwriteDefault: false }).storage).toEqual({
      files: [{ path: '/a' }],
    });
  });

  it('starts from an empty config of the spec when the first has none, and skips later ones without', () => {
    expect(mergeRenderedIgnition([null, { ignition: v, passwd: { users: [{ name: 'core' }] } }, undefined])).toEqual({
      ignition: { version: '3.5.0' },
      passwd: { users: [{ name: 'core' }] },
    });
    expect(mergeRenderedIgnition([undefined], { minor: 2 })).toEqual({ ignition: { version: '3.2.0' } });
  });
});
