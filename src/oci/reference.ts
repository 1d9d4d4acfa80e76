/**
 * Image references, one grammar for the whole tool (after the distribution reference grammar):
 *
 *   reference  := name [":" tag] ["@" digest]
 *   name       := [domain "/"] component ("/" component)*      (at most 255 characters)
 *   domain     := host [":" port]; host := label ("." label)* | "[" ipv6 "]"
 *   component  := [a-z0-9]+ ((("." | "_" | "__" | "-"+) [a-z0-9]+))*
 *   tag        := [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}
 *   digest     := see digest.ts (sha256/sha384/sha512, exact length, lowercase)
 *
 * The first component is the domain when it is `localhost`, contains `.` or `:`, or has an uppercase
 * letter (as distribution normalises: `Foo/bar` is repository `bar` on host `Foo`); the path is lowercase.
 * A bare 64-digit hex string is an image ID, never a reference.
 *
 * What differs between callers is policy, given as options: whether a digest is required, what a tag and a
 * digest together mean, which digest algorithms pass, and whether a `docker://` prefix is allowed. The
 * parsed value keeps the text as written; {@link ImageReference.from} adds docker.io normalisation for the
 * registry client.
 *
 * A refused reference is worded as oc words it (`"R" is not a valid image reference: invalid reference format`,
 * the distribution grammar's short reasons), since scripts written for oc match that text; osimage's own, more
 * precise reason follows in parentheses when it says more (`… invalid reference format (invalid tag "bad:tag")`).
 */
import { OsimageError } from '../errors.js';
import { goQuote } from '../golang/value.js';
import { DIGEST_ALGORITHMS, digestProblem, type DigestAlgorithm } from './digest.js';

export const DOCKER_HUB = 'docker.io';
export const DOCKER_HUB_API = 'registry-1.docker.io';
/** The tag a reference without tag or digest means (`busybox` is `busybox:latest`). */
export const IMPLICIT_TAG = 'latest';

/** A tag, as a regular expression source without anchors. */
export const TAG_GRAMMAR = '[\\w][\\w.-]{0,127}';

const NAME_MAX = 255;
const LABEL = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_RE = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]+)?$`);
const COMPONENT_RE = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG_RE = new RegExp(`^${TAG_GRAMMAR}$`);
const IMAGE_ID_RE = /^[a-f0-9]{64}$/;
const DOCKER_TRANSPORT = 'docker://';

/** A bad reference: exit 2, code `invalid-reference`, the message naming the input and the rule it breaks. */
export class InvalidReferenceError extends OsimageError {
  readonly input: string;
  constructor(input: string, message: string) {
    super(message, { exitCode: 2, code: 'invalid-reference' });
    this.name = 'InvalidReferenceError';
    this.input = input;
  }
}

// The reference grammar as the distribution project writes it (the module comment), for the reasons oc gives. A
// component's separator may be empty there (`-*`); written with `-+` it means the same names without the nested
// repetition that makes a backtracking engine slow.
const GRAMMAR_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const GRAMMAR_HOST = `${LABEL}(?:\\.${LABEL})*(?::[0-9]+)?`;
const GRAMMAR_DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const GRAMMAR_RE = new RegExp(
  `^((?:${GRAMMAR_HOST}/)?${GRAMMAR_COMPONENT}(?:/${GRAMMAR_COMPONENT})*)(?::(${TAG_GRAMMAR}))?(?:@(${GRAMMAR_DIGEST}))?$`,
);
const GRAMMAR_DIGEST_HEX: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

/**
 * Why the distribution grammar refuses `text`, in its own short words (what oc prints after `is not a valid image
 * reference: `); undefined when the grammar takes it (osimage may still refuse it: a bare image ID, upper-case hex).
 */
export function grammarProblem(text: string): string | undefined {
  const m = GRAMMAR_RE.exec(text);
  if (!m) {
    if (text === '') return 'repository name must have at least one component';
    if (GRAMMAR_RE.test(text.toLowerCase())) return 'repository name must be lowercase';
    return 'invalid reference format';
  }
  if (m[1]!.length > NAME_MAX) return `repository name must not be more than ${NAME_MAX} characters`;
  const digest = m[3];
  if (digest !== undefined) {
    const colon = digest.indexOf(':');
    const hex = GRAMMAR_DIGEST_HEX[digest.slice(0, colon)];
    if (hex === undefined) return 'unsupported digest algorithm';
    if (digest.length - colon - 1 !== hex) return 'invalid checksum digest length';
  }
  return undefined;
}

export interface ReferencePolicy {
  /** A reference by tag (or a bare name) is refused; `digestHint` is appended to the message. */
  requireDigest?: boolean;
  digestHint?: string;
  /**
   * `refuse` (payload manifests: oc's substitution matches only one) or `digest-wins` (default): the tag is a
   * label, as oc and go-containerregistry read it, and the digest names the image.
   */
  tagAndDigest?: 'refuse' | 'digest-wins';
  /** Digest algorithms that pass (default sha256, sha384, sha512). */
  algorithms?: readonly DigestAlgorithm[];
  /** Accept and drop a leading `docker://` (command-line image arguments). */
  dockerTransport?: boolean;
}

