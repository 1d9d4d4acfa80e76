/**
 * A small validator for the pull specs that go into payload manifests, after the distribution
 * reference grammar:
 *
 *   reference  := name [":" tag] ["@" digest]
 *   name       := [domain "/"] component ("/" component)*      (at most 255 characters)
 *   domain     := host [":" port]; host := label ("." label)* | "[" ipv6 "]"
 *   component  := [a-z0-9]+ ((("." | "_" | "__" | "-"+) [a-z0-9]+))*
 *   tag        := [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}
 *   digest     := algorithm ":" hex, algorithm := [A-Za-z][A-Za-z0-9]* ([-_+.][A-Za-z][A-Za-z0-9]*)*
 *
 * Payload rules on top: only `sha256`/`sha384`/`sha512` digests with exactly 64/96/128 lowercase hex
 * digits; a tag and a digest together are refused (oc's substitution can match only one of them).
 * The full registry reference parser (defaults, normalisation) lives in src/registry/reference.ts; this
 * one only says whether a string may be written into a manifest.
 */
import { PayloadError } from './errors.js';

export interface Pullspec {
  /** The input, unchanged. */
  text: string;
  /** Everything before `:tag` / `@digest`. */
  name: string;
  /** The domain, when the first component is one (has `.` or `:`, or is `localhost`). */
  domain?: string;
  tag?: string;
  digest?: string;
  /** `digest` for `name@algo:hex`; `tag` for `name:tag` and a bare `name` (an implicit `latest`). */
  kind: 'digest' | 'tag';
}

const NAME_MAX = 255;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const HOST_RE = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]+)?$`);
const COMPONENT_RE = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/;
const TAG_RE = /^\w[\w.-]{0,127}$/;
const ALGORITHM_RE = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*$/;
const HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

const fail = (value: string, why: string): never => {
  throw new PayloadError(`invalid image reference ${JSON.stringify(value)}: ${why}`);
};

function checkDigest(value: string, digest: string): void {
  const colon = digest.indexOf(':');
  if (colon <= 0) fail(value, `digest ${JSON.stringify(digest)} must be <algorithm>:<hex>`);
  const algorithm = digest.slice(0, colon);
  const hex = digest.slice(colon + 1);
  if (!ALGORITHM_RE.test(algorithm)) fail(value, `invalid digest algorithm ${JSON.stringify(algorithm)}`);
  const want = HEX_LENGTH[algorithm];
  if (want === undefined) fail(value, `unsupported digest algorithm ${algorithm} (use sha256)`);
  if (!/^[0-9a-fA-F]*$/.test(hex)) fail(value, `the ${algorithm} digest contains characters that are not hex digits`);
  if (hex.length !== want) fail(value, `a ${algorithm} digest has ${want} hex digits, not ${hex.length}`);
  if (hex !== hex.toLowerCase()) fail(value, `the ${algorithm} digest must be lowercase hex`);
}

/** Parse and validate a reference. Throws PayloadError naming the value and the rule it breaks. */
export function parsePullspec(value: string): Pullspec {
  if (value === '') fail(value, 'the value is empty');
  if (value.trim() !== value || /\s/.test(value)) fail(value, 'it contains whitespace');
  let rest = value;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    checkDigest(value, digest);
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.indexOf(':', lastSlash + 1);
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG_RE.test(tag)) fail(value, `invalid tag ${JSON.stringify(tag)}`);
  }
  const name = rest;
  if (name === '') fail(value, 'the repository name is empty');
  if (name.length > NAME_MAX) fail(value, `the repository name is longer than ${NAME_MAX} characters`);
  const parts = name.split('/');
  let domain: string | undefined;
  const first = parts[0]!;
  if (parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost' || first.startsWith('['))) {
    domain = first;
    parts.shift();
    if (!HOST_RE.test(domain)) fail(value, `invalid registry host ${JSON.stringify(domain)}`);
  }
  for (const part of parts) {
    if (!COMPONENT_RE.test(part)) {
      const why =
        part === ''
          ? 'it has an empty path component'
          : part !== part.toLowerCase()
            ? 'the repository path must be lowercase'
            : `invalid path component ${JSON.stringify(part)}`;
      fail(value, why);
    }
  }
  if (tag !== undefined && digest !== undefined) {
    fail(value, 'it has both a tag and a digest; write <repository>@<digest> so oc can substitute it');
  }
  const spec: Pullspec = { text: value, name, kind: digest !== undefined ? 'digest' : 'tag' };
  if (domain !== undefined) spec.domain = domain;
  if (tag !== undefined) spec.tag = tag;
  if (digest !== undefined) spec.digest = digest;
  return spec;
}

/**
 * The rule for payload manifests: a valid reference by digest, or (with allowTag) by tag.
 * Returns the parsed reference.
 */
export function requireOsImagePullspec(value: string, opts: { allowTag?: boolean } = {}): Pullspec {
  const spec = parsePullspec(value);
  if (spec.kind === 'tag' && !opts.allowTag) {
    throw new PayloadError(
      `image reference ${JSON.stringify(value)} is by tag, not by digest; the payload needs <repository>@sha256:<64 hex> (pass --allow-tag to write it anyway)`,
    );
  }
  return spec;
}
