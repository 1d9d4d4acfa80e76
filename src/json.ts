/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A plain object (not an array, not null). */
export const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A copy with every object's keys sorted (code-unit order) and undefined members dropped, so that
 * serialising it (JSON, YAML) is canonical: pin snapshots, rendered MachineConfigs.
 */
export function sortKeys(v: unknown): Json {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isJsonObject(v)) {
    const out: { [key: string]: Json } = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sortKeys(v[k]);
    return out;
  }
  return v as Json;
}
