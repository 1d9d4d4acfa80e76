/**
 * The `machine-config-osimageurl` ConfigMap: the OS container the machine-config-operator hands to its
 * controllers. Its `data.osImageURL` must be byte-identical to the `machine-os-content` tag of the MCO's
 * image-references, because oc rewrites the two only by matching the same source text.
 */
import { PayloadError } from './errors.js';
import { parseManifestText, setStringAt } from './text.js';

export const OSIMAGEURL_CONFIGMAP = 'machine-config-osimageurl';
export const MCO_NAMESPACE = 'openshift-machine-config-operator';
/** The file name the MCO used from 2019-01-21 (run level 30). */
export const DEFAULT_CONFIGMAP_FILE = '0000_30_machine-config-operator_05_osimageurl.yaml';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A new ConfigMap file. */
export function newOsImageUrlConfigMap(pullspec: string, format: 'yaml' | 'json' = 'yaml'): string {
  if (format === 'json') {
    return `${JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: OSIMAGEURL_CONFIGMAP, namespace: MCO_NAMESPACE },
        data: { osImageURL: pullspec },
      },
      null,
      2,
    )}\n`;
  }
  return [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    `  name: ${OSIMAGEURL_CONFIGMAP}`,
    `  namespace: ${MCO_NAMESPACE}`,
    'data:',
    '  # The OS container (RHCOS) nodes run. Keep it equal, byte for byte, to the',
    '  # machine-os-content tag in image-references: oc substitutes both by that text.',
    `  osImageURL: ${JSON.stringify(pullspec)}`,
    '',
  ].join('\n');
}

/** Check that a parsed document is this ConfigMap; returns its current osImageURL (undefined when absent). */
export function osImageUrlOf(doc: unknown, file: string): string | undefined {
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
  const v = isRecord(doc.data) ? doc.data.osImageURL : undefined;
  if (v !== undefined && v !== null && typeof v !== 'string') throw new PayloadError('data.osImageURL must be a string', { file });
  return v ?? undefined;
}

export interface ConfigMapEdit {
  text: string;
  changed: boolean;
  previous: string | undefined;
  action: 'created' | 'updated' | 'unchanged';
}

/** Create the ConfigMap, or replace `data.osImageURL` in place keeping every other byte. */
export function setOsImageUrl(existing: string | undefined, file: string, pullspec: string): ConfigMapEdit {
  if (existing === undefined) {
    return {
      text: newOsImageUrlConfigMap(pullspec, file.endsWith('.json') ? 'json' : 'yaml'),
      changed: true,
      previous: undefined,
      action: 'created',
    };
  }
  const m = parseManifestText(existing, file);
  const previous = osImageUrlOf(m.value, file);
  const text = setStringAt(m, ['data', 'osImageURL'], pullspec);
  const changed = text !== existing;
  return { text, changed, previous, action: changed ? 'updated' : 'unchanged' };
}
