import { describe, expect, it } from 'vitest';
import { containerPullspec, osContainerPullspec, parseMeta, qemuImage } from '../../src/rhcos/meta.js';
import { amiForRegion } from '../../src/rhcos/resolve.js';

const URL_ = 'http://h/ootpa/410.8.20190325.0/meta.json';
const DIR = 'http://h/ootpa/410.8.20190325.0/';
const USHA = `3b28${'a'.repeat(56)}8257`;

describe('meta.json shapes', () => {
  it('2018: amis as a list of {name, hvm}', () => {
    const m = parseMeta(
      {
        buildid: '47.246',
        'ostree-version': '47.246',
        amis: [{ name: 'us-east-1', hvm: 'ami-1' }],
        images: { qemu: { path: 'q.qcow2.gz', sha256: 'ab' } },
      },
      URL_,
    );
    expect(m.amis).toEqual({ 'us-east-1': 'ami-1' });
    expect(qemuImage(m, DIR)).toEqual({ url: `${DIR}q.qcow2.gz`, installerUrl: `${DIR}q.qcow2.gz`, sha256: 'ab' });
  });

  it('2019 pinned copy: amis as a map, sizes as strings, baseURI kept but not used to resolve', () => {
    const m = parseMeta(
      {
        baseURI: 'https://elsewhere.example/ootpa/410.8.20190325.0/',
        buildid: '410.8.20190325.0',
        amis: { 'us-east-1': { hvm: 'ami-07f604c5f18a1e7a9' } },
        images: {
          qemu: {
            path: 'rhcos-410.8.20190325.0-qemu.qcow2',
            size: '712345678',
            'uncompressed-sha256': USHA,
            'uncompressed-size': '2147483648',
          },
        },
      },
      URL_,
    );
    expect(amiForRegion(m, 'us-east-1')).toBe('ami-07f604c5f18a1e7a9');
    expect(() => amiForRegion(m, 'eu-north-1')).toThrow('no RHCOS AMIs found in eu-north-1');
    expect(m.images.qemu?.size).toBe(712345678);
    expect(m.baseURI).toBe('https://elsewhere.example/ootpa/410.8.20190325.0/');
    const q = qemuImage(m, DIR)!;
    expect(q.url).toBe(`${DIR}rhcos-410.8.20190325.0-qemu.qcow2`);
    expect(q.installerUrl).toBe(`${DIR}rhcos-410.8.20190325.0-qemu.qcow2?sha256=${USHA}`);
  });

  it('coreos-assembler v1: numeric sizes, oscontainer, provenance keys ignored', () => {
    const m = parseMeta(
      {
        buildid: '412.86.1-0',
        name: 'rhcos',
        'coreos-assembler.basearch': 'x86_64',
        'ostree-commit': 'c'.repeat(64),
        images: { ostree: { path: 'o.tar', size: 5 }, qemu: { path: 'sub/q.qcow2.gz', size: 10 } },
        oscontainer: { image: 'quay.io/x/y', digest: `sha256:${'d'.repeat(64)}` },
      },
      URL_,
    );
    expect(osContainerPullspec(m.oscontainer!)).toBe(`quay.io/x/y@sha256:${'d'.repeat(64)}`);
    expect(m['ostree-commit']).toBe('c'.repeat(64));
    expect(qemuImage(m, DIR)!.url).toBe(`${DIR}sub/q.qcow2.gz`);
    expect(m.amis).toEqual({});
  });

  it('optional fields may be missing', () => {
    const m = parseMeta({ buildid: 'x' }, URL_);
    expect(m.images).toEqual({});
    expect(m.oscontainer).toBeUndefined();
    expect(qemuImage(m, DIR)).toBeUndefined();
  });

  it.each([
    [{}, 'missing required field "buildid"'],
    [{ buildid: 3 }, '"buildid" must be a non-empty string'],
    [{ buildid: 'x', images: { qemu: { sha256: 'a' } } }, 'missing required field "images.qemu.path"'],
    [{ buildid: 'x', oscontainer: { digest: 'sha256:x' } }, 'missing required field "oscontainer.image"'],
    [{ buildid: 'x', amis: [{ name: 'r' }] }, 'amis[0] needs "name" and "hvm"'],
    [{ buildid: 'x', images: { qemu: { path: 'p', size: 'big' } } }, 'images.qemu.size is not a size'],
  ])('%j is an error naming the field and the URL', (doc, msg) => {
    expect(() => parseMeta(doc, URL_)).toThrow(msg);
    expect(() => parseMeta(doc, URL_)).toThrow(URL_);
  });
});

describe('meta.json containers (oscontainer, base-oscontainer, extensions-container)', () => {
  const d = (c: string) => `sha256:${c.repeat(64)}`;
  const url = 'https://h/b/meta.json';

  it('reads the digest as a field or inside image, the manifest list digest and tags; absent keys are null', () => {
    const m = parseMeta(
      {
        buildid: '418.94.202605101521-0',
        oscontainer: { image: 'quay.io/a/os', digest: d('a') },
        'base-oscontainer': {
          image: `quay.io/a/base@${d('b')}`,
          'manifest-list-digest': d('c'),
          tags: ['4.18-9.4-coreos', '418.94.202605101521-0-coreos'],
        },
      },
      url,
    );
    expect(m.containers.oscontainer).toEqual({
      image: 'quay.io/a/os',
      digest: d('a'),
      manifestListDigest: null,
      tags: [],
      pullspec: `quay.io/a/os@${d('a')}`,
    });
    expect(m.containers['base-oscontainer']).toEqual({
      image: 'quay.io/a/base',
      digest: d('b'),
      manifestListDigest: d('c'),
      tags: ['4.18-9.4-coreos', '418.94.202605101521-0-coreos'],
      pullspec: `quay.io/a/base@${d('b')}`,
    });
    expect(m.containers['extensions-container']).toBeNull();
    expect(containerPullspec(m.containers['base-oscontainer']!, { manifestList: true })).toBe(`quay.io/a/base@${d('c')}`);
    expect(containerPullspec(m.containers.oscontainer!, { manifestList: true })).toBeUndefined();
    expect(m.oscontainer).toEqual({ image: 'quay.io/a/os', digest: d('a') });
  });

  it('a digest given both ways that disagrees, a bad digest and bad tags are errors naming meta.json', () => {
    expect(() => parseMeta({ buildid: 'x', 'extensions-container': { image: `q/e@${d('a')}`, digest: d('b') } }, url)).toThrow(
      `invalid meta.json at ${url}: extensions-container gives two digests that disagree`,
    );
    expect(() => parseMeta({ buildid: 'x', 'extensions-container': { image: `q/e@${d('a')}`, digest: d('a') } }, url)).not.toThrow();
    expect(() => parseMeta({ buildid: 'x', 'base-oscontainer': { image: 'q/e', tags: [1] } }, url)).toThrow(
      'base-oscontainer.tags must be a list of strings',
    );
    expect(() => parseMeta({ buildid: 'x', 'base-oscontainer': { digest: d('a') } }, url)).toThrow(
      'missing required field "base-oscontainer.image"',
    );
  });
});