/** A reference as written: nothing filled in, nothing normalised. */
export interface Reference {
  /** The input, unchanged (with any `docker://` prefix). */
  text: string;
  /** Everything before `:tag` / `@digest`, as written. */
  name: string;
  /** The domain, when the first component is one. */
  domain?: string;
  /** The repository path as written (without the domain). */
  path: string;
  tag?: string;
  digest?: string;
  /** `digest` for `name@algo:hex` (even with a tag); `tag` for `name:tag` and a bare name. */
  kind: 'digest' | 'tag';
}

function looksLikeDomain(component: string): boolean {
  return component === 'localhost' || component.includes('.') || component.includes(':') || component !== component.toLowerCase();
}

/** Parse `input` under `policy`. Throws InvalidReferenceError naming the input and the reason. */
export function parseImageReference(input: string, policy: ReferencePolicy = {}): Reference {
  const text = policy.dockerTransport && input.startsWith(DOCKER_TRANSPORT) ? input.slice(DOCKER_TRANSPORT.length) : input;
  let rest = text;
  // `restates`: the reason says no more than the grammar's (which names no part): oc's words alone.
  const fail = (reason: string, restates = false): never => {
    const short = grammarProblem(text);
    const why = short === undefined ? reason : restates ? short : `${short} (${reason})`;
    throw new InvalidReferenceError(input, `${goQuote(input)} is not a valid image reference: ${why}`);
  };
  if (rest === '') fail('the value is empty');
  if (/\s/.test(rest)) fail('contains whitespace');
  if (IMAGE_ID_RE.test(rest)) fail('a bare 64-character hexadecimal string is an image ID, not a reference');

  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    const problem = digestProblem(digest, policy.algorithms ?? DIGEST_ALGORITHMS);
    if (problem !== undefined) fail(`invalid digest ${JSON.stringify(digest)}: ${problem}`);
  }

  let tag: string | undefined;
  const colon = rest.indexOf(':', rest.lastIndexOf('/') + 1);
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG_RE.test(tag)) fail(tag.length > 128 ? 'tag is longer than 128 characters' : `invalid tag ${JSON.stringify(tag)}`);
  }
  const name = rest;
  if (name === '') fail('missing repository name');

  let domain: string | undefined;
  let path = name;
  const slash = name.indexOf('/');
  if (slash >= 0 && looksLikeDomain(name.slice(0, slash))) {
    domain = name.slice(0, slash);
    path = name.slice(slash + 1);
    if (!DOMAIN_RE.test(domain)) fail(`invalid registry host ${JSON.stringify(domain)}`);
  }
  if (path === '') fail('missing repository name');
  if (path !== path.toLowerCase()) fail(`repository name ${JSON.stringify(path)} must be lowercase`, true);
  for (const component of path.split('/')) {
    if (!COMPONENT_RE.test(component)) fail(`invalid repository path component ${JSON.stringify(component)}`);
  }
  if (name.length > NAME_MAX) fail(`name is longer than ${NAME_MAX} characters`);

  if (tag !== undefined && digest !== undefined && policy.tagAndDigest === 'refuse') {
    fail('it has both a tag and a digest; write <repository>@<digest> so oc can substitute it');
  }
  if (digest === undefined && policy.requireDigest) {
    const hint = policy.digestHint ? `; ${policy.digestHint}` : '';
    throw new InvalidReferenceError(input, `image reference ${JSON.stringify(input)} is by tag, not by digest${hint}`);
  }
  const ref: Reference = { text: input, name, path, kind: digest !== undefined ? 'digest' : 'tag' };
  if (domain !== undefined) ref.domain = domain;
  if (tag !== undefined) ref.tag = tag;
  if (digest !== undefined) ref.digest = digest;
  return ref;
}

/** A reference normalised for the registry client: docker.io filled in, `library/` added, `latest` implied. */
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
    this.tag = digest ? undefined : (tag ?? IMPLICIT_TAG);
  }

  /** Normalise a parsed reference: no domain (or `index.docker.io`) is docker.io, where one component gets `library/`. */
  static from(ref: Reference): ImageReference {
    let registry = ref.domain ?? DOCKER_HUB;
    if (registry === 'index.docker.io') registry = DOCKER_HUB;
    const repository = registry === DOCKER_HUB && !ref.path.includes('/') ? `library/${ref.path}` : ref.path;
    return new ImageReference(registry, repository, ref.tag, ref.digest);
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
    return this.digest ?? this.tag ?? IMPLICIT_TAG;
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
