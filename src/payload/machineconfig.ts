/**
 * MachineConfigs: the `00-<role>-osimageurl` configs that carry only the OS image, and the merge of a
 * pool's configs into one `rendered-<role>-<md5 hex>` config, after the machine-config-operator's
 * MergeMachineConfigs and render hash.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { stringify } from 'yaml';
import { type Warning, describe } from '../errors.js';
import { sortKeys } from '../json.js';
import type { MergePolicy } from './defaults.js';
import { editFilesAtomic } from '../files/edit.js';
import { readError, readText, readTextIfExists } from '../files/read.js';
import { PayloadError } from './errors.js';
import { requireOsImagePullspec } from './pullspec.js';
import { parseManifestDocuments } from './text.js';

export const MC_API_VERSION = 'machineconfiguration.openshift.io/v1';
export const ROLE_LABEL = 'machineconfiguration.openshift.io/role';
/** MCs the controller generated; today's override search skips them (MCO #5488). */
export const GENERATED_BY_ANNOTATION = 'machineconfiguration.openshift.io/generated-by-controller-version';
/** The Ignition spec version a URL-only MC carried in 2019 (validation wanted one). */
export const IGNITION_VERSION = '2.2.0';

export interface MachineConfig {
  apiVersion: string;
  kind: 'MachineConfig';
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { osImageURL?: string; config?: Record<string, unknown>; [field: string]: unknown };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const ROLE_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A role (pool) name: a DNS label, as Kubernetes label values and MC names need. */
export function validateRole(role: string): string {
  if (!ROLE_RE.test(role) || role.length > 63) {
    throw new PayloadError(`invalid role ${JSON.stringify(role)}: use lowercase letters, digits and '-' (e.g. master, worker, infra)`);
  }
  return role;
}

/** `00-<role>-osimageurl`: the role label, `spec.osImageURL`, and an Ignition config with only a version. */
export function osImageUrlMachineConfig(role: string, osImageURL: string): MachineConfig {
  return {
    apiVersion: MC_API_VERSION,
    kind: 'MachineConfig',
    metadata: { name: `00-${validateRole(role)}-osimageurl`, labels: { [ROLE_LABEL]: role } },
    spec: { osImageURL, config: { ignition: { version: IGNITION_VERSION } } },
  };
}

/** One MC per role, in the order given. An empty URL renders nothing, so it is refused. */
export function renderOsImageUrlConfigs(osImageURL: string, roles: string[], opts: { allowTag?: boolean } = {}): MachineConfig[] {
  if (osImageURL === '') {
    throw new PayloadError('the OS image is empty; no 00-<role>-osimageurl MachineConfig is rendered for an empty URL');
  }
  requireOsImagePullspec(osImageURL, opts);
  if (roles.length === 0) throw new PayloadError('give at least one --role');
  const seen = new Set<string>();
  for (const r of roles) {
    validateRole(r);
    if (seen.has(r)) throw new PayloadError(`role ${JSON.stringify(r)} is given twice`);
    seen.add(r);
  }
  return roles.map((r) => osImageUrlMachineConfig(r, osImageURL));
}

/** YAML of one object, as the tool writes manifests. */
export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, minContentWidth: 0 });
}

/** A multi-document YAML stream: each document starts with `---`. */
export function toYamlStream(values: unknown[]): string {
  return values.map((v) => `---\n${toYaml(v)}`).join('');
}

export interface WrittenFile {
  path: string;
  action: 'created' | 'updated' | 'unchanged';
}

/**
 * Write each MachineConfig to `<dir>/<name>.yaml` (the folder is created when missing), all at once
 * and atomically; files that already hold the same bytes are left alone.
 */
export async function writeMachineConfigs(dir: string, configs: MachineConfig[]): Promise<WrittenFile[]> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new PayloadError(`cannot create: ${describe(err)}`, { file: dir });
  }
  const outcomes: WrittenFile[] = [];
  const writes: Array<{ path: string; data: string }> = [];
  for (const c of configs) {
    const path = join(dir, `${c.metadata.name}.yaml`);
    const data = toYaml(c);
    const before = await readTextIfExists(path);
    if (before === data) outcomes.push({ path, action: 'unchanged' });
    else {
      outcomes.push({ path, action: before === undefined ? 'created' : 'updated' });
      writes.push({ path, data });
    }
  }
  if (writes.length > 0) await editFilesAtomic(writes);
  return outcomes;
}

// ---------------------------------------------------------------------------------------------
// Loading manifests

export interface LoadedDoc {
  /** `file`, or `file#N` (1-based) when the file holds several documents. */
  source: string;
  value: unknown;
}

