/**
 * The one reader of a `--from-dir`-style folder (`payload check --dir`, `release new --from-dir`): one
 * subfolder per operator, each with its manifests and an optional `image-references` ImageStream.
 *
 * Symbolic links are refused, never followed: a payload is the folder's own bytes, and a link could pull in
 * a file from anywhere on the machine (or point at nothing in a fresh clone). A link inside an operator
 * folder is an error naming it, and so is a link at the top level that points at a folder (it would
 * otherwise be an operator read from elsewhere, or silently skipped). Hidden entries (`.git`) are skipped.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OsimageError, describe } from '../errors.js';
import { IMAGE_REFERENCES, type ImageStream } from '../oci/image-stream.js';
import { parseImageStream } from './image-stream.js';
import { readTextIfExists, requireDir } from '../files/read.js';

export interface OperatorDir {
  /** The operator's folder name. */
  operator: string;
  /** Its image-references file, when it has one. */
  file: string | undefined;
  /** That file, read strictly. */
  references: ImageStream | undefined;
  /** Regular files other than image-references, sorted by name. */
  files: string[];
  /** How many of those are manifests (.yaml, .yml, .json). */
  manifests: number;
}

/** Files that are manifests: `.yaml`, `.yml`, `.json` (any case). */
export function isManifestFile(name: string): boolean {
  return /\.(ya?ml|json)$/i.test(name);
}

async function entriesOf(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw new OsimageError(`${dir}: cannot read: ${describe(err)}`);
  }
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

async function readOperator(dir: string, operator: string): Promise<OperatorDir> {
  const folder = join(dir, operator);
  const entries = (await entriesOf(folder)).filter((e) => !e.name.startsWith('.'));
  const links = entries.filter((e) => e.isSymbolicLink()).map((e) => e.name);
  if (links.length) throw new OsimageError(`${folder}: symbolic links are not copied into a payload: ${links.sort(byName).join(', ')}`);
  const files = entries
    .filter((e) => e.isFile() && e.name !== IMAGE_REFERENCES)
    .map((e) => e.name)
    .sort(byName);
  const file = join(folder, IMAGE_REFERENCES);
  const text = await readTextIfExists(file);
  let references: ImageStream | undefined;
  try {
    if (text !== undefined) references = parseImageStream(text, file);
  } catch (err) {
    throw new OsimageError(`operator ${JSON.stringify(operator)} contained an invalid image-references file: ${describe(err)}`, {
      cause: err,
    });
  }
  return { operator, file: text === undefined ? undefined : file, references, files, manifests: files.filter(isManifestFile).length };
}

/** Read every operator folder of `dir`, sorted by name. A folder without operators is an error. */
export async function readOperatorDirs(dir: string): Promise<OperatorDir[]> {
  await requireDir(dir);
  const operators: string[] = [];
  for (const e of await entriesOf(dir)) {
    if (e.name.startsWith('.')) continue;
    if (e.isDirectory()) operators.push(e.name);
    else if (e.isSymbolicLink() && (await stat(join(dir, e.name)).catch(() => undefined))?.isDirectory()) {
      throw new OsimageError(`${join(dir, e.name)}: a symbolic link to a folder is not read as an operator folder`);
    }
  }
  if (operators.length === 0) throw new OsimageError(`${dir}: holds no operator folders`);
  operators.sort(byName);
  return Promise.all(operators.map((o) => readOperator(dir, o)));
}
