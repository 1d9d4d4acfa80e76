/**
 * Finding the `machine-config-osimageurl` ConfigMap in a manifests folder by what it is (kind, name, namespace),
 * never by file name: the MCO named its file `0000_50_…`, `0000_30_…`, `0000_80_machine-config-operator_05_…` and
 * `0000_80_machine-config_05_…` over the years. Every `.yaml`, `.yml` and `.json` file of the folder (not its
 * subfolders, not hidden files) is looked at; a multi-document YAML file is read document by document.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe } from '../errors.js';
import { readTextIfExists } from '../files/read.js';
import { IMAGE_REFERENCES } from '../oci/image-stream.js';
import { PayloadError } from './errors.js';
import { isManifestFile } from './operator-dirs.js';
import { isOsImageUrlConfigMap, OSIMAGEURL_CONFIGMAP } from './osimageurl.js';
import { parseManifestDocuments } from './text.js';

export interface FoundConfigMap {
  /** The file's path (dir joined with its name). */
  path: string;
  /** Its name in the folder. */
  name: string;
  /** The document's index among the file's non-empty documents; undefined when the file holds only this one. */
  document: number | undefined;
  value: Record<string, unknown>;
}

/** Every `machine-config-osimageurl` ConfigMap (namespace openshift-machine-config-operator, or none) in `dir`. */
export async function findOsImageUrlConfigMaps(dir: string): Promise<FoundConfigMap[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => !n.startsWith('.') && n !== IMAGE_REFERENCES && isManifestFile(n)).sort();
  } catch (err) {
    throw new PayloadError(`cannot read the folder: ${describe(err)}`, { file: dir });
  }
  const found: FoundConfigMap[] = [];
  for (const name of names) {
    const path = join(dir, name);
    if (!(await stat(path).catch(() => undefined))?.isFile()) continue;
    const text = await readTextIfExists(path);
    // Only a file naming the ConfigMap can hold it: the others (templates among them) are not parsed.
    if (text === undefined || !text.includes(OSIMAGEURL_CONFIGMAP)) continue;
    const docs = parseManifestDocuments(text, path);
    docs.forEach((value, i) => {
      if (isOsImageUrlConfigMap(value)) {
        found.push({ path, name, document: docs.length > 1 ? i : undefined, value: value as Record<string, unknown> });
      }
    });
  }
  return found;
}

/** The release version annotation a payload's manifests carry once oc has built the release. */
export const RELEASE_VERSION_ANNOTATION = 'release.openshift.io/version';

/**
 * The OpenShift release a ConfigMap says it belongs to, when it can be read: `data.releaseVersion` or the
 * annotation {@link RELEASE_VERSION_ANNOTATION}, as `major.minor…`. The MCO's own `install/` files say
 * `0.0.1-snapshot` (oc substitutes it), which is no release: undefined.
 */
export function releaseVersionOf(cm: Record<string, unknown>): { major: number; minor: number; text: string } | undefined {
  const data = cm.data as Record<string, unknown> | undefined;
  const meta = cm.metadata as { annotations?: Record<string, unknown> } | undefined;
  for (const v of [data?.releaseVersion, meta?.annotations?.[RELEASE_VERSION_ANNOTATION]]) {
    if (typeof v !== 'string') continue;
    const m = /^v?(\d+)\.(\d+)(?:\.|$|-)/.exec(v);
    if (!m) continue;
    const major = Number(m[1]);
    const minor = Number(m[2]);
    if (major === 0) continue; // 0.0.1-snapshot
    return { major, minor, text: v };
  }
  return undefined;
}

/** Releases whose `rhel-coreos` is a node image built from the release browser's build (4.19 and later). */
export function shipsNodeImage(v: { major: number; minor: number }): boolean {
  return v.major > 4 || (v.major === 4 && v.minor >= 19);
}
