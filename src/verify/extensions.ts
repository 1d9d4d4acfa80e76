/**
 * The extensions half of `verify`: does the payload's extensions image (`rhel-coreos-extensions`, a stream's
 * `…-extensions` tag) belong to the pinned build (meta.json `extensions-container`)?
 */
import { digestOf } from '../oci/digest.js';
import type { BuildContainer } from '../rhcos/meta.js';

export type ExtensionsVerdict = 'consistent' | 'drift' | 'absent';

export interface ExtensionsReport {
  verdict: ExtensionsVerdict;
  /** The payload tag of the extensions image, when the payload has one. */
  tag: string | undefined;
  /** The payload's extensions pullspec. */
  payload: string | undefined;
  /** The build's `extensions-container` pullspec. */
  bootimage: string | undefined;
}

/** The extensions tag that goes with a layered OS tag: `rhel-coreos` → `rhel-coreos-extensions`, `rhel-coreos-10` → `rhel-coreos-10-extensions`. */
export function extensionsTagFor(osTag: string): string {
  return `${osTag}-extensions`;
}

/**
 * The verdict: `absent` when either side has no extensions image; `consistent` for the build's own image (its
 * digest or its manifest list's), or, beside a node image, an extensions image whose base build
 * (`baseBuildId`, read from its labels) is the pinned build; otherwise `drift`.
 */
export function compareExtensions(
  tag: string | undefined,
  payload: string | undefined,
  build: BuildContainer | null,
  baseBuildId?: { extensions: string | undefined; pinned: string },
): ExtensionsReport {
  const report = { tag, payload, bootimage: build?.pullspec };
  if (payload === undefined || build === null) return { ...report, verdict: 'absent' };
  const digest = digestOf(payload);
  const own = digest !== undefined && (digest === build.digest || digest === build.manifestListDigest);
  const sameBase = baseBuildId !== undefined && baseBuildId.extensions === baseBuildId.pinned;
  return { ...report, verdict: own || sameBase ? 'consistent' : 'drift' };
}
