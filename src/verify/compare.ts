// The one place build ids are ordered for a verdict (stream-aware: across RHEL 9 and 10 there is no newer/older).
import type { OsImageSide } from '../release/os-build.js';
import { compareBuildIds } from '../rhcos/build-id.js';

/** Whether the payload's digest is the bootimage's image (by its own digest or its manifest list's). */
export function sameImage(bootimage: OsImageSide, digest: string | undefined): boolean {
  return digest !== undefined && (digest === bootimage.digest || digest === bootimage.listDigest);
}

export type Verdict = 'consistent' | 'payload-newer' | 'bootimage-newer' | 'different';

export interface Comparison {
  verdict: Verdict;
  consistent: boolean;
  bootimage: OsImageSide;
  payload: OsImageSide;
  /** One sentence: what the verdict means for a cluster installed with this pair. */
  meaning: string;
}

/**
 * The same digest, whatever the repository, is the same OS: consistent. Otherwise the build ids say
 * which side is newer, and what that means on a cluster.
 */
export function compareOsImages(bootimage: OsImageSide, payload: OsImageSide): Comparison {
  if (sameImage(bootimage, payload.digest)) {
    return {
      verdict: 'consistent',
      consistent: true,
      bootimage,
      payload,
      meaning: 'the bootimage and the payload carry the same OS image: new nodes boot straight into it, with no pivot',
    };
  }
  const order = bootimage.buildId && payload.buildId ? compareBuildIds(bootimage.buildId, payload.buildId) : undefined;
  if (order === 'same' && payload.nodeImage !== undefined) {
    return {
      verdict: 'consistent',
      consistent: true,
      bootimage,
      payload,
      meaning: `the payload's node image ${payload.nodeImage} is built on the bootimage's build ${bootimage.buildId}: new nodes boot that OS and only gain the node layer (kubelet, cri-o)`,
    };
  }
  if (order === 'older') {
    return {
      verdict: 'payload-newer',
      consistent: false,
      bootimage,
      payload,
      meaning: `the payload is newer: every new node boots ${bootimage.buildId}, then pivots to ${payload.buildId} and reboots on first boot`,
    };
  }
  if (order === 'newer') {
    return {
      verdict: 'bootimage-newer',
      consistent: false,
      bootimage,
      payload,
      meaning: `the bootimage is newer: every new node boots ${bootimage.buildId}, then pivots DOWN to ${payload.buildId} (a downgrade) and reboots on first boot`,
    };
  }
  const same = order === 'same' ? ` (both say build ${bootimage.buildId}, yet the digests differ: a rebuilt or re-pushed image)` : '';
  return {
    verdict: 'different',
    consistent: false,
    bootimage,
    payload,
    meaning: `the OS images differ${same}: every new node pivots to the payload's OS image and reboots on first boot`,
  };
}
