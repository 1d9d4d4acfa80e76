import { parseAllDocuments } from 'yaml';
import { OsimageError } from '../../errors.js';
import { yamlValue } from '../../files/yaml.js';

/**
 * Every document of a `.yaml`/`.yml`/`.json` manifest must be a Kubernetes object with `kind` and
 * `apiVersion`. Messages follow oc: `<file>: invalid YAML/JSON: …` and
 * `<file>: manifests must contain Kubernetes API objects with 'kind' and 'apiVersion' set: …`.
 */
export function checkManifest(label: string, text: string): void {
  const docs = parseAllDocuments(text, { prettyErrors: false, keepSourceTokens: true });
  if (!Array.isArray(docs)) return; // an empty stream
  docs.forEach((doc, i) => {
    if (doc.errors.length > 0) throw new OsimageError(`${label}: invalid YAML/JSON: ${doc.errors[0]!.message.split('\n')[0]}`);
    const value: unknown = yamlValue(doc, text, label);
    if (value === null || value === undefined) return; // an empty document between separators
    const obj = value as Record<string, unknown>;
    if (typeof value !== 'object' || Array.isArray(value) || !obj.kind || !obj.apiVersion) {
      const what = typeof value === 'object' ? JSON.stringify(value).slice(0, 80) : String(value).slice(0, 80);
      throw new OsimageError(
        `${label}: manifests must contain Kubernetes API objects with 'kind' and 'apiVersion' set: document ${i + 1}: ${what}`,
      );
    }
  });
}
