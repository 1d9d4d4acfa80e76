import { OsimageError } from '../../errors.js';
import { DIGEST_GRAMMAR } from '../../oci/digest.js';
import { TAG_GRAMMAR } from '../../oci/reference.js';
import type { TagReference } from '../../oci/image-stream.js';
import { DEFAULT_STREAM, versionClaims } from '../references.js';

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

/**
 * Component versions of the images a payload references (their `io.openshift.build.versions`
 * annotations), for `0.0.1-snapshot-<component>`: the default OS stream's. Unlike `release info`, which warns,
 * two images of one OS stream that disagree on a component are an error here, as in `oc adm release new`; each
 * OS stream (`rhel-coreos-10`, `rhel-coreos-10-extensions` → `rhel-10`) may carry its own `machine-os`.
 */
export function referencedVersions(tags: TagReference[]): Map<string, { version: string; tags: string[] }> {
  const claims = versionClaims(tags, {
    displayNames: false,
    invalid: (t, err) => {
      throw new OsimageError(`image ${JSON.stringify(t.name)}: ${err.message}`);
    },
  });
  let defaults = new Map<string, { version: string; tags: string[] }>();
  for (const [stream, components] of claims) {
    const agreed = new Map<string, { version: string; tags: string[] }>();
    for (const [k, list] of components) {
      const versions = [...new Set(list.map((c) => c.version))];
      if (versions.length > 1) {
        const first = list.filter((c) => c.version === versions[0]).map((c) => c.tag);
        const others = list.filter((c) => c.version !== versions[0]).map((c) => `${c.version} (${c.tag})`);
        throw new OsimageError(
          `the version for "${k}" is inconsistent across the referenced images: ${[`${versions[0]} (${first.join(', ')})`, ...others].join(', ')}`,
        );
      }
      agreed.set(k, { version: versions[0]!, tags: list.map((c) => c.tag) });
    }
    if (stream === DEFAULT_STREAM) defaults = agreed;
  }
  return defaults;
}

/**
 * `0.0.1-snapshot` → the release version (build metadata removed); `0.0.1-snapshot-<component>` → that
 * component's version. An unknown component is an error naming it.
 */
export function replaceVersions(
  data: string,
  releaseVersion: string,
  components: ReadonlyMap<string, { version: string }>,
  file: string,
): string {
  const version = releaseVersion.replace(/\+.*$/, '');
  return data.replace(/0\.0\.1-snapshot(?:-([a-z0-9][a-z0-9-]*))?/g, (_m, comp: string | undefined) => {
    if (!comp) return version;
    const c = components.get(comp);
    if (!c) throw new OsimageError(`${file}: unknown version reference "${comp}"`);
    return c.version;
  });
}
