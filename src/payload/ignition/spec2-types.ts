/**
 * The Go types of Ignition spec 2.0, 2.1 and 2.2 (github.com/coreos/ignition v0.35 config/v2_x/types, the copy
 * the machine-config-operator vendors), and the reading of a spec 2 config into 2.2 the way config/v2_2.Parse
 * does it: older versions are decoded with their own types and translated up (TranslateFromV2_0, then
 * TranslateFromV2_1), which gives a 2.1 node a user and group always set and a 2.1 mode always set (0 when the
 * config has none), and a 2.0 file's user and group an id always set (0 when it names none).
 */
import {
  bool,
  boolv,
  decode,
  embed,
  type FieldDef,
  f,
  type GoStruct,
  type GoType,
  int,
  intv,
  isStruct,
  listv,
  pBool,
  pInt,
  pStr,
  pStruct,
  ptrv,
  pstructv,
  type StructDef,
  slice,
  str,
  struct,
  structs,
  strv,
  sv,
  zeroStruct,
} from './schema.js';

// ---- the types ------------------------------------------------------------------------------------------

const S = (name: string, ...fields: FieldDef[]): StructDef => ({ name, fields });
/** A struct field, a pointer-to-struct field, a list field (of structs or of a scalar type). */
const obj = (go: string, json: string, s: StructDef): FieldDef => f(go, json, struct(s));
const ptr = (go: string, json: string, s: StructDef): FieldDef => f(go, json, pStruct(s));
const list = (go: string, json: string, of: StructDef | GoType): FieldDef => f(go, json, slice('fields' in of ? struct(of) : of));
const text = (go: string, json: string, named?: string): FieldDef => f(go, json, str(named));

const verification = S('Verification', f('Hash', 'hash', pStr));
const timeouts = S('Timeouts', f('HTTPResponseHeaders', 'httpResponseHeaders', pInt), f('HTTPTotal', 'httpTotal', pInt));
const configReference = S('ConfigReference', text('Source', 'source'), obj('Verification', 'verification', verification));
const ignitionConfig = S('IgnitionConfig', list('Append', 'append', configReference), ptr('Replace', 'replace', configReference));
const create = S('Create', f('Force', 'force', bool), list('Options', 'options', str('CreateOption')));
const usercreate = S(
  'Usercreate',
  text('Gecos', 'gecos'),
  list('Groups', 'groups', str('UsercreateGroup')),
  text('HomeDir', 'homeDir'),
  f('NoCreateHome', 'noCreateHome', bool),
  f('NoLogInit', 'noLogInit', bool),
  f('NoUserGroup', 'noUserGroup', bool),
  text('PrimaryGroup', 'primaryGroup'),
  text('Shell', 'shell'),
  f('System', 'system', bool),
  f('UID', 'uid', pInt),
);
const passwdGroup = S(
  'PasswdGroup',
  f('Gid', 'gid', pInt),
  text('Name', 'name'),
  text('PasswordHash', 'passwordHash'),
  f('System', 'system', bool),
);
const passwdUser = (groupType: string) =>
  S(
    'PasswdUser',
    ptr('Create', 'create', usercreate),
    text('Gecos', 'gecos'),
    list('Groups', 'groups', str(groupType)),
    text('HomeDir', 'homeDir'),
    text('Name', 'name'),
    f('NoCreateHome', 'noCreateHome', bool),
    f('NoLogInit', 'noLogInit', bool),
    f('NoUserGroup', 'noUserGroup', bool),
    f('PasswordHash', 'passwordHash', pStr),
    text('PrimaryGroup', 'primaryGroup'),
    list('SSHAuthorizedKeys', 'sshAuthorizedKeys', str('SSHAuthorizedKey')),
    text('Shell', 'shell'),
    f('System', 'system', bool),
    f('UID', 'uid', pInt),
  );
