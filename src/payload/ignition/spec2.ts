/**
 * The road of a spec 2 config to spec 3 in the machine-config-operator, after parsing (spec2-types.ts) and
 * validation (spec2-validate.ts): the MCO's duplicate clean-up (removeIgnDuplicateFilesUnitsUsers in
 * pkg/controller/common/helpers.go), then github.com/coreos/ign-converter translate/v23tov30 with the filesystem
 * map {"root": "/"} on the config raised to 2.3 (config/v2_3.Translate): its Check2_3, then its Translate to 3.0.
 */
import { joinPath } from './goutil.js';
import { boolv, type GoStruct, type GoValue, intv, listv, ptrv, pstructv, structs, strv, sv, zeroStruct } from './schema.js';
import { mountType } from './spec2-types.js';
import { report2, validate2 } from './spec2-validate.js';

const nonEmptyOrNull = <T>(xs: T[]): T[] | null => (xs.length === 0 ? null : xs);

// ---- the MCO's clean-up (pkg/controller/common/helpers.go removeIgnDuplicateFilesUnitsUsers) -------------

/**
 * Spec 3 and the converter refuse what a spec 2 config may repeat, so the MCO keeps the last file of each path
 * and the last unit of each name (adding the dropins of the earlier ones whose names it lacks), which reverses
 * both lists; it allows only the user `core`, and merges all its entries' SSH keys into one, last entry's
 * keys first, duplicates dropped.
 */
export function dedupeForMco(config: GoStruct): GoStruct | { error: string } {
  const storage = sv(config, 'Storage');
  const systemd = sv(config, 'Systemd');
  const passwd = sv(config, 'Passwd');

  const seenPaths = new Set<string>();
  const files: GoStruct[] = [];
  for (const file of structs(storage, 'Files').reverse()) {
    const p = strv(sv(file, 'Node'), 'Path');
    if (seenPaths.has(p)) continue;
    files.push(file);
    seenPaths.add(p);
  }

  const units: GoStruct[] = [];
  for (const unit of structs(systemd, 'Units').reverse()) {
    const name = strv(unit, 'Name');
    const kept = units.find((u) => strv(u, 'Name') === name);
    if (kept === undefined) {
      units.push({ ...unit });
      continue;
    }
    for (const dropin of structs(unit, 'Dropins')) {
      const have = structs(kept, 'Dropins');
      if (!have.some((d) => strv(d, 'Name') === strv(dropin, 'Name'))) kept.Dropins = [...have, dropin];
    }
  }

  let users = passwd.Users;
  const all = structs(passwd, 'Users');
  if (all.length > 0) {
    const last = all[all.length - 1]!;
    const unexpected = (name: string) => ({ error: `unexpected user with name: ${name}. Only core user is supported` });
    if (strv(last, 'Name') !== 'core') return unexpected(strv(last, 'Name'));
    const keys = [...listv(last, 'SSHAuthorizedKeys')];
    for (const u of all.slice(0, -1).reverse()) {
      if (strv(u, 'Name') !== 'core') return unexpected(strv(u, 'Name'));
      keys.push(...listv(u, 'SSHAuthorizedKeys'));
    }
    users = [{ ...last, SSHAuthorizedKeys: [...new Set(keys.map(String))] }];
  }

  return {
    ...config,
    Storage: { ...storage, Files: nonEmptyOrNull(files) },
    Systemd: { ...systemd, Units: nonEmptyOrNull(units) },
    Passwd: { ...passwd, Users: users ?? null },
  };
}

// ---- ign-converter translate/v23tov30 --------------------------------------------------------------------

/** The filesystem map the MCO passes: only the root filesystem, mounted at /. */
const FS_MAP: ReadonlyMap<string, string> = new Map([['root', '/']]);
const fsPath = (name: string): string => FS_MAP.get(name) ?? '';

/** ign-converter util's error texts. */
export const CONVERTER = {
  networkd: 'config includes deprecated networkd section - use Files instead',
  noFilesystem: (name: string) =>
    `Config defined filesystem ${JSON.stringify(name)} but no mapping was defined.Please specify a path to be used as the filesystem mountpoint.`,
  duplicateInode: (old: string, next: string) =>
    `Config has conflicting inodes: ${JSON.stringify(old)} and ${JSON.stringify(next)}.  All files, directories and links must specify a unique \`path\`.`,
  usesOwnLink: (name: string, link: string) =>
    `${name} uses link defined in config ${JSON.stringify(link)}. Please use a link not defined in Storage:Links`,
  duplicateUnit: (name: string) => `Config has duplicate unit name ${JSON.stringify(name)}.  All units must specify a unique \`name\`.`,
  duplicateDropin: (unit: string, name: string) =>
    `Config has duplicate dropin name ${JSON.stringify(name)} in unit ${JSON.stringify(unit)}.  All dropins must specify a unique \`name\`.`,
} as const;

