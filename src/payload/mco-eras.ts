/**
 * The machine-config-operator's merge rules (MergeMachineConfigs and the render controller around it), by the
 * OpenShift release whose MCO shipped them. Each rule is dated by the first release branch holding the change
 * (the MCO's git history; z-stream backports are not modelled: a release is taken at its .0):
 *
 * - 4.1–4.5: Ignition spec 2 merged with Ignition's v2 Append (lists concatenated; the first config's version
 *   kept); osImageURL only from the ControllerConfig; fips of the first MC ignored (fixed in 4.6).
 * - 4.6: every config converted to spec 3 and merged with Ignition's config/merge; result 3.1.0 (3.2.0 from 4.7,
 *   3.4.0 from 4.14, 3.5.0 from 4.19); extensions, and kernel-devel refused beside a non-default kernel.
 * - 4.4–4.10: kernelType realtime when an MC says so, but the loop stops at the first realtime MC (fips on later
 *   MCs lost from 4.6, where the check joined that loop); 4.11 checks every MC; 4.15 adds 64k-pages, the last
 *   such MC winning.
 * - 4.12: an MC's osImageURL and baseOSExtensionsContainerImage override the ControllerConfig's (last non-empty
 *   wins), whose default is baseOSContainerImage; kernel arguments de-duplicated in 4.12–4.13 only.
 * - 4.13: files without `overwrite` get `overwrite: true`; 3.3 and 3.4 configs accepted, brought down to 3.2 (their
 *   shouldExist kernel arguments joining the spec's).
 * - 4.15: for a custom pool, worker-labelled MCs merge first, the pool's own after them.
 * - 4.20: a later file without `compression` clears an earlier gzip.
 * - 4.22: MCs annotated generated-by-controller-version cannot set the OS images.
 */
import type { Minor3 } from './ignition/schema.js';
import type { MergePolicy } from './defaults.js';
import { PayloadError } from './errors.js';

/** The newest release the rules know; later versions merge as it does. */
export const LATEST_MCO_RELEASE = '5.0';

export interface MergeRules {
  /** The release, as given (`4.15`, `5.0`). */
  release: string;
  /** Spec 3 merge (4.6 on); otherwise Ignition spec 2's Append. */
  spec3: boolean;
  /** The spec 3 minor version configs are converted to and the result carries. */
  ignitionMinor: Minor3;
  /** How osImageURL is chosen by default. */
  policy: MergePolicy;
  /** The ControllerConfig's default OS image is baseOSContainerImage (4.12 on), not osImageURL. */
  baseImageDefault: boolean;
  /** The rendered spec has baseOSExtensionsContainerImage (4.12 on). */
  extensionsImage: boolean;
  /** MCs annotated generated-by-controller-version cannot set the OS images (4.22 on). */
  skipGenerated: boolean;
  /** Spec fields the rendered config carries (kernelArguments and fips from 4.2). */
  kernelArguments: boolean;
  fips: boolean;
  kernelType: 'none' | 'first-realtime' | 'any-realtime' | 'last-special';
  extensions: boolean;
  /** The first MC's fips is not looked at (4.1–4.5). */
  fipsSkipsFirst: boolean;
  /** Kernel arguments de-duplicated, first occurrence kept (4.12–4.13). */
  kargsDedup: boolean;
  /** Files without `overwrite` get `overwrite: true` (4.13 on). */
  overwriteDefault: boolean;
  /** A later file without `compression` clears an earlier one (4.20 on). */
  compressionReset: boolean;
  /** Worker-labelled MCs merge first in a custom pool (4.15 on). */
  workerFirst: boolean;
  /** kernelType values an MC may set. */
  kernelTypes: readonly string[];
  /** Extensions an MC with an Ignition config may ask for (4.19 on); undefined: not checked. */
  allowedExtensions: readonly string[] | undefined;
  /** An unparsable Ignition version is reported as "invalid version" (4.14 on) rather than "unknown version". */
  invalidVersionText: boolean;
  /**
   * Spec 3.3 and 3.4 configs are accepted and brought down to 3.2, their kernelArguments.shouldExist moving to the
   * spec's kernel arguments (the MCO of 4.13, backported there before its first z-streams).
   */
  downgrade34: boolean;
  /** A pool may name an OS image stream, and then no MC may override osImageURL (4.22 on). */
  osImageStreams: boolean;
  /** The render controller's messages start lower-case (5.0 on): "ignoring MC …", "cannot find label …". */
  lowerCaseErrors: boolean;
}

const at = (v: { major: number; minor: number }, major: number, minor: number) =>
  v.major > major || (v.major === major && v.minor >= minor);

/** The rules of the MCO of OpenShift `release` (`4.15`, `4.15.3`, `5.0`); an unknown shape is an error. */
export function mergeRulesFor(release: string): MergeRules {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec(release);
  const v = m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
  if (!v || v.major < 4 || (v.major === 4 && v.minor < 1)) {
    throw new PayloadError(
      `--openshift-version ${JSON.stringify(release)}: give an OpenShift release from 4.1 on, as MAJOR.MINOR (e.g. 4.15 or ${LATEST_MCO_RELEASE})`,
    );
  }
  const ignitionMinor: Minor3 = at(v, 4, 19) ? 5 : at(v, 4, 14) ? 4 : at(v, 4, 7) ? 2 : 1;
  return {
    release: `${v.major}.${v.minor}`,
    spec3: at(v, 4, 6),
    ignitionMinor,
    policy: at(v, 4, 12) ? 'last-wins' : 'controller-config',
    baseImageDefault: at(v, 4, 12),
    extensionsImage: at(v, 4, 12),
    skipGenerated: at(v, 4, 22),
    kernelArguments: at(v, 4, 2),
    fips: at(v, 4, 2),
    kernelType: at(v, 4, 15) ? 'last-special' : at(v, 4, 11) ? 'any-realtime' : at(v, 4, 4) ? 'first-realtime' : 'none',
    extensions: at(v, 4, 6),
    fipsSkipsFirst: !at(v, 4, 6),
    kargsDedup: at(v, 4, 12) && !at(v, 4, 14),
    overwriteDefault: at(v, 4, 13),
    compressionReset: at(v, 4, 20),
    workerFirst: at(v, 4, 15),
    kernelTypes: at(v, 4, 15) ? ['', 'default', 'realtime', '64k-pages'] : ['', 'default', 'realtime'],
    allowedExtensions: at(v, 4, 19)
      ? [
          'two-node-ha',
          'ipsec',
          'usbguard',
          'kerberos',
          'kernel-devel',
          'sandboxed-containers',
          'sysstat',
          ...(at(v, 4, 22) ? [] : ['wasm']),
        ]
      : undefined,
    invalidVersionText: at(v, 4, 14),
    downgrade34: v.major === 4 && v.minor === 13,
    osImageStreams: at(v, 4, 22),
    lowerCaseErrors: at(v, 4, 23),
  };
}