const partition = S(
  'Partition',
  text('GUID', 'guid'),
  text('Label', 'label'),
  f('Number', 'number', int),
  f('Size', 'size', int),
  f('Start', 'start', int),
  text('TypeGUID', 'typeGuid'),
);
const disk = S('Disk', text('Device', 'device'), list('Partitions', 'partitions', partition), f('WipeTable', 'wipeTable', bool));
const fileContents = S(
  'FileContents',
  text('Compression', 'compression'),
  text('Source', 'source'),
  obj('Verification', 'verification', verification),
);
export const mountType = S(
  'Mount',
  ptr('Create', 'create', create),
  text('Device', 'device'),
  text('Format', 'format'),
  f('Label', 'label', pStr),
  list('Options', 'options', str('MountOption')),
  f('UUID', 'uuid', pStr),
  f('WipeFilesystem', 'wipeFilesystem', bool),
);
const filesystem = S('Filesystem', ptr('Mount', 'mount', mountType), text('Name', 'name'), f('Path', 'path', pStr));
const linkEmbedded1 = S('LinkEmbedded1', f('Hard', 'hard', bool), text('Target', 'target'));
const unit = (dropin: StructDef) =>
  S(
    'Unit',
    text('Contents', 'contents'),
    list('Dropins', 'dropins', dropin),
    f('Enable', 'enable', bool),
    f('Enabled', 'enabled', pBool),
    f('Mask', 'mask', bool),
    text('Name', 'name'),
  );
const dropin = (name: string) => S(name, text('Contents', 'contents'), text('Name', 'name'));
const nodeUser = S('NodeUser', f('ID', 'id', pInt), text('Name', 'name'));
const nodeGroup = S('NodeGroup', f('ID', 'id', pInt), text('Name', 'name'));

// Spec 2.2 (config/v2_2/types/schema.go).
const node22 = S(
  'Node',
  text('Filesystem', 'filesystem'),
  ptr('Group', 'group', nodeGroup),
  f('Overwrite', 'overwrite', pBool),
  text('Path', 'path'),
  ptr('User', 'user', nodeUser),
);
const fileEmbedded22 = S('FileEmbedded1', f('Append', 'append', bool), obj('Contents', 'contents', fileContents), f('Mode', 'mode', pInt));
const caReference = S('CaReference', text('Source', 'source'), obj('Verification', 'verification', verification));
export const CONFIG_22: StructDef = S(
  'Config',
  f(
    'Ignition',
    'ignition',
    struct(
      S(
        'Ignition',
        obj('Config', 'config', ignitionConfig),
        obj(
          'Security',
          'security',
          S('Security', obj('TLS', 'tls', S('TLS', list('CertificateAuthorities', 'certificateAuthorities', caReference)))),
        ),
        obj('Timeouts', 'timeouts', timeouts),
        text('Version', 'version'),
      ),
    ),
    false,
  ),
  obj(
    'Networkd',
    'networkd',
    S(
      'Networkd',
      list(
        'Units',
        'units',
        S('Networkdunit', text('Contents', 'contents'), list('Dropins', 'dropins', dropin('NetworkdDropin')), text('Name', 'name')),
      ),
    ),
  ),
  obj('Passwd', 'passwd', S('Passwd', list('Groups', 'groups', passwdGroup), list('Users', 'users', passwdUser('Group')))),
  obj(
    'Storage',
    'storage',
    S(
      'Storage',
      list('Directories', 'directories', S('Directory', embed(node22), embed(S('DirectoryEmbedded1', f('Mode', 'mode', pInt))))),
      list('Disks', 'disks', disk),
      list('Files', 'files', S('File', embed(node22), embed(fileEmbedded22))),
      list('Filesystems', 'filesystems', filesystem),
      list('Links', 'links', S('Link', embed(node22), embed(linkEmbedded1))),
      list(
        'Raid',
        'raid',
        S(
          'Raid',
          list('Devices', 'devices', str('Device')),
          text('Level', 'level'),
          text('Name', 'name'),
          list('Options', 'options', str('RaidOption')),
          f('Spares', 'spares', int),
        ),
      ),
    ),
  ),
  obj('Systemd', 'systemd', S('Systemd', list('Units', 'units', unit(dropin('SystemdDropin'))))),
);

