/**
 * The RHCOS package changes between two releases already read: each release's machine-os build (found as
 * `verify` finds it), then the package diff of those builds. Any failure becomes a reason to skip, not an
 * error: the release diff stands without it.
 */
import { describe } from '../errors.js';
import type { SourceOptions } from '../registry/types.js';
import type { ReleaseInfo } from '../release/info.js';
import type { Settings } from '../rhcos/settings.js';
import { osBuildOf } from '../release/os-build.js';
import { platformForArch } from '../rhcos/platform.js';
import { compareBuilds, type BuildDiffReport } from './compare.js';

export async function releasePackageChanges(
  oldInfo: ReleaseInfo,
  newInfo: ReleaseInfo,
  settings: Settings,
  opts: SourceOptions,
  filterByOs: string | undefined,
): Promise<{ report: BuildDiffReport } | { skipped: string }> {
  const platform = filterByOs ?? platformForArch(settings.arch);
  try {
    const builds = [await osBuildOf(oldInfo, opts, platform), await osBuildOf(newInfo, opts, platform)] as const;
    const report = await compareBuilds({
      from: { kind: 'release', spec: oldInfo.image },
      to: { kind: 'release', spec: newInfo.image },
      settings,
      releaseBuild: async (image) => (image === oldInfo.image ? builds[0] : builds[1]),
    });
    return { report };
  } catch (err) {
    return { skipped: describe(err) };
  }
}
