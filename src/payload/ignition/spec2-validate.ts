/**
 * Spec 2 validation as github.com/coreos/ignition v0.35 config/validate walks a 2.2 config (and, for
 * ign-converter's Check2_3, the 2.3 form of it), in v0.35's words: `error: cannot set both append and overwrite
 * to true`.
 *
 * Left out: the line, column and excerpt each entry carries when the MCO parses the raw JSON
 * (`error at line 1, column 40`), which a parsed value cannot give back; the parsing of systemd unit contents
 * (Ignition reports `invalid unit content: …` for a unit go-systemd rejects). Spec 2.0 and 2.1 configs are
 * checked with the 2.2 rules after translation, where Ignition checks each version with its own (the same
 * checks, but for 2.0's stricter unmarshalling of paths and hashes).
 */
import { dataUrlError, extOf, isAbsPath, parseUrl, queryHas, queryValueEmpty } from './goutil.js';
import {
  boolv,
  flatFields,
  type GoStruct,
  type GoType,
  type GoValue,
  intv,
  isStruct,
  listv,
  ptrv,
  pstructv,
  structs,
  strv,
  sv,
} from './schema.js';
import { CONFIG_22 } from './spec2-types.js';
import { hasInstallSection, noInstallSection } from './validate3.js';
import { GUID, UNIT_EXTS } from './validate3.js';

// ---- validation (config/v2_2/types, config/v2_3/types) ---------------------------------------------------

export type Kind2 = 'error' | 'warning' | 'info' | 'deprecated';
export interface Entry2 {
  kind: Kind2;
  message: string;
}

/** github.com/coreos/ignition v0.35 config/shared/errors. */
export const E2 = {
  invalid: 'config is not valid',
  appendOverwrite: 'cannot set both append and overwrite to true',
  illegalMode: 'illegal file mode',
  permissionsUnset: 'permissions unset, defaulting to 0000',
  compression: 'invalid compression method',
  noFilesystem: 'no filesystem specified',
  pathRelative: 'path not absolute',
  bothIdAndName: 'cannot set both id and name',
  fsNoMountPath: 'filesystem is missing mount or path',
  fsMountAndPath: 'filesystem has both mount and path defined',
  createAndOpts: 'cannot use both create object and mount-level options field',
  createAndWipe: 'cannot use both create object and wipeFilesystem field',
  createDeprecated: 'the create object has been deprecated in favor of mount-level options',
  fsFormat: 'invalid filesystem format',
  diskDevice: 'disk device is required',
  numbersCollide: 'partition numbers collide',
  overlap: 'partitions overlap',
  misaligned: 'partitions misaligned',
  labelTooLong: 'partition labels may not exceed 36 characters',
  labelColon: 'partition label will be truncated to text before the colon',
  guid: 'doesn\'t match the form "01234567-89AB-CDEF-EDCB-A98765432101"',
  spares: 'spares unsupported for arrays with a level greater than 0',
  raidLevel: 'unrecognized raid level',
  shouldNotExistWithOthers: 'shouldExist specified false with other options also specified',
  unitsMismatch: 'cannot mix MBs and sectors within a disk',
  sizeDeprecated: 'size is deprecated; use sizeMB instead',
  startDeprecated: 'start is deprecated; use startMB instead',
  systemdExt: 'invalid systemd unit extension',
  systemdDropinExt: 'invalid systemd drop-in extension',
  networkdExt: 'invalid networkd unit extension',
  networkdDropinExt: 'invalid networkd drop-in extension',
  scheme: 'invalid url scheme',
  url: 'unable to parse url',
  s3VersionId: 'invalid S3 object VersionId',
  hashMalformed: 'malformed hash specifier',
  hashWrongSize: 'incorrect size for hash sum',
  hashUnrecognized: 'unrecognized hash function',
  passwdCreateDeprecated: 'the create object has been deprecated in favor of user-level options',
} as const;

const CREATE_CONFLICTS: [string, (u: GoStruct) => boolean, string][] = [
  ['Gecos', (u) => strv(u, 'Gecos') !== '', 'gecos'],
  ['Groups', (u) => listv(u, 'Groups').length > 0, 'groups'],
  ['HomeDir', (u) => strv(u, 'HomeDir') !== '', 'homeDir'],
  ['NoCreateHome', (u) => boolv(u, 'NoCreateHome'), 'noCreateHome'],
  ['NoLogInit', (u) => boolv(u, 'NoLogInit'), 'noLogInit'],
  ['NoUserGroup', (u) => boolv(u, 'NoUserGroup'), 'noUserGroup'],
  ['PrimaryGroup', (u) => strv(u, 'PrimaryGroup') !== '', 'primaryGroup'],
  ['Shell', (u) => strv(u, 'Shell') !== '', 'shell'],
  ['System', (u) => boolv(u, 'System'), 'system'],
  ['UID', (u) => ptrv(u, 'UID') !== undefined, 'uid'],
];

