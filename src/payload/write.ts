/**
 * `payload write`: put a build's OS images into the MCO's payload manifests, whatever generation the folder is
 * (src/payload/generation.ts): the OS tags of `image-references` and the keys of the `machine-config-osimageurl`
 * ConfigMap (found by what it is, src/payload/discover.ts), byte-identical in both, every file changing together
 * or not at all.
 */
import { join } from 'node:path';
import type { AtomicWrite } from '../files/atomic.js';
import { editFilesAtomic } from '../files/edit.js';
import { readTextIfExists, requireDir } from '../files/read.js';
import type { Warning } from '../errors.js';
import { IMAGE_REFERENCES, type TagReference } from '../oci/image-stream.js';
import type { ContainerKey } from '../oci/os-tags.js';
import { containerImageOf, type BuildRef } from '../rhcos/os-image.js';
import { findOsImageUrlConfigMaps, releaseVersionOf, shipsNodeImage, type FoundConfigMap } from './discover.js';
import { PayloadError } from './errors.js';
import { planTags, type Generation, type PlannedTag } from './generation.js';
import {
  machineOsVersionOf,
  parseImageStream,
  setImageReferenceTag,
  setMachineOsVersion,
  BUILD_VERSIONS_ANNOTATION,
} from './image-stream.js';
import { configMapData, DEFAULT_CONFIGMAP_FILE, KEY_TAGS, keyForSlot, setConfigMapKeys, type OsImageKey } from './osimageurl.js';
import { requireOsImagePullspec, type OsPullspec } from './pullspec.js';

/** The build whose containers fill the tags no flag sets (resolved only when one is needed). */
export interface BuildSource extends BuildRef {
  /** Write manifest list digests (multi-arch payloads). */
  manifestList?: boolean;
}

export interface PayloadWriteOptions {
  dir: string;
  /** The OS image: `machine-os-content` in a legacy folder, the layered `rhel-coreos` tag(s) otherwise. */
  osImage?: OsPullspec | undefined;
  extensionsImage?: OsPullspec | undefined;
  /** `machine-os-content` of a mixed 4.12–4.14 folder (in a legacy folder, the same as osImage). */
  legacyOsImage?: OsPullspec | undefined;
  /** Called when some tag has no explicit value. */
  build?: () => Promise<BuildSource>;
  /** The build id of explicit values, for `machine-os=` build-version annotations. */
  buildId?: string;
  /** The payload's rhel-coreos is a node image (4.19+): its values must be given, never taken from a build. */
  nodeImage?: boolean;
  /** Write this OS stream's tags (`rhel-10`) instead of the default stream's; the ConfigMap is left alone. */
  stream?: string;
  /** File name (in dir) of the ConfigMap to create when dir has none; default {@link DEFAULT_CONFIGMAP_FILE}. */
  configMapFile?: string;
  allowTag?: boolean;
  /**
   * Add the OS tags and ConfigMap keys the generation pairs with the declared ones but the folder lacks (and the
   * ConfigMap file when there is none). Without it only what the folder declares is written: its MCO reads
   * nothing else.
   */
  addMissing?: boolean;
}

export interface FileOutcome {
  path: string;
  action: 'created' | 'appended' | 'updated' | 'unchanged';
  /** The value before, when there was one (the first tag's or key's). */
  previous: string | undefined;
}

export interface TagWrite extends PlannedTag {
  pullspec: string;
  source: 'flag' | 'build';
  previous: string | undefined;
  action: 'created' | 'appended' | 'updated' | 'unchanged';
}

export interface KeyWrite {
  key: OsImageKey;
  /** The tag whose value it takes. */
  tag: string;
  previous: string | undefined;
  value: string;
}

export interface BuildVersionWrite {
  tag: string;
  previous: string;
  value: string;
}

export interface PayloadWriteResult {
  generation: Generation;
  stream: string | undefined;
  /** The first tag's value (the OS image). */
  pullspec: string;
  /** The build used, when one was. */
  build: string | undefined;
  tags: TagWrite[];
  keys: KeyWrite[];
  buildVersions: BuildVersionWrite[];
  imageReferences: FileOutcome;
  /** Undefined when the ConfigMap is not written (an OS stream other than the default). */
  configMap: FileOutcome | undefined;
  /** false when every file already held the values (nothing was written). */
  changed: boolean;
  warnings: Warning[];
}

/** A ConfigMap file name: one path segment, not image-references itself. */
export function checkConfigMapFileName(name: string, flag = '--configmap-file'): string {
  if (name === '' || name.includes('/') || name.includes('\\') || name === '.' || name === '..') {
    throw new PayloadError(`${flag} must be a file name inside --dir, not ${JSON.stringify(name)}`);
  }
  if (name === IMAGE_REFERENCES) throw new PayloadError(`${flag} cannot be ${IMAGE_REFERENCES}`);
  return name;
}

