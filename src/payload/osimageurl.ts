/**
 * The `machine-config-osimageurl` ConfigMap: the OS images the machine-config-operator hands to its controllers.
 * Its keys by era (reference §1): `osImageURL` (2019 on, the `machine-os-content` image; `""` once that tag was
 * dropped in 2023-09), `baseOperatingSystemContainer` and `baseOperatingSystemExtensionsContainer` (the MCO of
 * 2022-08-15 to 2022-09-27, renamed after six weeks), `baseOSContainerImage` and `baseOSExtensionsContainerImage`
 * (4.12 on, the layered OS image and its extensions), `releaseVersion` (2020-01 on). Each key must be byte-identical to the image-references tag
 * it belongs to, because oc rewrites the two only by matching the same source text.
 */
import { PayloadError } from './errors.js';
import { parseManifestText, setStringAt } from './text.js';

export const OSIMAGEURL_CONFIGMAP = 'machine-config-osimageurl';
export const MCO_NAMESPACE = 'openshift-machine-config-operator';
/** The file name the MCO used from 2019-01-21 (run level 30); osimage creates it when a folder has no ConfigMap. */
export const DEFAULT_CONFIGMAP_FILE = '0000_30_machine-config-operator_05_osimageurl.yaml';

/** The ConfigMap's OS image keys. */
export type OsImageKey =
  | 'osImageURL'
  | 'baseOSContainerImage'
  | 'baseOSExtensionsContainerImage'
  | 'baseOperatingSystemContainer'
  | 'baseOperatingSystemExtensionsContainer';
export const OS_IMAGE_KEYS: readonly OsImageKey[] = [
  'osImageURL',
  'baseOSContainerImage',
  'baseOSExtensionsContainerImage',
  'baseOperatingSystemContainer',
  'baseOperatingSystemExtensionsContainer',
];

/**
 * The payload tags a key pairs with when its value matches no tag's `from.name` (the fallback; the match by text
 * comes first): `osImageURL` ↔ machine-os-content, `baseOSContainerImage` ↔ rhel-coreos / rhel-coreos-8,
 * `baseOSExtensionsContainerImage` ↔ rhel-coreos-extensions / rhel-coreos-8-extensions.
 */
export const KEY_TAGS: Record<OsImageKey, readonly string[]> = {
  osImageURL: ['machine-os-content'],
  baseOSContainerImage: ['rhel-coreos', 'rhel-coreos-8'],
  baseOSExtensionsContainerImage: ['rhel-coreos-extensions', 'rhel-coreos-8-extensions'],
  baseOperatingSystemContainer: ['rhel-coreos', 'rhel-coreos-8'],
  baseOperatingSystemExtensionsContainer: ['rhel-coreos-extensions', 'rhel-coreos-8-extensions'],
};

