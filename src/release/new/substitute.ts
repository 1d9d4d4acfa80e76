import { OsimageError, describe } from '../../errors.js';
import { DIGEST_GRAMMAR } from '../../oci/digest.js';
import { TAG_GRAMMAR } from '../../oci/reference.js';
import type { TagReference } from '../../oci/image-stream.js';
import { ANNOTATION_DISPLAY_NAMES, ANNOTATION_VERSIONS, DEFAULT_STREAM, parseComponentVersions, versionStream } from '../references.js';
import { format as formatSemver, parse as parseSemver } from '../../golang/semver.js';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * oc's replacement rule: a source repository is replaced by its target pullspec where it starts the data
 * or follows a non-word character, optionally followed by `:tag` or `@algo:hex` (replaced too; the
 * distribution grammar, as oc matches it, so a digest we would refuse elsewhere is still replaced), and ends
 * at whitespace, a quote or the end of the data. One pass over the data, longest source first, so a
 * target that contains another source is never rewritten twice.
 */
export function replaceImageReferences(data: string, replacements: ReadonlyMap<string, string>): string {
  if (replacements.size === 0) return data;
  const sources = [...replacements.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const re = new RegExp(`(^|[^\\w])(${sources.join('|')})(:${TAG_GRAMMAR}|@${DIGEST_GRAMMAR})?(?=[\\s"']|$)`, 'g');
  return data.replace(re, (_all, pre: string, source: string) => `${pre}${replacements.get(source)}`);
}

/** The versions an operator's manifests may name, and which tags claim each component (oc's tagsByName). */
export interface OperatorVersions {
  versions: Map<string, string>;
  tagsByName: Map<string, string[]>;
}

/**
 * oc's loadImageStreamTransforms: the `io.openshift.build.versions` of the input tags an operator references (in
 * the input's tag order), then the ImageStream's own annotation for components none of them claims. Two tags
 * claiming one component with different versions is an error, in oc's words. osimage's two extensions, for
 * releases with two OS streams: a tag of another stream (`rhel-coreos-10`, `rhel-coreos-10-extensions` → `rhel-10`)
 * claims its own stream's versions, never the default stream's (oc 4.13 refuses such a release: "multiple versions
 * defined"), and tags that claim a component with the same version agree (oc refuses the manifest that names it,
 * "inconsistent across the referenced images", even when the versions are equal).
 */
export function operatorVersions(inputs: readonly TagReference[], referenced: ReadonlySet<string>, defaults = ''): OperatorVersions {
  const streams = new Map<string, OperatorVersions>();
  for (const tag of inputs) {
    if (!referenced.has(tag.name)) continue;
    const value = tag.annotations?.[ANNOTATION_VERSIONS];
    if (value === undefined) continue;
    let items: Map<string, { version: string }>;
    try {
      items = parseComponentVersions(value, tag.annotations?.[ANNOTATION_DISPLAY_NAMES] ?? '');
    } catch {
      throw new OsimageError(`input image stream has an invalid version annotation for tag ${JSON.stringify(tag.name)}: ${value}`);
    }
    const stream = versionStream(tag.name);
    const own = streams.get(stream) ?? streams.set(stream, { versions: new Map(), tagsByName: new Map() }).get(stream)!;
    for (const [k, v] of items) {
      const existing = own.versions.get(k);
      if (existing !== undefined && existing !== v.version) {
        throw new OsimageError(
          `input image stream has multiple versions defined for version ${k}: ${tag.name} defines ${v.version} but was already set to ${existing} on ${(own.tagsByName.get(k) ?? []).join(', ')}`,
        );
      }
      own.versions.set(k, v.version);
      own.tagsByName.set(k, [...(own.tagsByName.get(k) ?? []), tag.name]);
    }
  }
  const out = streams.get(DEFAULT_STREAM) ?? { versions: new Map<string, string>(), tagsByName: new Map<string, string[]>() };
  let fallback: Map<string, { version: string }>;
  try {
    fallback = parseComponentVersions(defaults);
  } catch (err) {
    throw new OsimageError(`unable to read default versions label on input image stream: ${describe(err)}`);
  }
  for (const [k, v] of fallback) if (!out.versions.has(k)) out.versions.set(k, v.version);
  return out;
}

/**
 * oc's component versions mapper: `0.0.1-snapshot` (after a non-word character or at the start) becomes the
 * release version without build metadata (left alone when the name is no semantic version), and
 * `0.0.1-snapshot-<component>` that component's version. Unknown components are errors in oc's words.
 */
export function replaceVersions(data: string, releaseName: string, v: OperatorVersions): string {
  const parsed = parseSemver(releaseName);
  const name = parsed.error === undefined ? formatSemver(parsed.version, { build: false }) : '';
  const missing: string[] = [];
  const out = data.replace(/(^|[^0-9A-Za-z_])0\.0\.1-snapshot([a-z0-9-]*)/g, (all, pre: string, key: string) => {
    if (key === '' && name !== '') return `${pre}${name}`;
    if (!key.startsWith('-')) return all;
    const component = key.slice(1);
    const value = v.versions.get(component);
    if (value === undefined) {
      missing.push(component);
      return all;
    }
    return `${pre}${value}`;
  });
  if (missing.length === 1) {
    throw new OsimageError(
      missing[0] === '' ? 'empty version references are not allowed' : `unknown version reference ${JSON.stringify(missing[0])}`,
    );
  }
  if (missing.length > 1) throw new OsimageError(`unknown version references: ${missing.join(', ')}`);
  return out;
}