/** Check2_3: whether the converter accepts the config (its 2.3 form), or the error it returns. */
export function check23(config: GoStruct): string | undefined {
  const rpt = validate2(config, { spec23: true });
  if (rpt.some((e) => e.kind === 'error' || e.kind === 'deprecated')) return `Invalid input config:\n${report2(rpt)}`;
  if (listv(sv(config, 'Networkd'), 'Units').length > 0) return CONVERTER.networkd;
  const storage = sv(config, 'Storage');
  for (const fs of structs(storage, 'Filesystems')) if (!FS_MAP.has(strv(fs, 'Name'))) return CONVERTER.noFilesystem(strv(fs, 'Name'));

  const full = (x: GoStruct) => {
    const n = sv(x, 'Node');
    return joinPath('/', fsPath(strv(n, 'Filesystem')), strv(n, 'Path'));
  };
  const links = structs(storage, 'Links').map(full);
  const usesLink = (p: string) => links.find((l) => p.startsWith(l) && p !== l);
  const entries = new Map<string, string>();
  for (const [field, what] of [
    ['Files', 'File'],
    ['Directories', 'Directory'],
  ] as const) {
    for (const x of structs(storage, field)) {
      const p = full(x);
      const name = `${what}: ${p}`;
      const dup = entries.get(p);
      if (dup !== undefined) return CONVERTER.duplicateInode(dup, name);
      const l = usesLink(p);
      if (l !== undefined) return CONVERTER.usesOwnLink(name, l);
      entries.set(p, name);
    }
  }
  for (const x of structs(storage, 'Links')) {
    const p = full(x);
    const name = `Link: ${p}`;
    const dup = entries.get(p);
    if (dup !== undefined) return CONVERTER.duplicateInode(dup, name);
    entries.set(p, name);
    const l = usesLink(p);
    if (l !== undefined) return CONVERTER.usesOwnLink(name, l);
  }

  const unitNames = new Set<string>();
  for (const unit of structs(sv(config, 'Systemd'), 'Units')) {
    const name = strv(unit, 'Name');
    if (unitNames.has(name)) return CONVERTER.duplicateUnit(name);
    unitNames.add(name);
    const dropins = new Set<string>();
    for (const d of structs(unit, 'Dropins')) {
      if (dropins.has(strv(d, 'Name'))) return CONVERTER.duplicateDropin(name, strv(d, 'Name'));
      dropins.add(strv(d, 'Name'));
    }
  }
  return undefined;
}

/** util.StrP / BoolP / IntP: nil for the zero value. */
const strP = (s: string): string | null => (s === '' ? null : s);
const boolP = (b: boolean): boolean | null => (b ? true : null);
const intP = (n: number): number | null => (n === 0 ? null : n);
const hashOf = (x: GoStruct): GoValue => ptrv(sv(x, 'Verification'), 'Hash') ?? null;

