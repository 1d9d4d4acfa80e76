/**
 * The payload's own GPG verifier, found as the cluster-version operator finds it (library-go pkg/verify
 * NewFromManifests over the manifests of its pkg/payload LoadUpdate): the first ConfigMap annotated
 * `release.openshift.io/verification-config-map` among the top-level manifest files of the operator's own
 * manifests/, then of release-manifests/, each folder in file name order (then document order). Its data keys
 * `verifier-public-key-*` are keyrings, every one of which must sign; `store-*` are the stores to read signatures
 * from. Other keys are ignored. Only files that name the annotation (through escapes too) are parsed.
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
/** The operator image's own manifests, which the operator loads before release-manifests/. */
export const CVO_FOLDER = 'manifests';
const IMAGE_REFERENCES = 'image-references';
const BACKSLASH = 0x5c;
const NEEDLE = Buffer.from(VERIFIER_ANNOTATION);
const TEMPLATE = Buffer.from('{{');

export interface VerifierConfig {
  /** `the config map NAMESPACE/NAME` (the operator's words), with the file it is in. */
  source: string;
  namespace: string;
  name: string;
  /** The file it is in, with its folder: `manifests/…` or `release-manifests/…`. */
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

/**
 * One walk of release-manifests/ (the verifier ConfigMap, and image-references for the OS images' tags), then one
 * of manifests/ (a verifier ConfigMap there comes first).
 */
export async function readPayloadParts(
  source: ImageSource,
  opts: { filterByOs?: string /** false: image-references only, so manifests/ (every layer) is not read. */; verifier?: boolean } = {},
): Promise<PayloadParts> {
  const image = await resolveImage(source, opts.filterByOs);
  const parts: PayloadParts = {};
  const candidates = async (folder: string): Promise<Candidate[]> => {
    const found: Array<{ path: string; config: Candidate }> = [];
    await walkLayers(source, image.manifest.parsed, {
      folder,
      wantData: (p) => (folder === RELEASE_FOLDER && p === IMAGE_REFERENCES) || MANIFEST_EXT.has(posix.extname(p)),
      onFile: (f) => {
        if (f.type !== 'file') return;
        if (folder === RELEASE_FOLDER && f.path === IMAGE_REFERENCES) parts.imageReferences = f.data;
        const config = verifierInFile(folder, f.path, f.data);
        if (config) found.push({ path: f.path, config });
      },
    });
    // The operator lists each folder in name order (Go's os.ReadDir: byte order).
    found.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
    return found.map((x) => x.config);
  };
  const fromRelease = await candidates(RELEASE_FOLDER);
  if (opts.verifier === false) return parts;
  const fromOwn = await candidates(CVO_FOLDER);
  const first = fromOwn[0] ?? fromRelease[0];
  // As the operator: the first one decides, even when it is invalid; a later one's faults do not matter.
  if (first instanceof OsimageError) throw first;
  if (first) parts.verifier = first;
  return parts;
}

/** A verifier ConfigMap, or why the one found cannot be used (raised only if it is the first). */
type Candidate = VerifierConfig | OsimageError;

/** The verifier ConfigMap a file of `folder` holds, when it is one the operator loads and it holds one. */
function verifierInFile(folder: string, path: string, data: Buffer): Candidate | undefined {
  // The operator loads the top-level files only, and decodes them before looking: a JSON or YAML escape
  // (`\/`, `\u0076`) can spell the annotation without its bytes.
  if (path.includes('/') || !MANIFEST_EXT.has(posix.extname(path))) return undefined;
  if (!data.includes(NEEDLE) && !(data.includes(BACKSLASH) && unescaped(data.toString('utf8')).includes(VERIFIER_ANNOTATION)))
    return undefined;
  // The operator renders its own manifests as Go templates before it parses them; osimage does not, so it will
  // not guess what such a file holds.
  if (folder === CVO_FOLDER && data.includes(TEMPLATE))
    return new OsimageError(
      `${folder}/${path}: a template names the verifier annotation; osimage does not render the operator's templates`,
      {
        code: 'invalid-input',
      },
    );
  return firstInFile(`${folder}/${path}`, data);
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

function firstInFile(file: string, data: Buffer): Candidate | undefined {
  let manifests: ReturnType<typeof parseManifests>;
  try {
    manifests = parseManifests(file, data);
  } catch (err) {
    throw new OsimageError(`${file}: ${describe(err)}`, { code: 'invalid-input' });
  }
  for (const m of manifests) {
    if (m.kind !== 'ConfigMap' || m.group !== '') continue;
    const meta = isJsonObject(m.value.metadata) ? m.value.metadata : {};
    const annotations = isJsonObject(meta.annotations) ? meta.annotations : {};
    if (!(VERIFIER_ANNOTATION in annotations)) continue;
    const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
    const name = typeof meta.name === 'string' ? meta.name : '';
    const source = `the config map ${namespace}/${name} (${file})`;
    const data = m.value.data ?? {};
    if (!isJsonObject(data)) return new OsimageError(`${source} is not valid: data is not a map of strings`, { code: 'invalid-input' });
    const config: VerifierConfig = { source, namespace, name, file, keys: [], stores: [], ignored: [] };
    for (const k of Object.keys(data).sort()) {
      const v = data[k];
      if (typeof v !== 'string') return new OsimageError(`${source} is not valid: data.${k} is not a string`, { code: 'invalid-input' });
      if (k.startsWith(KEY_PREFIX)) config.keys.push([k, v]);
      else if (k.startsWith(STORE_PREFIX)) config.stores.push([k, v.trim()]);
      else config.ignored.push(k);
    }
    return config;
  }
  return undefined;
}
