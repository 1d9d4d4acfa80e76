/**
 * A build's package list: commitmeta.json `rpmostree.rpmdb.pkglist` (`[name, epoch, version, release, arch]`,
 * epoch a string, "0" when none) and meta.json `extensions.manifest` (name → `[epoch:]version-release.arch`).
 * Every entry is checked; one bad entry fails the list with a one-line error naming the URL and the index.
 */
import { OsimageError } from '../errors.js';
import { fieldProblem, parseEvrArch, type Package } from './package.js';

/** commitmeta.json is a few MB on real builds (it carries the whole rpmdb list); refuse anything far beyond. */
export const MAX_COMMITMETA_BYTES = 16 * 1024 * 1024;
/** More packages than any OS tree has. */
export const MAX_PACKAGES = 20_000;

export const PKGLIST_KEY = 'rpmostree.rpmdb.pkglist';
const FIELDS = ['name', 'epoch', 'version', 'release', 'arch'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(url: string, why: string): OsimageError {
  return new OsimageError(`invalid commitmeta.json at ${url}: ${why}`, { code: 'invalid-input' });
}

/** The pkglist of a commitmeta.json document. */
export function parsePkglist(doc: unknown, url: string): Package[] {
  if (!isObject(doc)) throw invalid(url, 'expected a JSON object');
  const list = doc[PKGLIST_KEY];
  if (list === undefined) throw invalid(url, `no "${PKGLIST_KEY}" (is this a coreos-assembler build?)`);
  if (!Array.isArray(list)) throw invalid(url, `"${PKGLIST_KEY}" must be a list`);
  if (list.length > MAX_PACKAGES)
    throw invalid(url, `"${PKGLIST_KEY}" lists ${list.length} packages, more than the ${MAX_PACKAGES} allowed`);
  return list.map((e, i): Package => {
    if (!Array.isArray(e) || e.length !== 5) throw invalid(url, `${PKGLIST_KEY}[${i}]: expected [name, epoch, version, release, arch]`);
    for (const [k, f] of FIELDS.entries()) {
      const problem = fieldProblem(f, e[k]);
      if (problem !== null) throw invalid(url, `${PKGLIST_KEY}[${i}]: ${problem}`);
    }
    const [name, epoch, version, release, arch] = e as string[];
    return { name: name!, epoch: epoch!, version: version!, release: release!, arch: arch!, extension: false };
  });
}

/** meta.json `extensions.manifest`, as packages marked `extension`; none when the build has no extensions. */
export function parseExtensions(meta: Record<string, unknown>, url: string): Package[] {
  const ext = meta.extensions;
  if (ext === undefined || ext === null) return [];
  const bad = (why: string) => new OsimageError(`invalid meta.json at ${url}: ${why}`, { code: 'invalid-input' });
  if (!isObject(ext)) throw bad('"extensions" must be an object');
  const manifest = ext.manifest;
  if (manifest === undefined || manifest === null) return [];
  if (!isObject(manifest)) throw bad('"extensions.manifest" must be an object');
  const entries = Object.entries(manifest);
  if (entries.length > MAX_PACKAGES) throw bad(`"extensions.manifest" lists more than ${MAX_PACKAGES} packages`);
  return entries.map(([name, value]): Package => {
    const problem = fieldProblem('name', name);
    if (problem !== null) throw bad(`extensions.manifest: ${problem}`);
    const parsed = typeof value === 'string' ? parseEvrArch(value) : null;
    if (parsed === null) {
      throw bad(`extensions.manifest["${name}"]: expected "[epoch:]version-release.arch", got ${JSON.stringify(value).slice(0, 80)}`);
    }
    return { name, ...parsed, extension: true };
  });
}
