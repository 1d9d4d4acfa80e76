/**
 * `osimage release verify-signatures IMAGE`: the release image's GPG (simple signing) and sigstore signatures,
 * each reported, and an exit status that says whether the --require policy is met. The name says what it checks:
 * `release info --verify` already means "compare two releases' contents".
 */
import { Command, Option } from 'commander';
import { setExitCode } from '../context.js';
import { UsageError, describe } from '../errors.js';
import { json } from '../output/format.js';
import { out } from '../output/terminal.js';
import { REQUIREMENTS, type Requirement } from '../release/signatures/report.js';
import { readImages } from './open-image.js';
import { examples, outputOption } from './options.js';
import { addRegistryOptions, type RegistryOptionValues } from './registry-options.js';

interface VerifySignaturesOptions extends RegistryOptionValues {
  keyring: string[];
  store: string[];
  key: string[];
  osImages?: boolean;
  osKey: string[];
  require: Requirement;
  identity?: string;
  identityRule?: string;
  output: 'text' | 'json';
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function verifySignaturesCommand(): Command {
  const cmd = addRegistryOptions(new Command('verify-signatures'));
  // Still parsed, so a script carrying it over from another release command gets the reason it is refused, but not
  // offered: help, completion and the man page list only what the command can do.
  cmd.options.find((o) => o.long === '--skip-verification')?.hideHelp();
  return cmd
    .description(
      "Verify the signatures of a release image: GPG simple signing as the cluster-version operator checks an update (keyrings and stores from the payload's verifier ConfigMap, or --keyring and --store), and sigstore signatures (the sha256-<hex>.sig tag beside the image) with --key. Each signature is reported (kind, key, identity, timestamp, verdict); the exit status is 0 only when --require is met.\nIMAGE is a registry reference, oci:DIR[:TAG] or oci-archive:FILE[:TAG].",
    )
    .argument('<image>', 'the release image')
    .option(
      '--keyring <file>',
      "GPG public keyring (armoured or binary) that must sign, instead of the payload's verifier-public-key-*; repeatable, every one must sign",
      collect,
      [],
    )
    .option('--store <url>', "signature store (http://, https://, file://) instead of the payload's store-*; repeatable", collect, [])
    .option('--key <file>', 'PEM public key (ECDSA, RSA, Ed25519) for sigstore signatures; repeatable, any one may sign', collect, [])
    .option(
      '--os-images',
      "also check the sigstore signature of every OS image tag of the payload (rhel-coreos, extensions, machine-os-content, OS streams' tags): each must verify",
    )
    .option('--os-key <file>', 'PEM public key for the OS images (repeatable; default: --key)', collect, [])
    .addOption(
      new Option('--require <policy>', 'what must verify: gpg, sigstore, any (either), all (both)')
        .choices([...REQUIREMENTS])
        .default('any'),
    )
    .option(
      '--identity <ref>',
      "compare each signature's identity with REF (by --identity-rule, default matchRepoDigestOrExact); without it identities are reported, not compared",
    )
    .option(
      '--identity-rule <rule>',
      "how identities must match, in containers/image's words: matchExact, matchRepoDigestOrExact, matchRepository, exactReference=REF, exactRepository=REPO, remapIdentity=PREFIX,SIGNED_PREFIX (compared against --identity, else IMAGE)",
    )
    .addOption(outputOption(['text', 'json'], 'text'))
    .addHelpText(
      'after',
      examples([
        'osimage release verify-signatures quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
        'osimage release verify-signatures --store file:///srv/signatures --require gpg oci-archive:ocp-release.tar',
        'osimage release verify-signatures --keyring release-key.asc --store https://mirror.example.com/signatures REGISTRY/ocp/release@sha256:…',
        'osimage release verify-signatures --key cosign.pub --require sigstore REGISTRY/ocp/release:4.17.0-x86_64',
        'osimage release verify-signatures --key cosign.pub --require all --identity quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64 REGISTRY/ocp/release:4.17.0-x86_64',
        'osimage release verify-signatures --key release.pub --os-images --os-key rhcos.pub REGISTRY/ocp/release:4.17.0-x86_64',
        'osimage release verify-signatures --key cosign.pub --identity-rule remapIdentity=mirror.example.com/ocp,quay.io/openshift-release-dev REGISTRY/ocp/release:4.17.0-x86_64 -o json',
      ]),
    )
    .action(async (image: string, o: VerifySignaturesOptions) => {
      if (o.identity === '') throw new UsageError('--identity: the reference is empty');
      // A signature vouches for a digest: content let through unverified would be checked under a digest it is not.
      if (o.skipVerification)
        throw new UsageError('--skip-verification cannot be used with verify-signatures: the digest signed must be the content read');
      if (o.osKey.length > 0 && !o.osImages) throw new UsageError('--os-key requires --os-images');
      // Loaded when this command runs, not whenever release builds its command tree (every release subcommand).
      const [{ parseStoreUrl }, { parseIdentityRule }, { hasRegistryName }, { verifyReleaseSignatures }, view] = await Promise.all([
        import('../release/signatures/stores.js'),
        import('../release/signatures/identity.js'),
        import('../release/signatures/sigstore.js'),
        import('../release/signatures/verify.js'),
        import('../output/signatures-view.js'),
      ]);
      const stores = o.store.map((url) => {
        try {
          return parseStoreUrl(url, '--store');
        } catch (err) {
          throw new UsageError(describe(err));
        }
      });
      const rule =
        o.identityRule !== undefined || o.identity !== undefined
          ? parseIdentityRule(o.identityRule ?? 'matchRepoDigestOrExact')
          : undefined;
      // The image is compared under its own name unless --identity names another; an oci: image has none.
      const named = o.identity ?? (hasRegistryName(image) ? image : undefined);
      const report = await readImages(o, async (open) =>
        verifyReleaseSignatures(image, await open(image), {
          keyringFiles: o.keyring,
          stores,
          keyFiles: o.key,
          ...(o.osImages ? { osImages: true, osKeyFiles: o.osKey } : {}),
          require: o.require,
          ...(rule ? { identity: { rule, ruleText: o.identityRule ?? 'matchRepoDigestOrExact', image: named } } : {}),
          ...(o.filterByOs !== undefined ? { filterByOs: o.filterByOs } : {}),
          open,
        }),
      );
      out(o.output === 'json' ? json(view.signaturesJson(report)) : view.renderSignatures(report));
      if (!report.met) setExitCode(1);
    });
}
