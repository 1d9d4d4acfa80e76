/**
 * meta.json `images` → stream artifacts: which image keys are bootimages, the platform and format key each
 * becomes, and the format key read from the file name after `<name>-<build>-<key>.<arch>.` (never a split on a
 * dot inside the build id). Pre-live builds (2019–2020, file names without `.<arch>.`) follow the same rule
 * without the arch; their `iso` becomes `metal` `installer.iso` and `kernel`/`initramfs` `metal` `installer-pxe`,
 * as the generator of that time wrote them.
 */
import type { Artifact } from '../rhcos/meta.js';

/** Platforms whose disk image is `images.<platform>` (coreos-assembler's list, 2026). */
export const DISK_PLATFORMS: ReadonlySet<string> = new Set([
  'aliyun',
  'applehv',
  'aws',
  'azure',
  'azurestack',
  'digitalocean',
  'exoscale',
  'gcp',
  'hetzner',
  'hyperv',
  'ibmcloud',
  'kubevirt',
  'metal',
  'nutanix',
  'nvidiabluefield',
  'openstack',
  'oraclecloud',
  'powervs',
  'proxmoxve',
  'qemu',
  'qemu-secex',
  'virtualbox',
  'vmware',
  'vultr',
]);

/** Image keys under `metal` whose format and file key the name decides. */
const METAL: Record<string, { format: string; key: FileKey }> = {
  'live-iso': { format: 'iso', key: 'disk' },
  'live-kernel': { format: 'pxe', key: 'kernel' },
  'live-initramfs': { format: 'pxe', key: 'initramfs' },
  'live-rootfs': { format: 'pxe', key: 'rootfs' },
  iso: { format: 'installer.iso', key: 'disk' },
  kernel: { format: 'installer-pxe', key: 'kernel' },
  initramfs: { format: 'installer-pxe', key: 'initramfs' },
};

/**
 * Image keys that are known and are not bootimages: the OS as ostree/containers, s390x DASD, extensions, the
 * pre-live `metal-bios`/`metal-uefi` (the generator of their time left them out) and the secure-execution key.
 */
export const NOT_BOOTIMAGES: ReadonlySet<string> = new Set([
  'ostree',
  'dasd',
  'extensions',
  'extensions-container',
  'oscontainer',
  'legacy-oscontainer',
  'metal-bios',
  'metal-uefi',
  'ignition-gpg-key',
]);

export type FileKey = 'disk' | 'kernel' | 'initramfs' | 'rootfs';

/** Where an image goes in the stream, or why it does not. */
export type Placement =
  | { kind: 'artifact'; platform: string; format: string; key: FileKey }
  | { kind: 'skip' }
  | { kind: 'unknown' }
  | { kind: 'unnamed'; path: string };

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * The format key of an image file: what follows `<build>-<key>.<arch>.` (or `<build>-<key>.` in pre-live
 * names) in its name; undefined when the name does not have that shape.
 */
export function formatKey(path: string, build: string, key: string, arch: string): string | undefined {
  const name = basename(path);
  const at = name.indexOf(`${build}-${key}.`);
  if (at === -1) return undefined;
  const rest = name.slice(at + build.length + key.length + 2);
  const ext = rest.startsWith(`${arch}.`) ? rest.slice(arch.length + 1) : rest;
  return ext === '' ? undefined : ext;
}

/** Where `images.<name>` goes for a build of `arch`. */
export function placeImage(name: string, a: Artifact, build: string, arch: string): Placement {
  if (NOT_BOOTIMAGES.has(name)) return { kind: 'skip' };
  const metal = METAL[name];
  if (metal) return { kind: 'artifact', platform: 'metal', ...metal };
  const fileKey = name === 'metal4k' ? 'metal4k' : name;
  if (name !== 'metal4k' && !DISK_PLATFORMS.has(name)) return { kind: 'unknown' };
  const ext = formatKey(a.path, build, fileKey, arch);
  if (ext === undefined) return { kind: 'unnamed', path: a.path };
  if (name === 'metal4k') return { kind: 'artifact', platform: 'metal', format: `4k.${ext}`, key: 'disk' };
  return { kind: 'artifact', platform: name, format: ext, key: 'disk' };
}
