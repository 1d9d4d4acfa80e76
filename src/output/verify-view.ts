/** `verify` views: a short text report, and the documented `-o json` object. */
import type { OsImageSide, Verdict } from '../verify/compare.js';
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
  return side.buildIdSource ? `${side.buildId} (from ${side.buildIdSource})` : side.buildId;
}

export function renderVerify(r: VerifyReport): string {
  const pinned = r.build.pinnedIn ? ` (pinned in ${r.build.pinnedIn})` : '';
  const lines = [
    VERDICT_LINE[r.verdict],
    '',
    `Bootimage: RHCOS ${r.build.build} ${r.build.arch}, channel ${r.build.channel}${pinned}`,
    keyValues([
      ['  OS container', r.bootimage.pullspec],
      ['  Build', buildText(r.bootimage)],
    ]),
    `Payload: ${r.release} tag ${r.tag}`,
    keyValues([
      ['  OS container', r.payload.pullspec],
      ['  Build', buildText(r.payload)],
    ]),
    '',
    `Meaning: ${r.meaning}`,
  ];
  for (const n of r.notes) lines.push(`Note: ${n}`);
  return escapeText(`${lines.join('\n')}\n`);
}

/**
 * The stable `verify -o json` object. Unknown values are null, never absent.
 *
 * {
 *   "consistent": boolean,
 *   "verdict": "consistent" | "payload-newer" | "bootimage-newer" | "different",
 *   "meaning": string,
 *   "release": { "image": string, "digest": string, "tag": string },
 *   "bootimage": { "pullspec", "digest", "buildId", "buildIdSource",
 *                  "build", "channel", "arch", "baseUrl", "metaUrl", "pinnedIn" },
 *   "payload": { "pullspec", "digest", "buildId", "buildIdSource" },
 *   "notes": string[]
 * }
 */
export interface VerifySideJson {
  pullspec: string;
  digest: string | null;
  buildId: string | null;
  /**
   * `meta.json` (the bootimage's build), `annotation` (the tag's io.openshift.build.versions machine-os=),
   * `labels` (the OS container's config labels), `digest` (the payload's digest is the bootimage's).
   */
  buildIdSource: string | null;
}

export interface VerifyJson {
  consistent: boolean;
  verdict: Verdict;
  meaning: string;
  release: { image: string; digest: string; tag: string };
  bootimage: VerifySideJson & { build: string; channel: string; arch: string; baseUrl: string; metaUrl: string; pinnedIn: string | null };
  payload: VerifySideJson;
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
    release: { image: r.release, digest: r.releaseDigest, tag: r.tag },
    bootimage: {
      ...side(r.bootimage),
      build: r.build.build,
      channel: r.build.channel,
      arch: r.build.arch,
      baseUrl: redactUrl(r.build.baseUrl),
      metaUrl: r.build.metaUrl,
      pinnedIn: r.build.pinnedIn ?? null,
    },
    payload: side(r.payload),
    notes: r.notes,
  };
}
