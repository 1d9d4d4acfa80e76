/**
 * `payload check`: would `oc adm release new --from-dir` accept these operators against these input
 * images? Each operator folder's `image-references` names the tags its manifests need; every tag must be
 * a DockerImage tag of the input ImageStream, and no source repository (`from.name`) may be listed twice
 * in one operator. Unlike oc, which stops at the first problem, every problem is reported.
 *
 * The core, {@link checkOperators}, takes parsed values, so the input ImageStream can come from a file
 * or from a release image's `release-manifests/image-references`.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe } from '../errors.js';
import { PayloadError } from './errors.js';
import { dockerImage, IMAGE_REFERENCES, parseImageStream, type ImageStream } from './image-stream.js';
import { readText, readTextIfExists, requireDir } from '../files/read.js';

export interface OperatorReferences {
  /** The operator's folder name. */
  operator: string;
  /** Where its image-references came from (for messages); undefined when it has none. */
  file: string | undefined;
  references: ImageStream | undefined;
  /** Manifest files in the folder (.yaml, .yml, .json). */
  manifests: number;
}

export type ProblemKind = 'missing-tag' | 'duplicate-repository' | 'empty-reference';

export interface Problem {
  operator: string;
  kind: ProblemKind;
  tag: string;
  /** oc's wording. */
  message: string;
}

export interface CheckResult {
  ok: boolean;
  operators: number;
  /** Operators with an image-references file. */
  withReferences: number;
  references: number;
  inputTags: number;
  problems: Problem[];
}

const invalid = (operator: string, inner: string) =>
  `operator ${JSON.stringify(operator)} contained an invalid image-references file: ${inner}`;

/** Check every operator's references against the input images. Pure: no files, no printing. */
export function checkOperators(operators: OperatorReferences[], input: ImageStream): CheckResult {
  const available = new Set(input.tags.filter((t) => dockerImage(t)).map((t) => t.name));
  const problems: Problem[] = [];
  let references = 0;
  const sorted = [...operators].sort((a, b) => (a.operator < b.operator ? -1 : a.operator > b.operator ? 1 : 0));
  for (const op of sorted) {
    if (!op.references) continue;
    const seen = new Map<string, string>();
    for (const tag of op.references.tags) {
      if (tag.from?.kind !== 'DockerImage') continue; // oc maps only DockerImage references
      references++;
      const source = tag.from.name;
      if (source === '') {
        problems.push({
          operator: op.operator,
          kind: 'empty-reference',
          tag: tag.name,
          message: invalid(op.operator, `image ${JSON.stringify(tag.name)} has an empty from.name`),
        });
      } else {
        const first = seen.get(source);
        if (first !== undefined) {
          problems.push({
            operator: op.operator,
            kind: 'duplicate-repository',
            tag: tag.name,
            message: invalid(
              op.operator,
              `the source repository ${JSON.stringify(source)} was defined more than once (for ${JSON.stringify(first)} and ${JSON.stringify(tag.name)})`,
            ),
          });
        } else seen.set(source, tag.name);
      }
      if (!available.has(tag.name)) {
        problems.push({
          operator: op.operator,
          kind: 'missing-tag',
          tag: tag.name,
          message: invalid(op.operator, `no input image tag named ${JSON.stringify(tag.name)}`),
        });
      }
    }
  }
  return {
    ok: problems.length === 0,
    operators: operators.length,
    withReferences: operators.filter((o) => o.references).length,
    references,
    inputTags: available.size,
    problems,
  };
}

const MANIFEST_RE = /\.(ya?ml|json)$/i;

/** Read a `--from-dir`-style folder: one subfolder per operator, each with an optional image-references. */
export async function readOperatorDir(dir: string): Promise<OperatorReferences[]> {
  await requireDir(dir);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw new PayloadError(`cannot read: ${describe(err)}`, { file: dir });
  }
  const ops = entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  if (ops.length === 0) throw new PayloadError('holds no operator folders', { file: dir });
  const out: OperatorReferences[] = [];
  for (const operator of ops) {
    const folder = join(dir, operator);
    const files = await readdir(folder, { withFileTypes: true });
    const manifests = files.filter((f) => f.isFile() && MANIFEST_RE.test(f.name)).length;
    const file = join(folder, IMAGE_REFERENCES);
    const text = await readTextIfExists(file);
    out.push({
      operator,
      file: text === undefined ? undefined : file,
      references: text === undefined ? undefined : parseImageStream(text, file),
      manifests,
    });
  }
  return out;
}

/** Read the input ImageStream file (JSON or YAML). */
export async function readInputImages(file: string): Promise<ImageStream> {
  return parseImageStream(await readText(file), file);
}

/** Read both and check. */
export async function checkPayloadDir(dir: string, imagesFile: string): Promise<CheckResult> {
  const [operators, input] = await Promise.all([readOperatorDir(dir), readInputImages(imagesFile)]);
  return checkOperators(operators, input);
}
