/**
 * `payload check`: would `oc adm release new --from-dir` accept these operators against these input
 * images? Each operator folder's `image-references` names the tags its manifests need; every tag must be
 * a DockerImage tag of the input ImageStream, and no source repository (`from.name`) may be listed twice
 * in one operator. Unlike oc, which stops at the first problem, every problem is reported.
 *
 * The core, {@link checkOperators}, takes parsed values, so the input ImageStream can come from a file
 * or from a release image's `release-manifests/image-references`.
 */
import { join } from 'node:path';
import { dockerImage, IMAGE_REFERENCES, type ImageStream } from '../oci/image-stream.js';
import { readText } from '../files/read.js';
import { parseImageStream } from './image-stream.js';
import { isManifestFile, readOperatorDirs, type OperatorDir } from './operator-dirs.js';
import { osImagePairProblems, type Substitute } from './pairs.js';

/** What the check needs of an operator folder (see operator-dirs.ts for the reader). */
export type OperatorReferences = Pick<OperatorDir, 'operator' | 'file' | 'references' | 'manifests'>;

export type ProblemKind = 'missing-tag' | 'duplicate-repository' | 'empty-reference' | 'os-image-mismatch';

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
  const available = new Set(input.spec.tags.filter((t) => dockerImage(t)).map((t) => t.name));
  const problems: Problem[] = [];
  let references = 0;
  const sorted = [...operators].sort((a, b) => (a.operator < b.operator ? -1 : a.operator > b.operator ? 1 : 0));
  for (const op of sorted) {
    if (!op.references) continue;
    const seen = new Map<string, string>();
    for (const tag of op.references.spec.tags) {
      if (tag.from?.kind !== 'DockerImage') continue; // oc maps only DockerImage references
      references++;
      const source = tag.from.name ?? '';
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

/**
 * The OS image keys of each operator's osimageurl ConfigMap against its image-references, as oc's substitution
 * (`substitute`) would leave them: a key apart from its tag is a problem (see pairs.ts).
 */
export async function checkOsImagePairs(dir: string, operators: OperatorDir[], substitute: Substitute): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const op of operators) {
    if (!op.references) continue;
    for (const file of op.files.filter(isManifestFile)) {
      const path = join(dir, op.operator, file);
      const found = osImagePairProblems(path, await readText(path), join(dir, op.operator, IMAGE_REFERENCES), op.references, substitute);
      for (const p of found) problems.push({ operator: op.operator, kind: 'os-image-mismatch', tag: p.tag, message: p.message });
    }
  }
  return problems;
}

/** A check result with more problems (it is then not ok). */
export function withProblems(result: CheckResult, more: Problem[]): CheckResult {
  if (more.length === 0) return result;
  return { ...result, ok: false, problems: [...result.problems, ...more] };
}

/** Read the input ImageStream file (JSON or YAML). */
export async function readInputImages(file: string): Promise<ImageStream> {
  return parseImageStream(await readText(file), file);
}

/** Read both and check. */
export async function checkPayloadDir(dir: string, imagesFile: string): Promise<CheckResult> {
  const [operators, input] = await Promise.all([readOperatorDirs(dir), readInputImages(imagesFile)]);
  return checkOperators(operators, input);
}
