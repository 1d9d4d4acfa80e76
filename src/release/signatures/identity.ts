/**
 * How a signature's identity (`critical.identity.docker-reference`) must match, in containers/image's words
 * (policy.json `signedIdentity`, signature/policy_reference_match.go):
 *
 * - `matchExact`: the signed reference is the image's reference, tag or digest and all; a bare name never matches.
 * - `matchRepoDigestOrExact` (containers/image's default): an image named by tag needs exactly that reference;
 *   one named by digest needs only the same repository (the digest itself is checked apart).
 * - `matchRepository`: the same repository, whatever the tag.
 * - `exactReference=REF`: the signed reference is REF, whatever the image is called.
 * - `exactRepository=REPO`: the signed reference is in REPO.
 * - `remapIdentity=PREFIX,SIGNED_PREFIX`: an image name that starts with PREFIX (at a `/`, `:` or `@`) has it
 *   replaced by SIGNED_PREFIX, then `matchRepoDigestOrExact` applies.
 *
 * References are normalised as everywhere in osimage (docker.io, library/).
 */
import { UsageError } from '../../errors.js';
import { type ImageReference, parseReference } from '../../registry/reference.js';

export const IDENTITY_RULES = [
  'matchExact',
  'matchRepoDigestOrExact',
  'matchRepository',
  'exactReference',
  'exactRepository',
  'remapIdentity',
] as const;
export type IdentityRuleName = (typeof IDENTITY_RULES)[number];

export type IdentityRule =
  | { type: 'matchExact' | 'matchRepoDigestOrExact' | 'matchRepository' }
  | { type: 'exactReference'; reference: string }
  | { type: 'exactRepository'; repository: string }
  | { type: 'remapIdentity'; prefix: string; signedPrefix: string };

/** `--identity-rule` as given: `NAME` or `NAME=ARGUMENT`; a bad one is a usage error. */
export function parseIdentityRule(text: string): IdentityRule {
  const eq = text.indexOf('=');
  const name = eq < 0 ? text : text.slice(0, eq);
  const arg = eq < 0 ? undefined : text.slice(eq + 1);
  const needs = (what: string): string => {
    if (arg === undefined || arg === '') throw new UsageError(`--identity-rule ${name} needs ${what}: ${name}=${what}`);
    return arg;
  };
  switch (name) {
    case 'matchExact':
    case 'matchRepoDigestOrExact':
    case 'matchRepository':
      if (arg !== undefined) throw new UsageError(`--identity-rule ${name} takes no argument`);
      return { type: name };
    case 'exactReference': {
      const reference = needs('REF');
      const ref = parseOrUsage(reference, '--identity-rule exactReference');
      if (!ref.digest && !/:[^/]+$/.test(reference.replace(/^docker:\/\//, ''))) {
        throw new UsageError(`--identity-rule exactReference=${reference}: the reference needs a tag or a digest`);
      }
      return { type: 'exactReference', reference: ref.toString() };
    }
    case 'exactRepository': {
      const repository = needs('REPO');
      return { type: 'exactRepository', repository: parseOrUsage(repository, '--identity-rule exactRepository').name };
    }
    case 'remapIdentity': {
      const both = needs('PREFIX,SIGNED_PREFIX');
      const comma = both.indexOf(',');
      if (comma <= 0 || comma === both.length - 1)
        throw new UsageError(`--identity-rule remapIdentity=${both}: expected PREFIX,SIGNED_PREFIX`);
      return { type: 'remapIdentity', prefix: both.slice(0, comma), signedPrefix: both.slice(comma + 1) };
    }
    default:
      throw new UsageError(`--identity-rule: unknown rule "${name}" (one of ${IDENTITY_RULES.join(', ')})`);
  }
}

function parseOrUsage(text: string, flag: string): ImageReference {
  try {
    return parseReference(text).reference;
  } catch (err) {
    throw new UsageError(`${flag}: ${(err as Error).message}`);
  }
}

/** containers/image's refMatchesPrefix: PREFIX is the whole name or ends where a `/`, `:` or `@` follows. */
function matchesPrefix(ref: string, prefix: string): boolean {
  if (ref.length < prefix.length) return false;
  if (ref.length === prefix.length) return ref === prefix;
  return ref.startsWith(prefix) && ':/@'.includes(ref[prefix.length]!);
}

/** The image reference as written names a tag or a digest (not a bare name). */
function hasTagOrDigest(text: string): boolean {
  const t = text.replace(/^docker:\/\//, '');
  return t.includes('@') || /:[^/]+$/.test(t);
}

/**
 * Whether `signed` (a signature's identity) satisfies `rule` for the image called `image` (undefined when it has no
 * registry name, as an oci: layout: then only the exact* rules can match). Returns the reason when it does not.
 */
export function checkIdentity(rule: IdentityRule, image: string | undefined, signed: string): string | undefined {
  let sig: ImageReference;
  try {
    sig = parseReference(signed).reference;
  } catch {
    return `the signed identity "${signed}" is not a valid reference`;
  }
  // A bare name (cosign signs the repository alone) matches only the repository rules, as in containers/image.
  const bare = !hasTagOrDigest(signed);
  const mismatch = `the signed identity ${bare ? sig.name : sig} does not match`;
  const bareRefused = `the signed identity "${signed}" names no tag or digest (${rule.type}; matchRepository or exactRepository compare a repository)`;
  switch (rule.type) {
    case 'exactReference':
      if (bare) return bareRefused;
      return sig.toString() === rule.reference ? undefined : `${mismatch} ${rule.reference} (exactReference)`;
    case 'exactRepository':
      return sig.name === rule.repository ? undefined : `${mismatch} the repository ${rule.repository} (exactRepository)`;
    default:
      break;
  }
  if (image === undefined) return `the image has no registry name to compare with (${rule.type}); give --identity REF`;
  let intendedText = image;
  if (rule.type === 'remapIdentity') {
    const name = parseReference(image).reference.toString();
    intendedText = matchesPrefix(name, rule.prefix) ? rule.signedPrefix + name.slice(rule.prefix.length) : name;
  }
  let intended: ImageReference;
  try {
    intended = parseReference(intendedText).reference;
  } catch {
    return `the image reference "${intendedText}" is not valid`;
  }
  const named = hasTagOrDigest(intendedText);
  if (bare && rule.type !== 'matchRepository') return bareRefused;
  switch (rule.type) {
    case 'matchExact':
      return named && sig.toString() === intended.toString() ? undefined : `${mismatch} ${intended} (matchExact)`;
    case 'matchRepository':
      return sig.name === intended.name ? undefined : `${mismatch} the repository ${intended.name} (matchRepository)`;
    default: {
      // matchRepoDigestOrExact, and remapIdentity after the remap.
      if (!named) return `the image ${intendedText} names no tag or digest (${rule.type})`;
      if (intended.digest) return sig.name === intended.name ? undefined : `${mismatch} the repository ${intended.name} (${rule.type})`;
      return sig.toString() === intended.toString() ? undefined : `${mismatch} ${intended} (${rule.type})`;
    }
  }
}