const where = (f: FoundConfigMap) => (f.document === undefined ? f.path : `${f.path} (document ${f.document + 1})`);

/** The one ConfigMap of the folder, if any; two, or --configmap-file naming another file, are errors naming them. */
async function theConfigMap(dir: string, configMapFile: string | undefined): Promise<FoundConfigMap | undefined> {
  const found = await findOsImageUrlConfigMaps(dir);
  if (found.length > 1) {
    throw new PayloadError(
      `${dir} holds ${found.length} machine-config-osimageurl ConfigMaps: ${found.map(where).join(', ')}; the payload must ship one: remove the stale one and run again`,
    );
  }
  const cm = found[0];
  if (cm && configMapFile !== undefined && cm.name !== configMapFile) {
    throw new PayloadError(
      `--configmap-file ${configMapFile} names another file, but ${where(cm)} already holds the machine-config-osimageurl ConfigMap; drop --configmap-file (it only names a new file) or rename the file`,
    );
  }
  return cm;
}

/** The explicit value of a planned tag, from the flags. */
export function explicitValue(t: PlannedTag, o: PayloadWriteOptions): string | undefined {
  const os = o.osImage;
  if (t.slot === 'extensions') return o.extensionsImage;
  if (t.slot === 'legacy') return o.legacyOsImage;
  return t.container === 'oscontainer' ? (os ?? o.legacyOsImage) : os;
}

/** How to ask for what a folder lacks (the command's flag). */
export const ADD_MISSING_FLAG = '--add-missing';

/**
 * Flags that have no tag to go to in this folder. `missing` are the tags the folder could be given with
 * {@link ADD_MISSING_FLAG}: an error then names the tag and the flag.
 */
export function checkFlags(
  o: PayloadWriteOptions,
  tags: PlannedTag[],
  generation: Generation,
  refsPath: string,
  missing: PlannedTag[] = [],
): void {
  const os = o.osImage;
  const slots = new Set(tags.map((t) => t.slot));
  if (generation === 'legacy' && o.stream === undefined && os !== undefined && o.legacyOsImage !== undefined) {
    throw new PayloadError('--os-image and --legacy-os-image both name machine-os-content in this legacy folder; give one');
  }
  if (o.extensionsImage !== undefined && !slots.has('extensions')) {
    const lacking = missing.find((t) => t.slot === 'extensions');
    throw new PayloadError(
      lacking
        ? `--extensions-image: ${refsPath} declares no ${lacking.tag} tag (the MCO of this folder reads no extensions image); pass ${ADD_MISSING_FLAG} to add it`
        : `--extensions-image: ${refsPath} has no extensions tag (a folder from before 4.12 has only machine-os-content)`,
    );
  }
  const legacyGoesSomewhere = slots.has('legacy') || (generation === 'legacy' && o.stream === undefined);
  if (o.legacyOsImage !== undefined && !legacyGoesSomewhere) {
    throw new PayloadError(
      `--legacy-os-image: ${o.stream === undefined ? `${refsPath} has no machine-os-content tag (dropped in 2023-09)` : `OS stream ${o.stream} has no machine-os-content`}`,
    );
  }
  if (o.nodeImage) {
    if (tags.some((t) => t.container === 'oscontainer')) {
      throw new PayloadError(
        `--node-image: ${refsPath} has machine-os-content, so it is from before 4.19 (node images are 4.19 and later)`,
      );
    }
    // That both images are given is checked where they are given (commands/os-image-flags.ts).
  }
}

const FLAG_OF: Record<ContainerKey, string> = {
  oscontainer: '--os-image',
  'base-oscontainer': '--os-image',
  'extensions-container': '--extensions-image',
};

export function buildValue(b: BuildSource, t: PlannedTag, generation: Generation): string {
  const flag =
    t.slot === 'legacy' || (generation === 'mixed' && t.container === 'oscontainer') ? '--legacy-os-image' : FLAG_OF[t.container];
  const v = containerImageOf(b, t.container, { manifestList: b.manifestList ?? false });
  if (v === undefined) throw new PayloadError(`RHCOS build ${b.build} has no "${t.container}" in ${b.metaUrl}: pass ${flag}`);
  return v;
}