/** Translate of v23tov30 (after Check2_3 passed), as a spec 3.0 Go value. */
export function translate23to30(config: GoStruct): GoStruct {
  const ign = sv(config, 'Ignition');
  const storage = sv(config, 'Storage');
  const cfgRef = (r: GoStruct | undefined): GoStruct =>
    r === undefined ? { Source: null, Verification: { Hash: null } } : { Source: strv(r, 'Source'), Verification: { Hash: hashOf(r) } };
  const node = (x: GoStruct): GoStruct => {
    const n = sv(x, 'Node');
    const user = pstructv(n, 'User') ?? { ID: null, Name: '' };
    const group = pstructv(n, 'Group') ?? { ID: null, Name: '' };
    return {
      Group: { ID: ptrv(group, 'ID') ?? null, Name: strP(strv(group, 'Name')) },
      Overwrite: ptrv(n, 'Overwrite') ?? null,
      Path: joinPath(fsPath(strv(n, 'Filesystem')), strv(n, 'Path')),
      User: { ID: ptrv(user, 'ID') ?? null, Name: strP(strv(user, 'Name')) },
    };
  };
  const list = <T>(xs: T[]): T[] | null => nonEmptyOrNull(xs);
  return {
    Ignition: {
      Config: {
        Merge: list(structs(sv(ign, 'Config'), 'Append').map((r) => cfgRef(r))),
        Replace: cfgRef(pstructv(sv(ign, 'Config'), 'Replace')),
      },
      Security: {
        TLS: {
          CertificateAuthorities: list(
            structs(sv(sv(ign, 'Security'), 'TLS'), 'CertificateAuthorities').map((ca) => ({
              Source: strv(ca, 'Source'),
              Verification: { Hash: hashOf(ca) },
            })),
          ),
        },
      },
      Timeouts: { ...sv(ign, 'Timeouts') },
      Version: '3.0.0',
    },
    Passwd: {
      Groups: list(
        structs(sv(config, 'Passwd'), 'Groups').map((g) => ({
          Gid: ptrv(g, 'Gid') ?? null,
          Name: strv(g, 'Name'),
          PasswordHash: strP(strv(g, 'PasswordHash')),
          System: boolP(boolv(g, 'System')),
        })),
      ),
      Users: list(
        structs(sv(config, 'Passwd'), 'Users').map((u) => ({
          Gecos: strP(strv(u, 'Gecos')),
          Groups: list(listv(u, 'Groups')),
          HomeDir: strP(strv(u, 'HomeDir')),
          Name: strv(u, 'Name'),
          NoCreateHome: boolP(boolv(u, 'NoCreateHome')),
          NoLogInit: boolP(boolv(u, 'NoLogInit')),
          NoUserGroup: boolP(boolv(u, 'NoUserGroup')),
          PasswordHash: ptrv(u, 'PasswordHash') ?? null,
          PrimaryGroup: strP(strv(u, 'PrimaryGroup')),
          SSHAuthorizedKeys: list(listv(u, 'SSHAuthorizedKeys')),
          Shell: strP(strv(u, 'Shell')),
          System: boolP(boolv(u, 'System')),
          UID: ptrv(u, 'UID') ?? null,
        })),
      ),
    },
    Storage: {
      Directories: list(
        structs(storage, 'Directories').map((d) => ({
          Node: node(d),
          DirectoryEmbedded1: { Mode: ptrv(sv(d, 'DirectoryEmbedded1'), 'Mode') ?? null },
        })),
      ),
      Disks: list(
        structs(storage, 'Disks').map((d) => ({
          Device: strv(d, 'Device'),
          Partitions: list(
            structs(d, 'Partitions').map((p) => ({
              GUID: strP(strv(p, 'GUID')),
              Label: strv(p, 'Label'),
              Number: intv(p, 'Number'),
              ShouldExist: null,
              SizeMiB: null,
              StartMiB: null,
              TypeGUID: strP(strv(p, 'TypeGUID')),
              WipePartitionEntry: null,
            })),
          ),
          WipeTable: boolP(boolv(d, 'WipeTable')),
        })),
      ),
      Files: list(
        structs(storage, 'Files').map((x) => {
          const e = sv(x, 'FileEmbedded1');
          const append = boolv(e, 'Append');
          // Spec 2 files overwrite unless told not to; spec 3 ones do not, and may not when appending.
          const overwrite = append ? false : (ptrv<boolean>(sv(x, 'Node'), 'Overwrite') ?? true);
          const c = sv(e, 'Contents');
          const contents: GoStruct = {
            Compression: strP(strv(c, 'Compression')),
            Source: strv(c, 'Source'),
            Verification: { Hash: hashOf(c) },
          };
          const empty: GoStruct = { Compression: null, Source: null, Verification: { Hash: null } };
          return {
            Node: { ...node(x), Overwrite: overwrite },
            FileEmbedded1: { Append: append ? [contents] : null, Contents: append ? empty : contents, Mode: ptrv(e, 'Mode') ?? null },
          };
        }),
      ),
      Filesystems: list(
        structs(storage, 'Filesystems')
          .filter((fs) => strv(fs, 'Name') !== 'root')
          .map((fs) => {
            const m = pstructv(fs, 'Mount') ?? zeroStruct(mountType);
            return {
              Device: strv(m, 'Device'),
              Format: strP(strv(m, 'Format')),
              Label: ptrv(m, 'Label') ?? null,
              Options: list(listv(m, 'Options')),
              Path: strP(fsPath(strv(fs, 'Name'))),
              UUID: ptrv(m, 'UUID') ?? null,
              WipeFilesystem: boolP(boolv(m, 'WipeFilesystem')),
            };
          }),
      ),
      Links: list(
        structs(storage, 'Links').map((l) => ({
          Node: node(l),
          LinkEmbedded1: { Hard: boolP(boolv(sv(l, 'LinkEmbedded1'), 'Hard')), Target: strv(sv(l, 'LinkEmbedded1'), 'Target') },
        })),
      ),
      Raid: list(
        structs(storage, 'Raid').map((r) => ({
          Devices: list(listv(r, 'Devices')),
          Level: strv(r, 'Level'),
          Name: strv(r, 'Name'),
          Options: list(listv(r, 'Options')),
          Spares: intP(intv(r, 'Spares')),
        })),
      ),
    },
    Systemd: {
      Units: list(
        structs(sv(config, 'Systemd'), 'Units').map((u) => {
          const enabledPtr = ptrv<boolean>(u, 'Enabled');
          // `enabled` wins over the deprecated `enable`; only an explicit false stays false.
          let enabled: boolean | null = enabledPtr === true || boolv(u, 'Enable') ? true : null;
          if (enabledPtr === false) enabled = false;
          return {
            Contents: strP(strv(u, 'Contents')),
            Dropins: list(structs(u, 'Dropins').map((d) => ({ Contents: strP(strv(d, 'Contents')), Name: strv(d, 'Name') }))),
            Enabled: enabled,
            Mask: boolP(boolv(u, 'Mask')),
            Name: strv(u, 'Name'),
          };
        }),
      ),
    },
  };
}
