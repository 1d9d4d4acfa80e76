/** What `release diff` runs (release-diff.ts builds the command): read both releases, diff them, print the report. */
import { env } from '../context.js';
import { UsageError } from '../errors.js';
import { readImages } from './open-image.js';
import { settingsFrom, type SettingsOptionValues } from './options.js';
import { loadReleaseInfo } from '../release/info.js';
import { diffReleases } from '../release/diff.js';
import * as releaseDiffView from '../output/release-diff-view.js';
import { releasePackageChanges } from '../packages/release-packages.js';
import * as packageDiffView from '../output/package-diff-view.js';
import { isNotable } from '../packages/notable.js';
import { json } from '../output/format.js';
import { info, out } from '../output/terminal.js';
import type { RegistryOptionValues } from './registry-options.js';

export interface DiffOptions extends RegistryOptionValues, SettingsOptionValues {
  packages?: boolean;
  output: 'text' | 'json';
}

export async function releaseDiff(oldImage: string, newImage: string, o: DiffOptions): Promise<void> {
  if (oldImage === '') throw new UsageError('release diff: OLD is empty');
  if (newImage === '') throw new UsageError('release diff: NEW is empty');
  const filter = o.filterByOs !== undefined ? { filterByOs: o.filterByOs } : {};
  const wantPackages = o.baseUrl !== undefined || (env().RHCOS_BASE_URL ?? '') !== '';
  const settings = wantPackages ? settingsFrom(o) : undefined;
  const { diff, packages } = await readImages(o, async (open, opts) => {
    const oldInfo = await loadReleaseInfo(oldImage, await open(oldImage), filter);
    const newInfo = await loadReleaseInfo(newImage, await open(newImage), filter);
    const diff = diffReleases(oldInfo, newInfo);
    if (!settings) return { diff, packages: undefined };
    return { diff, packages: await releasePackageChanges(oldInfo, newInfo, settings, opts, o.filterByOs) };
  });
  if (packages && 'skipped' in packages) info(`info: RHCOS packages not shown: ${packages.skipped}`);
  const view = releaseDiffView;
  const pkgView = packages ? packageDiffView : undefined;
  if (o.output === 'json') {
    const extra = !packages
      ? {}
      : { rhcosPackages: 'report' in packages ? pkgView!.buildDiffJson(packages.report) : { skipped: packages.skipped } };
    out(json({ ...view.releaseDiffJson(diff), ...extra }));
    return;
  }
  const section =
    packages && 'report' in packages
      ? pkgView!.renderPackagesSection(packages.report, { full: o.packages === true, notable: isNotable })
      : '';
  out(view.renderDiff(diff) + section);
}
