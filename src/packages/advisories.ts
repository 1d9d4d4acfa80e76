/**
 * meta.json `advisories-diff`: the errata that a build's package changes fix, as rpm-ostree's
 * `db diff --advisories` lists them: `[id, kind, severity, [nevra…], {cve_references: [{title, url}]}]`.
 * Read leniently beyond the id (older builds differ), strictly on the id.
 */
import { OsimageError } from '../errors.js';

export interface Advisory {
  id: string;
  /** `Critical`, `Important`, `Moderate`, `Low`, or null when the build does not say. */
  severity: string | null;
  packages: string[];
  cves: string[];
}

const SEVERITY = ['None', 'Low', 'Moderate', 'Important', 'Critical'];
const MAX_ADVISORIES = 5000;
const ID = /^[A-Za-z0-9_.:-]{1,100}$/;

export function parseAdvisories(meta: Record<string, unknown>, url: string): Advisory[] {
  const list = meta['advisories-diff'];
  if (list === undefined || list === null) return [];
  const bad = (why: string) => new OsimageError(`invalid meta.json at ${url}: ${why}`, { code: 'invalid-input' });
  if (!Array.isArray(list)) throw bad('"advisories-diff" must be a list');
  if (list.length > MAX_ADVISORIES) throw bad(`"advisories-diff" lists more than ${MAX_ADVISORIES} advisories`);
  return list.map((e, i): Advisory => {
    if (!Array.isArray(e) || typeof e[0] !== 'string' || !ID.test(e[0]))
      throw bad(`advisories-diff[${i}]: expected [id, kind, severity, packages, refs]`);
    const sev = typeof e[2] === 'number' ? (SEVERITY[e[2]] ?? null) : null;
    const packages = Array.isArray(e[3]) ? e[3].filter((p): p is string => typeof p === 'string' && /^[\x21-\x7e]{1,300}$/.test(p)) : [];
    const refs = e[4] && typeof e[4] === 'object' ? (e[4] as { cve_references?: unknown }).cve_references : undefined;
    const cves = Array.isArray(refs)
      ? refs
          .map((r) => (r && typeof r === 'object' ? (r as { title?: unknown }).title : undefined))
          .filter((t): t is string => typeof t === 'string' && /^CVE-\d{4}-\d{1,10}$/.test(t))
      : [];
    return { id: e[0], severity: sev === 'None' ? null : sev, packages, cves };
  });
}
