/**
 * Digest mirrors from a file, as `oc adm release info --icsp-file / --idms-file` reads them: an
 * ImageContentSourcePolicy (operator.openshift.io/v1alpha1, `spec.repositoryDigestMirrors`) or one or more
 * ImageDigestMirrorSets (config.openshift.io/v1, `spec.imageDigestMirrors`, with `mirrorSourcePolicy`).
 *
 * A rule applies to an image whose repository is the rule's source or lies under it (`quay.io/ocp` covers
 * `quay.io/ocp/release`; the part below the source is appended to each mirror). The places to read an image
 * from are its own repository first, then each matching mirror in file order, without repeats; a source whose
 * policy is NeverContactSource is not among the alternatives. Only content named by digest can come from a
 * mirror: a tag means what its own registry says.
 */
import { readFile } from 'node:fs/promises';
import { OsimageError, describe } from '../errors.js';
import { isMissing } from '../files/read.js';
import { parseYamlDocuments, yamlValue } from '../files/yaml.js';
import { isJsonObject } from '../json.js';
import { ImageReference, parseImageReference } from '../oci/reference.js';

export type MirrorFileKind = 'icsp' | 'idms';

export interface DigestMirrorRule {
  /** The repository (or a parent of repositories) as written: `quay.io/openshift-release-dev/ocp-release`. */
  source: string;
  mirrors: string[];
  /** IDMS `mirrorSourcePolicy`: `AllowContactingSource` (the default) or `NeverContactSource`. */
  policy?: string;
}

export interface MirrorSet {
  kind: MirrorFileKind;
  /** The flag that named the file, for messages (`--icsp-file`, `--idms-file`). */
  flag: string;
  file: string;
  rules: DigestMirrorRule[];
}

const KINDS = {
  icsp: {
    noun: 'ImageContentSourcePolicy',
    fileNoun: 'ImageContentSourceFile',
    apiVersion: 'operator.openshift.io/v1alpha1',
    field: 'repositoryDigestMirrors',
    flag: '--icsp-file',
  },
  idms: {
    noun: 'ImageDigestMirrorSet',
    fileNoun: 'ImageDigestMirrorSet',
    apiVersion: 'config.openshift.io/v1',
    field: 'imageDigestMirrors',
    flag: '--idms-file',
  },
} as const;

/** A policy file is a few kilobytes; a bigger one is not a policy. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export const NEVER_CONTACT_SOURCE = 'NeverContactSource';
export const ALLOW_CONTACTING_SOURCE = 'AllowContactingSource';

/** Read and check the file a `--icsp-file` / `--idms-file` flag names; the errors are oc's sentences. */
export async function readMirrorFile(file: string, kind: MirrorFileKind): Promise<MirrorSet> {
  const k = KINDS[kind];
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch (err) {
    const why = isMissing(err) ? 'no such file or directory' : describe(err);
    throw new OsimageError(`unable to read ${k.fileNoun} ${file}: open ${file}: ${why}`, { cause: err });
  }
  if (data.length === 0) throw new OsimageError(`no data found in ${k.fileNoun} ${file}`);
  if (data.length > MAX_FILE_BYTES) throw new OsimageError(`error decoding ${k.noun} from ${file}: larger than ${MAX_FILE_BYTES} bytes`);
  return parseMirrorFile(data.toString('utf8'), file, kind);
}

/**
 * The rules of a policy file's text. An ICSP file holds one object (oc decodes the first document); an IDMS
 * file may hold several, one a YAML document.
 */
