import type { ResolvedBuild } from '../rhcos/resolve.js';
import { amiForRegion, requireOsContainer } from '../rhcos/resolve.js';
import { osContainerPullspec, qemuImage, type QemuImage } from '../rhcos/meta.js';
import { containerImageOf, osImageOf, requireOsImage, type PullspecOptions } from '../rhcos/os-image.js';
import { CONTAINER_KEYS, type ContainerKey } from '../oci/os-tags.js';
import { redactUrl, withoutUserinfo } from '../http/redact.js';
import type { ContainerSignatures } from '../release/signatures/build-containers.js';
import type { SignatureEntry } from '../release/signatures/report.js';
import { json, keyValues, shellQuote, table } from './format.js';

/** The documented `resolve -o json` object. */
export interface ResolveJson {
  build: string;
  channel: string;
  baseURL: string;
  arch: string;
  pinned: boolean;
  validated: boolean;
  buildsURL: string;
  metaURL: string;
  buildDir: string;
  ostreeVersion: string | null;
  ostreeCommit: string | null;
  osContainer: string | null;
  /** The primary OS image (`base-oscontainer`, else `oscontainer`); by manifest list with --manifest-list. */
  osImage: string | null;
  /** Always the three keys; null for a container the build does not publish. */
  containers: Record<ContainerKey, ContainerJson | null>;
  /** region → AMI id; only the asked region with --region. */
  amis: Record<string, string>;
  qemu: QemuImage | null;
  /** With --verify-signatures only: each container checked, at the digest checked, and its signatures. */
  signatures?: ContainerSignaturesJson[];
}

export interface ContainerSignaturesJson {
  container: ContainerKey;
  /** `image@digest`, the pullspec whose signatures were checked. */
  image: string;
  digest: string;
  signatures: SignatureEntry[];
}

/** One container of `-o json`; `pullspec` is by manifest list with --manifest-list. */
export interface ContainerJson {
  image: string;
  digest: string | null;
  pullspec: string;
  manifestListDigest: string | null;
}

export interface RenderOptions extends PullspecOptions {
  region?: string | undefined;
  /** What --verify-signatures checked (all held: a failure stops before anything is rendered). */
  signatures?: ContainerSignatures[] | undefined;
}

export type ResolveFormat = 'text' | 'json' | 'env' | 'oscontainer' | 'os-image';

function containersJson(r: ResolvedBuild, opts: PullspecOptions): Record<ContainerKey, ContainerJson | null> {
  const out = {} as Record<ContainerKey, ContainerJson | null>;
  for (const key of CONTAINER_KEYS) {
    const c = r.meta.containers[key];
    out[key] = c
      ? { image: c.image, digest: c.digest, pullspec: containerImageOf(r, key, opts)!, manifestListDigest: c.manifestListDigest }
      : null;
  }
  return out;
}

export function toJson(r: ResolvedBuild, opts: RenderOptions = {}): ResolveJson {
  const { region } = opts;
  const amis = region ? { [region]: amiForRegion(r.meta, region) } : { ...r.meta.amis };
  return {
    build: r.build,
    channel: r.channel,
    baseURL: redactUrl(r.baseUrl),
    arch: r.arch,
    pinned: r.pinned,
    validated: r.validated,
    buildsURL: r.buildsUrl,
    metaURL: r.metaUrl,
    buildDir: r.buildDir,
    ostreeVersion: r.meta['ostree-version'] ?? null,
    ostreeCommit: r.meta['ostree-commit'] ?? null,
    osContainer: r.meta.oscontainer ? osContainerPullspec(r.meta.oscontainer) : null,
    osImage: osImageOf(r, opts)?.pullspec ?? null,
    containers: containersJson(r, opts),
    amis,
    qemu: qemuImage(r.meta, r.buildDir) ?? null,
    ...(opts.signatures
      ? { signatures: opts.signatures.map((c) => ({ container: c.key, image: c.image, digest: c.digest, signatures: c.signatures })) }
      : {}),
  };
}

/** `-o env`: the pins, then `RHCOS_OS_IMAGE` and one variable per container, each only when the build has it. */
export const CONTAINER_ENV: Record<ContainerKey, string> = {
  oscontainer: 'RHCOS_OSCONTAINER',
  'base-oscontainer': 'RHCOS_BASE_OSCONTAINER',
  'extensions-container': 'RHCOS_EXTENSIONS_CONTAINER',
};

function envLines(r: ResolvedBuild, opts: PullspecOptions): string {
  const lines: Array<[string, string | undefined]> = [
    ['RHCOS_BUILD_NAME', r.build],
    ['RHCOS_DEFAULT_CHANNEL', r.channel],
    // Scripts eval this and log it: credentials stay in ~/.netrc, never in the output.
    ['RHCOS_BASE_URL', withoutUserinfo(r.baseUrl)],
    ['RHCOS_OS_IMAGE', osImageOf(r, opts)?.pullspec],
    ...CONTAINER_KEYS.map((key): [string, string | undefined] => [CONTAINER_ENV[key], containerImageOf(r, key, opts)]),
  ];
  return lines.flatMap(([name, value]) => (value === undefined ? [] : [`${name}=${shellQuote(value)}`])).join('\n');
}

export function render(r: ResolvedBuild, format: ResolveFormat, opts: RenderOptions = {}): string {
  const { region } = opts;
  if (format === 'oscontainer') return requireOsContainer(r, 'it publishes no OS container');
  if (format === 'os-image') return requireOsImage(r, opts).pullspec;
  if (format === 'env') {
    if (region) amiForRegion(r.meta, region);
    return envLines(r, opts);
  }
  const j = toJson(r, opts);
  if (format === 'json') return json(j);
  const lines = [
    keyValues([
      ['Build', `${j.build}${j.pinned ? ' (pinned)' : ' (newest)'}${j.validated ? '' : ' (not validated)'}`],
      ['Channel', j.channel],
      ['Arch', j.arch],
      ['Base URL', j.baseURL],
      ['builds.json', j.validated ? j.buildsURL : undefined],
      ['meta.json', j.metaURL],
      ['OSTree version', j.ostreeVersion ?? undefined],
      ['OS container', j.osContainer ?? undefined],
      ['OS image', j.osImage ?? undefined],
      ['QEMU image', j.qemu?.installerUrl],
      ['  sha256', j.qemu?.sha256],
      ['  uncompressed sha256', j.qemu?.uncompressedSha256],
    ]),
  ];
  const containers = CONTAINER_KEYS.flatMap((key) => {
    const c = j.containers[key];
    if (!c) return [];
    return [[`  ${key}`, c.pullspec], ...(c.manifestListDigest ? [[`    manifest list`, c.manifestListDigest]] : [])];
  });
  if (containers.length > 0) lines.push(`Containers:\n${table(containers)}`);
  const regions = Object.entries(j.amis);
  if (regions.length > 0) lines.push(`AMIs:\n${table(regions.map(([reg, ami]) => [`  ${reg}`, ami]))}`);
  return lines.join('\n');
}
