/**
 * The flags that name OS images (payload write, release new --from-release): their conflicts and the checks
 * made before anything is read, once, for both commands.
 */
import { UsageError, describe } from '../errors.js';
import { osPullspec, type OsPullspec } from '../payload/pullspec.js';
import type { FlagRule } from './conflicts.js';

export interface OsImageFlagValues {
  osImage?: string | undefined;
  extensionsImage?: string | undefined;
  legacyOsImage?: string | undefined;
  nodeImage?: boolean | undefined;
  allowTag?: boolean | undefined;
}

/** `verb`: what the command does with an OS stream's tags (`writes`, `swaps`). */
export function osImageConflicts(verb: string): FlagRule[] {
  return [
    {
      rule: 'excludes',
      flags: ['osStream', 'legacyOsImage'],
      message: `--os-stream ${verb} only that stream's layered tags: --legacy-os-image has no place there`,
    },
    {
      rule: 'excludes',
      flags: ['nodeImage', 'legacyOsImage', 'manifestList'],
      message: (f) => `--node-image takes the images from --os-image and --extensions-image: ${f.join(', ')} cannot go with it`,
    },
  ];
}

/** The OS images given, checked once: what the payload writers take. */
export interface CheckedOsImages {
  osImage?: OsPullspec;
  extensionsImage?: OsPullspec;
  legacyOsImage?: OsPullspec;
}

/**
 * --node-image needs both images, and every OS image given is a pull spec by digest (unless --allow-tag): exit 2.
 * Returns the images, checked.
 */
export function checkOsImageFlags(o: OsImageFlagValues): CheckedOsImages {
  if (o.nodeImage && (o.osImage === undefined || o.extensionsImage === undefined)) {
    throw new UsageError(
      "--node-image needs --os-image and --extensions-image (the node image and its extensions): the release browser's build is the node image's base, not the node image",
    );
  }
  const checked: CheckedOsImages = {};
  for (const [key, flag] of [
    ['osImage', '--os-image'],
    ['extensionsImage', '--extensions-image'],
    ['legacyOsImage', '--legacy-os-image'],
  ] as const) {
    const v = o[key];
    if (v === undefined) continue;
    try {
      checked[key] = osPullspec(v, { allowTag: o.allowTag ?? false });
    } catch (err) {
      throw new UsageError(`${flag}: ${describe(err)}`);
    }
  }
  return checked;
}
