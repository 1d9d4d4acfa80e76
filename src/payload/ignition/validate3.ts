/**
 * Ignition spec 3 validation as config/validate.ValidateWithContext runs it (github.com/coreos/ignition/v2,
 * the copy the machine-config-operator vendors): first every type's Validate method, walking the config depth
 * first in field order (embedded structs' fields promoted), then the duplicate check of every keyed list
 * (ValidateDups), then, when the config came from JSON, a warning for each key no field took. The result is a
 * report in vcontext's words: one `error at $.storage.files.0.path: path not absolute` a line, each ending in
 * a newline.
 *
 * Left out: systemd unit contents are not parsed (Ignition reports `invalid unit content: …` for a unit the
 * go-systemd parser rejects), the instantiated-unit warning of Systemd.Validate, and the line/column markers
 * Ignition adds when it has the raw JSON text (`, line 1 col 123`), which a parsed value no longer carries.
 */
import { cleanPath, dataUrlError, extOf, isAbsPath, joinPath, parseUrl, queryHas, queryValueEmpty } from './goutil.js';
import {
  flatFields,
  type GoStruct,
  type GoType,
  type GoValue,
  intv,
  isFalse,
  isStruct,
  isTrue,
  listv,
  type Minor3,
  nilOrEmpty,
  ptrv,
  pstructv,
  type StructDef,
  structs,
  strv,
  sv,
} from './schema.js';

export type Path3 = (string | number)[];
export interface Entry3 {
  kind: 'error' | 'warning';
  path: Path3;
  message: string;
}

/** config/shared/errors, the texts spec 3 validation reports. */
export const E3 = {
  duplicate: 'duplicate entry defined',
  invalidVersion: "invalid config version (couldn't parse)",
  unknownVersion: 'unsupported config version',
  compression: 'invalid compression method',
  fileUsedSymlink: 'file path includes link in config',
  directoryUsedSymlink: 'directory path includes link in config',
  linkUsedSymlink: 'link path includes link in config',
  linkTargetRequired: 'link target is required',
  hardLinkToDirectory: 'hard link target is a directory',
  hardLinkOwner: 'user/group ignored for hard link',
  diskDeviceRequired: 'disk device is required',
  partitionNumbersCollide: 'partition numbers collide',
  partitionsOverlap: 'partitions overlap',
  overwriteNilSource: 'overwrite must be false if source is unspecified',
  verificationNilSource: 'source must be specified if verification is specified',
  fsFormat: 'invalid filesystem format',
  labelNeedsFormat: 'filesystem must specify format if label is specified',
  formatNilWithOthers: 'format cannot be empty when path, label, uuid, wipeFilesystem, options, or mountOptions is specified',
  luksLabelTooLong: 'luks device labels cannot be longer than 47 characters',
  luksNameSlash: 'device names cannot contain slashes',
  luksKeyFile: 'invalid key-file source',
  clevisPinRequired: 'missing required custom clevis pin',
  clevisUnknownPin: 'unsupported clevis pin',
  clevisConfigRequired: 'missing required custom clevis config',
  clevisCustomWithOthers: 'cannot use custom clevis config with tpm2, tang, or threshold',
  tangThumbprint: 'thumbprint is required',
  tangAdvertisement: 'advertisement is not valid JSON',
  illegalMode: 'illegal file mode',
  modeSpecialBits: 'setuid/setgid/sticky bits are not supported or functional in spec versions older than 3.6.0',
  bothIdAndName: 'cannot set both id and name',
  labelTooLong: 'partition labels may not exceed 36 characters',
  guid: 'doesn\'t match the form "01234567-89AB-CDEF-EDCB-A98765432101"',
  labelColon: 'partition label will be truncated to text before the colon',
  noPath: 'path not specified',
  pathRelative: 'path not absolute',
  dirtyPath: 'path is not fully simplified',
  partitionsOverwritten: 'filesystem overwrites partitioned device',
  implicitWipe: 'device matches disk with wipeTable enabled; filesystem will be wiped',
  raidLevelRequired: 'raid level is required',
  sparesUnsupported: 'spares unsupported for linear and raid0 arrays',
  raidLevel: 'unrecognized raid level',
  raidDevicesRequired: 'raid devices required',
  shouldNotExistWithOthers: 'shouldExist specified false with other options also specified',
  zeroesWithShouldNotExist: 'shouldExist is false for a partition and other partition(s) has start or size 0',
  needLabelOrNumber: 'a partition number >= 1 or a label must be specified',
  duplicateLabels: 'cannot use the same partition label twice',
  invalidProxy: 'proxies must be http(s)',
  insecureProxy: 'insecure plaintext HTTP proxy specified for HTTPS resources',
  pathConflictsSystemd: 'path conflicts with systemd unit or dropin',
  cexWithClevis: 'cannot use cex with clevis',
  cexWithKeyFile: 'cannot use key file with cex',
  systemdExt: 'invalid systemd unit extension',
  dropinExt: 'invalid systemd drop-in extension',
  sourceRequired: 'source is required',
  scheme: 'invalid url scheme',
  url: 'unable to parse url',
  httpHeader: 'unable to parse HTTP header',
  emptyHeaderName: "HTTP header name can't be empty",
  headersScheme: 'cannot use HTTP headers with this source scheme',
  hashMalformed: 'malformed hash specifier',
  hashWrongSize: 'incorrect size for hash sum',
  hashUnrecognized: 'unrecognized hash function',
  s3Arn: 'invalid S3 ARN format',
  s3VersionId: 'invalid S3 object VersionId',
} as const;

