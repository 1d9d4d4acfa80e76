import { describe, expect, it } from 'vitest';
import { parseMeta } from '../../src/rhcos/meta.js';
import { describeChange, changedFields, snapshotOf, stableJson } from '../../src/pin/snapshot.js';
import { rhel10Meta } from './setup.js';

const META_2018 = {
  buildid: '47.246',
  'ostree-version': '47.246',
  'ostree-commit': '944ff9bc87cd18d12366a944e11476f94edb1660102e1c1830744e13106fc72e',
  'ostree-timestamp': '2019-01-05T23:11:19Z',
  name: 'rhcos',
  amis: [
    { name: 'us-east-1', hvm: 'ami-009d544e10870b87b' },
    { name: 'us-west-2', hvm: 'ami-08d9467c4d49e0a07' },
  ],
  images: { qemu: { path: 'q.qcow2.gz', sha256: 'aa', size: '12' } },
  oscontainer: { image: 'registry.example/rhcos/maipo', digest: 'sha256:84e3000000000000000000000000000000000000000000000000000000000000' },
};

describe('metadata snapshot', () => {
  it('keeps buildid, baseURI, amis (as a region map), images, oscontainer, ostree-commit, ostree-version', () => {
    const snap = snapshotOf(parseMeta(META_2018, 'u'), 'https://r.example/maipo/47.246/');
    expect(snap).toEqual({
      amis: { 'us-east-1': { hvm: 'ami-009d544e10870b87b' }, 'us-west-2': { hvm: 'ami-08d9467c4d49e0a07' } },
      baseURI: 'https://r.example/maipo/47.246/',
      buildid: '47.246',
      images: { qemu: { path: 'q.qcow2.gz', sha256: 'aa', size: '12' } },
      oscontainer: {
        digest: 'sha256:84e3000000000000000000000000000000000000000000000000000000000000',
        image: 'registry.example/rhcos/maipo',
      },
      'ostree-commit': '944ff9bc87cd18d12366a944e11476f94edb1660102e1c1830744e13106fc72e',
      'ostree-version': '47.246',
    });
  });

  it('keeps the cloud images (azure, gcp) and the layered containers as meta.json has them', () => {
    const doc = rhel10Meta('10.2.20260217-0', 'b');
    const snap = snapshotOf(parseMeta(doc, 'u'), 'https://r/rhel-10.2/builds/10.2.20260217-0/x86_64/');
    for (const key of ['azure', 'gcp', 'base-oscontainer', 'extensions-container'] as const) expect(snap[key], key).toEqual(doc[key]);
    expect(Object.keys(snap)).not.toContain('oscontainer');
  });

  it('leaves out what the build does not have', () => {
    expect(snapshotOf(parseMeta({ buildid: 'x' }, 'u'), 'https://r/x/')).toEqual({ baseURI: 'https://r/x/', buildid: 'x' });
  });

  it('serialises with sorted keys at every level, 4-space indent and a trailing newline', () => {
    const text = stableJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 'x' } });
    expect(text).toBe(
      '{\n    "a": {\n        "c": "x",\n        "d": [\n            {\n                "y": 2,\n                "z": 1\n            }\n        ]\n    },\n    "b": 1\n}\n',
    );
  });

  it('names every changed field, old → new', () => {
    const a = snapshotOf(parseMeta(META_2018, 'u'), 'https://r/');
    const changed = {
      ...META_2018,
      amis: [
        { name: 'us-east-1', hvm: 'ami-new' },
        { name: 'eu-west-1', hvm: 'ami-eu' },
      ],
      oscontainer: {
        image: 'registry.example/rhcos/maipo',
        digest: 'sha256:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
      },
    };
    const b = snapshotOf(parseMeta(changed, 'u'), 'https://r/');
    expect(changedFields(a, b).map(describeChange)).toEqual([
      'amis.eu-west-1: (absent) → {"hvm":"ami-eu"}',
      'amis.us-east-1.hvm: ami-009d544e10870b87b → ami-new',
      'amis.us-west-2: {"hvm":"ami-08d9467c4d49e0a07"} → (absent)',
      'oscontainer.digest: sha256:84e3000000000000000000000000000000000000000000000000000000000000 → sha256:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
    ]);
    expect(changedFields(a, JSON.parse(stableJson(a)))).toEqual([]);
  });
});