export function parseMirrorFile(text: string, file: string, kind: MirrorFileKind): MirrorSet {
  const k = KINDS[kind];
  const decodeError = (why: string) => new OsimageError(`error decoding ${k.noun} from ${file}: ${why}`);
  let values: unknown[];
  try {
    values = parseYamlDocuments(text, file)
      .map((d) => yamlValue(d, text, file))
      .filter((v) => v !== null && v !== undefined);
  } catch (err) {
    throw decodeError(describe(err));
  }
  if (values.length === 0) throw decodeError("Object 'Kind' is missing");
  const objects = kind === 'icsp' ? values.slice(0, 1) : values;
  const rules: DigestMirrorRule[] = [];
  for (const v of objects) {
    if (!isJsonObject(v)) throw decodeError('not an object');
    if (typeof v.kind !== 'string' || v.kind === '') throw decodeError("Object 'Kind' is missing");
    if (v.kind !== k.noun || v.apiVersion !== k.apiVersion) throw new OsimageError(`could not decode ${k.noun} from ${file}`);
    const spec = isJsonObject(v.spec) ? v.spec : {};
    const list = spec[k.field] ?? [];
    if (!Array.isArray(list)) throw decodeError(`spec.${k.field} is not a list`);
    for (const [i, r] of list.entries()) {
      const at = `spec.${k.field}[${i}]`;
      if (!isJsonObject(r) || typeof r.source !== 'string') throw decodeError(`${at}.source is not a string`);
      const mirrors = r.mirrors ?? [];
      if (!Array.isArray(mirrors) || !mirrors.every((m) => typeof m === 'string'))
        throw decodeError(`${at}.mirrors is not a list of strings`);
      const rule: DigestMirrorRule = { source: r.source, mirrors: mirrors as string[] };
      if (kind === 'idms' && r.mirrorSourcePolicy !== undefined && r.mirrorSourcePolicy !== '') {
        if (r.mirrorSourcePolicy !== ALLOW_CONTACTING_SOURCE && r.mirrorSourcePolicy !== NEVER_CONTACT_SOURCE) {
          throw decodeError(
            `${at}.mirrorSourcePolicy ${JSON.stringify(r.mirrorSourcePolicy)} is not ${ALLOW_CONTACTING_SOURCE} or ${NEVER_CONTACT_SOURCE}`,
          );
        }
        rule.policy = r.mirrorSourcePolicy;
      }
      rules.push(rule);
    }
  }
  return { kind, flag: k.flag, file, rules };
}

/** `registry/repository` of a reference written in a policy, normalised as image references are (docker.io). */
function repositoryOf(text: string, what: string): string {
  try {
    return ImageReference.from(parseImageReference(text)).name;
  } catch (err) {
    throw new OsimageError(`invalid ${what} ${JSON.stringify(text)}: ${describe(err)}`);
  }
}

/** Whether `repo` is `ancestor` or a repository below it (a path boundary, not a string prefix). */
function isSubrepo(repo: string, ancestor: string): boolean {
  return repo === ancestor || (repo.startsWith(ancestor) && repo[ancestor.length] === '/');
}

/**
 * Whether the source may still be read for `source` (IDMS): every rule for it must agree on one policy;
 * a rule without one agrees with AllowContactingSource.
 */
function sourceAllowed(set: MirrorSet, source: string): boolean {
  let policy: string | undefined;
  for (const r of set.rules) {
    if (r.source !== source) continue;
    const p = r.policy ?? ALLOW_CONTACTING_SOURCE;
    if (policy === undefined) policy = p;
    else if (!(policy === ALLOW_CONTACTING_SOURCE && r.policy === undefined) && policy !== p) {
      throw new OsimageError(`ImageDigestMirrorSet can only contain one MirrorSourcePolicy for source ${source}`);
    }
  }
  return (policy ?? ALLOW_CONTACTING_SOURCE) === ALLOW_CONTACTING_SOURCE;
}

/**
 * The repositories (`registry/repository`) to read `repository` from, in order: itself first (unless every
 * matching IDMS rule says NeverContactSource), then the mirrors of the rules that match it.
 */
export function mirrorRepositories(repository: string, set: MirrorSet): string[] {
  const found: string[] = [];
  let allowSource = true;
  let matched = false;
  for (const r of set.rules) {
    const source = repositoryOf(r.source, 'source');
    const suffix = source === repository ? '' : isSubrepo(repository, source) ? repository.slice(source.length) : undefined;
    if (suffix === undefined) continue;
    if (set.kind === 'idms') allowSource = sourceAllowed(set, r.source);
    for (const m of r.mirrors) {
      found.push(repositoryOf(`${m}${suffix}`, 'mirror'));
      matched = true;
    }
  }
  const all = set.kind === 'icsp' || allowSource || !matched ? [repository, ...found] : found;
  return [...new Set(all)];
}
