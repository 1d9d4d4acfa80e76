/**
 * meta.json files of each era, written for these tests from what the reference and the public generators
 * describe (digests are made up), and the stream each should give, written by hand from the rules.
 */
import type { BuildMeta } from '../../src/rhcos/meta.js';
import { parseMeta } from '../../src/rhcos/meta.js';
import type { StreamInput } from '../../src/stream/generate.js';

/** A made-up sha256: a two-character pattern repeated. */
export const sha = (c: string) => c.repeat(32);

export function input(arch: string, build: string, buildDir: string, doc: Record<string, unknown>, baseUrl?: string): StreamInput {
  const meta: BuildMeta = parseMeta(doc, `${buildDir}meta.json`);
  return { arch, build, meta, buildDir, metaUrl: `${buildDir}meta.json`, ...(baseUrl ? { baseUrl } : {}) };
}

// ---- 2019: ootpa, legacy layout, pre-live images, no arch in file names --------------------------------
export const D2019 = 'https://releases.example/storage/releases/ootpa/410.8.20190412.1/';
export const META_2019 = {
  buildid: '410.8.20190412.1',
  'ostree-timestamp': '2019-04-12T11:59:09Z',
  'ostree-version': '410.8.20190412.1',
  amis: { 'us-east-1': { hvm: 'ami-0a4b9a7d4bd1e6a10' }, 'eu-west-1': { hvm: 'ami-0c7c2b4e6c2d7b9a1' } },
  images: {
    aws: { path: 'rhcos-410.8.20190412.1-aws.vmdk', sha256: sha('a1'), size: '716029440' },
    iso: { path: 'rhcos-410.8.20190412.1-installer.iso', sha256: sha('a2') },
    kernel: { path: 'rhcos-410.8.20190412.1-installer-kernel', sha256: sha('a3') },
    initramfs: { path: 'rhcos-410.8.20190412.1-installer-initramfs.img', sha256: sha('a4') },
    'metal-bios': { path: 'rhcos-410.8.20190412.1-metal-bios.raw.gz', sha256: sha('a5'), 'uncompressed-sha256': sha('a6') },
    'metal-uefi': { path: 'rhcos-410.8.20190412.1-metal-uefi.raw.gz', sha256: sha('a7') },
    openstack: { path: 'rhcos-410.8.20190412.1-openstack.qcow2', sha256: sha('a8') },
    qemu: { path: 'rhcos-410.8.20190412.1-qemu.qcow2', sha256: sha('a9'), 'uncompressed-sha256': sha('aa') },
    vmware: { path: 'rhcos-410.8.20190412.1-vmware.ova', sha256: sha('ab') },
  },
  oscontainer: { image: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev', digest: `sha256:${sha('ac')}` },
};
const R19 = '410.8.20190412.1';
export const STREAM_2019 = {
  stream: 'rhcos-4.1',
  metadata: { 'last-modified': '2019-04-12T11:59:09Z', generator: 'osimage test' },
  architectures: {
    x86_64: {
      artifacts: {
        aws: {
          release: R19,
          formats: { vmdk: { disk: { location: `${D2019}rhcos-410.8.20190412.1-aws.vmdk`, sha256: sha('a1') } } },
        },
        metal: {
          release: R19,
          formats: {
            'installer.iso': { disk: { location: `${D2019}rhcos-410.8.20190412.1-installer.iso`, sha256: sha('a2') } },
            'installer-pxe': {
              kernel: { location: `${D2019}rhcos-410.8.20190412.1-installer-kernel`, sha256: sha('a3') },
              initramfs: { location: `${D2019}rhcos-410.8.20190412.1-installer-initramfs.img`, sha256: sha('a4') },
            },
          },
        },
        openstack: {
          release: R19,
          formats: { qcow2: { disk: { location: `${D2019}rhcos-410.8.20190412.1-openstack.qcow2`, sha256: sha('a8') } } },
        },
        qemu: {
          release: R19,
          formats: {
            qcow2: { disk: { location: `${D2019}rhcos-410.8.20190412.1-qemu.qcow2`, sha256: sha('a9'), 'uncompressed-sha256': sha('aa') } },
          },
        },
        vmware: {
          release: R19,
          formats: { ova: { disk: { location: `${D2019}rhcos-410.8.20190412.1-vmware.ova`, sha256: sha('ab') } } },
        },
      },
      images: {
        aws: {
          regions: {
            'us-east-1': { release: R19, image: 'ami-0a4b9a7d4bd1e6a10' },
            'eu-west-1': { release: R19, image: 'ami-0c7c2b4e6c2d7b9a1' },
          },
        },
      },
    },
  },
};

// ---- 2021: rhcos-4.8, one channel per arch (rhcos-4.8 and rhcos-4.8-s390x), signatures --------------------
export const BASE_2021 = 'https://releases.example/storage/releases';
export const D2021X = `${BASE_2021}/rhcos-4.8/48.84.202105190318-0/x86_64/`;
export const D2021Z = `${BASE_2021}/rhcos-4.8-s390x/48.84.202105190719-0/s390x/`;
const RX = '48.84.202105190318-0';
const RZ = '48.84.202105190719-0';
const fx = (p: string) => `rhcos-${RX}-${p}`;
const fz = (p: string) => `rhcos-${RZ}-${p}`;
export const META_2021_X86 = {
  buildid: RX,
  'coreos-assembler.build-timestamp': '2021-05-19T03:41:27Z',
  'ostree-timestamp': '2021-05-19T03:22:40Z',
  images: {
    aliyun: { path: fx('aliyun.x86_64.qcow2.gz'), sha256: sha('b1'), 'uncompressed-sha256': sha('b2') },
    aws: { path: fx('aws.x86_64.vmdk.gz'), sha256: sha('b3'), 'uncompressed-sha256': sha('b4') },
    azure: { path: fx('azure.x86_64.vhd.gz'), sha256: sha('b5'), 'uncompressed-sha256': sha('b6') },
    gcp: { path: fx('gcp.x86_64.tar.gz'), sha256: sha('b7') },
    metal: { path: fx('metal.x86_64.raw.gz'), sha256: sha('b8'), 'uncompressed-sha256': sha('b9') },
    metal4k: { path: fx('metal4k.x86_64.raw.gz'), sha256: sha('ba'), 'uncompressed-sha256': sha('bb') },
    'live-iso': { path: fx('live.x86_64.iso'), sha256: sha('bc') },
    'live-kernel': { path: fx('live-kernel-x86_64'), sha256: sha('bd') },
    'live-initramfs': { path: fx('live-initramfs.x86_64.img'), sha256: sha('be') },
    'live-rootfs': { path: fx('live-rootfs.x86_64.img'), sha256: sha('bf') },
    ostree: { path: fx('ostree.x86_64.tar'), sha256: sha('c0') },
  },
  amis: [
    { name: 'us-east-1', hvm: 'ami-0d5f9982f029fbc14', snapshot: 'snap-0b2bd2a5f2a8f9c61' },
    { name: 'ap-south-1', hvm: 'ami-0e3a8c1b2d4f6a8b0', snapshot: 'snap-0a1b2c3d4e5f60718' },
  ],
  gcp: {
    image: 'rhcos-48-84-202105190318-0-gcp-x86-64',
    project: 'rhcos-cloud',
    url: 'https://www.googleapis.com/compute/v1/projects/rhcos-cloud/global/images/rhcos-48-84-202105190318-0-gcp-x86-64',
  },
  azure: { image: fx('azure.x86_64.vhd'), url: `https://rhcos.blob.core.windows.net/imagebucket/${fx('azure.x86_64.vhd')}` },
  aliyun: [{ name: 'us-west-1', id: 'm-rj9c0b1a2b3c4d5e6f7a' }],
};
export const META_2021_S390X = {
  buildid: RZ,
  'ostree-timestamp': '2021-05-19T07:30:00Z',
  images: {
    dasd: { path: fz('dasd.s390x.raw.gz'), sha256: sha('d1'), 'uncompressed-sha256': sha('d2') },
    metal: { path: fz('metal.s390x.raw.gz'), sha256: sha('d3'), 'uncompressed-sha256': sha('d4') },
    metal4k: { path: fz('metal4k.s390x.raw.gz'), sha256: sha('d5'), 'uncompressed-sha256': sha('d6') },
    'live-iso': { path: fz('live.s390x.iso'), sha256: sha('d7') },
    'live-kernel': { path: fz('live-kernel-s390x'), sha256: sha('d8') },
    'live-initramfs': { path: fz('live-initramfs.s390x.img'), sha256: sha('d9') },
    'live-rootfs': { path: fz('live-rootfs.s390x.img'), sha256: sha('da') },
    ostree: { path: fz('ostree.s390x.tar'), sha256: sha('db') },
  },
};
const sx = (file: string, s: string, u?: string) => ({
  location: `${D2021X}${fx(file)}`,
  signature: `${D2021X}${fx(file)}.sig`,
  sha256: sha(s),
  ...(u ? { 'uncompressed-sha256': sha(u) } : {}),
});
const sz = (file: string, s: string, u?: string) => ({
  location: `${D2021Z}${fz(file)}`,
  signature: `${D2021Z}${fz(file)}.sig`,
  sha256: sha(s),
  ...(u ? { 'uncompressed-sha256': sha(u) } : {}),
});
export const STREAM_2021 = {
  stream: 'rhcos-4.8',
  metadata: { 'last-modified': '2021-05-19T03:41:27Z', generator: 'osimage test' },
  architectures: {
    x86_64: {
      artifacts: {
        aliyun: { release: RX, formats: { 'qcow2.gz': { disk: sx('aliyun.x86_64.qcow2.gz', 'b1', 'b2') } } },
        aws: { release: RX, formats: { 'vmdk.gz': { disk: sx('aws.x86_64.vmdk.gz', 'b3', 'b4') } } },
        azure: { release: RX, formats: { 'vhd.gz': { disk: sx('azure.x86_64.vhd.gz', 'b5', 'b6') } } },
        gcp: { release: RX, formats: { 'tar.gz': { disk: sx('gcp.x86_64.tar.gz', 'b7') } } },
        metal: {
          release: RX,
          formats: {
            'raw.gz': { disk: sx('metal.x86_64.raw.gz', 'b8', 'b9') },
            '4k.raw.gz': { disk: sx('metal4k.x86_64.raw.gz', 'ba', 'bb') },
            iso: { disk: sx('live.x86_64.iso', 'bc') },
            pxe: {
              kernel: sx('live-kernel-x86_64', 'bd'),
              initramfs: sx('live-initramfs.x86_64.img', 'be'),
              rootfs: sx('live-rootfs.x86_64.img', 'bf'),
            },
          },
        },
      },
      images: {
        aliyun: { regions: { 'us-west-1': { release: RX, image: 'm-rj9c0b1a2b3c4d5e6f7a' } } },
        aws: {
          regions: {
            'us-east-1': { release: RX, image: 'ami-0d5f9982f029fbc14' },
            'ap-south-1': { release: RX, image: 'ami-0e3a8c1b2d4f6a8b0' },
          },
        },
        gcp: { release: RX, project: 'rhcos-cloud', name: 'rhcos-48-84-202105190318-0-gcp-x86-64' },
      },
      'rhel-coreos-extensions': {
        'azure-disk': { release: RX, url: `https://rhcos.blob.core.windows.net/imagebucket/${fx('azure.x86_64.vhd')}` },
      },
    },
    s390x: {
      artifacts: {
        metal: {
          release: RZ,
          formats: {
            'raw.gz': { disk: sz('metal.s390x.raw.gz', 'd3', 'd4') },
            '4k.raw.gz': { disk: sz('metal4k.s390x.raw.gz', 'd5', 'd6') },
            iso: { disk: sz('live.s390x.iso', 'd7') },
            pxe: {
              kernel: sz('live-kernel-s390x', 'd8'),
              initramfs: sz('live-initramfs.s390x.img', 'd9'),
              rootfs: sz('live-rootfs.s390x.img', 'da'),
            },
          },
        },
      },
      images: {},
    },
  },
};

// ---- 2026: one multi-arch channel, arches at different builds, kubevirt, powervs, aws-winli --------------
export const BASE_2026 = 'https://releases.example/storage/prod/streams';
const R26X = '9.6.20260415-0';
const R26P = '9.6.20260414-1';
export const D2026X = `${BASE_2026}/rhel-9.6/builds/${R26X}/x86_64/`;
export const D2026P = `${BASE_2026}/rhel-9.6/builds/${R26P}/ppc64le/`;
const gx = (p: string) => `rhcos-${R26X}-${p}`;
const gp = (p: string) => `rhcos-${R26P}-${p}`;
export const META_2026_X86 = {
  buildid: R26X,
  name: 'rhcos',
  'coreos-assembler.build-timestamp': '2026-04-15T10:11:12Z',
  images: {
    aws: { path: gx('aws.x86_64.vmdk.gz'), sha256: sha('e1'), 'uncompressed-sha256': sha('e2') },
    azure: { path: gx('azure.x86_64.vhd.gz'), sha256: sha('e3') },
    kubevirt: { path: gx('kubevirt.x86_64.ociarchive'), sha256: sha('e4') },
    metal: { path: gx('metal.x86_64.raw.gz'), sha256: sha('e5'), 'uncompressed-sha256': sha('e6') },
    'live-iso': { path: gx('live.x86_64.iso'), sha256: sha('e7') },
    qemu: { path: gx('qemu.x86_64.qcow2.gz'), sha256: sha('e8'), 'uncompressed-sha256': sha('e9') },
    'extensions-container': { path: gx('extensions-container.x86_64.ociarchive'), sha256: sha('ea') },
    teleporter: { path: gx('teleporter.x86_64.img'), sha256: sha('eb') },
  },
  amis: [{ name: 'us-east-1', hvm: 'ami-0123456789abcdef0' }],
  'aws-winli': [{ name: 'us-east-1', hvm: 'ami-0fedcba9876543210' }],
  kubevirt: {
    image: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev',
    digest: `sha256:${sha('ec')}`,
    tags: ['4.21-9.6-kubevirt', `${R26X}-kubevirt`],
  },
};
export const META_2026_PPC = {
  buildid: R26P,
  'coreos-assembler.build-timestamp': '2026-04-14T22:00:00Z',
  images: {
    metal: { path: gp('metal.ppc64le.raw.gz'), sha256: sha('f1'), 'uncompressed-sha256': sha('f2') },
    powervs: { path: gp('powervs.ppc64le.ova.gz'), sha256: sha('f3'), 'uncompressed-sha256': sha('f4') },
  },
  powervs: [
    {
      region: 'dal10',
      object: gp('powervs.ppc64le.ova.gz'),
      bucket: 'rhcos-powervs-images-dal10',
      url: 'https://s3.us-south.cloud-object-storage.appdomain.cloud',
    },
  ],
};
export const STREAM_2026 = {
  stream: 'rhcos-4.21',
  metadata: { 'last-modified': '2026-04-15T10:11:12Z', generator: 'osimage test' },
  architectures: {
    x86_64: {
      artifacts: {
        aws: {
          release: R26X,
          formats: {
            'vmdk.gz': { disk: { location: `${D2026X}${gx('aws.x86_64.vmdk.gz')}`, sha256: sha('e1'), 'uncompressed-sha256': sha('e2') } },
          },
        },
        azure: { release: R26X, formats: { 'vhd.gz': { disk: { location: `${D2026X}${gx('azure.x86_64.vhd.gz')}`, sha256: sha('e3') } } } },
        kubevirt: {
          release: R26X,
          formats: { ociarchive: { disk: { location: `${D2026X}${gx('kubevirt.x86_64.ociarchive')}`, sha256: sha('e4') } } },
        },
        metal: {
          release: R26X,
          formats: {
            'raw.gz': { disk: { location: `${D2026X}${gx('metal.x86_64.raw.gz')}`, sha256: sha('e5'), 'uncompressed-sha256': sha('e6') } },
            iso: { disk: { location: `${D2026X}${gx('live.x86_64.iso')}`, sha256: sha('e7') } },
          },
        },
        qemu: {
          release: R26X,
          formats: {
            'qcow2.gz': {
              disk: { location: `${D2026X}${gx('qemu.x86_64.qcow2.gz')}`, sha256: sha('e8'), 'uncompressed-sha256': sha('e9') },
            },
          },
        },
      },
      images: {
        aws: { regions: { 'us-east-1': { release: R26X, image: 'ami-0123456789abcdef0' } } },
        kubevirt: {
          release: R26X,
          image: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev:4.21-9.6-kubevirt',
          'digest-ref': `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${sha('ec')}`,
        },
      },
      'rhel-coreos-extensions': { 'aws-winli': { regions: { 'us-east-1': { release: R26X, image: 'ami-0fedcba9876543210' } } } },
    },
    ppc64le: {
      artifacts: {
        metal: {
          release: R26P,
          formats: {
            'raw.gz': { disk: { location: `${D2026P}${gp('metal.ppc64le.raw.gz')}`, sha256: sha('f1'), 'uncompressed-sha256': sha('f2') } },
          },
        },
        powervs: {
          release: R26P,
          formats: {
            'ova.gz': {
              disk: { location: `${D2026P}${gp('powervs.ppc64le.ova.gz')}`, sha256: sha('f3'), 'uncompressed-sha256': sha('f4') },
            },
          },
        },
      },
      images: {
        powervs: {
          regions: {
            dal10: {
              release: R26P,
              object: gp('powervs.ppc64le.ova.gz'),
              bucket: 'rhcos-powervs-images-dal10',
              url: 'https://s3.us-south.cloud-object-storage.appdomain.cloud',
            },
          },
        },
      },
    },
  },
};
