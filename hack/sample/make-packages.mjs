#!/usr/bin/env node
// Writes commitmeta.json (rpmostree.rpmdb.pkglist) for the sample builds in hack/sample/releases, and the
// `extensions.manifest` / `advisories-diff` of their meta.json. Deterministic: the same bytes on every run.
// The package lists are made up but shaped like real RHCOS ones: a few hundred packages, epochs, a `~rc`
// version, and between consecutive builds of a channel upgrades, a downgrade, an addition and a removal.
// Run: node hack/sample/make-packages.mjs
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('./releases/', import.meta.url));

// Real package names of an RHCOS tree; `@` marks noarch ones.
const NAMES = `acl attr audit audit-libs authselect authselect-libs basesystem@ bash bash-completion@ bind-libs bind-utils
bootc bootupd bsdtar bzip2 bzip2-libs c-ares ca-certificates@ chrony cifs-utils clevis clevis-dracut clevis-luks
clevis-systemd cloud-utils-growpart@ conmon conntrack-tools container-selinux@ containernetworking-plugins
containers-common@ coreos-installer coreos-installer-bootinfra coreutils coreutils-common cpio cracklib
cracklib-dicts cri-o cri-tools criu criu-libs crun crypto-policies@ crypto-policies-scripts@ cryptsetup
cryptsetup-libs curl cyrus-sasl-lib dbus dbus-broker dbus-common@ dbus-libs device-mapper device-mapper-libs
device-mapper-multipath device-mapper-multipath-libs diffutils dnsmasq dosfstools dracut dracut-network
dracut-squash e2fsprogs e2fsprogs-libs elfutils-default-yama-scope@ elfutils-libelf elfutils-libs ethtool expat
file file-libs filesystem findutils fstrm fuse fuse-common fuse-libs fuse-overlayfs fuse3 fuse3-libs gawk gdbm-libs
gdisk glib2 glibc glibc-common glibc-minimal-langpack gmp gnupg2 gnutls gpgme grep grub2-common@ grub2-efi-x64
grub2-pc grub2-tools grub2-tools-minimal gzip hostname hwdata@ ignition ima-evm-utils inih iproute iproute-tc
iptables-libs iptables-nft iputils irqbalance iscsi-initiator-utils jansson jq json-c json-glib kbd kbd-misc@
kernel kernel-core kernel-modules kernel-modules-core kexec-tools keyutils keyutils-libs kmod kmod-libs krb5-libs
less libacl libaio libarchive libassuan libattr libbpf libbrotli libcap libcap-ng libcom_err libcurl libdb
libeconf libedit libevent libfdisk libffi libgcc libgcrypt libgpg-error libibverbs libidn2 libini_config libksba
libmnl libmodulemd libmount libnet libnetfilter_conntrack libnfnetlink libnftnl libnghttp2 libnl3 libpcap libpsl
libpwquality libreport-filesystem@ librepo libseccomp libselinux libselinux-utils libsemanage libsepol
libsigsegv libslirp libsmartcols libsolv libss libssh libssh-config@ libsss_certmap libsss_idmap libstdc++
libtalloc libtasn1 libtdb libtevent libtirpc libunistring libusbx libuser libutempter libuuid libverto libxcrypt
libxml2 libyaml libzstd linux-firmware@ linux-firmware-whence@ lsof lua-libs lvm2 lvm2-libs lz4-libs lzo mdadm
microcode_ctl mokutil mpfr ncurses ncurses-base@ ncurses-libs netavark nettle NetworkManager NetworkManager-cloud-setup
NetworkManager-libnm NetworkManager-ovs NetworkManager-team NetworkManager-tui nfs-utils nftables nmstate npth
nss-altfiles numactl-libs nvme-cli oniguruma openldap openshift-clients openshift-kubelet openssh openssh-clients
openssh-server openssl openssl-libs openvswitch3.4 os-prober ostree ostree-libs p11-kit p11-kit-trust pam passt
passt-selinux@ pcre pcre2 pcre2-syntax@ pigz podman policycoreutils polkit polkit-libs popt procps-ng protobuf-c
psmisc python3 python3-libs python3-pip-wheel@ python3-setuptools-wheel@ qemu-guest-agent readline rpcbind rpm
rpm-libs rpm-ostree rpm-ostree-libs rpm-plugin-selinux rsync runc sed selinux-policy@ selinux-policy-targeted@
setup@ sg3_utils sg3_utils-libs shadow-utils shadow-utils-subid skopeo slang slirp4netns snappy socat sqlite-libs
squashfs-tools sssd-client sssd-common sssd-nfs-idmap sudo systemd systemd-container systemd-libs systemd-pam
systemd-rpm-macros@ systemd-udev tar teamd toolbox tpm2-tss tzdata@ util-linux util-linux-core vim-minimal
which xfsprogs xz xz-libs yajl zlib zstd`.split(/\s+/);

