/** The packages release engineers ask about first: shown in `release diff`'s short section. */
import type { PackageChange } from './diff.js';

export const NOTABLE_PACKAGES = [
  'kernel',
  'kernel-rt-core',
  'cri-o',
  'openshift-kubelet',
  'podman',
  'runc',
  'crun',
  'conmon',
  'skopeo',
  'systemd',
  'ostree',
  'rpm-ostree',
  'ignition',
  'NetworkManager',
  'openssl',
  'glibc',
  'selinux-policy',
];

export function isNotable(c: PackageChange): boolean {
  return c.kind !== 'unchanged' && (NOTABLE_PACKAGES.includes(c.name) || c.name.startsWith('openvswitch'));
}