export async function writePayload(opts: PayloadWriteOptions): Promise<PayloadWriteResult> {
  if (opts.configMapFile !== undefined) checkConfigMapFileName(opts.configMapFile);
  await requireDir(opts.dir);
  const refsPath = join(opts.dir, IMAGE_REFERENCES);
  const refsText = await readTextIfExists(refsPath);
  const before: TagReference[] = refsText === undefined ? [] : parseImageStream(refsText, refsPath).spec.tags;
  const cm = await theConfigMap(opts.dir, opts.configMapFile);
  const cmData = cm ? configMapData(cm.value, cm.path) : undefined;

  const plan = planTags(
    before.map((t) => t.name),
    Object.keys(cmData ?? {}),
    refsPath,
    opts.stream,
  );
  // A new folder gets every tag of its generation; an existing one what it declares, the rest when asked.
  const fresh = refsText === undefined;
  const planned = fresh || opts.addMissing ? inWriteOrder([...plan.tags, ...plan.missing]) : plan.tags;
  const skipped = fresh || opts.addMissing ? [] : plan.missing;
  checkFlags(opts, planned, plan.generation, refsPath, skipped);
  if (planned.length === 0) {
    throw new PayloadError(
      `declares no OS image tag; pass ${ADD_MISSING_FLAG} to add ${skipped.map((t) => t.tag).join(' and ')} (its MCO shipped no OS image, or the tag was removed by hand)`,
      { file: refsPath },
    );
  }

  const needsBuild = planned.filter((t) => explicitValue(t, opts) === undefined);
  const release = cm ? releaseVersionOf(cm.value) : undefined;
  if (release && shipsNodeImage(release) && needsBuild.some((t) => t.container !== 'oscontainer')) {
    throw new PayloadError(
      `${where(cm!)} says release ${release.text}: from 4.19 the payload's ${needsBuild[0]!.tag} is a node image built FROM the release browser's build, not the build's base image; pass --node-image --os-image NODE-IMAGE --extensions-image NODE-EXTENSIONS`,
    );
  }
  let build: BuildSource | undefined;
  if (needsBuild.length > 0) {
    if (!opts.build) throw new PayloadError(`no value for ${needsBuild.map((t) => t.tag).join(', ')}: pass --os-image`);
    build = await opts.build();
  }

  // image-references: each planned tag, in order.
  let refs = refsText;
  const tags: TagWrite[] = planned.map((t) => {
    const explicit = explicitValue(t, opts);
    const pullspec = explicit ?? buildValue(build!, t, plan.generation);
    if (explicit === undefined) requireOsImagePullspec(pullspec, { allowTag: opts.allowTag ?? false });
    const e = setImageReferenceTag(refs, refsPath, t.tag, pullspec);
    refs = e.text;
    const source: TagWrite['source'] = explicit === undefined ? 'build' : 'flag';
    return { ...t, pullspec, source, previous: e.previous, action: e.action };
  });

  // Stale build annotations: machine-os=<id> follows the value written.
  const buildVersions: BuildVersionWrite[] = [];
  for (const t of tags) {
    const old = before.find((b) => b.name === t.tag);
    const previous = old ? machineOsVersionOf(old) : undefined;
    if (previous === undefined) continue;
    const id = t.source === 'build' ? build!.build : opts.buildId;
    if (id === undefined) {
      if (t.previous === t.pullspec) continue; // the image did not change, so neither does its build
      throw new PayloadError(
        `tag ${JSON.stringify(t.tag)} carries ${BUILD_VERSIONS_ANNOTATION} machine-os=${previous}, which would be stale for ${t.pullspec}: pass --build-id with the build id of that image`,
        { file: refsPath },
      );
    }
    if (id === previous) continue;
    refs = setMachineOsVersion(refs!, refsPath, t.tag, id);
    buildVersions.push({ tag: t.tag, previous, value: id });
  }

  const refsOutcome: FileOutcome = {
    path: refsPath,
    action: refsText === undefined ? 'created' : refs === refsText ? 'unchanged' : tags.length === 1 ? tags[0]!.action : 'updated',
    previous: tags[0]!.previous,
  };

  // The ConfigMap: the default stream's keys only.
  const warnings: Warning[] = skipped.map((t) => ({
    code: 'payload-undeclared',
    message: `${refsPath}: declares no ${t.tag} tag, so none is written (pass ${ADD_MISSING_FLAG} to add it)`,
  }));
  const keys: KeyWrite[] = [];
  let cmOutcome: FileOutcome | undefined;
  let cmWrite: AtomicWrite | undefined;
  const createCm = cm === undefined && (fresh || opts.addMissing === true || opts.configMapFile !== undefined);
  if (plan.stream === undefined && cm === undefined && !createCm) {
    warnings.push({
      code: 'payload-undeclared',
      message: `${opts.dir} holds no machine-config-osimageurl ConfigMap, so none is written (pass ${ADD_MISSING_FLAG} to create ${DEFAULT_CONFIGMAP_FILE}, or --configmap-file NAME)`,
    });
  }
  if (plan.stream === undefined && (cm !== undefined || createCm)) {
    const cmPath = cm?.path ?? join(opts.dir, opts.configMapFile ?? DEFAULT_CONFIGMAP_FILE);
    const addKeys = cm === undefined || opts.addMissing === true;
    for (const k of bindKeys(cmData ?? {}, before, tags, cmPath, warnings, addKeys)) keys.push(k);
    const values = Object.fromEntries(keys.map((k) => [k.key, k.value]));
    const cmText = await readTextIfExists(cmPath);
    const e = setConfigMapKeys(cmText, cmPath, values, cm?.document);
    cmOutcome = { path: cmPath, action: e.action, previous: keys[0] ? e.previous[keys[0].key] : undefined };
    if (e.changed) cmWrite = { path: cmPath, data: e.text };
  }

  const writes: AtomicWrite[] = [];
  if (refs !== refsText) writes.push({ path: refsPath, data: refs! });
  if (cmWrite) writes.push(cmWrite);
  if (writes.length > 0) await editFilesAtomic(writes);
  return {
    generation: plan.generation,
    stream: plan.stream,
    pullspec: tags[0]!.pullspec,
    build: build?.build,
    tags,
    keys,
    buildVersions,
    imageReferences: refsOutcome,
    configMap: cmOutcome,
    changed: writes.length > 0,
    warnings,
  };
}

