/**
 * An ImageStream as oc writes it: decoded into openshift/api's `image/v1.ImageStream` Go type and encoded
 * again. Fields that type lacks are dropped, the others come in its field order (metadata, spec, status;
 * each tag `name, annotations, from, reference, generation, importPolicy, referencePolicy`), maps sorted,
 * zero values as Go writes them (`annotations: null`, `generation: null`, `importPolicy: {}`,
 * `referencePolicy: {"type": ""}`, `status: {"dockerImageRepository": ""}`), timestamps as UTC RFC 3339
 * seconds. `release new` writes its image-references this way and `release info -o json` shows the
 * release's ImageStream this way, as oc does. Print with `goJson` (src/golang/json.ts).
 */
import { goField, goKeyCompare, goMapOrder, goStringField } from '../golang/json.js';
import { isJsonObject } from '../json.js';
import type { ImageStream, TagReference } from '../oci/image-stream.js';

type Obj = Record<string, unknown>;
const num = (o: Obj, k: string): number | undefined => {
  const v = goField(o, k);
  return typeof v === 'number' ? v : undefined;
};

/** Set a string or number field unless Go's omitempty would drop it (struct fields are set directly). */
function put(out: Obj, k: string, v: string | number | null | undefined): void {
  if (v !== undefined && v !== null && v !== '' && v !== 0) out[k] = v;
}

/** A map[string]string: sorted; non-string values dropped; null when absent. */
function stringMap(v: unknown): Obj | null {
  if (!isJsonObject(v)) return null;
  const out: Obj = {};
  for (const k of Object.keys(v).sort(goKeyCompare)) if (typeof v[k] === 'string') out[k] = v[k];
  return out;
}

/** metav1.Time: RFC 3339 in, UTC seconds out; null when unset. A value Go could not parse is kept as is. */
export function kubeTime(v: unknown): string | null {
  if (typeof v !== 'string' || v === '') return null;
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v)) return v;
  const d = new Date(v.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(d.getTime()) ? v : `${d.toISOString().slice(0, 19)}Z`;
}

function objectMeta(v: unknown): Obj {
  const m = isJsonObject(v) ? v : {};
  const out: Obj = {};
  for (const k of ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion']) put(out, k, goStringField(m, k));
  put(out, 'generation', num(m, 'generation'));
  out.creationTimestamp = kubeTime(goField(m, 'creationTimestamp'));
  put(out, 'deletionTimestamp', kubeTime(goField(m, 'deletionTimestamp')));
  put(out, 'deletionGracePeriodSeconds', num(m, 'deletionGracePeriodSeconds'));
  const labels = stringMap(goField(m, 'labels'));
  if (labels && Object.keys(labels).length > 0) out.labels = labels;
  const annotations = stringMap(goField(m, 'annotations'));
  if (annotations && Object.keys(annotations).length > 0) out.annotations = annotations;
  for (const k of ['ownerReferences', 'finalizers', 'managedFields']) {
    const x = goField(m, k);
    if (Array.isArray(x) && x.length > 0) out[k] = goMapOrder(x);
  }
  return out;
}

function objectReference(v: unknown): Obj | undefined {
  if (!isJsonObject(v)) return undefined;
  const out: Obj = {};
  for (const k of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) put(out, k, goStringField(v, k));
  return out;
}

function tagReference(v: unknown): Obj {
  const t = isJsonObject(v) ? v : {};
  const out: Obj = { name: goStringField(t, 'name'), annotations: stringMap(goField(t, 'annotations')) };
  const from = objectReference(goField(t, 'from'));
  if (from) out.from = from;
  if (goField(t, 'reference') === true) out.reference = true;
  out.generation = num(t, 'generation') ?? null;
  const ip = goField(t, 'importPolicy');
  const importPolicy: Obj = {};
  if (isJsonObject(ip)) {
    if (goField(ip, 'insecure') === true) importPolicy.insecure = true;
    if (goField(ip, 'scheduled') === true) importPolicy.scheduled = true;
    put(importPolicy, 'importMode', goStringField(ip, 'importMode'));
  }
  out.importPolicy = importPolicy;
  const rp = goField(t, 'referencePolicy');
  out.referencePolicy = { type: isJsonObject(rp) ? goStringField(rp, 'type') : '' };
  return out;
}

/** One tag as oc's Go type re-encodes it (`release info --changes-from -o json` shows tags one by one). */
export const ocTagReference = (tag: TagReference): Obj => tagReference(tag);

function tagEventList(v: unknown): Obj {
  const l = isJsonObject(v) ? v : {};
  const items = goField(l, 'items');
  const out: Obj = {
    tag: goStringField(l, 'tag'),
    items: Array.isArray(items)
      ? items.map((i) => {
          const e = isJsonObject(i) ? i : {};
          return {
            created: kubeTime(goField(e, 'created')),
            dockerImageReference: goStringField(e, 'dockerImageReference'),
            image: goStringField(e, 'image'),
            generation: num(e, 'generation') ?? 0,
          };
        })
      : null,
  };
  const conditions = goField(l, 'conditions');
  if (Array.isArray(conditions) && conditions.length > 0) out.conditions = goMapOrder(conditions);
  return out;
}

/** The ImageStream as oc's Go type re-encodes it (see the module comment). */
export function ocImageStream(is: ImageStream): Obj {
  const doc = is as unknown as Obj;
  const out: Obj = {};
  put(out, 'kind', goStringField(doc, 'kind'));
  put(out, 'apiVersion', goStringField(doc, 'apiVersion'));
  out.metadata = objectMeta(goField(doc, 'metadata'));
  const s = goField(doc, 'spec');
  const spec = isJsonObject(s) ? s : {};
  const lp = goField(spec, 'lookupPolicy');
  const specOut: Obj = { lookupPolicy: { local: isJsonObject(lp) && goField(lp, 'local') === true } };
  put(specOut, 'dockerImageRepository', goStringField(spec, 'dockerImageRepository'));
  const tags = goField(spec, 'tags');
  if (Array.isArray(tags) && tags.length > 0) specOut.tags = tags.map(tagReference);
  out.spec = specOut;
  const st = goField(doc, 'status');
  const status = isJsonObject(st) ? st : {};
  const statusOut: Obj = { dockerImageRepository: goStringField(status, 'dockerImageRepository') };
  put(statusOut, 'publicDockerImageRepository', goStringField(status, 'publicDockerImageRepository'));
  const stTags = goField(status, 'tags');
  if (Array.isArray(stTags) && stTags.length > 0) statusOut.tags = stTags.map(tagEventList);
  out.status = statusOut;
  return out;
}
