/**
 * Semantic versions as strictly as oc reads them (github.com/blang/semver `Parse`, the parser oc uses for
 * component versions, `--name`, `--previous` and `--next`), with its error texts word for word: oc's
 * messages end with them (`must have a valid semantic version: Invalid character(s) found in patch number
 * "20190325.0"`). No leading `v` or `=`, no spaces, no leading zeroes, exactly MAJOR.MINOR.PATCH, then
 * `-PRERELEASE` and `+BUILD` of [0-9A-Za-z-] identifiers. (npm's semver accepts `v4.13.1` and says nothing
 * about why a version fails, so it is not used for these.)
 */

export interface Semver {
  /** Decimal digits without leading zeroes, at most 2^64-1 (as strings: no precision is lost). */
  major: string;
  minor: string;
  patch: string;
  /** Prerelease identifiers: digits-only ones are numbers. */
  pre: string[];
  build: string[];
}

export type Parsed = { version: Semver; error?: undefined } | { version?: undefined; error: string };

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const MAX_UINT64 = '18446744073709551615';

const q = (s: string) => JSON.stringify(s);
const hasLeadingZeroes = (s: string) => s.length > 1 && s[0] === '0';

/** Go's strconv.ParseUint(s, 10, 64) of a string of digits: its error text, or undefined when it fits. */
function parseUintError(s: string): string | undefined {
  if (s === '') return `strconv.ParseUint: parsing ${q(s)}: invalid syntax`;
  if (s.length > MAX_UINT64.length || (s.length === MAX_UINT64.length && s > MAX_UINT64))
    return `strconv.ParseUint: parsing ${q(s)}: value out of range`;
  return undefined;
}

/** A numeric part (major, minor, patch): blang's checks in blang's order. */
function numberError(s: string, what: 'major' | 'minor' | 'patch', title: string): string | undefined {
  if (!NUMBERS.test(s)) return `Invalid character(s) found in ${what} number ${q(s)}`;
  if (hasLeadingZeroes(s)) return `${title} number must not contain leading zeroes ${q(s)}`;
  return parseUintError(s);
}

function prereleaseError(s: string): string | undefined {
  if (s === '') return 'Prerelease is empty';
  if (NUMBERS.test(s)) {
    if (hasLeadingZeroes(s)) return `Numeric PreRelease version must not contain leading zeroes ${q(s)}`;
    return parseUintError(s);
  }
  if (!ALPHANUM.test(s)) return `Invalid character(s) found in prerelease ${q(s)}`;
  return undefined;
}

/** Parse `text` as blang/semver's Parse does: the version, or blang's error text. */
export function parse(text: string): Parsed {
  if (text === '') return { error: 'Version string empty' };
  const first = text.indexOf('.');
  const second = first < 0 ? -1 : text.indexOf('.', first + 1);
  if (second < 0) return { error: 'No Major.Minor.Patch elements found' };
  const major = text.slice(0, first);
  const minor = text.slice(first + 1, second);
  let patch = text.slice(second + 1);
  const err = numberError(major, 'major', 'Major') ?? numberError(minor, 'minor', 'Minor');
  if (err !== undefined) return { error: err };
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patch.indexOf('+');
  if (plus >= 0) {
    build = patch.slice(plus + 1).split('.');
    patch = patch.slice(0, plus);
  }
  const dash = patch.indexOf('-');
  if (dash >= 0) {
    pre = patch.slice(dash + 1).split('.');
    patch = patch.slice(0, dash);
  }
  const rest = numberError(patch, 'patch', 'Patch') ?? pre.map(prereleaseError).find((e) => e !== undefined);
  if (rest !== undefined) return { error: rest };
  for (const b of build) {
    if (b === '') return { error: 'Build meta data is empty' };
    if (!ALPHANUM.test(b)) return { error: `Invalid character(s) found in build meta data ${q(b)}` };
  }
  return { version: { major, minor, patch, pre, build } };
}

/** The version as blang prints it (`Version.String()`); `build: false` leaves out the build metadata. */
export function format(v: Semver, opts: { build?: boolean } = {}): string {
  const pre = v.pre.length > 0 ? `-${v.pre.join('.')}` : '';
  const build = opts.build !== false && v.build.length > 0 ? `+${v.build.join('.')}` : '';
  return `${v.major}.${v.minor}.${v.patch}${pre}${build}`;
}

const isNumber = (s: string) => NUMBERS.test(s);

/** Two digit strings without leading zeroes, as numbers. */
function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Semantic-version precedence (blang's `Compare`): build metadata is ignored. */
export function compare(a: Semver, b: Semver): number {
  const core = compareDigits(a.major, b.major) || compareDigits(a.minor, b.minor) || compareDigits(a.patch, b.patch);
  if (core !== 0) return core;
  // A version without a prerelease ranks above one with.
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const [x, y] = [a.pre[i]!, b.pre[i]!];
    const c = isNumber(x) && isNumber(y) ? compareDigits(x, y) : isNumber(x) ? -1 : isNumber(y) ? 1 : x < y ? -1 : x > y ? 1 : 0;
    if (c !== 0) return c;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}
