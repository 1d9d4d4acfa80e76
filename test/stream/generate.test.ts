import { describe, expect, it } from 'vitest';
import { generateStream, locationOf } from '../../src/stream/generate.js';
import {
  BASE_2021,
  D2019,
  D2021X,
  D2021Z,
  D2026P,
  D2026X,
  META_2019,
  META_2021_S390X,
  META_2021_X86,
  META_2026_PPC,
  META_2026_X86,
  STREAM_2019,
  STREAM_2021,
  STREAM_2026,
  input,
  sha,
} from './eras.js';

const G = { generator: 'osimage test' };

describe('generateStream: every era, compared key for key with a stream written by hand', () => {
  it('2019 (pre-live, legacy layout): iso and kernel/initramfs under metal as installer.iso/installer-pxe, metal-bios/uefi left out, format keys never split inside the build id', () => {
    const { stream, warnings } = generateStream([input('x86_64', '410.8.20190412.1', D2019, META_2019)], { name: 'rhcos-4.1', ...G });
    expect(stream).toEqual(STREAM_2019);
    expect(warnings).toEqual([]);
  });

  it('2021 (a channel per arch, signatures): aliyun/gcp images, azure-disk, 4k, live under metal; dasd and ostree never platforms; images {} for s390x', () => {
    const { stream, warnings } = generateStream(
      [
        input('x86_64', '48.84.202105190318-0', D2021X, META_2021_X86, BASE_2021),
        input('s390x', '48.84.202105190719-0', D2021Z, META_2021_S390X, BASE_2021),
      ],
      { name: 'rhcos-4.8', signatures: true, ...G },
    );
    expect(stream).toEqual(STREAM_2021);
    expect(warnings).toEqual([]);
  });

  it('2026 (multi-arch, arches at different builds): kubevirt image with its floating tag, powervs, aws-winli; an unknown image key left out with one warning', () => {
    const { stream, warnings } = generateStream(
      [input('x86_64', '9.6.20260415-0', D2026X, META_2026_X86), input('ppc64le', '9.6.20260414-1', D2026P, META_2026_PPC)],
      { name: 'rhcos-4.21', buildsTimestamp: '2026-04-16T00:00:00Z', ...G },
    );
    expect(stream).toEqual(STREAM_2026);
    expect(warnings).toEqual([
      {
        code: 'stream-unknown-image',
        message: 'left out of the stream: image keys osimage does not know as bootimages: teleporter (x86_64)',
      },
    ]);
  });
});