/** validateURL of spec 2 ("" is an empty file). */
function validateUrl2(s: string): string | undefined {
  if (s === '') return undefined;
  const u = parseUrl(s);
  if (u === undefined) return E2.url;
  if (['http', 'https', 'oem', 'tftp'].includes(u.scheme)) return undefined;
  if (u.scheme === 's3') return queryHas(u.query, 'versionId') && queryValueEmpty(u.query, 'versionId') ? E2.s3VersionId : undefined;
  if (u.scheme === 'data') return dataUrlError(s);
  return E2.scheme;
}

function hash2(h: string | undefined): string | undefined {
  if (h === undefined) return undefined;
  const dash = h.indexOf('-');
  if (dash < 0) return E2.hashMalformed;
  if (h.slice(0, dash) !== 'sha512') return E2.hashUnrecognized;
  return h.length - dash - 1 !== 128 ? E2.hashWrongSize : undefined;
}

const LABEL_LIMITS: Record<string, [number, string]> = {
  ext4: [16, 'filesystem labels cannot be longer than 16 characters when using ext4'],
  btrfs: [256, 'filesystem labels cannot be longer than 256 characters when using btrfs'],
  xfs: [12, 'filesystem labels cannot be longer than 12 characters when using xfs'],
  swap: [15, 'filesystem labels cannot be longer than 15 characters when using swap'],
  vfat: [11, 'filesystem labels cannot be longer than 11 characters when using vfat'],
};

type Out = (kind: Kind2, message: string | undefined) => void;
interface Rules {
  /** The type's Validate(). */
  self?: (v: GoStruct, out: Out, opts: V2Opts) => void;
  /** Validate<Field>() methods, by Go field name. */
  fields?: Record<string, (v: GoStruct, out: Out, opts: V2Opts) => void>;
}
interface V2Opts {
  /** Check as config/v2_3 does, with the partition shape v2_3.Translate gives a 2.2 partition. */
  spec23: boolean;
}

const nodeRules: Rules['fields'] = {
  Filesystem: (v, out) => out('error', strv(sv(v, 'Node'), 'Filesystem') === '' ? E2.noFilesystem : undefined),
  Path: (v, out) => out('error', isAbsPath(strv(sv(v, 'Node'), 'Path')) ? undefined : E2.pathRelative),
};
const modeRule = (embedded: string) => (v: GoStruct, out: Out) => {
  const mode = ptrv<number>(sv(v, embedded), 'Mode');
  out('error', mode !== undefined && (mode < 0 || mode > 0o7777) ? E2.illegalMode : undefined);
  out('warning', mode === undefined ? E2.permissionsUnset : undefined);
};
const idOrName = (v: GoStruct, out: Out) =>
  out('error', ptrv(v, 'ID') !== undefined && strv(v, 'Name') !== '' ? E2.bothIdAndName : undefined);
const unitExt = (exts: string[], message: string) => (v: GoStruct, out: Out) =>
  out('error', exts.includes(extOf(strv(v, 'Name'))) ? undefined : message);