/** vcontext's Report.String(): each entry on its own line, newline-terminated. */
export function report3(entries: readonly Entry3[]): string {
  return entries.map((e) => `${e.kind}${e.path.length > 0 ? ` at $.${e.path.join('.')}` : ''}: ${e.message}\n`).join('');
}

export const isFatal3 = (entries: readonly Entry3[]): boolean => entries.some((e) => e.kind === 'error');

// ---- shared checks --------------------------------------------------------------------------------------

export function validatePath3(p: string): string | undefined {
  if (p === '') return E3.noPath;
  if (!isAbsPath(p)) return E3.pathRelative;
  if (cleanPath(p) !== p) return E3.dirtyPath;
  return undefined;
}

/** validateURL of spec 3.<minor>. */
export function validateUrl3(s: string, minor: Minor3): string | undefined {
  const u = parseUrl(s);
  if (u === undefined) return E3.url;
  const schemes = ['http', 'https', 'tftp', ...(minor >= 2 ? ['gs'] : [])];
  if (schemes.includes(u.scheme)) return undefined;
  if (u.scheme === 's3') return queryHas(u.query, 'versionId') && queryValueEmpty(u.query, 'versionId') ? E3.s3VersionId : undefined;
  if (u.scheme === 'arn' && minor >= 4) {
    const parts = `arn:${u.opaque}`.split(':');
    if (parts.length < 6 || parts[2] !== 's3') return E3.s3Arn;
    const resource = parts.slice(5).join(':');
    if (resource.startsWith('accesspoint/') ? resource.split('/').length < 3 : !resource.includes('/')) return E3.s3Arn;
    return queryHas(u.query, 'versionId') && queryValueEmpty(u.query, 'versionId') ? E3.s3VersionId : undefined;
  }
  if (u.scheme === 'data') return dataUrlError(s);
  return E3.scheme;
}

const urlNilOk = (s: string | undefined, minor: Minor3): string | undefined => (nilOrEmpty(s) ? undefined : validateUrl3(s!, minor));

function validateMode(m: number | undefined): string | undefined {
  return m !== undefined && (m < 0 || m > 0o7777) ? E3.illegalMode : undefined;
}
const specialBits = (m: number | undefined): string | undefined => (m !== undefined && (m >>> 0) & 0o7000 ? E3.modeSpecialBits : undefined);

/** A GPT GUID as Ignition checks it (empty allowed); spec 2 and 3 share it. */
export const GUID = /^(|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})$/;
const validateGuid = (g: string | undefined): string | undefined => (g !== undefined && !GUID.test(g) ? E3.guid : undefined);

