import { Command } from 'commander';
import { addSettingsOptions, examples } from './options.js';
import { addRegistryOptions } from './registry-options.js';
import type { NewOptions } from './release-new-options.js';

const collect = (v: string, acc: string[]) => [...acc, v];

export function newCommand(): Command {
  const cmd = addRegistryOptions(new Command('new'))
    .description(
      'Assemble a release payload, as `oc adm release new` does: from a folder of operator manifests and input images ' +
        '(--from-dir), from an ImageStream file (-f), from an existing release with some images replaced (--from-release; ' +
        'with an RHCOS build, every OS tag of the release is swapped to that build), or from TAG=PULLSPEC mappings alone, ' +
        'and push it (--to-image), write it as an oci-archive (--to-file) or as flat manifests (--to-dir). With no output, ' +
        'a dry run prints the digest.',
    )
    .argument('[mappings...]', 'TAG=PULLSPEC overrides of input images')
    .option(
      '--from-dir <dir>',
      'DIR/image-references lists the input images; each DIR/<operator>/ holds its manifests and image-references',
    )
    .option('-f, --from-image-stream-file <file>', 'the input images: an ImageStream file (JSON or YAML; - for stdin, or an http(s) URL)')
    .option('--from-release <image>', 'start from this release image: its images, operators, name and metadata (oc --from-release)')
    .option('--from-image-stream <name>', 'left out: needs a cluster (save the stream to a file and use -f)')
    .option(
      '--name <version>',
      "the release version (semver), e.g. 4.99.0 (default: 0.0.1-<creation time>; with --from-release, the input's)",
    )
    .option('--previous <versions>', 'versions this release can upgrade from (repeatable, or comma-separated)', collect, [])
    .option('--next <version>', 'versions this release can upgrade to (repeatable, or comma-separated)', collect, [])
    .option('--metadata <json>', 'a JSON object stored as release-metadata "metadata"')
    .option('--mapping-file <file>', 'TAG=PULLSPEC pairs, space- or line-separated; # starts a comment')
    .option('--include <tag>', 'keep this input tag even when no operator references it (repeatable, or comma-separated)', collect, [])
    .option(
      '--exclude <tag>',
      'leave this tag out (repeatable, or comma-separated; an unknown tag is ignored); with --from-dir, an operator folder and its mapping',
      collect,
      [],
    )
    .option('--allow-missing-images', 'leave references to tags the inputs lack unchanged instead of failing')
    .option('--skip-manifest-check', 'do not check that manifests are Kubernetes objects')
    .option('--component-versions <pairs>', 'NAME=VERSION[,…]: checked as oc checks them; oc 4.13 writes them nowhere')
    .option('--component-versions-display-names <pairs>', 'NAME=DISPLAY NAME[,…]: checked with --component-versions; written nowhere')
    .option(
      '--reference-mode <mode>',
      "-f: public (default: the stream's public repository and each digest) or source (the pullspecs as given); ignored otherwise, as in oc",
    )
    .option('--release-manifest', 'accepted and ignored, as oc 4.13 reads it nowhere')
    .option('--to-image-base <image>', 'base image the release layer is appended to (layers are mounted or copied)')
    .option(
      '--to-image-base-tag <tag>',
      "the input tag the release layer goes on when no --to-image-base is given (default cluster-version-operator; '' for none)",
    )
    .option('--keep-manifest-list', 'a base that is a manifest list gives a list: the release layer on each of its images')
    .option('--created <time>', 'creation time (RFC 3339); default $SOURCE_DATE_EPOCH, else 1970-01-01T00:00:00Z')
    .option('--to-image <image>', 'push the release image to this repository[:tag] (tag defaults to the version)')
    .option('--to-file <file>', 'write the release image as an oci-archive (tag: the version)')
    .option('--to-dir <dir>', 'write the payload manifests, flat, into this folder')
    .option(
      '--to-signature <file>',
      'with --to-image: write the message to sign for the pushed image (an "atomic container signature" claim, as oc writes it)',
    )
    .option(
      '--sign-key <file>',
      'sign the release for sigstore with this PEM private key (PKCS#8, EC or RSA, or a cosign encrypted key): the sha256-<hex>.sig image is pushed beside it, or tagged in the --to-file archive',
    )
    .option(
      '--gpg-sign <keyid>',
      "sign the release with gpg's key KEYID (simple signing) into --signature-dir, as a cluster's signature store lays them out",
    )
    .option('--signature-dir <dir>', 'with --gpg-sign: the store folder the signature is written to (<algorithm>=<hex>/signature-<n>)')
    .option('--sign-identity <ref>', 'the identity signed (default: the --to-image reference pushed to; needed with --to-file)')
    .option(
      '--passphrase-file <file>',
      'the passphrase of an encrypted --sign-key, or for --gpg-sign (else $OSIMAGE_SIGN_PASSPHRASE, for a cosign key $COSIGN_PASSWORD, or the gpg agent)',
    )
    .option('--dry-run', 'with --to-image: build the image but push nothing; print its digest line')
    .option('-o, --output <format>', 'json prints the resulting image-references and stops')
    .option('--dir <dir>', "oc's folder for the manifests it extracts: osimage reads them into memory and writes nothing there")
    .option('--mirror <repository>', 'left out: mirror the release with oc adm release mirror after building it')
    .option(
      '--full-rebuild',
      "--from-release: read every operator image's manifests, as oc does, instead of keeping the release's files where they cannot change",
    )
    .option('--os', '--from-release: swap every OS tag to the RHCOS build the settings name (RHCOS_* env, or the flags below)')
    .option('--os-image <pullspec>', '--from-release: the OS image (rhel-coreos, or machine-os-content before 4.12); implies --os')
    .option('--extensions-image <pullspec>', '--from-release: the extensions image; implies --os')
    .option('--legacy-os-image <pullspec>', "--from-release: machine-os-content of a 4.12-4.14 release (default: the build's oscontainer)")
    .option('--os-stream <name>', "--from-release: swap this OS stream's tags (rhel-10: rhel-coreos-10, rhel-coreos-10-extensions)")
    .option('--node-image', '--from-release: rhel-coreos is a node image (4.19+): --os-image and --extensions-image are required')
    .option('--build-id <id>', '--from-release: the build id of the given images, for machine-os= in io.openshift.build.versions')
    .option('--manifest-list', "--from-release: use the build's manifest list digests (multi-arch releases)")
    .option('--allow-tag', '--from-release: accept OS pull specs by tag (a payload wants digests)')
    .option('--pins <file>', '--from-release: swap to the build pinned in this release script (as verify --pins reads it)');
  return (
    addSettingsOptions(cmd)
      .addHelpText(
        'after',
        examples([
          'osimage release new --from-dir payload --name 4.99.0 --to-file release.tar',
          'osimage release info oci-archive:release.tar:4.99.0',
          'osimage release new --from-dir payload --name 4.99.0 machine-os-content=quay.io/ocp/os@sha256:… \\\n      --to-image-base quay.io/ocp/cvo@sha256:… --to-image registry.example/ocp/release:4.99.0',
          'osimage release new --from-dir payload --name 4.99.0 --mapping-file overrides.txt --to-dir out/',
          'osimage release new -f is.json --reference-mode source --name 4.99.0 --to-image registry.example/ocp/release:4.99.0',
          'osimage release new --from-release quay.io/ocp/release:4.16.3-x86_64 rhel-coreos=quay.io/x/os@sha256:… --to-image registry.example/ocp/release:4.16.3-os',
          'osimage release new --from-release quay.io/ocp/release:4.16.3-x86_64 --base-url https://rhcos.example/prod/streams \\\n      --channel 4.16-9.4/builds --build 416.94.202406251923-0 --to-image registry.example/ocp/release:4.16.3-os',
          'osimage release new --from-release oci-archive:release.tar:4.16.3 --os --pins hack/release.sh --to-file swapped.tar',
          'osimage release new --from-dir payload --name 4.99.0 --sign-key cosign.key --gpg-sign release@example.com --signature-dir sigs --to-image registry.example/ocp/release:4.99.0',
        ]),
      )
      // What the inputs need (the payload check, the publishing, --from-release's OS swap) loads only when it runs.
      .action(async (mappingArgs: string[], o: NewOptions) => (await import('./release-new-run.js')).runNew(mappingArgs, o))
  );
}