describe('generateStream: rules', () => {
  const one = (doc: Record<string, unknown>, opts: Record<string, unknown> = {}) =>
    generateStream([input('x86_64', String(doc.buildid), 'https://h/b/x86_64/', doc, 'https://h')], { name: 's', ...opts });

  it('a cloud known only by its uploaded image has empty formats; artifacts.metal is always there', () => {
    const { stream } = one({
      buildid: '1',
      'ostree-timestamp': '2020-01-01T00:00:00Z',
      gcp: { image: 'img', project: 'p', family: 'rhcos-4', url: 'u' },
      amis: [{ name: 'r', hvm: 'ami-1' }],
    });
    expect(stream.architectures.x86_64).toEqual({
      artifacts: { aws: { release: '1', formats: {} }, gcp: { release: '1', formats: {} }, metal: { release: '1', formats: {} } },
      images: {
        aws: { regions: { r: { release: '1', image: 'ami-1' } } },
        gcp: { release: '1', project: 'p', family: 'rhcos-4', name: 'img' },
      },
    });
  });

  it('azure-disk only with Azure media; aws-winli only with AWS media', () => {
    const { stream } = one({
      buildid: '1',
      'ostree-timestamp': '2020-01-01T00:00:00Z',
      azure: { url: 'https://a' },
      'aws-winli': [{ name: 'r', hvm: 'ami-w' }],
    });
    expect(stream.architectures.x86_64!['rhel-coreos-extensions']).toEqual({});
  });

  it('last-modified: the newest build-timestamp, else builds.json timestamp, else the newest ostree-timestamp; never now', () => {
    const ts = (docs: Record<string, unknown>[], buildsTimestamp?: string) =>
      generateStream(
        docs.map((d, i) => input(`a${i}`, '1', `https://h/${i}/`, { buildid: '1', ...d })),
        { name: 's', ...(buildsTimestamp ? { buildsTimestamp } : {}) },
      ).stream.metadata['last-modified'];
    expect(
      ts(
        [{ 'coreos-assembler.build-timestamp': '2024-01-02T00:00:00Z' }, { 'coreos-assembler.build-timestamp': '2024-01-03T00:00:00Z' }],
        '2025-01-01T00:00:00Z',
      ),
    ).toBe('2024-01-03T00:00:00Z');
    expect(ts([{ 'ostree-timestamp': '2024-01-02T00:00:00Z' }], '2024-05-29T16:00:00.000Z')).toBe('2024-05-29T16:00:00Z');
    expect(ts([{ 'ostree-timestamp': '2024-01-02T00:00:00Z' }, { 'ostree-timestamp': '2024-01-05T00:00:00Z' }])).toBe(
      '2024-01-05T00:00:00Z',
    );
    expect(() => ts([{}])).toThrow(/cannot date the stream/);
  });

  it('--location-base writes locations against a public URL; signatures are location + .sig', () => {
    const { stream } = one(
      {
        buildid: '1',
        'ostree-timestamp': '2020-01-01T00:00:00Z',
        images: { qemu: { path: 'rhcos-1-qemu.x86_64.qcow2.gz', sha256: sha('11') } },
      },
      { locationBase: 'https://mirror.example/pub/', signatures: true },
    );
    expect(stream.architectures.x86_64!.artifacts.qemu!.formats['qcow2.gz']!.disk).toEqual({
      location: 'https://mirror.example/pub/b/x86_64/rhcos-1-qemu.x86_64.qcow2.gz',
      signature: 'https://mirror.example/pub/b/x86_64/rhcos-1-qemu.x86_64.qcow2.gz.sig',
      sha256: sha('11'),
    });
  });

  it('a file name that does not follow <name>-<build>-<key>.[arch.]<format> is left out with a warning, never guessed', () => {
    const { stream, warnings } = one({ buildid: '1', 'ostree-timestamp': '2020-01-01T00:00:00Z', images: { vmware: { path: 'vm.ova' } } });
    expect(stream.architectures.x86_64!.artifacts).toEqual({ metal: { release: '1', formats: {} } });
    expect(warnings[0]!.message).toMatch(/x86_64 image vmware: file name vm.ova does not follow/);
  });

  it("meta.json's cloud fields are validated with one-line errors naming the meta.json URL", () => {
    expect(() => one({ buildid: '1', gcp: { image: 'i' } })).toThrow(
      'invalid meta.json at https://h/b/x86_64/meta.json: gcp.project must be a non-empty string',
    );
    expect(() => one({ buildid: '1', aliyun: { name: 'x' } })).toThrow(
      'invalid meta.json at https://h/b/x86_64/meta.json: "aliyun" must be a list',
    );
    expect(() => one({ buildid: '1', kubevirt: { image: 'q/r', digest: 'sha256:x', tags: ['a', 'b'] } })).toThrow(
      /exactly one floating tag/,
    );
    expect(() => one({ buildid: '1', 'coreos-assembler.build-timestamp': 'yesterday' })).toThrow(/is not a timestamp/);
  });
});

describe('artifact locations stay in the build folder', () => {
  const input = {
    buildDir: 'https://browser.example/streams/4.16-9.4/builds/416.94.1-0/x86_64/',
    baseUrl: 'https://browser.example/streams',
  };
  it('a file name is a location under the build folder', () => {
    expect(locationOf('rhcos-416.94.1-0-qemu.x86_64.qcow2.gz', input)).toBe(`${input.buildDir}rhcos-416.94.1-0-qemu.x86_64.qcow2.gz`);
    expect(locationOf('rhcos.qcow2.gz', input, 'https://mirror.example/prod')).toBe(
      'https://mirror.example/prod/4.16-9.4/builds/416.94.1-0/x86_64/rhcos.qcow2.gz',
    );
  });
  it.each([
    '/etc/passwd',
    '//evil.example/x.qcow2',
    'file:///etc/passwd',
    'https://evil.example/x',
    '../416.94.0-0/x86_64/x',
    'a/../../x',
    '%2e%2e/x',
    'a\\..\\x',
    '',
    '.',
  ])('%j is refused, naming meta.json', (path) => {
    expect(() => locationOf(path, input)).toThrow(
      `https://browser.example/streams/4.16-9.4/builds/416.94.1-0/x86_64/meta.json: artifact path ${JSON.stringify(path)} is not a file in the build folder`,
    );
  });
});