/** The key a tag's slot takes in a ConfigMap that names its layered keys the way `data` already does. */
export function keyForSlot(slot: 'os' | 'extensions' | 'legacy', container: string, data: Record<string, unknown>): OsImageKey {
  if (container === 'oscontainer') return 'osImageURL';
  const mid2022 = 'baseOperatingSystemContainer' in data || 'baseOperatingSystemExtensionsContainer' in data;
  if (slot === 'extensions') return mid2022 ? 'baseOperatingSystemExtensionsContainer' : 'baseOSExtensionsContainerImage';
  return mid2022 ? 'baseOperatingSystemContainer' : 'baseOSContainerImage';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A document is this ConfigMap: kind ConfigMap, its name, and the MCO namespace (or none given). */
export function isOsImageUrlConfigMap(doc: unknown): boolean {
  if (!isRecord(doc) || doc.kind !== 'ConfigMap' || !isRecord(doc.metadata)) return false;
  const { name, namespace } = doc.metadata;
  return name === OSIMAGEURL_CONFIGMAP && (namespace === undefined || namespace === null || namespace === MCO_NAMESPACE);
}

const NEW_COMMENTS: Record<OsImageKey, string[]> = {
  osImageURL: [
    '  # The OS container (RHCOS) nodes run. Keep it equal, byte for byte, to the',
    '  # machine-os-content tag in image-references: oc substitutes both by that text.',
  ],
  baseOSContainerImage: ['  # The layered OS image (rhel-coreos tag in image-references, byte for byte).'],
  baseOSExtensionsContainerImage: ['  # Its extensions (rhel-coreos-extensions tag in image-references, byte for byte).'],
  baseOperatingSystemContainer: ['  # The layered OS image (rhel-coreos tag in image-references, byte for byte).'],
  baseOperatingSystemExtensionsContainer: ['  # Its extensions (rhel-coreos-extensions tag in image-references, byte for byte).'],
};

/** A new ConfigMap file holding these keys (in this order). */
export function newOsImageUrlConfigMap(data: Partial<Record<OsImageKey, string>>, format: 'yaml' | 'json' = 'yaml'): string {
  if (format === 'json') {
    return `${JSON.stringify(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: OSIMAGEURL_CONFIGMAP, namespace: MCO_NAMESPACE }, data },
      null,
      2,
    )}\n`;
  }
  const keys = Object.entries(data).flatMap(([k, v]) => [...NEW_COMMENTS[k as OsImageKey], `  ${k}: ${JSON.stringify(v)}`]);
  return [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    `  name: ${OSIMAGEURL_CONFIGMAP}`,
    `  namespace: ${MCO_NAMESPACE}`,
    'data:',
    ...keys,
    '',
  ].join('\n');
}

/** Check that a parsed document is this ConfigMap; returns its `data` (string values only; others are errors). */
export function configMapData(doc: unknown, file: string): Record<string, string> {
  if (!isRecord(doc)) throw new PayloadError('expected a ConfigMap object', { file });
  const meta = isRecord(doc.metadata) ? doc.metadata : {};
  if (doc.kind !== 'ConfigMap' || meta.name !== OSIMAGEURL_CONFIGMAP) {
    throw new PayloadError(
      `holds ${String(doc.kind ?? '(no kind)')} ${JSON.stringify(meta.name ?? '')}, not ConfigMap ${JSON.stringify(OSIMAGEURL_CONFIGMAP)}`,
      { file },
    );
  }
  if (doc.apiVersion !== 'v1') throw new PayloadError(`apiVersion ${JSON.stringify(doc.apiVersion ?? '')} is not v1`, { file });
  if (meta.namespace !== undefined && meta.namespace !== MCO_NAMESPACE) {
    throw new PayloadError(`namespace ${JSON.stringify(meta.namespace)} is not ${MCO_NAMESPACE}`, { file });
  }
  if (doc.data !== undefined && doc.data !== null && !isRecord(doc.data)) throw new PayloadError('data must be a map', { file });
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(isRecord(doc.data) ? doc.data : {})) {
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string') {
      if ((OS_IMAGE_KEYS as readonly string[]).includes(k)) throw new PayloadError(`data.${k} must be a string`, { file });
      continue;
    }
    data[k] = v;
  }
  return data;
}

/** The current osImageURL of this ConfigMap (undefined when absent); see {@link configMapData}. */
export function osImageUrlOf(doc: unknown, file: string): string | undefined {
  return configMapData(doc, file).osImageURL;
}

export interface ConfigMapEdit {
  text: string;
  changed: boolean;
  /** Each key's value before (undefined: the key was not there). */
  previous: Partial<Record<OsImageKey, string>>;
  action: 'created' | 'updated' | 'unchanged';
}

/**
 * Create the ConfigMap with these keys, or set them in place keeping every other byte (comments, annotations,
 * `releaseVersion`, quoting). `document` addresses one document of a multi-document file.
 */
export function setConfigMapKeys(
  existing: string | undefined,
  file: string,
  values: Partial<Record<OsImageKey, string>>,
  document?: number,
): ConfigMapEdit {
  if (existing === undefined) {
    return {
      text: newOsImageUrlConfigMap(values, file.endsWith('.json') ? 'json' : 'yaml'),
      changed: true,
      previous: {},
      action: 'created',
    };
  }
  let m = parseManifestText(existing, file, document);
  const data = configMapData(m.value, file);
  const previous: Partial<Record<OsImageKey, string>> = {};
  let text = existing;
  for (const [k, v] of Object.entries(values) as Array<[OsImageKey, string]>) {
    if (data[k] !== undefined) previous[k] = data[k];
    const next = setStringAt(m, ['data', k], v);
    if (next !== text) {
      text = next;
      m = parseManifestText(text, file, document);
    }
  }
  const changed = text !== existing;
  return { text, changed, previous, action: changed ? 'updated' : 'unchanged' };
}

/** Create the ConfigMap, or replace `data.osImageURL` in place keeping every other byte (the 2019 edit). */
export function setOsImageUrl(existing: string | undefined, file: string, pullspec: string) {
  const r = setConfigMapKeys(existing, file, { osImageURL: pullspec });
  return { ...r, previous: r.previous.osImageURL };
}