/** Tags in the order they are written: the layered OS image, its extensions, then machine-os-content. */
function inWriteOrder(tags: PlannedTag[]): PlannedTag[] {
  const rank = (t: PlannedTag) => (t.container === 'base-oscontainer' ? 0 : t.container === 'extensions-container' ? 1 : 2);
  return [...tags].sort((a, b) => rank(a) - rank(b));
}

/** The ConfigMap keys to write, in the order a new ConfigMap lists them. */
const KEY_ORDER: OsImageKey[] = [
  'baseOperatingSystemContainer',
  'baseOperatingSystemExtensionsContainer',
  'baseOSContainerImage',
  'baseOSExtensionsContainerImage',
  'osImageURL',
];

/**
 * Each key the ConfigMap declares takes the value of the tag whose current `from.name` is the same text (that
 * is how oc substitutes them); a key matching no tag falls back to the pairing ({@link KEY_TAGS}), with a
 * warning when it held a value. A tag written with no key to take it gets one only when `addKeys` (a new
 * ConfigMap, or asked); otherwise a warning says so. An empty key whose paired tag is not in the folder
 * (`osImageURL: ""` since 2023-09) stays as it is.
 */
function bindKeys(
  data: Record<string, string>,
  before: TagReference[],
  tags: TagWrite[],
  cmPath: string,
  warnings: Warning[],
  addKeys: boolean,
): KeyWrite[] {
  const out: KeyWrite[] = [];
  for (const key of KEY_ORDER) {
    const cur = data[key];
    if (cur === undefined) continue;
    const byText = cur ? before.find((t) => t.from?.name === cur) : undefined;
    if (byText) {
      const w = tags.find((t) => t.tag === byText.name);
      if (w) out.push({ key, tag: w.tag, previous: cur, value: w.pullspec });
      continue; // it belongs to a tag this run does not write
    }
    const w = tags.find((t) => KEY_TAGS[key].includes(t.tag) && !out.some((k) => k.tag === t.tag));
    if (!w) {
      if (cur) {
        warnings.push({
          code: 'osimageurl-unmatched',
          message: `${cmPath}: data.${key} (${cur}) matches no tag of image-references and has no tag to pair with; left as it is`,
        });
      }
      continue;
    }
    if (cur) {
      warnings.push({
        code: 'osimageurl-disagreed',
        message: `${cmPath}: data.${key} (${cur}) matches no tag's from.name in image-references (${w.tag} was ${w.previous ?? 'absent'}): they disagreed; both now say ${w.pullspec}`,
      });
    }
    out.push({ key, tag: w.tag, previous: cur, value: w.pullspec });
  }
  for (const w of tags) {
    if (out.some((k) => k.tag === w.tag)) continue;
    const key = keyForSlot(w.slot, w.container, data);
    if (data[key] !== undefined || out.some((k) => k.key === key)) continue; // declared, and taken by another tag
    if (addKeys) out.push({ key, tag: w.tag, previous: undefined, value: w.pullspec });
    else {
      warnings.push({
        code: 'payload-undeclared',
        message: `${cmPath}: declares no data.${key} for tag ${w.tag}, so none is written (pass ${ADD_MISSING_FLAG} to add it)`,
      });
    }
  }
  return out.sort((a, b) => KEY_ORDER.indexOf(a.key) - KEY_ORDER.indexOf(b.key));
}
