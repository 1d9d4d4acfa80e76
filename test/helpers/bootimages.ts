/**
 * coreos-bootimages ConfigMaps for tests, written by hand from the installer's shape (stream-metadata.md):
 * one stream in data.stream (4.8–2024), or two (rhel-9 the default) in data.stream + data.streams (2025+).
 * Builds, digests and regions are made up.
 */
import { toYaml } from '../../src/payload/machineconfig.js';
import type { LayerEntry } from '../../src/release/build-layer.js';
import { BOOTIMAGES_MANIFEST } from '../../src/release/bootimages.js';

export const RHEL9_BUILD = '9.6.20251015-0';
export const RHEL10_BUILD = '10.1.20251020-0';
export const RHEL9_AARCH64_BUILD = '9.6.20251012-1';

const hex = (c: string) => c.repeat(64);

/** A stream with x86_64 (aws, gcp, metal; 3 AWS regions) and aarch64 (aws, metal; 2 regions) at their builds. */
export function sampleStream(name: string, x86: string, arm = x86): Record<string, unknown> {
  const base = `https://rhcos.mirror.openshift.com/art/storage/prod/streams/${name}/builds`;
  const disk = (b: string, arch: string, file: string, c: string) => ({
    location: `${base}/${b}/${arch}/rhcos-${b}-${file}`,
    sha256: hex(c),
  });
  const amis = (b: string, regions: string[]) =>
    Object.fromEntries(regions.map((r, i) => [r, { release: b, image: `ami-0${i}${'a1b2c3d4e5f6a7b8'.slice(0, 15)}` }]));
  return {
    stream: name,
    metadata: { 'last-modified': '2025-10-20T08:10:00Z', generator: 'plume cosa2stream 0000000' },
    architectures: {
      aarch64: {
        artifacts: {
          aws: { release: arm, formats: { 'vmdk.gz': { disk: disk(arm, 'aarch64', 'aws.aarch64.vmdk.gz', 'a') } } },
          metal: { release: arm, formats: { 'raw.gz': { disk: disk(arm, 'aarch64', 'metal.aarch64.raw.gz', 'b') } } },
        },
        images: { aws: { regions: amis(arm, ['us-east-1', 'eu-west-1']) } },
      },
      x86_64: {
        artifacts: {
          aws: { release: x86, formats: { 'vmdk.gz': { disk: disk(x86, 'x86_64', 'aws.x86_64.vmdk.gz', 'c') } } },
          gcp: { release: x86, formats: { 'tar.gz': { disk: disk(x86, 'x86_64', 'gcp.x86_64.tar.gz', 'd') } } },
          metal: { release: x86, formats: { iso: { disk: disk(x86, 'x86_64', 'live.x86_64.iso', 'e') } } },
        },
        images: {
          aws: { regions: amis(x86, ['us-east-1', 'us-west-2', 'eu-west-1']) },
          gcp: { release: x86, project: 'rhcos-cloud', name: `rhcos-${x86.replace(/\./g, '-')}-gcp-x86-64` },
        },
      },
    },
  };
}

export const RHEL9_STREAM = sampleStream('rhel-9', RHEL9_BUILD, RHEL9_AARCH64_BUILD);
export const RHEL10_STREAM = sampleStream('rhel-10', RHEL10_BUILD);

/** The ConfigMap text; with `streams`, data.streams holds them all and data.stream the `defaultName` one. */
export function bootimagesYaml(opts: { stream?: Record<string, unknown>; streams?: Record<string, Record<string, unknown>> } = {}): string {
  const def = opts.stream ?? opts.streams?.['rhel-9'] ?? RHEL9_STREAM;
  const data: Record<string, string> = { releaseVersion: '0.0.1-snapshot', stream: `${JSON.stringify(def, null, 2)}\n` };
  if (opts.streams) data.streams = `${JSON.stringify(opts.streams, null, 2)}\n`;
  return toYaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'coreos-bootimages',
      namespace: 'openshift-machine-config-operator',
      annotations: {
        'include.release.openshift.io/ibm-cloud-managed': 'true',
        'include.release.openshift.io/self-managed-high-availability': 'true',
        'include.release.openshift.io/single-node-developer': 'true',
      },
    },
    data,
  });
}

/** The layer entry for release-manifests/. */
export function bootimagesEntry(yaml: string): LayerEntry {
  return { name: `release-manifests/${BOOTIMAGES_MANIFEST}`, data: yaml, mode: 0o444 };
}

export const TWO_STREAMS = { 'rhel-9': RHEL9_STREAM, 'rhel-10': RHEL10_STREAM };
