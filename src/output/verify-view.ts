/** `verify` views: a short text report, and the documented `-o json` object. */
import type { OsImageSide } from '../release/os-build.js';
import type { Verdict } from '../verify/compare.js';
import type { ExtensionsVerdict } from '../verify/extensions.js';
import type { BootimagesReport } from '../verify/bootimages.js';
import type { VerifyReport } from '../verify/verify.js';
import { escapeText } from './escape.js';
import { keyValues } from './format.js';
import { redactUrl } from '../http/redact.js';

const VERDICT_LINE: Record<Verdict, string> = {
  consistent: "consistent: the payload ships the bootimage's OS image",
  'payload-newer': "DRIFT: the payload's OS image is newer than the bootimage",
  'bootimage-newer': "DRIFT: the bootimage is newer than the payload's OS image (a downgrade)",
  different: "DRIFT: the payload's OS image is not the bootimage's",
};

function buildText(side: OsImageSide): string {
  if (side.buildId === undefined) return 'unknown';
  if (side.buildIdSource === 'node-image') return `${side.buildId} (the node image's base, from its labels)`;
  return side.buildIdSource ? `${side.buildId} (from ${side.buildIdSource})` : side.buildId;
}

const EXTENSIONS_TEXT: Record<ExtensionsVerdict, string> = {
  consistent: 'consistent with the pinned build',
  drift: "DRIFT (not the build's extensions-container)",
  absent: 'absent',
};

const BOOTIMAGES_DIFFER =
  "the installer would boot new machines from a different build than the one pinned (the payload's coreos-bootimages stream); they pivot to the payload's OS image on first boot, and the machine-config-operator's boot-image controller updates machine sets to that stream's images";

/** `Bootimage stream: …` — what the payload's coreos-bootimages names for the pinned arch. */
function bootimagesLine(b: BootimagesReport): string {
  if (b.verdict === 'absent') return 'Bootimage stream: absent (the payload carries no coreos-bootimages stream for it)';
  const where = `${b.stream}, ${b.arch}`;
  if (b.verdict === 'consistent') return `Bootimage stream: consistent, ${b.streamBuild} (${where})`;
  return `Bootimage stream: DIFFERS, ${b.streamBuild ?? `no ${b.arch} build`} (${where}), pinned ${b.pinnedBuild}`;
}

export function renderVerify(r: VerifyReport): string {
  const pinned = r.build.pinnedIn ? ` (pinned in ${r.build.pinnedIn})` : '';
  const lines = [
    VERDICT_LINE[r.verdict],
    ...(r.bootimages.verdict === 'differs' ? ["DRIFT: the payload's bootimage stream (coreos-bootimages) is not the pinned build"] : []),
    '',
    `Bootimage: RHCOS ${r.build.build} ${r.build.arch}, channel ${r.build.channel}${pinned}`,
    keyValues([
      ['  OS container', r.bootimage.pullspec],
      ['  Build', buildText(r.bootimage)],
    ]),
    `Payload: ${r.release} tag ${r.tag}${r.osStream !== undefined ? ` (OS stream ${r.osStream})` : ''}`,
    keyValues([
      ['  OS container', r.payload.pullspec],
      ['  Node image', r.payload.nodeImage],
      ['  Build', buildText(r.payload)],
    ]),
  ];
  // The extensions line belongs to layered payloads; machine-os-content had no extensions image.
  if (r.containerKey !== 'oscontainer') {
    const e = r.extensions;
    lines.push(`Extensions: ${EXTENSIONS_TEXT[e.verdict]}${e.tag !== undefined && e.payload !== undefined ? `, tag ${e.tag}` : ''}`);
  }
  lines.push(bootimagesLine(r.bootimages));
  lines.push('', `Meaning: ${r.meaning}`);
  if (r.bootimages.verdict === 'differs') lines.push(`Meaning: ${BOOTIMAGES_DIFFER}`);
  for (const n of r.notes) lines.push(`Note: ${n}`);
  return escapeText(`${lines.join('\n')}\n`);
}