// Spec 2.1 (config/v2_1/types/schema.go): no overwrite, append, security or raid options; modes are plain ints.
const node21 = S(
  'Node',
  text('Filesystem', 'filesystem'),
  obj('Group', 'group', nodeGroup),
  text('Path', 'path'),
  obj('User', 'user', nodeUser),
);
const CONFIG_21: StructDef = S(
  'Config',
  f(
    'Ignition',
    'ignition',
    struct(S('Ignition', obj('Config', 'config', ignitionConfig), obj('Timeouts', 'timeouts', timeouts), text('Version', 'version'))),
    false,
  ),
  obj('Networkd', 'networkd', S('Networkd', list('Units', 'units', S('Networkdunit', text('Contents', 'contents'), text('Name', 'name'))))),
  obj('Passwd', 'passwd', S('Passwd', list('Groups', 'groups', passwdGroup), list('Users', 'users', passwdUser('PasswdUserGroup')))),
  obj(
    'Storage',
    'storage',
    S(
      'Storage',
      list('Directories', 'directories', S('Directory', embed(node21), embed(S('DirectoryEmbedded1', f('Mode', 'mode', int))))),
      list('Disks', 'disks', disk),
      list(
        'Files',
        'files',
        S('File', embed(node21), embed(S('FileEmbedded1', obj('Contents', 'contents', fileContents), f('Mode', 'mode', int)))),
      ),
      list('Filesystems', 'filesystems', filesystem),
      list('Links', 'links', S('Link', embed(node21), embed(linkEmbedded1))),
      list(
        'Raid',
        'raid',
        S('Raid', list('Devices', 'devices', str('Device')), text('Level', 'level'), text('Name', 'name'), f('Spares', 'spares', int)),
      ),
    ),
  ),
  obj('Systemd', 'systemd', S('Systemd', list('Units', 'units', unit(dropin('Dropin'))))),
);

// Spec 2.0 (config/v2_0/types): files carry user and group ids, there are no directories or links, and the
// list of arrays is Storage.Arrays under the key "raid".
const CONFIG_20: StructDef = S(
  'Config',
  f(
    'Ignition',
    'ignition',
    struct(S('Ignition', text('Version', 'version', 'IgnitionVersion'), obj('Config', 'config', ignitionConfig))),
    false,
  ),
  obj(
    'Storage',
    'storage',
    S(
      'Storage',
      list('Disks', 'disks', disk),
      list(
        'Arrays',
        'raid',
        S('Raid', text('Name', 'name'), text('Level', 'level'), list('Devices', 'devices', str('Path')), f('Spares', 'spares', int)),
      ),
      list(
        'Filesystems',
        'filesystems',
        S(
          'Filesystem',
          text('Name', 'name'),
          ptr(
            'Mount',
            'mount',
            S(
              'FilesystemMount',
              text('Device', 'device', 'Path'),
              text('Format', 'format', 'FilesystemFormat'),
              ptr('Create', 'create', create),
            ),
          ),
          f('Path', 'path', pStr),
        ),
      ),
      list(
        'Files',
        'files',
        S(
          'File',
          text('Filesystem', 'filesystem'),
          text('Path', 'path', 'Path'),
          obj('Contents', 'contents', fileContents),
          f('Mode', 'mode', int),
          obj('User', 'user', S('FileUser', f('Id', 'id', int))),
          obj('Group', 'group', S('FileGroup', f('Id', 'id', int))),
        ),
      ),
    ),
  ),
  obj(
    'Systemd',
    'systemd',
    S(
      'Systemd',
      list(
        'Units',
        'units',
        S(
          'SystemdUnit',
          text('Name', 'name'),
          f('Enable', 'enable', bool),
          f('Mask', 'mask', bool),
          text('Contents', 'contents'),
          list('DropIns', 'dropins', S('SystemdUnitDropIn', text('Name', 'name'), text('Contents', 'contents'))),
        ),
      ),
    ),
  ),
  obj('Networkd', 'networkd', S('Networkd', list('Units', 'units', S('NetworkdUnit', text('Name', 'name'), text('Contents', 'contents'))))),
  obj(
    'Passwd',
    'passwd',
    S(
      'Passwd',
      list(
        'Users',
        'users',
        S(
          'User',
          text('Name', 'name'),
          text('PasswordHash', 'passwordHash'),
          list('SSHAuthorizedKeys', 'sshAuthorizedKeys', str()),
          ptr(
            'Create',
            'create',
            S(
              'UserCreate',
              f('Uid', 'uid', pInt),
              text('GECOS', 'gecos'),
              text('Homedir', 'homeDir'),
              f('NoCreateHome', 'noCreateHome', bool),
              text('PrimaryGroup', 'primaryGroup'),
              list('Groups', 'groups', str()),
              f('NoUserGroup', 'noUserGroup', bool),
              f('System', 'system', bool),
              f('NoLogInit', 'noLogInit', bool),
              text('Shell', 'shell'),
            ),
          ),
        ),
      ),
      list(
        'Groups',
        'groups',
        S('Group', text('Name', 'name'), f('Gid', 'gid', pInt), text('PasswordHash', 'passwordHash'), f('System', 'system', bool)),
      ),
    ),
  ),
);

// ---- parsing ---------------------------------------------------------------------------------------------

export type Minor2 = 0 | 1 | 2;
export interface Parsed2 {
  config: GoStruct;
  typeError?: string;
  /** Unused JSON keys by the path of the object holding them (`storage.files.0`), for the report. */
  unused: Map<string, string[]>;
}

