/**
 * `resolve --verify-signatures` (and `pin --verify-signatures`): the sigstore signatures of the containers an RHCOS
 * build's meta.json names (oscontainer, base-oscontainer, extensions-container), checked before the build is used
 * or pinned. Each container is checked by the digest it would be printed and pinned with (the manifest list's
 * with --manifest-list, when the build has one): its `sha256-<hex>.sig` manifest must hold a claim for that digest
 * signed by one of the keys. Identities are compared only when a rule is given, against the container's pullspec
 * (as a cluster's policy compares the image it pulls).
 */
import { OsimageError } from '../../errors.js';
import { CONTAINER_KEYS, type ContainerKey } from '../../oci/os-tags.js';
import { containerPullspec } from '../../rhcos/meta.js';
import type { BuildRef } from '../../rhcos/os-image.js';
import { type OpenImage, sigstoreSignaturesOf } from './check-sigstore.js';
import type { IdentityRule } from './identity.js';
import type { SignatureEntry } from './report.js';
import { hasRegistryName, readPublicKey } from './sigstore.js';

export interface ContainerSignatures {
  key: ContainerKey;
  /** The pullspec checked: `image@digest`. */
  image: string;
  digest: string;
  met: boolean;
  problem?: string;
  signatures: SignatureEntry[];
}

export interface BuildContainerOptions {
  /** --key FILE: PEM public keys, any one of which may sign. */
  keyFiles: string[];
  manifestList?: boolean;
  /** --identity-rule, as parsed, and as typed (for messages). */
  identity?: { rule: IdentityRule; ruleText: string } | undefined;
  open: OpenImage;
}

/**
 * Check every container of the build; throws one line naming the first container whose signatures do not hold
 * (and how many more failed), else returns what was checked.
 */
export async function verifyBuildContainers(build: BuildRef, opts: BuildContainerOptions): Promise<ContainerSignatures[]> {
  const checked = await checkBuildContainers(build, opts);
  const failed = checked.filter((c) => !c.met);
  if (checked.length === 0) {
    throw new OsimageError(`RHCOS build ${build.build} names no containers in ${build.metaUrl}: there are no signatures to verify`);
  }
  if (failed.length > 0) {
    const [first] = failed;
    const more = failed.length > 1 ? ` (and ${failed.length - 1} more of the build's containers)` : '';
    throw new OsimageError(`signature verification failed for ${first!.key} ${first!.image}: ${first!.problem}${more}`);
  }
  return checked;
}

/** Each container of the build and its sigstore signatures, checked against the keys; nothing thrown for a bad one. */
export async function checkBuildContainers(build: BuildRef, opts: BuildContainerOptions): Promise<ContainerSignatures[]> {
  const keys = await Promise.all(opts.keyFiles.map(readPublicKey));
  const out: ContainerSignatures[] = [];
  for (const key of CONTAINER_KEYS) {
    const c = build.meta.containers[key];
    if (!c) continue;
    const image = (opts.manifestList ? containerPullspec(c, { manifestList: true }) : undefined) ?? c.pullspec;
    const digest = image.includes('@') ? image.slice(image.lastIndexOf('@') + 1) : undefined;
    if (digest === undefined) {
      out.push({ key, image, digest: '', met: false, problem: `${build.metaUrl} names no digest for it`, signatures: [] });
      continue;
    }
    // meta.json is not trusted: a container is a registry image, never a local path for osimage to open.
    if (!hasRegistryName(image) || image.startsWith('file://')) {
      out.push({
        key,
        image,
        digest,
        met: false,
        problem: `${build.metaUrl} names ${image}, which is not a registry image`,
        signatures: [],
      });
      continue;
    }
    const identity = opts.identity ? { ...opts.identity, image } : undefined;
    const found = await sigstoreSignaturesOf(image, digest, keys, opts.open, identity);
    const entry: ContainerSignatures = { key, image, digest, met: found.met, signatures: found.entries };
    if (!found.met) entry.problem = reason(found.problem, found.entries);
    out.push(entry);
  }
  return out;
}

/** The most telling reason: an invalid signature's own reason says more than "no valid signature in REF". */
function reason(problem: string | undefined, entries: SignatureEntry[]): string {
  const invalid = entries.find((e) => e.reason !== undefined);
  if (invalid?.reason !== undefined && entries.every((e) => e.verdict !== 'valid')) return invalid.reason;
  return problem ?? 'not signed';
}
