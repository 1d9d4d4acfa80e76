/**
 * The fast path of `release new --from-release`: keep the input release's own payload files where a full
 * rebuild (oc's: every operator image's /manifests read again) would give the same bytes, and read only the
 * operator images whose files can change.
 *
 * An operator's payload files are its manifests with the pullspecs of the tags it references substituted and
 * `0.0.1-snapshot[-component]` replaced by versions. With the same release name and the same operator image,
 * its files can change only where the input holds the old pullspec of a changed tag or an old version value of
 * a component a changed tag carries: a file holding neither cannot change. Each file that does is traced to its
 * operator (by name), that operator's image is read, and its files are rebuilt twice: with the input's
 * image-references they must give the input's bytes exactly (which proves the file is that operator's and the
 * input was built this way), and with the new ones they give the output. Pruning must also come out the same:
 * every tag must be an operator's, kept by --include or the base tag, or shown referenced by an operator (its
 * pullspec substituted into some file). Whenever any of this cannot be shown, the caller rebuilds in full.
 */
import { OsimageError } from '../../errors.js';
import { IMAGE_REFERENCES, type ImageStream, type TagReference } from '../../oci/image-stream.js';
import { ANNOTATION_DISPLAY_NAMES, ANNOTATION_VERSIONS, parseComponentVersions } from '../references.js';
import { RELEASE_METADATA } from '../info.js';
import { buildOperatorFiles, type OperatorFileOptions, type OperatorSource, type PayloadFile } from './assemble.js';
import { readComponentConfigs, type ComponentImage, type OpenComponent } from './components.js';
import type { InputRelease } from './release-input.js';

export interface ReuseInput {
  input: InputRelease;
  /** The new ImageStream (overrides applied, annotations from the images' labels), before pruning. */
  stream: ImageStream;
  inputName: string;
  version: string;
  images: Map<string, ComponentImage>;
  excluded: boolean;
  /** Tags kept whatever references them (--include, the base tag). */
  include: Set<string>;
  /** Tags this run maps (TAG=PULLSPEC or the OS swap). */
  overridden: Set<string>;
  /** Reads these operators' manifests (once each); returns every operator read so far. */
  readOperators(names: string[]): Promise<Map<string, OperatorSource>>;
  /** Reads only these operators' image-references: the tags each references. */
  readReferences(images: ComponentImage[]): Promise<Array<Set<string>>>;
  open: OpenComponent;
  filterByOs: string | undefined;
  fileOptions: OperatorFileOptions;
}

export interface ReusePlan {
  /** The payload's operator files (everything but image-references and release-metadata), when reuse holds. */
  files?: PayloadFile[];
  /** The tags a full rebuild keeps (the others are pruned), when reuse holds. */
  keep?: Set<string>;
  /** Why the payload must be rebuilt in full. */
  reason?: string;
}

const pullspecOf = (t: TagReference | undefined) => (t?.from?.kind === 'DockerImage' ? (t.from.name ?? '') : '');

function versionsOf(t: TagReference | undefined): Map<string, { version: string }> {
  const label = t?.annotations?.[ANNOTATION_VERSIONS] ?? '';
  return parseComponentVersions(label, t?.annotations?.[ANNOTATION_DISPLAY_NAMES] ?? '');
}

const sameVersions = (a: TagReference | undefined, b: TagReference | undefined) =>
  (a?.annotations?.[ANNOTATION_VERSIONS] ?? '') === (b?.annotations?.[ANNOTATION_VERSIONS] ?? '') &&
  (a?.annotations?.[ANNOTATION_DISPLAY_NAMES] ?? '') === (b?.annotations?.[ANNOTATION_DISPLAY_NAMES] ?? '');

/**
 * Operators a payload file may have come from, by its name, most likely first: `0000_50_<tag>_…` (oc's prefix),
 * then the tag in the name, then the tag without `cluster-` and `-operator` (`0000_80_machine-config_…`).
 */
export function candidateOperators(file: string, operators: string[]): string[][] {
  const short = (op: string) => op.replace(/^cluster-/, '').replace(/-operator$/, '');
  const prefixed = operators.filter((op) => file.startsWith(`0000_50_${op}_`));
  const named = operators.filter((op) => !prefixed.includes(op) && file.includes(op));
  const shortly = operators.filter(
    (op) => !prefixed.includes(op) && !named.includes(op) && short(op).length >= 3 && file.includes(short(op)),
  );
  return [prefixed, named, shortly].filter((g) => g.length > 0);
}

export async function planReuse(r: ReuseInput): Promise<ReusePlan> {
  try {
    return await plan(r);
  } catch (err) {
    // Anything the rebuild of a traced operator throws is thrown again by the full rebuild, in its words.
    if (err instanceof OsimageError) return { reason: err.message };
    throw err;
  }
}