/** The unit file suffixes Ignition accepts for a unit name; spec 2 and 3 share them. */
export const UNIT_EXTS = [
  '.service',
  '.socket',
  '.device',
  '.mount',
  '.automount',
  '.swap',
  '.target',
  '.path',
  '.timer',
  '.snapshot',
  '.slice',
  '.scope',
];
const FS_FORMATS = ['ext4', 'btrfs', 'xfs', 'swap', 'vfat'];
const RAID_LEVELS = ['raid1', '1', 'mirror', 'raid4', '4', 'raid5', '5', 'raid6', '6', 'raid10', '10'];

/**
 * Whether a unit's text sets an option in its [Install] section: ValidateInstallSection looks among the options
 * go-systemd parses, so an empty [Install] section does not count. (Line continuations are not followed.)
 */
export function hasInstallSection(contents: string): boolean {
  let section = '';
  for (const raw of contents.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[') && line.endsWith(']')) section = line.slice(1, -1);
    else if (section === 'Install' && line.includes('=')) return true;
  }
  return false;
}

export const noInstallSection = (name: string): string =>
  `unit ${JSON.stringify(name)} is enabled, but has no install section so enable does nothing`;

// ---- the Validate methods, by Go type name --------------------------------------------------------------

type Add = (kind: 'error' | 'warning', path: Path3, message: string | undefined) => void;
type Validator = (v: GoStruct, c: Path3, add: Add, minor: Minor3) => void;

function hashCheck(hash: string | undefined, minor: Minor3): string | undefined {
  if (hash === undefined) return undefined;
  const dash = hash.indexOf('-');
  if (dash < 0) return E3.hashMalformed;
  const fn = hash.slice(0, dash);
  const sum = hash.slice(dash + 1);
  const size = fn === 'sha512' ? 64 : fn === 'sha256' && minor >= 1 ? 32 : undefined;
  if (size === undefined) return E3.hashUnrecognized;
  return sum.length !== size * 2 ? E3.hashWrongSize : undefined;
}

function nodeChecks(v: GoStruct, c: Path3, add: Add): void {
  add('error', [...c, 'path'], validatePath3(strv(sv(v, 'Node'), 'Path')));
}

function resourceChecks(v: GoStruct, c: Path3, add: Add, minor: Minor3): void {
  const compression = ptrv<string>(v, 'Compression');
  add(
    'error',
    [...c, 'compression'],
    compression !== undefined && compression !== '' && compression !== 'gzip' ? E3.compression : undefined,
  );
  const source = ptrv<string>(v, 'Source');
  add(
    'error',
    [...c, 'verification', 'hash'],
    ptrv(sv(v, 'Verification'), 'Hash') !== undefined && source === undefined ? E3.verificationNilSource : undefined,
  );
  add('error', [...c, 'source'], urlNilOk(source, minor));
  if (minor >= 1 && listv(v, 'HTTPHeaders').length > 0) {
    let err: string | undefined;
    if (nilOrEmpty(source)) err = E3.url;
    else {
      const u = parseUrl(source!);
      err = u === undefined ? E3.url : u.scheme === 'http' || u.scheme === 'https' ? undefined : E3.headersScheme;
    }
    add('error', [...c, 'httpHeaders'], err);
  }
}

/** Resource.validateRequiredSource. */
function requiredSource(v: GoStruct, minor: Minor3): string | undefined {
  const source = ptrv<string>(v, 'Source');
  return nilOrEmpty(source) ? E3.sourceRequired : validateUrl3(source!, minor);
}

function proxyUrl(s: string | undefined, c: Path3, add: Add, httpOk: boolean): void {
  if (s === undefined) return;
  const u = parseUrl(s);
  if (u === undefined) add('error', c, E3.url);
  else if (u.scheme !== 'https' && u.scheme !== 'http') add('error', c, E3.invalidProxy);
  else if (u.scheme === 'http' && !httpOk) add('warning', c, E3.insecureProxy);
}

function partitionEnd(p: GoStruct): number {
  const size = ptrv<number>(p, 'SizeMiB')!;
  const start = ptrv<number>(p, 'StartMiB')!;
  return size === 0 ? start : start + size - 1;
}