// A small deterministic generator: versions depend only on the name.
function hash(s) {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

function baseList(dist) {
  return NAMES.map((raw) => {
    const noarch = raw.endsWith('@');
    const name = noarch ? raw.slice(0, -1) : raw;
    const h = hash(name);
    const version = `${1 + (h % 9)}.${(h >>> 4) % 40}.${(h >>> 10) % 12}`;
    const release = `${1 + ((h >>> 14) % 30)}.${dist}`;
    return { name, epoch: '0', version, release, arch: noarch ? 'noarch' : null };
  });
}

function set(list, name, epoch, version, release) {
  const p = list.find((x) => x.name === name);
  if (!p) throw new Error(`no ${name}`);
  Object.assign(p, { epoch, version, release });
}

/** The packages the two 4.18 builds differ in (and a few pinned ones), by the values that change. */
function rhcos418(l, v) {
  set(l, 'podman', '5', '5.2.2', `${v.podman}.rhaos4.18.el9`);
  set(l, 'cri-o', '0', ...v.crio);
  for (const k of ['kernel', 'kernel-core', 'kernel-modules', 'kernel-modules-core']) set(l, k, '0', '5.14.0', `${v.kernel}.el9_4`);
  set(l, 'NetworkManager', '1', '1.46.0', `${v.nm}.el9_4`);
  for (const k of ['openssl', 'openssl-libs']) set(l, k, '1', '3.0.7', '27.el9');
  set(l, 'ignition', '0', v.ignition, '1.rhaos4.18.el9');
  set(l, 'conmon', '3', '2.1.12', `${v.conmon}.rhaos4.18.el9`);
  for (const k of ['systemd', 'systemd-libs']) set(l, k, '0', '252', `32.el9_4.${v.systemd}`);
  return l;
}

const channels = {
  '4.18-9.4/builds': {
    dist: 'el9',
    arches: ['x86_64', 'aarch64'],
    builds: {
      '418.94.202604221012-0': (l) =>
        rhcos418(l, { podman: '1', crio: ['1.31.5', '3.rhaos4.18.git0c7f2a1.el9'], kernel: '427.40.1', nm: '19', ignition: '2.20.0~rc1', conmon: '2', systemd: '7' }),
      '418.94.202605101521-0': (l) => {
        // conmon goes down (a respin reverted); tpm2-tools is added, toolbox removed.
        rhcos418(l, { podman: '3', crio: ['1.31.6', '2.rhaos4.18.git5e9d1b4.el9'], kernel: '427.50.1', nm: '26', ignition: '2.20.0', conmon: '1', systemd: '9' });
        l.push({ name: 'tpm2-tools', epoch: '0', version: '5.2', release: '3.el9', arch: null });
        return l.filter((p) => p.name !== 'toolbox');
      },
    },
    extensions: {
      '418.94.202604221012-0': { 'kernel-rt-core': '5.14.0-427.40.1.rt14.331.el9_4', 'qemu-img': '17:8.2.0-11.el9_4.6', usbguard: '1.0.0-15.el9' },
      '418.94.202605101521-0': { 'kernel-rt-core': '5.14.0-427.50.1.rt14.341.el9_4', 'qemu-img': '17:8.2.0-11.el9_4.6', usbguard: '1.0.0-15.el9' },
    },
    advisories: {
      '418.94.202605101521-0': [
        ['RHSA-2026:4312', 1, 3, ['kernel-5.14.0-427.50.1.el9_4.x86_64'], { cve_references: [{ title: 'CVE-2026-21371', url: 'https://access.redhat.com/security/cve/CVE-2026-21371' }] }],
        ['RHBA-2026:4290', 2, 0, ['podman-5:5.2.2-3.rhaos4.18.el9.x86_64'], { cve_references: [] }],
      ],
    },
  },
  'rhcos-4.12': {
    dist: 'el8_6',
    arches: ['x86_64', 'aarch64'],
    builds: {
      '412.86.202301250001-0': (l) => {
        set(l, 'podman', '2', '4.2.0', '7.rhaos4.12.el8');
        for (const k of ['kernel', 'kernel-core', 'kernel-modules']) set(l, k, '0', '4.18.0', '372.40.1.el8_6');
        return l;
      },
      '412.86.202301311551-0': (l) => {
        set(l, 'podman', '2', '4.2.0', '8.rhaos4.12.el8');
        for (const k of ['kernel', 'kernel-core', 'kernel-modules']) set(l, k, '0', '4.18.0', '372.41.1.el8_6');
        return l;
      },
    },
    extensions: {},
    advisories: {},
  },
  'rhel-10.2/builds': {
    dist: 'el10',
    arches: ['x86_64', 'aarch64'],
    builds: {
      '10.2.20260212-0': (l) => {
        set(l, 'podman', '6', '5.6.0', '2.el10');
        for (const k of ['kernel', 'kernel-core', 'kernel-modules', 'kernel-modules-core']) set(l, k, '0', '6.12.0', '124.8.1.el10_2');
        return l;
      },
      '10.2.20260217-0': (l) => {
        set(l, 'podman', '6', '5.6.1', '1.el10');
        for (const k of ['kernel', 'kernel-core', 'kernel-modules', 'kernel-modules-core']) set(l, k, '0', '6.12.0', '124.9.1.el10_2');
        return l;
      },
    },
    extensions: {
      '10.2.20260212-0': { 'kernel-rt-core': '6.12.0-124.8.1.el10_2' },
      '10.2.20260217-0': { 'kernel-rt-core': '6.12.0-124.9.1.el10_2' },
    },
    advisories: {},
  },
};

const byName = (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

for (const [channel, c] of Object.entries(channels)) {
  for (const [build, edit] of Object.entries(c.builds)) {
    for (const arch of c.arches) {
      const dir = `${root}${channel}/${build}/${arch}/`;
      if (!existsSync(`${dir}meta.json`)) continue;
      const list = edit(baseList(c.dist))
        .map((p) => [p.name, p.epoch, p.version, p.release, p.arch ?? arch])
        .sort(byName);
      const commitmeta = { 'ostree.bootable': true, 'rpmostree.inputhash': hash(build + arch).toString(16).padStart(8, '0').repeat(8), 'rpmostree.rpmdb.pkglist': list };
      writeFileSync(`${dir}commitmeta.json`, `${JSON.stringify(commitmeta)}\n`);
      const meta = JSON.parse(readFileSync(`${dir}meta.json`, 'utf8'));
      const ext = c.extensions[build];
      if (ext) meta.extensions = { manifest: Object.fromEntries(Object.entries(ext).map(([n, v]) => [n, `${v}.${arch}`])) };
      const adv = c.advisories[build];
      if (adv) meta['advisories-diff'] = adv.map(([id, kind, sev, pkgs, refs]) => [id, kind, sev, pkgs.map((p) => p.replace(/x86_64$/, arch)), refs]);
      if (ext || adv) writeFileSync(`${dir}meta.json`, `${JSON.stringify(meta, null, 2)}\n`);
    }
  }
}
