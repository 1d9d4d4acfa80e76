import { Command } from 'commander';
import { env } from '../context.js';
import { UsageError } from '../errors.js';
import { readImages } from './open-image.js';
import { addSettingsOptions, examples, outputOption, settingsFrom, type SettingsOptionValues } from './options.js';
import { addRegistryOptions, type RegistryOptionValues } from './registry-options.js';
import { loadReleaseInfo } from '../release/info.js';
import { diffReleases } from '../release/diff.js';
import * as releaseDiffView from '../output/release-diff-view.js';
import { releasePackageChanges } from '../packages/release-packages.js';
import * as packageDiffView from '../output/package-diff-view.js';
import { isNotable } from '../packages/notable.js';
import { json } from '../output/format.js';
import { info, out } from '../output/terminal.js';

interface DiffOptions extends RegistryOptionValues, SettingsOptionValues {
  packages?: boolean;
  output: 'text' | 'json';
}

const REFERENCE_HELP =
  'OLD and NEW are registry references (quay.io/ns/release:tag or @sha256:…; docker://REF too), oci:DIR[:TAG], oci-archive:FILE[:TAG], dir:DIR or docker-archive:FILE[:REF] (as skopeo writes them).';

/**
 * `release diff OLD NEW`: osimage's report of what changed between two releases (machine-os of each OS
 * stream, component versions, images), and with a release browser (--base-url or RHCOS_BASE_URL) an "RHCOS
 * packages" section: the package diff of the two releases' machine-os builds. When that cannot be had, one
 * `info:` line says why and the exit code is unchanged; without a browser it is skipped silently (the
 * historical default host no longer answers: never wait on it). oc's own comparison is `release info
 * --changes-from`.
 */
export function diffCommand(): Command {
  return addSettingsOptions(addRegistryOptions(new Command('diff')), { build: false })
    .description(
      `What changed from release OLD to release NEW: the machine-os version of each OS stream, component versions, the images added, removed and changed, and with a release browser (--base-url) the RHCOS packages.\n${REFERENCE_HELP}`,
    )
    .argument('<old>', 'the older release image')
    .argument('<new>', 'the newer release image')
    .option('--packages', 'list every RHCOS package change, not only the notable ones (needs the release browser: --base-url)')
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText(
      'after',
      examples([
        'osimage release diff quay.io/openshift-release-dev/ocp-release:4.13.0-x86_64 quay.io/openshift-release-dev/ocp-release:4.13.1-x86_64',
        'osimage release diff oci-archive:old.tar oci-archive:new.tar -o json',
        'osimage release diff OLD NEW --base-url https://RELEASE-BROWSER/storage/prod/streams --channel 4.18-9.4/builds --packages',
        'osimage release diff -a ~/pull-secret.json --filter-by-os linux/arm64 REGISTRY/ocp/release:4.18.1-multi REGISTRY/ocp/release:4.18.2-multi',
      ]),
    )
    .action(async (oldImage: string, newImage: string, o: DiffOptions) => releaseDiff(oldImage, newImage, o));
}

async function releaseDiff(oldImage: string, newImage: string, o: DiffOptions): Promise<void> {
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
