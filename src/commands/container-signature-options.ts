/**
 * `--verify-signatures` for the commands that pick an RHCOS build (resolve, pin): the flags, checked before any
 * network, and the check itself run with the registry flags given. The containers of the build must carry a sigstore
 * signature by one of the --key files before the build is printed or pinned.
 */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { info } from '../output/terminal.js';
import { type ContainerSignatures, verifyBuildContainers } from '../release/signatures/build-containers.js';
import { type IdentityRule, parseIdentityRule } from '../release/signatures/identity.js';
import type { BuildRef } from '../rhcos/os-image.js';
import { readImages } from './open-image.js';
import { authfileAlias, type RegistryOptionValues } from './registry-options.js';

export interface ContainerSignatureOptionValues {
  verifySignatures?: boolean;
  key: string[];
  identityRule?: string;
  registryConfig?: string;
  insecure?: boolean;
  certificateAuthority?: string;
}

export interface ContainerSignatureCheck {
  keyFiles: string[];
  identity: { rule: IdentityRule; ruleText: string } | undefined;
  registry: RegistryOptionValues;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addContainerSignatureOptions(cmd: Command, what: string): Command {
  return cmd
    .option(
      '--verify-signatures',
      `check the sigstore signature (the sha256-<hex>.sig tag beside it) of every container the build's meta.json names, by its digest, before ${what}: exit 1 naming the first container that is unsigned or wrongly signed`,
    )
    .option('--key <file>', 'with --verify-signatures: PEM public key (ECDSA, RSA, Ed25519); repeatable, any one may sign', collect, [])
    .option(
      '--identity-rule <rule>',
      "with --verify-signatures: compare each signature's identity with the container's pullspec, in containers/image's words (matchRepository, exactRepository=REPO, remapIdentity=PREFIX,SIGNED_PREFIX, …); without it identities are not compared",
    )
    .option(
      '-a, --registry-config <file>',
      'with --verify-signatures: auth file for the registry (containers auth.json or docker config.json); --authfile too',
    )
    .addOption(authfileAlias())
    .option('--insecure', 'with --verify-signatures: allow plain HTTP and unverified TLS for the registry')
    .option('--certificate-authority <file>', 'with --verify-signatures: CA bundle to trust for the registry');
}

/** The flags as a check to run; undefined without --verify-signatures (and then none of its flags may be given). */
export function containerSignatureCheck(opts: ContainerSignatureOptionValues): ContainerSignatureCheck | undefined {
  const given = [
    opts.key.length > 0 && '--key',
    opts.identityRule !== undefined && '--identity-rule',
    opts.registryConfig !== undefined && '--registry-config',
    opts.insecure === true && '--insecure',
    opts.certificateAuthority !== undefined && '--certificate-authority',
  ].filter((f): f is string => typeof f === 'string');
  if (!opts.verifySignatures) {
    if (given.length > 0) throw new UsageError(`${given[0]} applies only with --verify-signatures`);
    return undefined;
  }
  if (opts.key.length === 0) throw new UsageError('--verify-signatures needs --key FILE, the public key the containers are signed with');
  const rule = opts.identityRule;
  return {
    keyFiles: opts.key,
    identity: rule !== undefined ? { rule: parseIdentityRule(rule), ruleText: rule } : undefined,
    registry: {
      ...(opts.registryConfig !== undefined ? { registryConfig: opts.registryConfig } : {}),
      ...(opts.insecure ? { insecure: true } : {}),
      ...(opts.certificateAuthority !== undefined ? { certificateAuthority: opts.certificateAuthority } : {}),
    },
  };
}

/** Verify the build's containers (throws one line naming the first that fails); says on stderr what was verified. */
export async function verifyContainers(
  build: BuildRef,
  check: ContainerSignatureCheck,
  manifestList = false,
): Promise<ContainerSignatures[]> {
  const checked = await readImages(check.registry, (open) =>
    verifyBuildContainers(build, { keyFiles: check.keyFiles, identity: check.identity, manifestList, open }),
  );
  info(`info: Verified the sigstore signatures of ${checked.map((c) => c.image).join(', ')}`);
  return checked;
}