const VALIDATORS: Record<string, Validator> = {
  Config(v, c, add) {
    const unitPaths = new Set<string>();
    for (const unit of structs(sv(v, 'Systemd'), 'Units')) {
      const name = strv(unit, 'Name');
      if (!nilOrEmpty(ptrv(unit, 'Contents'))) unitPaths.add(`/etc/systemd/system/${name}`);
      for (const d of structs(unit, 'Dropins'))
        if (!nilOrEmpty(ptrv(d, 'Contents'))) unitPaths.add(`/etc/systemd/system/${name}.d/${strv(d, 'Name')}`);
    }
    const storage = sv(v, 'Storage');
    for (const [field, json] of [
      ['Files', 'files'],
      ['Directories', 'directories'],
      ['Links', 'links'],
    ] as const) {
      structs(storage, field).forEach((n, i) => {
        add('error', [...c, 'storage', json, i, 'path'], unitPaths.has(strv(sv(n, 'Node'), 'Path')) ? E3.pathConflictsSystemd : undefined);
      });
    }
  },
  IgnitionConfig(v, c, add, minor) {
    if (minor < 1) return;
    for (const [i, r] of structs(v, 'Merge').entries()) add('error', [...c, 'merge', i], requiredSource(r, minor));
  },
  ConfigReference(v, c, add, minor) {
    add('error', [...c, 'source'], urlNilOk(ptrv(v, 'Source'), minor));
  },
  CaReference(v, c, add, minor) {
    add('error', [...c, 'source'], validateUrl3(strv(v, 'Source'), minor));
  },
  FileContents: resourceChecks,
  Resource: resourceChecks,
  HTTPHeader(v, c, add) {
    add('error', [...c, 'name'], strv(v, 'Name') === '' ? E3.emptyHeaderName : undefined);
    add('error', [...c, 'value'], ptrv(v, 'Value') === '' ? E3.httpHeader : undefined);
  },
  Proxy(v, c, add) {
    proxyUrl(ptrv(v, 'HTTPProxy'), [...c, 'httpProxy'], add, true);
    proxyUrl(ptrv(v, 'HTTPSProxy'), [...c, 'httpsProxy'], add, false);
  },
  TLS(v, c, add, minor) {
    if (minor < 1) return;
    for (const [i, r] of structs(v, 'CertificateAuthorities').entries())
      add('error', [...c, 'certificateAuthorities', i], requiredSource(r, minor));
  },
  Verification(v, c, add, minor) {
    add('error', [...c, 'hash'], hashCheck(ptrv(v, 'Hash'), minor));
  },
  NodeUser(v, c, add) {
    add('error', c, ptrv(v, 'ID') !== undefined && !nilOrEmpty(ptrv(v, 'Name')) ? E3.bothIdAndName : undefined);
  },
  NodeGroup(v, c, add) {
    add('error', c, ptrv(v, 'ID') !== undefined && !nilOrEmpty(ptrv(v, 'Name')) ? E3.bothIdAndName : undefined);
  },
  Directory(v, c, add) {
    nodeChecks(v, c, add);
    const mode = ptrv<number>(sv(v, 'DirectoryEmbedded1'), 'Mode');
    add('error', [...c, 'mode'], validateMode(mode));
    add('warning', [...c, 'mode'], specialBits(mode));
  },
  File(v, c, add) {
    nodeChecks(v, c, add);
    const embedded = sv(v, 'FileEmbedded1');
    const mode = ptrv<number>(embedded, 'Mode');
    add('error', [...c, 'mode'], validateMode(mode));
    add('warning', [...c, 'mode'], specialBits(mode));
    const overwrite = ptrv<boolean>(sv(v, 'Node'), 'Overwrite');
    add(
      'error',
      [...c, 'overwrite'],
      isTrue(overwrite) && ptrv(sv(embedded, 'Contents'), 'Source') === undefined ? E3.overwriteNilSource : undefined,
    );
  },
  // Link has no Validate of its own: Node's is promoted to it.
  Link(v, c, add) {
    nodeChecks(v, c, add);
  },
  Storage(v, c, add, minor) {
    const links = structs(v, 'Links');
    const linkPaths = links.map((l) => strv(sv(l, 'Node'), 'Path'));
    const under = (p: string) => linkPaths.filter((l) => p.startsWith(`${l}/`));
    structs(v, 'Directories').forEach((d, i) => {
      for (const _ of under(strv(sv(d, 'Node'), 'Path'))) add('error', [...c, 'directories', i], E3.directoryUsedSymlink);
    });
    structs(v, 'Files').forEach((f, i) => {
      for (const _ of under(strv(sv(f, 'Node'), 'Path'))) add('error', [...c, 'files', i], E3.fileUsedSymlink);
    });
    const dirPaths = structs(v, 'Directories').map((d) => strv(sv(d, 'Node'), 'Path'));
    links.forEach((l, i) => {
      const node = sv(l, 'Node');
      const p = strv(node, 'Path');
      for (const _ of under(p)) add('error', [...c, 'links', i], E3.linkUsedSymlink);
      const embedded = sv(l, 'LinkEmbedded1');
      const rawTarget = embedded.Target;
      const target = typeof rawTarget === 'string' ? rawTarget : undefined;
      if (minor >= 3 && nilOrEmpty(target)) {
        add('error', [...c, 'links', i, 'target'], E3.linkTargetRequired);
        return;
      }
      if (!isTrue(ptrv(embedded, 'Hard'))) return;
      let resolved = cleanPath(target ?? '');
      if (!isAbsPath(resolved)) resolved = joinPath(p, target ?? '');
      for (const d of dirPaths) if (d === resolved) add('error', [...c, 'links', i], E3.hardLinkToDirectory);
      const owner = (ok: boolean, at: Path3) => add('warning', at, ok ? undefined : E3.hardLinkOwner);
      owner(ptrv(sv(node, 'User'), 'ID') === undefined, [...c, 'links', i, 'user', 'id']);
      owner(ptrv(sv(node, 'User'), 'Name') === undefined, [...c, 'links', i, 'user', 'name']);
      owner(ptrv(sv(node, 'Group'), 'ID') === undefined, [...c, 'links', i, 'group', 'id']);
      owner(ptrv(sv(node, 'Group'), 'Name') === undefined, [...c, 'links', i, 'group', 'name']);
    });
    const disks = new Map(structs(v, 'Disks').map((d) => [strv(d, 'Device'), d]));
    structs(v, 'Filesystems').forEach((fs, i) => {
      const disk = disks.get(strv(fs, 'Device'));
      if (disk === undefined) return;
      if (listv(disk, 'Partitions').length > 0) add('warning', [...c, 'filesystems', i, 'device'], E3.partitionsOverwritten);
      else if (!isTrue(ptrv(fs, 'WipeFilesystem')) && isTrue(ptrv(disk, 'WipeTable')))
        add('warning', [...c, 'filesystems', i, 'device'], E3.implicitWipe);
    });
  },
  Disk(v, c, add) {
    const device = strv(v, 'Device');
    if (device === '') return add('error', [...c, 'device'], E3.diskDeviceRequired);
    add('error', [...c, 'device'], validatePath3(device));
    const parts = structs(v, 'Partitions');
    // Go ranges over a map here; with one collision (the usual case) the index is the second holder's.
    const byNumber = new Map<number, number[]>();
    parts.forEach((p, i) => {
      const n = intv(p, 'Number');
      if (n !== 0) byNumber.set(n, [...(byNumber.get(n) ?? []), i]);
    });
    const collision = [...byNumber.values()].find((xs) => xs.length > 1);
    if (collision !== undefined) add('error', [...c, 'partitions', collision[1]!], E3.partitionNumbersCollide);
    const overlap = partitionsOverlap(parts);
    if (overlap !== undefined) add('error', [...c, 'partitions', overlap], E3.partitionsOverlap);
    if (parts.some((p) => intv(p, 'Number') === 0) && parts.some((p) => isFalse(ptrv(p, 'ShouldExist')))) {
      add('error', [...c, 'partitions'], E3.zeroesWithShouldNotExist);
    }
    const labels = new Set<string>();
    for (const [i, p] of parts.entries()) {
      const label = ptrv<string>(p, 'Label');
      if (label === undefined) continue;
      if (labels.has(label)) {
        add('error', [...c, 'partitions', i], E3.duplicateLabels);
        break;
      }
      labels.add(label);
    }
  },
  Partition(v, c, add) {
    const label = ptrv<string>(v, 'Label');
    const shouldNot =
      isFalse(ptrv(v, 'ShouldExist')) &&
      (label !== undefined ||
        !nilOrEmpty(ptrv(v, 'TypeGUID')) ||
        !nilOrEmpty(ptrv(v, 'GUID')) ||
        ptrv(v, 'StartMiB') !== undefined ||
        ptrv(v, 'SizeMiB') !== undefined);
    add('error', c, shouldNot ? E3.shouldNotExistWithOthers : undefined);
    add('error', c, intv(v, 'Number') === 0 && label === undefined ? E3.needLabelOrNumber : undefined);
    add(
      'error',
      [...c, 'label'],
      label === undefined ? undefined : Buffer.byteLength(label) > 36 ? E3.labelTooLong : label.includes(':') ? E3.labelColon : undefined,
    );
    add('error', [...c, 'guid'], validateGuid(ptrv(v, 'GUID')));
    add('error', [...c, 'typeGuid'], validateGuid(ptrv(v, 'TypeGUID')));
  },
  Filesystem(v, c, add, minor) {
    const path = ptrv<string>(v, 'Path');
    add('error', [...c, 'path'], nilOrEmpty(path) ? undefined : validatePath3(path!));
    add('error', [...c, 'device'], validatePath3(strv(v, 'Device')));
    const format = ptrv<string>(v, 'Format');
    const label = ptrv<string>(v, 'Label');
    let formatErr: string | undefined;
    if (nilOrEmpty(format)) {
      const others =
        !nilOrEmpty(path) ||
        !nilOrEmpty(label) ||
        !nilOrEmpty(ptrv(v, 'UUID')) ||
        isTrue(ptrv(v, 'WipeFilesystem')) ||
        (minor >= 1 && listv(v, 'MountOptions').length > 0) ||
        listv(v, 'Options').length > 0;
      if (others) formatErr = E3.formatNilWithOthers;
    } else if (![...FS_FORMATS, ...(minor >= 3 ? ['none'] : [])].includes(format!)) formatErr = E3.fsFormat;
    add('error', [...c, 'format'], formatErr);
    let labelErr: string | undefined;
    if (!nilOrEmpty(label)) {
      const max: Record<string, [number, string]> = {
        ext4: [16, 'filesystem labels cannot be longer than 16 characters when using ext4'],
        btrfs: [256, 'filesystem labels cannot be longer than 256 characters when using btrfs'],
        xfs: [12, 'filesystem labels cannot be longer than 12 characters when using xfs'],
        swap: [15, 'filesystem labels cannot be longer than 15 characters when using swap'],
        vfat: [11, 'filesystem labels cannot be longer than 11 characters when using vfat'],
      };
      if (nilOrEmpty(format)) labelErr = E3.labelNeedsFormat;
      else {
        const limit = max[format!];
        if (limit !== undefined && Buffer.byteLength(label!) > limit[0]) labelErr = limit[1];
      }
    }
    add('error', [...c, 'label'], labelErr);
  },
  Raid(v, c, add, minor) {
    const raw = v.Level;
    const level = typeof raw === 'string' ? raw : undefined;
    let err: string | undefined;
    if (minor >= 3 && nilOrEmpty(level)) err = E3.raidLevelRequired;
    else if (['linear', 'raid0', '0', 'stripe'].includes(level ?? '')) {
      const spares = ptrv<number>(v, 'Spares');
      if (spares !== undefined && spares !== 0) err = E3.sparesUnsupported;
    } else if (!RAID_LEVELS.includes(level ?? '')) err = E3.raidLevel;
    add('error', [...c, 'level'], err);
    add('error', [...c, 'devices'], listv(v, 'Devices').length === 0 ? E3.raidDevicesRequired : undefined);
  },
  Luks(v, c, add, minor) {
    const name = strv(v, 'Name');
    add('error', [...c, 'name'], name.includes('/') ? E3.luksNameSlash : undefined);
    const label = ptrv<string>(v, 'Label');
    add('error', [...c, 'label'], !nilOrEmpty(label) && Buffer.byteLength(label!) > 47 ? E3.luksLabelTooLong : undefined);
    const device = ptrv<string>(v, 'Device');
    add('error', [...c, 'device'], nilOrEmpty(device) ? E3.diskDeviceRequired : validatePath3(device!));
    const clevis = pstructv(v, 'Clevis');
    const custom = clevis === undefined ? undefined : pstructv(clevis, 'Custom');
    const pin = custom === undefined ? undefined : typeof custom.Pin === 'string' ? custom.Pin : undefined;
    const threshold = clevis === undefined ? undefined : ptrv<number>(clevis, 'Threshold');
    const tangs = clevis === undefined ? 0 : listv(clevis, 'Tang').length;
    const tpm2 = clevis === undefined ? false : isTrue(ptrv(clevis, 'Tpm2'));
    // Spec 3.2 asks whether a custom block is there at all, later specs whether it names a pin.
    const customSet = minor === 2 ? custom !== undefined : !nilOrEmpty(pin);
    add(
      'error',
      [...c, 'clevis'],
      customSet && (tangs > 0 || tpm2 || (threshold !== undefined && threshold !== 0)) ? E3.clevisCustomWithOthers : undefined,
    );
    add('error', [...c, 'keys'], urlNilOk(ptrv(sv(v, 'KeyFile'), 'Source'), minor) === undefined ? undefined : E3.luksKeyFile);
    if (minor >= 5) {
      const cex = isTrue(ptrv(sv(v, 'Cex'), 'Enabled'));
      const clevisPresent = !nilOrEmpty(pin) || tangs > 0 || tpm2 || (threshold !== undefined && threshold !== 0);
      add('error', [...c, 'cex'], clevisPresent && cex ? E3.cexWithClevis : undefined);
      add('error', [...c, 'cex'], cex && !nilOrEmpty(ptrv(sv(v, 'KeyFile'), 'Source')) ? E3.cexWithKeyFile : undefined);
    }
  },
  ClevisCustom: clevisCustom,
  Custom: clevisCustom,
  Tang(v, c, add, minor) {
    const u = parseUrl(strv(v, 'URL'));
    add('error', [...c, 'url'], u === undefined ? E3.url : u.scheme === 'http' || u.scheme === 'https' ? undefined : E3.scheme);
    add('error', [...c, 'thumbprint'], nilOrEmpty(ptrv(v, 'Thumbprint')) ? E3.tangThumbprint : undefined);
    if (minor >= 4) {
      const adv = ptrv<string>(v, 'Advertisement');
      let bad = false;
      if (!nilOrEmpty(adv)) {
        try {
          JSON.parse(adv!);
        } catch {
          bad = true;
        }
      }
      add('error', [...c, 'advertisement'], bad ? E3.tangAdvertisement : undefined);
    }
  },
  Unit(v, c, add) {
    const name = strv(v, 'Name');
    add('error', [...c, 'name'], UNIT_EXTS.includes(extOf(name)) ? undefined : E3.systemdExt);
    const contents = ptrv<string>(v, 'Contents');
    const warn = isTrue(ptrv(v, 'Enabled')) && !nilOrEmpty(contents) && !hasInstallSection(contents!);
    add('warning', [...c, 'contents'], warn ? noInstallSection(name) : undefined);
  },
  Dropin(v, c, add) {
    add('error', [...c, 'name'], extOf(strv(v, 'Name')) === '.conf' ? undefined : E3.dropinExt);
  },
};

