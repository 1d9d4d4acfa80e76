/**
 * The payload's own GPG verifier, found as the cluster-version operator finds it (library-go pkg/verify
 * NewFromManifests): the first ConfigMap of release-manifests/, in file name order (then document order),
 * annotated `release.openshift.io/verification-config-map`. Its data keys `verifier-public-key-*` are keyrings,
 * every one of which must sign; `store-*` are the stores to read signatures from. Other keys are ignored. Only
 * files that mention the annotation are parsed.
 */
import { posix } from 'node:path';
import { OsimageError, describe } from '../../errors.js';
import { isJsonObject } from '../../json.js';
import { resolveImage } from '../../registry/platform.js';
import type { ImageSource } from '../../registry/types.js';
import { parseManifests } from '../credentials-requests.js';
import { RELEASE_FOLDER } from '../info.js';
import { walkLayers } from '../overlay.js';

export const VERIFIER_ANNOTATION = 'release.openshift.io/verification-config-map';
export const KEY_PREFIX = 'verifier-public-key-';
export const STORE_PREFIX = 'store-';

const MANIFEST_EXT = new Set(['.yaml', '.yml', '.json']);
const IMAGE_REFERENCES = 'image-references';

export interface VerifierConfig {
  /** `the config map NAMESPACE/NAME` (the operator's words), with the file it is in. */
  source: string;
  namespace: string;
  name: string;
  file: string;
  /** `verifier-public-key-*` → its value (armoured or binary keyring text), in key order. */
  keys: Array<[string, string]>;
  /** `store-*` → its URL, in key order. */
  stores: Array<[string, string]>;
  /** Other data keys (ignored, as by the operator). */
  ignored: string[];
}

export interface PayloadParts {
  /** The first verifier ConfigMap, or undefined when the release has none. */
  verifier?: VerifierConfig;
  /** release-manifests/image-references as stored, when the release has one. */
  imageReferences?: Buffer;
}

/** One walk of release-manifests/: the verifier ConfigMap, and image-references (for the OS images' tags). */
export async function readPayloadParts(source: ImageSource, opts: { filterByOs?: string } = {}): Promise<PayloadParts> {
  const image = await resolveImage(source, opts.filterByOs);
  const found: VerifierConfig[] = [];
  const parts: PayloadParts = {};
  const needle = Buffer.from(VERIFIER_ANNOTATION);
  await walkLayers(source, image.manifest.parsed, {
    folder: RELEASE_FOLDER,
    wantData: (p) => p === IMAGE_REFERENCES || MANIFEST_EXT.has(posix.extname(p)),
    onFile: (f) => {
      if (f.type !== 'file') return;
      if (f.path === IMAGE_REFERENCES) parts.imageReferences = f.data;
      if (!MANIFEST_EXT.has(posix.extname(f.path)) || !f.data.includes(needle)) return;
      const config = firstInFile(f.path, f.data);
      if (config) found.push(config);
    },
  });
  found.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  if (found[0]) parts.verifier = found[0];
  return parts;
}

function firstInFile(file: string, data: Buffer): VerifierConfig | undefined {
  let manifests: ReturnType<typeof parseManifests>;
  try {
    manifests = parseManifests(file, data);
  } catch (err) {
    throw new OsimageError(`${RELEASE_FOLDER}/${file}: ${describe(err)}`, { code: 'invalid-input' });
  }
  for (const m of manifests) {
    if (m.kind !== 'ConfigMap' || m.group !== '') continue;
    const meta = isJsonObject(m.value.metadata) ? m.value.metadata : {};
    const annotations = isJsonObject(meta.annotations) ? meta.annotations : {};
    if (!(VERIFIER_ANNOTATION in annotations)) continue;
    const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
    const name = typeof meta.name === 'string' ? meta.name : '';
    const source = `the config map ${namespace}/${name} (${RELEASE_FOLDER}/${file})`;
    const data = m.value.data ?? {};
    if (!isJsonObject(data)) throw new OsimageError(`${source} is not valid: data is not a map of strings`, { code: 'invalid-input' });
    const config: VerifierConfig = { source, namespace, name, file, keys: [], stores: [], ignored: [] };
    for (const k of Object.keys(data).sort()) {
      const v = data[k];
      if (typeof v !== 'string') throw new OsimageError(`${source} is not valid: data.${k} is not a string`, { code: 'invalid-input' });
      if (k.startsWith(KEY_PREFIX)) config.keys.push([k, v]);
      else if (k.startsWith(STORE_PREFIX)) config.stores.push([k, v.trim()]);
      else config.ignored.push(k);
    }
    return config;
  }
  return undefined;
}