async function plan(r: ReuseInput): Promise<ReusePlan> {
  if (r.excluded) return { reason: '--exclude changes which images the operators can reference' };
  if (r.version.replace(/\+.*$/, '') !== r.inputName.replace(/\+.*$/, '')) {
    return { reason: 'the release name changes, and with it every 0.0.1-snapshot in the manifests' };
  }
  const oldByName = new Map(r.input.stream.spec.tags.map((t) => [t.name, t]));
  const operators = [...r.images.values()].filter((i) => i.operator).map((i) => i.tag);
  // oc reads every layer of an overridden operator, and writes its files twice.
  const op = operators.find((o) => r.overridden.has(o));
  if (op) return { reason: `operator image ${op} is given as a mapping` };

  // Tags whose image or versions change.
  const changed: TagReference[] = [];
  // New tags: no file can hold them yet, unless an operator of the input referenced a tag it lacked (checked below).
  const added: string[] = [];
  const movedFrom: Array<{ tag: string; pullspec: string }> = [];
  for (const t of r.stream.spec.tags) {
    const old = oldByName.get(t.name);
    if (!old) {
      if (r.images.get(t.name)?.operator) return { reason: `tag ${t.name} is a new operator image` };
      added.push(t.name);
      continue;
    }
    const moved = pullspecOf(old) !== pullspecOf(t);
    if (!moved && sameVersions(old, t)) continue;
    if (moved) {
      if (r.images.get(t.name)?.operator) return { reason: `operator image ${t.name} changes` };
      if (pullspecOf(old)) movedFrom.push({ tag: t.name, pullspec: pullspecOf(old) });
    }
    changed.push(t);
  }
  // An image that was an operator and is replaced by one that is not takes its manifests out of the payload.
  const before = await readComponentConfigs(movedFrom, r.open, r.filterByOs);
  for (const img of before.values()) if (img.operator) return { reason: `tag ${img.tag} was an operator image` };

  // The strings whose presence in a payload file means the file may change.
  const needles = new Set<string>(movedFrom.map((m) => m.pullspec));
  const components = new Set<string>();
  for (const t of changed) {
    for (const k of versionsOf(oldByName.get(t.name)).keys()) components.add(k);
    for (const k of versionsOf(t).keys()) components.add(k);
  }
  for (const old of r.input.stream.spec.tags) {
    for (const [k, v] of versionsOf(old)) if (components.has(k) && v.version) needles.add(v.version);
  }
  const texts = r.input.files.map((f) => ({ file: f, text: f.data.toString('latin1') }));
  const touched = texts.filter(({ text }) => [...needles].some((n) => text.includes(n))).map(({ file }) => file.name);

  // Trace each touched file to an operator: read the likeliest operators first, then the next likeliest for the
  // files still untraced. Every operator read must give the input's files exactly from the input's image-references.
  const inputFiles = new Map(r.input.files.map((f) => [f.name, f.data]));
  const oldMetadata = { kind: 'cincinnati-metadata-v0' as const, version: r.inputName, previous: [] };
  const tried = new Set<string>();
  const traced = new Set<string>();
  let read = new Map<string, OperatorSource>();
  while (touched.some((n) => !traced.has(n))) {
    const wanted = new Set<string>();
    for (const name of touched.filter((n) => !traced.has(n))) {
      const groups = candidateOperators(name, operators).map((g) => g.filter((op) => !tried.has(op)));
      const next = groups.find((g) => g.length > 0);
      if (!next) return { reason: `no operator read gives ${name}` };
      for (const op of next) wanted.add(op);
    }
    read = await r.readOperators([...wanted]);
    const ops = [...wanted].sort().map((n) => read.get(n)!);
    for (const op of wanted) tried.add(op);
    const oldFiles = await buildOperatorFiles(
      { ...r.fileOptions, metadata: oldMetadata, skipManifestCheck: true },
      ops.filter((op) => op.files.length > 0),
      r.input.stream,
    );
    for (const f of oldFiles) {
      if (!inputFiles.get(f.name)?.equals(f.data)) return { reason: `the release's ${f.name} is not what ${f.source} gives` };
      traced.add(f.name);
    }
  }
  const ops = [...tried].sort().map((n) => read.get(n)!);

  // Pruning: every tag kept for a reason a full rebuild also sees. A tag whose pullspec some payload file holds
  // is referenced (an operator's substitution put it there); for any other, every operator's image-references is
  // read (only that entry of each top layer), which settles pruning exactly.
  const joined = texts.map((t) => t.text).join('\n');
  const referenced = new Set<string>();
  for (const op of read.values()) for (const t of op.references?.spec.tags ?? []) referenced.add(t.name);
  const kept = (t: TagReference) => r.images.get(t.name)?.operator || r.include.has(t.name) || referenced.has(t.name);
  const unshown = r.stream.spec.tags.filter((t) => {
    if (kept(t)) return false;
    const shown = pullspecOf(oldByName.get(t.name));
    return !shown || !joined.includes(shown);
  });
  let keep = new Set(r.stream.spec.tags.map((t) => t.name));
  if (unshown.length > 0) {
    const rest = [...r.images.values()].filter((i) => i.operator && !read.has(i.tag));
    const refs = await r.readReferences(rest);
    for (const [i, names] of refs.entries()) {
      const missing = added.find((n) => names.has(n));
      // Its files were built without that tag (--allow-missing-images): they change now.
      if (missing) return { reason: `operator ${rest[i]!.tag} references the new tag ${missing}` };
      for (const n of names) referenced.add(n);
    }
    keep = new Set(r.stream.spec.tags.filter((t) => kept(t)).map((t) => t.name));
  }

  const newFiles = await buildOperatorFiles(
    r.fileOptions,
    ops.filter((op) => op.files.length > 0),
    r.stream,
  );
  const replaced = new Map(newFiles.map((f) => [f.name, f]));
  if (replaced.size !== traced.size || [...replaced.keys()].some((n) => !traced.has(n))) {
    return { reason: 'the rebuilt operators give other file names' };
  }
  // The kept files are not checked as manifests again: they are the release's own, checked when it was built
  // (a full rebuild checks the operators' files, and refuses a release built with --skip-manifest-check).
  const files = r.input.files
    .filter((f) => f.name !== IMAGE_REFERENCES && f.name !== RELEASE_METADATA)
    .map((f) => replaced.get(f.name) ?? { name: f.name, data: f.data, mtime: f.mtime });
  return { files, keep };
}