/** Reads a spec 2.<minor> config and translates it to 2.2 (config/v2_1 TranslateFromV2_0, config/v2_2 TranslateFromV2_1). */
export function parse2(json: unknown, minor: Minor2): Parsed2 {
  const def = minor === 2 ? CONFIG_22 : minor === 1 ? CONFIG_21 : CONFIG_20;
  const { value, typeError, unused } = decode(json, { kind: 'struct', struct: def });
  const byHolder = new Map<string, string[]>();
  for (const p of unused) {
    const at = p.slice(0, -1).join('.');
    byHolder.set(at, [...(byHolder.get(at) ?? []), String(p[p.length - 1])]);
  }
  let config = isStruct(value) ? value : zeroStruct(def);
  if (minor === 0) config = from20(config);
  if (minor <= 1) config = from21(config);
  return { config, unused: byHolder, ...(typeError === undefined ? {} : { typeError }) };
}

const copy = (s: GoStruct, ...fields: string[]): GoStruct => Object.fromEntries(fields.map((k) => [k, s[k] ?? null]));
const nonEmptyOrNull = <T>(xs: T[]): T[] | null => (xs.length === 0 ? null : xs);

function from20(old: GoStruct): GoStruct {
  const ign = sv(old, 'Ignition');
  const storage = sv(old, 'Storage');
  const ref = (r: GoStruct): GoStruct => ({
    Source: strv(r, 'Source'),
    Verification: { Hash: ptrv(sv(r, 'Verification'), 'Hash') ?? null },
  });
  const replace = pstructv(sv(ign, 'Config'), 'Replace');
  const users = structs(sv(old, 'Passwd'), 'Users').map((u) => {
    const c = pstructv(u, 'Create');
    const hash = strv(u, 'PasswordHash');
    return {
      Create:
        c === undefined
          ? null
          : {
              UID: ptrv(c, 'Uid') ?? null,
              Gecos: strv(c, 'GECOS'),
              HomeDir: strv(c, 'Homedir'),
              NoCreateHome: boolv(c, 'NoCreateHome'),
              PrimaryGroup: strv(c, 'PrimaryGroup'),
              Groups: nonEmptyOrNull(listv(c, 'Groups')),
              NoUserGroup: boolv(c, 'NoUserGroup'),
              System: boolv(c, 'System'),
              NoLogInit: boolv(c, 'NoLogInit'),
              Shell: strv(c, 'Shell'),
            },
      Gecos: '',
      Groups: null,
      HomeDir: '',
      Name: strv(u, 'Name'),
      NoCreateHome: false,
      NoLogInit: false,
      NoUserGroup: false,
      PasswordHash: hash === '' ? null : hash,
      PrimaryGroup: '',
      SSHAuthorizedKeys: listv(u, 'SSHAuthorizedKeys'),
      Shell: '',
      System: false,
      UID: null,
    };
  });
  return {
    Ignition: {
      Config: {
        Append: nonEmptyOrNull(structs(sv(ign, 'Config'), 'Append').map(ref)),
        Replace: replace === undefined ? null : ref(replace),
      },
      Timeouts: { HTTPResponseHeaders: null, HTTPTotal: null },
      Version: '2.1.0',
    },
    Networkd: { Units: nonEmptyOrNull(structs(sv(old, 'Networkd'), 'Units').map((u) => copy(u, 'Contents', 'Name'))) },
    Passwd: {
      Groups: nonEmptyOrNull(structs(sv(old, 'Passwd'), 'Groups').map((g) => copy(g, 'Gid', 'Name', 'PasswordHash', 'System'))),
      Users: nonEmptyOrNull(users),
    },
    Storage: {
      Directories: null,
      Disks: nonEmptyOrNull(
        structs(storage, 'Disks').map((d) => ({
          Device: strv(d, 'Device'),
          WipeTable: boolv(d, 'WipeTable'),
          Partitions: nonEmptyOrNull(
            structs(d, 'Partitions').map((p) => ({ ...copy(p, 'Label', 'Number', 'Size', 'Start', 'TypeGUID'), GUID: '' })),
          ),
        })),
      ),
      Files: nonEmptyOrNull(
        structs(storage, 'Files').map((x) => ({
          Node: {
            Filesystem: strv(x, 'Filesystem'),
            Path: strv(x, 'Path'),
            User: { ID: intv(sv(x, 'User'), 'Id'), Name: '' },
            Group: { ID: intv(sv(x, 'Group'), 'Id'), Name: '' },
          },
          FileEmbedded1: { Contents: sv(x, 'Contents'), Mode: intv(x, 'Mode') },
        })),
      ),
      Filesystems: nonEmptyOrNull(
        structs(storage, 'Filesystems').map((fs) => {
          const m = pstructv(fs, 'Mount');
          return {
            Name: strv(fs, 'Name'),
            Path: ptrv(fs, 'Path') ?? null,
            Mount:
              m === undefined
                ? null
                : { ...zeroStruct(mountType), Device: strv(m, 'Device'), Format: strv(m, 'Format'), Create: pstructv(m, 'Create') ?? null },
          };
        }),
      ),
      Links: null,
      Raid: nonEmptyOrNull(
        structs(storage, 'Arrays').map((r) => ({ ...copy(r, 'Name', 'Level', 'Spares'), Devices: nonEmptyOrNull(listv(r, 'Devices')) })),
      ),
    },
    Systemd: {
      Units: nonEmptyOrNull(
        structs(sv(old, 'Systemd'), 'Units').map((u) => ({
          ...copy(u, 'Name', 'Enable', 'Mask', 'Contents'),
          Enabled: null,
          Dropins: nonEmptyOrNull(structs(u, 'DropIns').map((d) => copy(d, 'Name', 'Contents'))),
        })),
      ),
    },
  };
}

