/**
 * A MachineConfig's `spec.config` brought to Ignition spec 3 as the machine-config-operator's
 * ParseAndConvertConfig does it (pkg/controller/common/helpers.go with ignition_converter.go, main branch):
 *
 * 1. The version is read first (config/util.GetConfigVersion): `ignition.version` must parse as go-semver
 *    "X.Y.Z[-pre][+meta]", or the config is refused as an invalid version.
 * 2. 3.0.0 … 3.5.0, exactly, are parsed with that version's types and validated by it (ParseCompatibleVersion
 *    of v3_5 falls through the versions), then translated up version by version to 3.5
 *    (config/v3_x/translate: fields carried over, version bumped).
 * 3. Anything else is tried as spec 2 (config/v2_2 of github.com/coreos/ignition v0.35): 2.2.0, 2.1.0 and
 *    2.0.0 parse (the older two translated to 2.2); every other version, 2.3.0 and 2.4.0 included, is an
 *    unknown version. A spec 2 config then goes through the MCO's duplicate clean-up (spec2.ts), is raised
 *    to 2.3, checked and translated to 3.0 by ign-converter's v23tov30 (not v24tov31: the MCO has never used
 *    that one), validated as 3.0 and translated up to 3.5.
 *
 * Errors carry the MCO's texts, wrapped in a PayloadError that names the source. Validation reports lack the
 * line/column markers Ignition adds from the raw JSON text (see validate3.ts and spec2.ts for what else is left
 * out).
 *
 * By era (the `target` option picks the spec the result is in; the texts stay main's): the MCO produced 3.1
 * from 2020-07, 3.2 from 2020-11, 3.4 from 2023-07 and 3.5 from 2025-03, and accepted 3.x up to that version.
 */
import { PayloadError } from '../errors.js';
import { check23, dedupeForMco, translate23to30 } from './spec2.js';
import { type Minor2, parse2 } from './spec2-types.js';
import { E2, report2, validate2 } from './spec2-validate.js';
import { convert, decode, encode, type GoStruct, type GoType, isStruct, jsonWhat, type Minor3, spec3Types } from './schema.js';
import { isFatal3, report3, validate3 } from './validate3.js';

/** The spec versions the MCO lists in its errors, by the spec it converts to (main: 3.5, with no spaces since 2025-03). */
export function supportedSpecVersions(target: Minor3 = 5): string {
  const versions = ['2.2', ...Array.from({ length: target + 1 }, (_, i) => `3.${i}`)];
  return versions.join(target === 5 ? ',' : ', ');
}

/** A go-semver version (github.com/coreos/go-semver NewVersion), or undefined when it does not parse. */
export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  preRelease: string;
  metadata: string;
}

const IDENT = /^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/;

export function parseGoSemver(s: string): SemVer | undefined {
  let rest = s;
  let metadata = '';
  let preRelease = '';
  const plus = rest.indexOf('+');
  if (plus >= 0) [rest, metadata] = [rest.slice(0, plus), rest.slice(plus + 1)];
  const dash = rest.indexOf('-');
  if (dash >= 0) [rest, preRelease] = [rest.slice(0, dash), rest.slice(dash + 1)];
  const dot1 = rest.indexOf('.');
  const dot2 = dot1 < 0 ? -1 : rest.indexOf('.', dot1 + 1);
  if (dot2 < 0) return undefined;
  if ((preRelease !== '' && !IDENT.test(preRelease)) || (metadata !== '' && !IDENT.test(metadata))) return undefined;
  // strconv.ParseInt(_, 10, 64): an optional sign and decimal digits.
  const parts = [rest.slice(0, dot1), rest.slice(dot1 + 1, dot2), rest.slice(dot2 + 1)].map((p) =>
    /^[+-]?[0-9]+$/.test(p) && Math.abs(Number(p)) <= Number.MAX_SAFE_INTEGER ? Number(p) : undefined,
  );
  if (parts.some((p) => p === undefined)) return undefined;
  const [major, minor, patch] = parts as [number, number, number];
  return { major, minor, patch, preRelease, metadata };
}

const isExactly = (v: SemVer, major: number, minor: number): boolean =>
  v.major === major && v.minor === minor && v.patch === 0 && v.preRelease === '' && v.metadata === '';

/**
 * GetConfigVersion's read of `{"ignition":{"version":…}}` into its untagged versionStub: keys match the Go
 * field names Ignition and Version without regard to case. Returns the version text or encoding/json's error.
 */