/**
 * The stable `verify -o json` object. Unknown values are null, never absent.
 *
 * {
 *   "consistent": boolean,          (the OS verdict is consistent, the extensions do not drift and the
 *                                    bootimage stream does not differ)
 *   "verdict": "consistent" | "payload-newer" | "bootimage-newer" | "different",
 *   "meaning": string,
 *   "release": { "image": string, "digest": string, "tag": string, "osStream": string | null },
 *   "bootimage": { "pullspec", "digest", "buildId", "buildIdSource", "container",
 *                  "build", "channel", "arch", "baseUrl", "metaUrl", "pinnedIn" },
 *   "payload": { "pullspec", "digest", "buildId", "buildIdSource" },
 *   "nodeImage": string | null,     (a 4.19+ node image's coreos.build.manifest-list-tag)
 *   "extensions": { "verdict": "consistent" | "drift" | "absent", "tag", "payload", "bootimage" },
 *   "bootimages": { "verdict": "consistent" | "differs" | "absent", "streamBuild", "pinnedBuild", "arch" },
 *                                   (the payload's coreos-bootimages stream, data.stream or data.streams[--os-stream],
 *                                    for the pinned arch; differs makes consistent false)
 *   "notes": string[]
 * }
 */
export interface VerifySideJson {
  pullspec: string;
  digest: string | null;
  buildId: string | null;
  /**
   * `meta.json` (the bootimage's build), `annotation` (the tag's io.openshift.build.versions machine-os=),
   * `labels` (the OS container's config labels), `digest` (the payload's digest is the bootimage's),
   * `node-image` (a node image's base build, label org.opencontainers.image.version).
   */
  buildIdSource: string | null;
}

export interface ExtensionsJson {
  verdict: ExtensionsVerdict;
  tag: string | null;
  payload: string | null;
  bootimage: string | null;
}

export interface VerifyJson {
  consistent: boolean;
  verdict: Verdict;
  meaning: string;
  release: { image: string; digest: string; tag: string; osStream: string | null };
  bootimage: VerifySideJson & {
    container: string;
    build: string;
    channel: string;
    arch: string;
    baseUrl: string;
    metaUrl: string;
    pinnedIn: string | null;
  };
  payload: VerifySideJson;
  nodeImage: string | null;
  extensions: ExtensionsJson;
  bootimages: { verdict: BootimagesReport['verdict']; streamBuild: string | null; pinnedBuild: string; arch: string };
  notes: string[];
}

function side(s: OsImageSide): VerifySideJson {
  return { pullspec: s.pullspec, digest: s.digest ?? null, buildId: s.buildId ?? null, buildIdSource: s.buildIdSource ?? null };
}

export function verifyJson(r: VerifyReport): VerifyJson {
  return {
    consistent: r.consistent,
    verdict: r.verdict,
    meaning: r.meaning,
    release: { image: r.release, digest: r.releaseDigest, tag: r.tag, osStream: r.osStream ?? null },
    bootimage: {
      ...side(r.bootimage),
      container: r.containerKey,
      build: r.build.build,
      channel: r.build.channel,
      arch: r.build.arch,
      baseUrl: redactUrl(r.build.baseUrl),
      metaUrl: r.build.metaUrl,
      pinnedIn: r.build.pinnedIn ?? null,
    },
    payload: side(r.payload),
    nodeImage: r.payload.nodeImage ?? null,
    extensions: {
      verdict: r.extensions.verdict,
      tag: r.extensions.tag ?? null,
      payload: r.extensions.payload ?? null,
      bootimage: r.extensions.bootimage ?? null,
    },
    bootimages: {
      verdict: r.bootimages.verdict,
      streamBuild: r.bootimages.streamBuild,
      pinnedBuild: r.bootimages.pinnedBuild,
      arch: r.bootimages.arch,
    },
    notes: r.notes,
  };
}