function clevisCustom(v: GoStruct, c: Path3, add: Add): void {
  const str = (k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const pin = str('Pin');
  const config = str('Config');
  if (nilOrEmpty(pin) && nilOrEmpty(config) && !isTrue(ptrv(v, 'NeedsNetwork'))) return;
  if (!nilOrEmpty(pin)) add('error', [...c, 'pin'], ['tpm2', 'tang', 'sss'].includes(pin!) ? undefined : E3.clevisUnknownPin);
  else add('error', [...c, 'pin'], E3.clevisPinRequired);
  add('error', [...c, 'config'], nilOrEmpty(config) ? E3.clevisConfigRequired : undefined);
}

function partitionsOverlap(parts: GoStruct[]): number | undefined {
  const sized = (p: GoStruct) => ptrv(p, 'StartMiB') !== undefined && ptrv(p, 'SizeMiB') !== undefined && ptrv(p, 'StartMiB') !== 0;
  for (const p of parts) {
    if (!sized(p)) continue;
    const ps = ptrv<number>(p, 'StartMiB')!;
    const pe = partitionEnd(p);
    for (const [i, o] of parts.entries()) {
      if (!sized(o) || o === p) continue;
      const os = ptrv<number>(o, 'StartMiB')!;
      const oe = partitionEnd(o);
      if ((ps >= os && ps <= oe) || (pe >= os && pe <= oe) || (ps < os && pe > oe)) return i;
    }
  }
  return undefined;
}

// ---- the walks ------------------------------------------------------------------------------------------

/** validate.Validate with the default validator: each struct's Validate, then its fields in order. */
function walkValidate(v: GoValue | undefined, t: GoType, c: Path3, add: Add, minor: Minor3): void {
  if (t.kind === 'scalar') {
    // types.Device (raid devices) validates itself as a path.
    if (t.named === 'Device' && typeof v === 'string') add('error', c, validatePath3(v));
    return;
  }
  if (t.kind === 'slice') {
    for (const [i, item] of (Array.isArray(v) ? v : []).entries()) walkValidate(item, t.elem, [...c, i], add, minor);
    return;
  }
  if (t.kind === 'ptr' || !isStruct(v)) return;
  VALIDATORS[t.struct.name]?.(v, c, add, minor);
  walkStructFields(v, t.struct, c, (fv, ft, fc) => walkValidate(fv, ft, fc, add, minor));
}

function walkStructFields(v: GoStruct, s: StructDef, c: Path3, visit: (v: GoValue | undefined, t: GoType, c: Path3) => void): void {
  for (const { def, via } of flatFields(s)) {
    let holder: GoStruct = v;
    for (const g of via) holder = sv(holder, g);
    visit(holder[def.go], def.type, [...c, def.json]);
  }
}

/** ValidateDups: in every struct, a second list entry with a key already seen in its key space is an error. */
function walkDups(v: GoValue | undefined, t: GoType, c: Path3, add: Add): void {
  if (t.kind === 'slice') {
    for (const [i, item] of (Array.isArray(v) ? v : []).entries()) walkDups(item, t.elem, [...c, i], add);
    return;
  }
  if ((t.kind !== 'struct' && t.kind !== 'ptrStruct') || !isStruct(v)) return;
  const s = t.struct;
  const seen = new Map<string, Set<string>>();
  for (const { def, via } of flatFields(s)) {
    if (def.type.kind !== 'slice' || s.ignoreDups?.has(def.go)) continue;
    let holder: GoStruct = v;
    for (const g of via) holder = sv(holder, g);
    const handle = s.mergedKeys?.[def.go] ?? def.go;
    const keys = seen.get(handle) ?? new Set<string>();
    seen.set(handle, keys);
    const elem = def.type.elem;
    listv(holder, def.go).forEach((item, i) => {
      const key = elem.kind === 'struct' && isStruct(item) ? (elem.struct.key?.(item) ?? '') : String(item);
      if (keys.has(key)) add('error', [...c, def.json, i], E3.duplicate);
      keys.add(key);
    });
  }
  walkStructFields(v, s, c, (fv, ft, fc) => walkDups(fv, ft, fc, add));
}

/**
 * The report ValidateWithContext makes of a spec 3.<minor> config; `unused` are the JSON keys the decoder left
 * (pass them only for a config read from JSON: Ignition checks them only when it has the raw text).
 */
export function validate3(config: GoStruct, def: StructDef, minor: Minor3, unused: readonly Path3[] = []): Entry3[] {
  const entries: Entry3[] = [];
  const add: Add = (kind, path, message) => {
    if (message !== undefined) entries.push({ kind, path, message });
  };
  const t: GoType = { kind: 'struct', struct: def };
  walkValidate(config, t, [], add, minor);
  walkDups(config, t, [], add);
  for (const p of unused) entries.push({ kind: 'warning', path: p, message: `unused key ${String(p[p.length - 1])}` });
  return entries;
}