const MANIFEST_EXT = new Set(['.yaml', '.yml', '.json']);

/**
 * Every document of the given files and folders (a folder: its `.yaml`, `.yml` and `.json` files, by
 * name, not recursing). `kind: List` / `*List` objects are expanded into their items.
 */
export async function loadManifests(paths: string[]): Promise<LoadedDoc[]> {
  const files: string[] = [];
  for (const p of paths) {
    let st;
    try {
      st = await stat(p);
    } catch (err) {
      throw readError(p, err);
    }
    if (st.isDirectory()) {
      const names = (await readdir(p)).filter((n) => !n.startsWith('.') && MANIFEST_EXT.has(extname(n).toLowerCase())).sort();
      files.push(...names.map((n) => join(p, n)));
    } else files.push(p);
  }
  const out: LoadedDoc[] = [];
  for (const file of files) {
    const text = await readText(file);
    const docs = parseManifestDocuments(text, file).flatMap((d) =>
      isRecord(d) && typeof d.kind === 'string' && d.kind.endsWith('List') && Array.isArray(d.items) ? (d.items as unknown[]) : [d],
    );
    docs.forEach((value, i) => {
      out.push({ source: docs.length > 1 ? `${file}#${i + 1}` : file, value });
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Merging

/**
 * first-non-empty: the 2019-01 rule (#279); controller-config: 2019-03 to 2022 (#475), MC values ignored;
 * last-wins: since 2022 (#3272), today's rule.
 */

export interface SourcedConfig {
  mc: MachineConfig;
  source: string;
}

export interface Skipped {
  source: string;
  name: string | undefined;
  reason: string;
}

/** Keep the role's MachineConfigs; say why each other document was left out. Duplicate names are errors. */
export function selectForRole(docs: LoadedDoc[], role: string): { selected: SourcedConfig[]; skipped: Skipped[] } {
  validateRole(role);
  const selected: SourcedConfig[] = [];
  const skipped: Skipped[] = [];
  const byName = new Map<string, string>();
  for (const d of docs) {
    const v = d.value;
    const meta = isRecord(v) && isRecord(v.metadata) ? v.metadata : undefined;
    const name = typeof meta?.name === 'string' ? meta.name : undefined;
    if (!isRecord(v) || v.kind !== 'MachineConfig') {
      skipped.push({
        source: d.source,
        name,
        reason: `not a MachineConfig (kind ${JSON.stringify(isRecord(v) ? (v.kind ?? '') : typeof v)})`,
      });
      continue;
    }
    if (name === undefined || name === '') throw new PayloadError('MachineConfig has no metadata.name', { file: d.source });
    const labels = isRecord(meta?.labels) ? meta.labels : {};
    const r = labels[ROLE_LABEL];
    if (r !== role) {
      skipped.push({ source: d.source, name, reason: r === undefined ? `no ${ROLE_LABEL} label` : `role ${JSON.stringify(r)}` });
      continue;
    }
    if (v.spec !== undefined && v.spec !== null && !isRecord(v.spec))
      throw new PayloadError(`MachineConfig ${name}: spec must be a map`, { file: d.source });
    const spec = (v.spec ?? {}) as Record<string, unknown>;
    if (spec.osImageURL !== undefined && spec.osImageURL !== null && typeof spec.osImageURL !== 'string') {
      throw new PayloadError(`MachineConfig ${name}: spec.osImageURL must be a string`, { file: d.source });
    }
    if (spec.config !== undefined && spec.config !== null && !isRecord(spec.config)) {
      throw new PayloadError(`MachineConfig ${name}: spec.config must be a map`, { file: d.source });
    }
    const other = byName.get(name);
    if (other !== undefined) throw new PayloadError(`MachineConfig ${JSON.stringify(name)} is defined twice: in ${other} and ${d.source}`);
    byName.set(name, d.source);
    selected.push({ mc: v as unknown as MachineConfig, source: d.source });
  }
  return { selected, skipped };
}

/** Go's zero values: a later MC's field only overrides when it is set. */
const isZero = (v: unknown): boolean => v === undefined || v === null || v === '' || v === false || v === 0;

/**
 * Ignition-style append: lists are concatenated (earlier first), maps merge key by key, and a scalar
 * from the later config replaces the earlier one unless it is a zero value.
 */
export function appendMerge(base: unknown, next: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(next)) return [...base, ...next];
  if (isRecord(base) && isRecord(next)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(next)) out[k] = k in out ? appendMerge(out[k], v) : structuredClone(v);
    return out;
  }
  return isZero(next) ? base : structuredClone(next);
}

/**
 * The fixed 80-byte salt hashed before the spec. Ours: the MCO's own salt bytes are not in our
 * reference, so rendered names match each other, not a cluster's.
 */
export const RENDER_SALT = Buffer.from(
  '844045581e1a1a6646a073a3e676996b7cdd16ab2b5e3d57f628aa85785304e5edff077137f369bc132ee20015c1ac2460092b12df15d5eff546da1b0066af0c2fd325a56066b14f8295438887939f03',
  'hex',
);

/** The exact bytes hashed after the salt: the spec with sorted keys, as YAML. */
export function canonicalSpecYaml(spec: Record<string, unknown>): string {
  return stringify(sortKeys(spec), { lineWidth: 0, minContentWidth: 0 });
}

/** md5(salt ‖ canonical YAML of the spec), 32 lowercase hex digits. */
export function renderedHash(spec: Record<string, unknown>): string {
  return createHash('md5').update(RENDER_SALT).update(canonicalSpecYaml(spec), 'utf8').digest('hex');
}

export interface MergeOptions {
  policy?: MergePolicy;
  /**
   * The ControllerConfig value (what the CVO set). last-wins: an MC's value overrides it; without one
   * it is the result. first-non-empty: used only when no MC has a value.
   */
  baseOsImageURL?: string;
}

export interface MergeResult {
  rendered: MachineConfig;
  name: string;
  hash: string;
  role: string;
  policy: MergePolicy;
  osImageURL: string;
  /** The MC whose osImageURL won, or undefined when it came from baseOsImageURL (or is empty). */
  osImageURLFrom: string | undefined;
  /** Merged MC names, in merge order. */
  merged: string[];
  warnings: Warning[];
}

/** The osImageURL a policy picks from the MCs in name order. */
export function pickOsImageURL(sorted: MachineConfig[], policy: MergePolicy, base = ''): { url: string; from: string | undefined } {
  const url = (mc: MachineConfig) => mc.spec?.osImageURL ?? '';
  if (policy === 'controller-config') return { url: base, from: undefined };
  if (policy === 'first-non-empty') {
    const hit = sorted.find((mc) => url(mc) !== '');
    return hit ? { url: url(hit), from: hit.metadata.name } : { url: base, from: undefined };
  }
  const candidates = sorted.filter((mc) => mc.metadata.annotations?.[GENERATED_BY_ANNOTATION] === undefined && url(mc) !== '');
  const hit = candidates[candidates.length - 1];
  return hit ? { url: url(hit), from: hit.metadata.name } : { url: base, from: undefined };
}

/**
 * Merge one pool's MachineConfigs: sorted by name; the first one's Ignition config is the base and the
 * rest are appended; other spec fields merge the same way; osImageURL follows the policy. The name is
 * `rendered-<role>-<md5(salt ‖ yaml(spec))>`, so input order never matters and any spec change renames.
 */
export function mergeMachineConfigs(configs: MachineConfig[], role: string, opts: MergeOptions = {}): MergeResult {
  validateRole(role);
  const policy = opts.policy ?? 'last-wins';
  if (configs.length === 0) throw new PayloadError(`no MachineConfig has the label ${ROLE_LABEL}: ${role}`);
  if (policy === 'controller-config' && !opts.baseOsImageURL) {
    throw new PayloadError('the controller-config policy takes the URL only from the ControllerConfig: give --os-image');
  }
  const sorted = [...configs].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  let config: unknown = {};
  let rest: unknown = {};
  sorted.forEach((mc, i) => {
    const { osImageURL: _url, config: cfg, ...others } = mc.spec ?? {};
    config = i === 0 ? structuredClone(cfg ?? {}) : appendMerge(config, cfg ?? {});
    rest = appendMerge(rest, others);
  });
  const { url, from } = pickOsImageURL(sorted, policy, opts.baseOsImageURL ?? '');
  const spec: Record<string, unknown> = { ...(rest as Record<string, unknown>), config, osImageURL: url };
  const hash = renderedHash(spec);
  const name = `rendered-${role}-${hash}`;
  const warnings: Warning[] = [];
  if (url === '') {
    warnings.push({
      code: 'no-os-image-url',
      message: `no MachineConfig for role ${role} sets spec.osImageURL; the rendered config has none`,
    });
  }
  return {
    rendered: { apiVersion: MC_API_VERSION, kind: 'MachineConfig', metadata: { name }, spec: sortKeys(spec) as MachineConfig['spec'] },
    name,
    hash,
    role,
    policy,
    osImageURL: url,
    osImageURLFrom: from,
    merged: sorted.map((mc) => mc.metadata.name),
    warnings,
  };
}
