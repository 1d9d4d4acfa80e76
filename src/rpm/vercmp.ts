/**
 * rpm's version comparison. `rpmvercmp` compares one version or release string as rpm does: the strings are
 * split into runs of digits and runs of ASCII letters (everything else only separates); digit runs compare as
 * numbers (leading zeros ignored) and beat letter runs; letter runs compare byte-wise; `~` sorts before
 * anything, even the end of the string (`1.0~rc1` < `1.0`); `^` sorts after the end but before any further
 * segment (`1.0` < `1.0^git1` < `1.0.1`). `compareEvr` compares epoch (as a number, missing = 0), then
 * version, then release.
 */

export type Order = -1 | 0 | 1;

const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const TILDE = 126;
const CARET = 94;
/** Past the end of a string (charCodeAt gives NaN): compares as no character. */
const END = -1;

export function rpmvercmp(a: string, b: string): Order {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  const at = (s: string, k: number) => (k < s.length ? s.charCodeAt(k) : END);
  const skipSeparators = (s: string, k: number) => {
    while (k < s.length) {
      const c = s.charCodeAt(k);
      if (isDigit(c) || isAlpha(c) || c === TILDE || c === CARET) break;
      k++;
    }
    return k;
  };
  while (i < a.length || j < b.length) {
    i = skipSeparators(a, i);
    j = skipSeparators(b, j);
    const ca = at(a, i);
    const cb = at(b, j);
    if (ca === TILDE || cb === TILDE) {
      if (ca !== TILDE) return 1;
      if (cb !== TILDE) return -1;
      i++;
      j++;
      continue;
    }
    if (ca === CARET || cb === CARET) {
      if (ca === END) return -1;
      if (cb === END) return 1;
      if (ca !== CARET) return 1;
      if (cb !== CARET) return -1;
      i++;
      j++;
      continue;
    }
    if (ca === END || cb === END) break;
    const numeric = isDigit(ca);
    const same = numeric ? isDigit : isAlpha;
    const si = i;
    const sj = j;
    while (i < a.length && same(a.charCodeAt(i))) i++;
    while (j < b.length && same(b.charCodeAt(j))) j++;
    // A digit run against a letter run: the number is newer.
    if (j === sj) return numeric ? 1 : -1;
    let x = a.slice(si, i);
    let y = b.slice(sj, j);
    if (numeric) {
      x = x.replace(/^0+/, '');
      y = y.replace(/^0+/, '');
      if (x.length !== y.length) return x.length > y.length ? 1 : -1;
    }
    if (x !== y) return x > y ? 1 : -1;
  }
  const restA = i < a.length;
  const restB = j < b.length;
  if (!restA && !restB) return 0;
  return restA ? 1 : -1;
}

/** Epoch, version and release of a package; an empty or missing epoch is 0. */
export interface Evr {
  epoch: string;
  version: string;
  release: string;
}

function compareEpoch(a: string, b: string): Order {
  const x = (a || '0').replace(/^0+(?=\d)/, '');
  const y = (b || '0').replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length > y.length ? 1 : -1;
  return x === y ? 0 : x > y ? 1 : -1;
}

export function compareEvr(a: Evr, b: Evr): Order {
  return compareEpoch(a.epoch, b.epoch) || rpmvercmp(a.version, b.version) || rpmvercmp(a.release, b.release);
}

/** `[epoch:]version-release`, the epoch shown only when it is not 0. */
export function formatEvr(e: Evr): string {
  const epoch = e.epoch === '' || /^0+$/.test(e.epoch) ? '' : `${e.epoch}:`;
  return `${epoch}${e.version}-${e.release}`;
}
