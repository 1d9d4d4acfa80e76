/**
 * Image references per the distribution reference grammar: `[domain/]path[:tag][@digest]`.
 *
 * - no domain → `docker.io`, and a one-component path on docker.io gets `library/`;
 * - the first component is the domain when it is `localhost`, contains `.` or `:`, or has uppercase letters;
 * - `index.docker.io` is `docker.io`; the API host for docker.io is `registry-1.docker.io`;
 * - a tag and a digest together: the digest wins and a warning says the tag was ignored.
 */
import { UsageError } from '../errors.js';

export const DOCKER_HUB = 'docker.io';
export const DOCKER_HUB_API = 'registry-1.docker.io';
export const DEFAULT_TAG = 'latest';

const NAME_MAX = 255;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_RE = new RegExp(`^(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]+)?$`);
const PATH_COMPONENT_RE = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG_RE = /^[\w][\w.-]{0,127}$/;
const DIGEST_GRAMMAR_RE = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
const SHA256_RE = /^sha256:[a-f0-9]{64}$/;
const BARE_HEX_RE = /^[a-f0-9]{64}$/;

/** A parsed, normalised reference to an image in a registry. */
export class ImageReference {
  /** `docker.io`, `quay.io`, `localhost:5000`, `127.0.0.1:5000` */
  readonly registry: string;
  /** `library/ubuntu`, `openshift-release-dev/ocp-release` */
  readonly repository: string;
  /** The tag, when the reference has one and no digest (`latest` when it has neither). */
  readonly tag: string | undefined;
  readonly digest: string | undefined;

  constructor(registry: string, repository: string, tag: string | undefined, digest: string | undefined) {
    this.registry = registry;
    this.repository = repository;
    this.digest = digest;
    this.tag = digest ? undefined : (tag ?? DEFAULT_TAG);
  }

  /** The host the API is served from (`registry-1.docker.io` for docker.io). */
  get apiHost(): string {
    return this.registry === DOCKER_HUB ? DOCKER_HUB_API : this.registry;
  }

  /** `registry/repository` */
  get name(): string {
    return `${this.registry}/${this.repository}`;
  }

  /** What goes after `/manifests/`: the digest, else the tag. */
  get identifier(): string {
    return this.digest ?? this.tag ?? DEFAULT_TAG;
  }

  /** `quay.io/ns/repo@sha256:…` for a digest in the same repository. */
  withDigest(digest: string): string {
    return `${this.name}@${digest}`;
  }

  /** The full normalised form: `docker.io/library/busybox:latest`, `quay.io/x/y@sha256:…`. */
  toString(): string {
    return this.digest ? `${this.name}@${this.digest}` : `${this.name}:${this.tag}`;
  }
}

export interface ParsedReference {
  reference: ImageReference;
  /** E.g. the tag that was dropped because a digest was given too. */
  warnings: string[];
}

function invalid(input: string, reason: string): UsageError {
  return new UsageError(`invalid image reference "${input}": ${reason}`);
}

/** Whether the first path component names a registry host rather than a namespace. */
function looksLikeDomain(component: string): boolean {
  return component === 'localhost' || component.includes('.') || component.includes(':') || component !== component.toLowerCase();
}

/**
 * Parse a reference, normalising docker.io forms. Invalid input is a UsageError naming the reason.
 * A leading `docker://` transport prefix is accepted and dropped.
 */
export function parseReference(input: string): ParsedReference {
  const warnings: string[] = [];
  let rest = input.startsWith('docker://') ? input.slice('docker://'.length) : input;
  if (rest === '') throw invalid(input, 'empty reference');
  if (/\s/.test(rest)) throw invalid(input, 'contains whitespace');
  if (BARE_HEX_RE.test(rest)) throw invalid(input, 'a bare 64-character hexadecimal string is an image ID, not a reference');

  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST_GRAMMAR_RE.test(digest)) throw invalid(input, `invalid digest "${digest}" (expected sha256:<64 hex characters>)`);
    if (!digest.startsWith('sha256:')) throw invalid(input, `unsupported digest algorithm in "${digest}" (only sha256)`);
    if (!SHA256_RE.test(digest)) throw invalid(input, `invalid digest "${digest}" (expected sha256:<64 lowercase hex characters>)`);
  }

  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.indexOf(':', lastSlash + 1);
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG_RE.test(tag)) {
      const why = tag.length > 128 ? 'tag is longer than 128 characters' : `invalid tag "${tag}"`;
      throw invalid(input, why);
    }
  }
  if (rest === '') throw invalid(input, 'missing repository name');

  let domain: string;
  let path: string;
  const slash = rest.indexOf('/');
  const first = slash < 0 ? rest : rest.slice(0, slash);
  if (slash >= 0 && looksLikeDomain(first)) {
    domain = first;
    path = rest.slice(slash + 1);
    if (!DOMAIN_RE.test(domain)) throw invalid(input, `invalid registry host "${domain}"`);
  } else {
    domain = DOCKER_HUB;
    path = rest;
  }
  if (domain === 'index.docker.io') domain = DOCKER_HUB;
  if (domain === DOCKER_HUB && !path.includes('/')) path = `library/${path}`;

  if (path === '') throw invalid(input, 'missing repository name');
  if (path !== path.toLowerCase()) throw invalid(input, `repository name "${path}" must be lowercase`);
  for (const component of path.split('/')) {
    if (!PATH_COMPONENT_RE.test(component)) throw invalid(input, `invalid repository path component "${component}"`);
  }
  if (domain.length + 1 + path.length > NAME_MAX) throw invalid(input, `name is longer than ${NAME_MAX} characters`);

  if (tag !== undefined && digest !== undefined) {
    warnings.push(`image reference ${input} has both a tag and a digest; using the digest and ignoring the tag "${tag}"`);
  }
  return { reference: new ImageReference(domain, path, tag, digest), warnings };
}