const RULES2: Record<string, Rules> = {
  Config: {
    self(v, out) {
      const storage = sv(v, 'Storage');
      const names = new Set(['root', ...structs(storage, 'Filesystems').map((x) => strv(x, 'Name'))]);
      for (const [field, what] of [
        ['Files', 'File'],
        ['Links', 'Link'],
        ['Directories', 'Directory'],
      ] as const) {
        for (const x of structs(storage, field)) {
          const n = sv(x, 'Node');
          const fs = strv(n, 'Filesystem');
          if (fs !== '' && !names.has(fs)) {
            out(
              'warning',
              `${what} ${JSON.stringify(strv(n, 'Path'))} references nonexistent filesystem ${JSON.stringify(fs)}. (This is ok if it is defined in a referenced config)`,
            );
          }
        }
      }
      const seen = new Set(['root']);
      for (const x of structs(storage, 'Filesystems')) {
        const name = strv(x, 'Name');
        if (seen.has(name)) out('warning', `Filesystem ${JSON.stringify(name)} shadows exising filesystem definition`);
        seen.add(name);
      }
    },
  },
  ConfigReference: { fields: { Source: (v, out) => out('error', validateUrl2(strv(v, 'Source'))) } },
  CaReference: { fields: { Source: (v, out) => out('error', validateUrl2(strv(v, 'Source'))) } },
  Verification: { self: (v, out) => out('error', hash2(ptrv(v, 'Hash'))) },
  Networkdunit: { self: unitExt(['.link', '.netdev', '.network'], E2.networkdExt) },
  NetworkdDropin: { self: unitExt(['.conf'], E2.networkdDropinExt) },
  PasswdUser: {
    self(v, out) {
      if (pstructv(v, 'Create') === undefined) return;
      out('warning', E2.passwdCreateDeprecated);
      for (const [, set, field] of CREATE_CONFLICTS)
        if (set(v)) out('error', `cannot use both the create object and the user-level ${field} field`);
    },
  },
  NodeUser: { self: idOrName },
  NodeGroup: { self: idOrName },
  File: {
    self(v, out) {
      const overwrite = ptrv<boolean>(sv(v, 'Node'), 'Overwrite');
      out('error', overwrite === true && boolv(sv(v, 'FileEmbedded1'), 'Append') ? E2.appendOverwrite : undefined);
    },
    fields: { ...nodeRules, Mode: modeRule('FileEmbedded1') },
  },
  Directory: { fields: { ...nodeRules, Mode: modeRule('DirectoryEmbedded1') } },
  Link: { fields: nodeRules },
  FileContents: {
    fields: {
      Compression: (v, out) => out('error', ['', 'gzip'].includes(strv(v, 'Compression')) ? undefined : E2.compression),
      Source: (v, out) => out('error', validateUrl2(strv(v, 'Source'))),
    },
  },
  Disk: {
    fields: {
      Device: (v, out) =>
        out('error', strv(v, 'Device') === '' ? E2.diskDevice : isAbsPath(strv(v, 'Device')) ? undefined : E2.pathRelative),
      Partitions(v, out) {
        const parts = structs(v, 'Partitions');
        const numbers = parts.map((p) => intv(p, 'Number')).filter((n) => n !== 0);
        out('error', new Set(numbers).size !== numbers.length ? E2.numbersCollide : undefined);
        const end = (p: GoStruct) => (intv(p, 'Size') === 0 ? intv(p, 'Start') : intv(p, 'Start') + intv(p, 'Size') - 1);
        const overlap = parts.some(
          (p) =>
            intv(p, 'Start') !== 0 &&
            parts.some((o) => {
              if (o === p || intv(o, 'Start') === 0) return false;
              const [ps, pe, os, oe] = [intv(p, 'Start'), end(p), intv(o, 'Start'), end(o)];
              return (ps >= os && ps <= oe) || (pe >= os && pe <= oe) || (ps < os && pe > oe);
            }),
        );
        out('error', overlap ? E2.overlap : undefined);
        out('error', parts.some((p) => (intv(p, 'Start') & 2047) !== 0) ? E2.misaligned : undefined);
      },
    },
  },
  Partition: {
    fields: {
      GUID: (v, out) => out('error', GUID.test(strv(v, 'GUID')) ? undefined : E2.guid),
      Label(v, out) {
        const label = strv(v, 'Label');
        out('error', Buffer.byteLength(label) > 36 ? E2.labelTooLong : undefined);
        out('warning', label.includes(':') ? E2.labelColon : undefined);
      },
      // v2_3.Translate makes a 2.2 partition's size and start pointers, always set: deprecated in 2.3.
      Size: (_v, out, o) => out('deprecated', o.spec23 ? E2.sizeDeprecated : undefined),
      Start: (_v, out, o) => out('deprecated', o.spec23 ? E2.startDeprecated : undefined),
      TypeGUID: (v, out) => out('error', GUID.test(strv(v, 'TypeGUID')) ? undefined : E2.guid),
    },
  },
  Filesystem: {
    self(v, out) {
      const m = pstructv(v, 'Mount');
      const path = ptrv(v, 'Path');
      out('error', m === undefined && path === undefined ? E2.fsNoMountPath : undefined);
      if (m === undefined) return;
      out('error', path !== undefined ? E2.fsMountAndPath : undefined);
      if (pstructv(m, 'Create') === undefined) return;
      out('error', boolv(m, 'WipeFilesystem') ? E2.createAndWipe : undefined);
      out('error', listv(m, 'Options').length > 0 ? E2.createAndOpts : undefined);
      out('warning', E2.createDeprecated);
    },
    fields: {
      Path(v, out) {
        const p = ptrv<string>(v, 'Path');
        out('error', p !== undefined && !isAbsPath(p) ? E2.pathRelative : undefined);
      },
    },
  },
  Mount: {
    self: (v, out) => out('error', ['ext4', 'btrfs', 'xfs', 'swap', 'vfat'].includes(strv(v, 'Format')) ? undefined : E2.fsFormat),
    fields: {
      Device: (v, out) => out('error', isAbsPath(strv(v, 'Device')) ? undefined : E2.pathRelative),
      Label(v, out) {
        const label = ptrv<string>(v, 'Label');
        const limit = LABEL_LIMITS[strv(v, 'Format')];
        out('error', label !== undefined && limit !== undefined && Buffer.byteLength(label) > limit[0] ? limit[1] : undefined);
      },
    },
  },
  Raid: {
    fields: {
      Devices(v, out) {
        for (const d of listv(v, 'Devices')) out('error', isAbsPath(String(d)) ? undefined : E2.pathRelative);
      },
      Level(v, out) {
        const level = strv(v, 'Level');
        if (['linear', 'raid0', '0', 'stripe'].includes(level)) out('error', intv(v, 'Spares') !== 0 ? E2.spares : undefined);
        else if (!['raid1', '1', 'mirror', 'raid4', '4', 'raid5', '5', 'raid6', '6', 'raid10', '10'].includes(level))
          out('error', E2.raidLevel);
      },
    },
  },
  Unit: {
    fields: {
      Contents(v, out) {
        const contents = strv(v, 'Contents');
        const enabled = boolv(v, 'Enable') || ptrv(v, 'Enabled') === true;
        out('warning', enabled && contents !== '' && !hasInstallSection(contents) ? noInstallSection(strv(v, 'Name')) : undefined);
      },
      Name: unitExt(UNIT_EXTS, E2.systemdExt),
    },
  },
  SystemdDropin: { self: unitExt(['.conf'], E2.systemdDropinExt) },
};

