/**
 * MachineConfigs: the `00-<role>-osimageurl` configs that carry only the OS image, loading and selecting a
 * pool's configs, and naming their merge (mco-merge.ts) `rendered-<pool>-<md5 hex>` after the
 * machine-config-operator's render hash.
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
import { LATEST_MCO_RELEASE, mergeRulesFor } from './mco-eras.js';
import { GENERATED_BY_ANNOTATION, mcoMerge, ROLE_LABEL } from './mco-merge.js';
import { parseManifestDocuments } from './text.js';

export const MC_API_VERSION = 'machineconfiguration.openshift.io/v1';
export { GENERATED_BY_ANNOTATION, ROLE_LABEL };
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

export interface SourcedConfig {
  mc: MachineConfig;
  source: string;
}

export interface Skipped {
  source: string;
  name: string | undefined;
  reason: string;
}

/**
 * Keep the MachineConfigs labelled with one of the pool's roles (a custom pool selects `worker` and its own, as
 * the MCO documents `infra`); say why each other document was left out. Duplicate names are errors.
 */
export function selectForRole(docs: LoadedDoc[], roles: string | readonly string[]): { selected: SourcedConfig[]; skipped: Skipped[] } {
  const wanted = typeof roles === 'string' ? [roles] : roles;
  wanted.forEach(validateRole);
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
    if (typeof r !== 'string' || !wanted.includes(r)) {
      skipped.push({ source: d.source, name, reason: r === undefined ? `no ${ROLE_LABEL} label` : `role ${JSON.stringify(r)}` });
      continue;
    }
    if (v.spec !== undefined && v.spec !== null && !isRecord(v.spec))
      throw new PayloadError(`MachineConfig ${name}: spec must be a map`, { file: d.source });
    const spec = (v.spec ?? {}) as Record<string, unknown>;
    for (const field of ['osImageURL', 'baseOSExtensionsContainerImage', 'kernelType'] as const) {
      if (spec[field] !== undefined && spec[field] !== null && typeof spec[field] !== 'string') {
        throw new PayloadError(`MachineConfig ${name}: spec.${field} must be a string`, { file: d.source });
      }
    }
    for (const field of ['kernelArguments', 'extensions'] as const) {
      const list = spec[field];
      if (list !== undefined && list !== null && !(Array.isArray(list) && list.every((x) => typeof x === 'string'))) {
        throw new PayloadError(`MachineConfig ${name}: spec.${field} must be a list of strings`, { file: d.source });
      }
    }
    if (spec.fips !== undefined && spec.fips !== null && typeof spec.fips !== 'boolean') {
      throw new PayloadError(`MachineConfig ${name}: spec.fips must be true or false`, { file: d.source });
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

/**
 * The pool a set of roles renders: the one role; for a custom pool (`worker` and its own role), its own role.
 * Undefined when that is ambiguous (the caller asks for the pool's name).
 */
export function poolOfRoles(roles: readonly string[]): string | undefined {
  if (roles.length === 1) return roles[0];
  const own = roles.filter((r) => r !== 'worker');
  return own.length === 1 ? own[0] : undefined;
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

/** The annotation the render controller sets when an MC's osImageURL replaced the ControllerConfig's (4.12 on). */
export const OS_IMAGE_URL_OVERRIDDEN = 'machineconfiguration.openshift.io/os-image-url-overridden';

export interface MergeOptions {
  /** The OpenShift release whose MCO merges (default: the newest the rules know). */
  release?: string | undefined;
  /** How osImageURL is chosen (default: that release's rule). */
  policy?: MergePolicy | undefined;
  /** The ControllerConfig's OS image: osImageURL to 4.11, baseOSContainerImage from 4.12. */
  osImage?: string | undefined;
  /** The ControllerConfig's baseOSExtensionsContainerImage (4.12 on). */
  extensionsImage?: string | undefined;
  /** The controller's version: an MC generated by another is refused. */
  controllerVersion?: string | undefined;
  /** The pool's OS image stream (4.22 on): then no MC may override osImageURL. */
  osImageStream?: string | undefined;
  /** Where each config came from, for errors (by index). */
  sources?: readonly string[] | undefined;
}

export interface MergeResult {
  rendered: MachineConfig;
  name: string;
  hash: string;
  /** The pool rendered. */
  role: string;
  /** The release whose rules merged. */
  release: string;
  policy: MergePolicy;
  osImageURL: string;
  /** The MC whose osImageURL won, or undefined when it came from the ControllerConfig (or is empty). */
  osImageURLFrom: string | undefined;
  /** Merged MC names, in merge order. */
  merged: string[];
  warnings: Warning[];
}

/**
 * Merge one pool's MachineConfigs as the MCO of `opts.release` does (mco-merge.ts), and name the result
 * `rendered-<pool>-<md5(salt ‖ yaml(spec))>`, so input order never matters and any spec change renames.
 */
export function mergeMachineConfigs(configs: MachineConfig[], pool: string, opts: MergeOptions = {}): MergeResult {
  validateRole(pool);
  if (configs.length === 0) throw new PayloadError(`couldn't find any MachineConfigs for pool: ${pool}`);
  const rules = mergeRulesFor(opts.release ?? LATEST_MCO_RELEASE);
  const policy = opts.policy ?? rules.policy;
  if (policy === 'controller-config' && !opts.osImage) {
    throw new PayloadError(
      `the MCO of OpenShift ${rules.release} takes osImageURL only from the ControllerConfig (policy controller-config): give --os-image`,
    );
  }
  const r = mcoMerge(configs, {
    rules,
    policy,
    controller: rules.baseImageDefault
      ? { baseOSContainerImage: opts.osImage, baseOSExtensionsContainerImage: opts.extensionsImage }
      : { osImageURL: opts.osImage },
    controllerVersion: opts.controllerVersion,
    osImageStream: opts.osImageStream,
    sources: opts.sources,
  });
  const hash = renderedHash(r.spec);
  const name = `rendered-${pool}-${hash}`;
  const warnings: Warning[] = [...r.warnings];
  if (r.osImageURL === '') {
    warnings.push({
      code: 'no-os-image-url',
      message: `no MachineConfig for pool ${pool} sets spec.osImageURL and no --os-image is given; the rendered config has none`,
    });
  }
  const overridden = rules.baseImageDefault && r.osImageURL !== r.defaultOsImage;
  return {
    rendered: {
      apiVersion: MC_API_VERSION,
      kind: 'MachineConfig',
      metadata: { name, ...(overridden ? { annotations: { [OS_IMAGE_URL_OVERRIDDEN]: 'true' } } : {}) },
      spec: sortKeys(r.spec) as MachineConfig['spec'],
    },
    name,
    hash,
    role: pool,
    release: rules.release,
    policy: r.policy,
    osImageURL: r.osImageURL,
    osImageURLFrom: r.osImageURLFrom,
    merged: r.order,
    warnings,
  };
}