function from21(old: GoStruct): GoStruct {
  const ign = sv(old, 'Ignition');
  const storage = sv(old, 'Storage');
  const ref = (r: GoStruct): GoStruct => ({
    Source: strv(r, 'Source'),
    Verification: { Hash: ptrv(sv(r, 'Verification'), 'Hash') ?? null },
  });
  const replace = pstructv(sv(ign, 'Config'), 'Replace');
  // Nodes gain pointer user and group, always set; modes become pointers, always set (0 when absent).
  const node = (x: GoStruct): GoStruct => {
    const n = sv(x, 'Node');
    return {
      Filesystem: strv(n, 'Filesystem'),
      Group: copy(sv(n, 'Group'), 'ID', 'Name'),
      Overwrite: null,
      Path: strv(n, 'Path'),
      User: copy(sv(n, 'User'), 'ID', 'Name'),
    };
  };
  return {
    Ignition: {
      Config: {
        Append: nonEmptyOrNull(structs(sv(ign, 'Config'), 'Append').map(ref)),
        Replace: replace === undefined ? null : ref(replace),
      },
      Security: { TLS: { CertificateAuthorities: null } },
      Timeouts: sv(ign, 'Timeouts'),
      Version: '2.2.0',
    },
    Networkd: {
      Units: nonEmptyOrNull(structs(sv(old, 'Networkd'), 'Units').map((u) => ({ ...copy(u, 'Contents', 'Name'), Dropins: null }))),
    },
    Passwd: {
      Groups: nonEmptyOrNull(structs(sv(old, 'Passwd'), 'Groups').map((g) => copy(g, 'Gid', 'Name', 'PasswordHash', 'System'))),
      Users: nonEmptyOrNull(structs(sv(old, 'Passwd'), 'Users').map((u) => ({ ...u, SSHAuthorizedKeys: listv(u, 'SSHAuthorizedKeys') }))),
    },
    Storage: {
      Directories: nonEmptyOrNull(
        structs(storage, 'Directories').map((d) => ({
          Node: node(d),
          DirectoryEmbedded1: { Mode: intv(sv(d, 'DirectoryEmbedded1'), 'Mode') },
        })),
      ),
      Disks: nonEmptyOrNull(structs(storage, 'Disks')),
      Files: nonEmptyOrNull(
        structs(storage, 'Files').map((x) => {
          const e = sv(x, 'FileEmbedded1');
          return { Node: node(x), FileEmbedded1: { Append: false, Contents: sv(e, 'Contents'), Mode: intv(e, 'Mode') } };
        }),
      ),
      Filesystems: nonEmptyOrNull(structs(storage, 'Filesystems')),
      Links: nonEmptyOrNull(structs(storage, 'Links').map((l) => ({ Node: node(l), LinkEmbedded1: sv(l, 'LinkEmbedded1') }))),
      Raid: nonEmptyOrNull(structs(storage, 'Raid').map((r) => ({ ...r, Options: null }))),
    },
    Systemd: { Units: nonEmptyOrNull(structs(sv(old, 'Systemd'), 'Units')) },
  };
}
