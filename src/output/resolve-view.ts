import type { ResolvedBuild } from '../rhcos/resolve.js';
import { amiForRegion, requireOsContainer } from '../rhcos/resolve.js';
import { osContainerPullspec, qemuImage, type QemuImage } from '../rhcos/meta.js';
import { redactUrl } from '../http/redact.js';
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
  /** region → AMI id; only the asked region with --region. */
  amis: Record<string, string>;
  qemu: QemuImage | null;
}

export function toJson(r: ResolvedBuild, region?: string): ResolveJson {
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
    amis,
    qemu: qemuImage(r.meta, r.buildDir) ?? null,
  };
}

export function render(r: ResolvedBuild, format: 'text' | 'json' | 'env' | 'oscontainer', region?: string): string {
  if (format === 'oscontainer') return requireOsContainer(r, 'it publishes no OS container');
  if (format === 'env') {
    if (region) amiForRegion(r.meta, region);
    return [
      `RHCOS_BUILD_NAME=${shellQuote(r.build)}`,
      `RHCOS_DEFAULT_CHANNEL=${shellQuote(r.channel)}`,
      `RHCOS_BASE_URL=${shellQuote(r.baseUrl)}`,
    ].join('\n');
  }
  const j = toJson(r, region);
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
      ['QEMU image', j.qemu?.installerUrl],
      ['  sha256', j.qemu?.sha256],
      ['  uncompressed sha256', j.qemu?.uncompressedSha256],
    ]),
  ];
  const regions = Object.entries(j.amis);
  if (regions.length > 0) lines.push(`AMIs:\n${table(regions.map(([reg, ami]) => [`  ${reg}`, ami]))}`);
  return lines.join('\n');
}
