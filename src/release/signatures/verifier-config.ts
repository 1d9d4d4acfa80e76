/**
 * The payload's own GPG verifier, found as the cluster-version operator finds it (library-go pkg/verify
 * NewFromManifests): the first ConfigMap of release-manifests/, in file name order (then document order),
 * annotated `release.openshift.io/verification-config-map`. Its data keys `verifier-public-key-*` are keyrings,
 * every one of which must sign; `store-*` are the stores to read signatures from. Other keys are ignored. Only
 * top-level files that name the annotation (through escapes too) are parsed.
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
const BACKSLASH = 0x5c;

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
      // The operator loads the top-level files only, and decodes them before looking: a JSON or YAML escape
      // (`\/`, `\u0076`) can spell the annotation without its bytes.
      if (f.path.includes('/') || !MANIFEST_EXT.has(posix.extname(f.path))) return;
      if (!f.data.includes(needle) && !(f.data.includes(BACKSLASH) && unescaped(f.data.toString('utf8')).includes(VERIFIER_ANNOTATION)))
        return;
      const config = firstInFile(f.path, f.data);
      if (config) found.push(config);
    },
  });
  found.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  if (found[0]) parts.verifier = found[0];
  return parts;
}

/**
 * The text with every backslash escape a JSON or YAML double-quoted string may hold decoded, loosely (an escaped
 * line break joins the lines; an unknown escape is its character): only to tell whether a file can name the
 * annotation, since parsing every manifest with a backslash (most CRDs) would cost seconds.
 */
function unescaped(text: string): string {
  return text.replace(/\\(?:\r?\n[ \t]*|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|U([0-9a-fA-F]{8})|([\s\S]))/g, (_m, u, x, big, c) => {
    const hex = (u ?? x ?? big) as string | undefined;
    if (hex === undefined) return (c as string | undefined) ?? '';
    const cp = Number.parseInt(hex, 16);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
  });
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
