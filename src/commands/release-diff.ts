import { Command } from 'commander';
import { addSettingsOptions, examples, outputOption } from './options.js';
import { addRegistryOptions } from './registry-options.js';
import type { DiffOptions } from './release-diff-run.js';

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
  return (
    addSettingsOptions(addRegistryOptions(new Command('diff')), { build: false })
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
      // The report's modules (the package diff, its views) load only when the command runs.
      .action(async (oldImage: string, newImage: string, o: DiffOptions) =>
        (await import('./release-diff-run.js')).releaseDiff(oldImage, newImage, o),
      )
  );
}