function readVersion(config: unknown): { version: string } | { jsonError: string } {
  if (config === null) return { version: '' };
  if (typeof config !== 'object' || Array.isArray(config))
    return { jsonError: `json: cannot unmarshal ${jsonWhat(config)} into Go value of type util.versionStub` };
  let version = '';
  let jsonError: string | undefined;
  // Every key that names the field, whatever its case, is decoded into it in turn.
  const pick = (o: object, name: string) => Object.entries(o).filter(([k]) => k.toLowerCase() === name.toLowerCase());
  for (const [, ign] of pick(config, 'Ignition')) {
    if (ign === null) continue;
    if (typeof ign !== 'object' || Array.isArray(ign)) {
      jsonError ??= `json: cannot unmarshal ${jsonWhat(ign)} into Go struct field versionStub.Ignition of type struct { Version string }`;
      continue;
    }
    for (const [, v] of pick(ign, 'Version')) {
      if (v === null) continue;
      if (typeof v === 'string') version = v;
      else jsonError ??= `json: cannot unmarshal ${jsonWhat(v)} into Go struct field .Ignition.Version of type string`;
    }
  }
  return jsonError === undefined ? { version } : { jsonError };
}

export interface ToSpec3Options {
  /** The spec 3 minor version to produce: 5 (main, the default), 4, 2 or 1 (the MCO's earlier eras). */
  target?: Minor3;
}

/**
 * A MachineConfig's Ignition config (any spec the MCO accepts) in spec 3.<target> (3.5 by default), marshalled
 * as the MCO marshals configs. Throws a PayloadError naming `source`, with the MCO's message, for a config the
 * MCO refuses.
 */
export function toSpec3(config: unknown, source: string, opts: ToSpec3Options = {}): Record<string, unknown> {
  const target = opts.target ?? 5;
  const fail = (message: string): never => {
    throw new PayloadError(message, { file: source });
  };
  const parseFailed = (what: string) =>
    fail(
      `failed to parse Ignition config: parsing Ignition config failed: ${what}. Supported spec versions: ${supportedSpecVersions(target)}`,
    );
  const v3Failed = (report: string) =>
    fail(`failed to parse Ignition config: parsing Ignition config spec v3 failed with error: config is not valid\nReport: ${report}`);

  const read = readVersion(config);
  if ('jsonError' in read) return v3Failed(`error: ${read.jsonError}\n`);
  const version = parseGoSemver(read.version);
  if (version === undefined) return parseFailed('invalid version');

  const minor3 = ([0, 1, 2, 3, 4, 5] as const).find((m) => m <= target && isExactly(version, 3, m));
  if (minor3 !== undefined) {
    const types = spec3Types(minor3);
    const t: GoType = { kind: 'struct', struct: types.config };
    const decoded = decode(config, t);
    if (decoded.typeError !== undefined) return v3Failed(`error: ${decoded.typeError}\n`);
    const value = decoded.value as GoStruct;
    const entries = validate3(value, types.config, minor3, decoded.unused);
    if (isFatal3(entries)) return v3Failed(report3(entries));
    return raise(value, minor3, target);
  }

  const minor2 = ([2, 1, 0] as const).find((m) => isExactly(version, 2, m)) as Minor2 | undefined;
  if (minor2 === undefined) return parseFailed('unknown version');
  const parsed = parse2(config, minor2);
  // A spec 2 config that does not unmarshal makes the v0.35 parser fall back to ever older specs, down to
  // spec 1, which finds no `ignitionVersion` and answers "unsupported config version".
  if (parsed.typeError !== undefined) return parseFailed('unknown version');
  const rpt = validate2(parsed.config, { unused: parsed.unused });
  if (rpt.some((e) => e.kind === 'error')) {
    return fail(`failed to parse Ignition config: parsing Ignition spec v2 failed with error: ${E2.invalid}\nReport: ${report2(rpt)}`);
  }
  const deduped = dedupeForMco(parsed.config);
  if ('error' in deduped) return fail(deduped.error as string);
  const convertFailed = (why: string) =>
    fail(`failed to convert Ignition config spec v2 to v3: unable to convert Ignition spec v2 config to v3: ${why}`);
  const refused = check23(deduped);
  if (refused !== undefined) return convertFailed(refused);
  const v30 = translate23to30(deduped);
  const entries = validate3(v30, spec3Types(0).config, 0);
  if (isFatal3(entries)) return convertFailed(report3(entries));
  return raise(v30, 0, target);
}

/** config/v3_(x+1)/translate from 3.<from> up to 3.<to>, then marshalled. */
function raise(value: GoStruct, from: Minor3, to: Minor3): Record<string, unknown> {
  let v: GoStruct = value;
  for (let m = from; m < to; m++) {
    const next = (m + 1) as Minor3;
    const out = convert(v, { kind: 'struct', struct: spec3Types(m).config }, { kind: 'struct', struct: spec3Types(next).config });
    if (!isStruct(out)) throw new Error('internal: translation lost the config');
    v = out;
  }
  const ignition = v.Ignition;
  if (isStruct(ignition)) v = { ...v, Ignition: { ...ignition, Version: `3.${to}.0` } };
  return encode(v, { kind: 'struct', struct: spec3Types(to).config }) as Record<string, unknown>;
}