/**
 * config/validate.Validate of v0.35 on a 2.2 config: each struct's Validate (its fields not visited when that
 * is fatal), then per field its Validate<Field> method (the struct's own or one promoted from an embedded
 * struct) and the field's value; after the fields, the keys of the JSON object no field took.
 */
export function validate2(config: GoStruct, opts: { spec23?: boolean; unused?: Map<string, string[]> } = {}): Entry2[] {
  const entries: Entry2[] = [];
  const o: V2Opts = { spec23: opts.spec23 ?? false };
  const walk = (v: GoValue | undefined, t: GoType, at: (string | number)[]) => {
    if (t.kind === 'slice') {
      for (const [i, item] of (Array.isArray(v) ? v : []).entries()) walk(item, t.elem, [...at, i]);
      return;
    }
    if ((t.kind !== 'struct' && t.kind !== 'ptrStruct') || !isStruct(v)) return;
    const s = t.struct;
    const own: Entry2[] = [];
    const out: Out = (kind, message) => {
      if (message !== undefined) own.push({ kind, message });
    };
    RULES2[s.name]?.self?.(v, out, o);
    entries.push(...own);
    if (own.some((e) => e.kind === 'error')) return;
    for (const { def, via } of flatFields(s)) {
      // File, Directory and Link list Node's promoted methods among their own.
      const method = RULES2[s.name]?.fields?.[def.go];
      const fieldOut: Out = (kind, message) => {
        if (message !== undefined) entries.push({ kind, message });
      };
      method?.(v, fieldOut, o);
      let holder: GoStruct = v;
      for (const g of via) holder = sv(holder, g);
      walk(holder[def.go], def.type, [...at, def.json]);
    }
    for (const key of opts.unused?.get(at.join('.')) ?? []) {
      entries.push({ kind: 'warning', message: `Config has unrecognized key: ${key}` });
      const similar = flatFields(s).find((x) => x.def.json.toLowerCase() === key.toLowerCase());
      if (similar !== undefined) entries.push({ kind: 'info', message: `Did you mean ${similar.def.json} instead of ${key}` });
    }
  };
  walk(config, { kind: 'struct', struct: CONFIG_22 }, []);
  return entries;
}

/** v0.35's Report.String(): entries joined by newlines (the position-less form of each). */
export const report2 = (entries: readonly Entry2[]): string => entries.map((e) => `${e.kind}: ${e.message}`).join('\n');
