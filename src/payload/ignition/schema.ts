/**
 * Ignition configs as the Go code that handles them sees them: a model of the Go types of spec 3.0 … 3.5
 * (github.com/coreos/ignition/v2 config/v3_x/types/schema.go, with the Key / IgnoreDuplicates / MergedKeys
 * methods that steer merging and duplicate checks), a decoder with encoding/json's rules and an encoder with
 * the rules of github.com/clarketm/json, the encoder the machine-config-operator has marshalled Ignition
 * configs with since 2020-04.
 *
 * Values are kept in Go's shape, not JSON's, because Go's merge and validation tell apart what JSON flattens:
 * a nil pointer from a pointer to "" or false, a nil slice from an empty one, an embedded struct (File embeds
 * Node) from its promoted fields. A struct is an object keyed by Go field name holding every field; a nil
 * pointer or nil slice is null.
 */

export type Scalar = 'string' | 'int' | 'bool';

export type GoType =
  /** A Go string, int or bool; `named` is its Go type name when it has one (types.Device). */
  | { readonly kind: 'scalar'; readonly scalar: Scalar; readonly named?: string }
  | { readonly kind: 'ptr'; readonly scalar: Scalar }
  /** A pointer to a struct: spec 3.2's Luks.Clevis and Clevis.Custom (and spec 2's Mount, Create, ConfigReference). */
  | { readonly kind: 'ptrStruct'; readonly struct: StructDef }
  | { readonly kind: 'struct'; readonly struct: StructDef }
  | { readonly kind: 'slice'; readonly elem: GoType; readonly named?: string };

export interface FieldDef {
  /** The Go field name: IgnoreDuplicates and MergedKeys name fields by it. */
  readonly go: string;
  /** The JSON key; empty for an embedded struct, whose fields are promoted into its parent's object. */
  readonly json: string;
  readonly type: GoType;
  readonly omitempty: boolean;
  readonly embedded?: boolean;
}

export interface StructDef {
  /** The Go type name, for decoder messages (`Node`, `File`). */
  readonly name: string;
  readonly fields: readonly FieldDef[];
  /** Key(): what a list of these merges and is checked for duplicates by. */
  readonly key?: (v: GoStruct) => string;
  /** IgnoreDuplicates(): list fields that are concatenated on merge and never checked for duplicates. */
  readonly ignoreDups?: ReadonlySet<string>;
  /** MergedKeys(): list fields that share one key space (handle). */
  readonly mergedKeys?: Readonly<Record<string, string>>;
}

export type GoValue = string | number | boolean | null | GoStruct | GoValue[];
export interface GoStruct {
  [field: string]: GoValue;
}

/** The spec 3 minor versions the MCO has parsed (3.0 … 3.5). */
export type Minor3 = 0 | 1 | 2 | 3 | 4 | 5;
export const MINORS_3: readonly Minor3[] = [0, 1, 2, 3, 4, 5];

// ---- type builders -------------------------------------------------------------------------------------

export const str = (named?: string): GoType =>
  named === undefined ? { kind: 'scalar', scalar: 'string' } : { kind: 'scalar', scalar: 'string', named };
export const int: GoType = { kind: 'scalar', scalar: 'int' };
export const bool: GoType = { kind: 'scalar', scalar: 'bool' };
export const pStr: GoType = { kind: 'ptr', scalar: 'string' };
export const pInt: GoType = { kind: 'ptr', scalar: 'int' };
export const pBool: GoType = { kind: 'ptr', scalar: 'bool' };
export const struct = (s: StructDef): GoType => ({ kind: 'struct', struct: s });
export const pStruct = (s: StructDef): GoType => ({ kind: 'ptrStruct', struct: s });
export const slice = (elem: GoType, named?: string): GoType =>
  named === undefined ? { kind: 'slice', elem } : { kind: 'slice', elem, named };
/** A field; `omit` is the tag's omitempty. */
export const f = (go: string, json: string, type: GoType, omit = true): FieldDef => ({ go, json, type, omitempty: omit });
export const embed = (s: StructDef): FieldDef => ({ go: s.name, json: '', type: struct(s), omitempty: false, embedded: true });

// ---- accessors on Go values ----------------------------------------------------------------------------

export const isStruct = (v: GoValue | undefined): v is GoStruct => typeof v === 'object' && v !== null && !Array.isArray(v);
export const sv = (s: GoStruct, field: string): GoStruct => {
  const v = s[field];
  if (!isStruct(v)) throw new Error(`internal: ${field} is not a struct`);
  return v;
};
export const strv = (s: GoStruct, field: string): string => {
  const v = s[field];
  return typeof v === 'string' ? v : '';
};
export const intv = (s: GoStruct, field: string): number => {
  const v = s[field];
  return typeof v === 'number' ? v : 0;
};
export const boolv = (s: GoStruct, field: string): boolean => s[field] === true;
/** A pointer field: undefined for nil. */
export const ptrv = <T extends string | number | boolean>(s: GoStruct, field: string): T | undefined => {
  const v = s[field];
  return v === null || v === undefined ? undefined : (v as T);
};
export const listv = (s: GoStruct, field: string): GoValue[] => {
  const v = s[field];
  return Array.isArray(v) ? v : [];
};
export const structs = (s: GoStruct, field: string): GoStruct[] => listv(s, field).filter(isStruct);
/** A pointer to a struct: undefined for nil. */
export const pstructv = (s: GoStruct, field: string): GoStruct | undefined => {
  const v = s[field];
  return isStruct(v) ? v : undefined;
};

/** util.NilOrEmpty and util.NotEmpty. */
export const nilOrEmpty = (v: string | undefined): boolean => v === undefined || v === '';
export const isTrue = (v: boolean | undefined): boolean => v === true;
export const isFalse = (v: boolean | undefined): boolean => v === false;

// ---- zero values ----------------------------------------------------------------------------------------

/** A field or struct's zero value (nil pointers and slices are null). */
export function zeroOf(t: GoType): GoValue {
  switch (t.kind) {
    case 'scalar':
      return t.scalar === 'string' ? '' : t.scalar === 'int' ? 0 : false;
    case 'struct':
      return zeroStruct(t.struct);
    default:
      return null;
  }
}

export function zeroStruct(s: StructDef): GoStruct {
  const out: GoStruct = {};
  for (const fd of s.fields) out[fd.go] = zeroOf(fd.type);
  return out;
}

/** reflect.Value.IsZero: an empty but non-nil slice is not zero. */
export function isZero(v: GoValue | undefined, t: GoType): boolean {
  switch (t.kind) {
    case 'scalar':
      return v === undefined || v === '' || v === 0 || v === false;
    case 'ptr':
    case 'ptrStruct':
    case 'slice':
      return v === null || v === undefined;
    case 'struct':
      return !isStruct(v) || t.struct.fields.every((fd) => isZero(v[fd.go], fd.type));
  }
}

/** clarketm/json's isEmptyValue: as Go's for scalars, pointers and slices (length 0), and a struct is empty when every field is. */
export function isEmpty(v: GoValue | undefined, t: GoType): boolean {
  switch (t.kind) {
    case 'scalar':
      return v === undefined || v === '' || v === 0 || v === false;
    case 'ptr':
    case 'ptrStruct':
      return v === null || v === undefined;
    case 'slice':
      return !Array.isArray(v) || v.length === 0;
    case 'struct':
      return !isStruct(v) || t.struct.fields.every((fd) => isEmpty(v[fd.go], fd.type));
  }
}

// ---- the spec 3 types, by minor version ----------------------------------------------------------------

export interface Spec3Types {
  readonly minor: Minor3;
  readonly config: StructDef;
  /** The list-item structs by Go type name, for callers that walk a config (validation). */
  readonly byName: ReadonlyMap<string, StructDef>;
}

const resourceKey = (v: GoStruct): string => ptrv<string>(v, 'Source') ?? '';

/** Builds config/v3_<minor>/types as Go declares them (field order, tags, methods). */
function buildSpec3(minor: Minor3): Spec3Types {
  const byName = new Map<string, StructDef>();
  const def = (s: StructDef): StructDef => {
    byName.set(s.name, s);
    return s;
  };
  const at = (since: Minor3, fd: FieldDef): FieldDef[] => (minor >= since ? [fd] : []);

  const verification = def({ name: 'Verification', fields: [f('Hash', 'hash', pStr)] });
  const httpHeader = def({
    name: 'HTTPHeader',
    fields: [f('Name', 'name', str(), false), f('Value', 'value', pStr)],
    key: (v) => strv(v, 'Name'),
  });
  const resource = def({
    name: 'Resource',
    fields: [
      f('Compression', 'compression', pStr),
      f('HTTPHeaders', 'httpHeaders', slice(struct(httpHeader), 'HTTPHeaders')),
      f('Source', 'source', pStr),
      f('Verification', 'verification', struct(verification)),
    ],
    key: resourceKey,
  });
  // Spec 3.0 had three shapes where 3.1 has Resource.
  const fileContents = def({
    name: 'FileContents',
    fields: [f('Compression', 'compression', pStr), f('Source', 'source', pStr), f('Verification', 'verification', struct(verification))],
    key: resourceKey,
  });
  const configReference = def({
    name: 'ConfigReference',
    fields: [f('Source', 'source', pStr, false), f('Verification', 'verification', struct(verification))],
    key: resourceKey,
  });
  const caReference = def({
    name: 'CaReference',
    fields: [f('Source', 'source', str(), false), f('Verification', 'verification', struct(verification))],
    key: (v) => strv(v, 'Source'),
  });
  const res30 = minor === 0;

  const ignitionConfig = def({
    name: 'IgnitionConfig',
    fields: [
      f('Merge', 'merge', slice(struct(res30 ? configReference : resource))),
      f('Replace', 'replace', struct(res30 ? configReference : resource)),
    ],
  });
  const proxy = def({
    name: 'Proxy',
    fields: [f('HTTPProxy', 'httpProxy', pStr), f('HTTPSProxy', 'httpsProxy', pStr), f('NoProxy', 'noProxy', slice(str('NoProxyItem')))],
  });
  const tls = def({
    name: 'TLS',
    fields: [f('CertificateAuthorities', 'certificateAuthorities', slice(struct(res30 ? caReference : resource)))],
  });
  const security = def({ name: 'Security', fields: [f('TLS', 'tls', struct(tls))] });
  const timeouts = def({
    name: 'Timeouts',
    fields: [f('HTTPResponseHeaders', 'httpResponseHeaders', pInt), f('HTTPTotal', 'httpTotal', pInt)],
  });
  const ignition = def({
    name: 'Ignition',
    fields: [
      f('Config', 'config', struct(ignitionConfig)),
      ...at(1, f('Proxy', 'proxy', struct(proxy))),
      f('Security', 'security', struct(security)),
      f('Timeouts', 'timeouts', struct(timeouts)),
      f('Version', 'version', str(), minor <= 3),
    ],
  });

  const kernelArguments = def({
    name: 'KernelArguments',
    fields: [
      f('ShouldExist', 'shouldExist', slice(str('KernelArgument'))),
      f('ShouldNotExist', 'shouldNotExist', slice(str('KernelArgument'))),
    ],
    mergedKeys: { ShouldExist: 'KernelArgument', ShouldNotExist: 'KernelArgument' },
  });

  const passwdGroup = def({
    name: 'PasswdGroup',
    fields: [
      f('Gid', 'gid', pInt),
      f('Name', 'name', str(), false),
      f('PasswordHash', 'passwordHash', pStr),
      ...at(2, f('ShouldExist', 'shouldExist', pBool)),
      f('System', 'system', pBool),
    ],
    key: (v) => strv(v, 'Name'),
  });
  const passwdUser = def({
    name: 'PasswdUser',
    fields: [
      f('Gecos', 'gecos', pStr),
      f('Groups', 'groups', slice(str('Group'))),
      f('HomeDir', 'homeDir', pStr),
      f('Name', 'name', str(), false),
      f('NoCreateHome', 'noCreateHome', pBool),
      f('NoLogInit', 'noLogInit', pBool),
      f('NoUserGroup', 'noUserGroup', pBool),
      f('PasswordHash', 'passwordHash', pStr),
      f('PrimaryGroup', 'primaryGroup', pStr),
      f('SSHAuthorizedKeys', 'sshAuthorizedKeys', slice(str('SSHAuthorizedKey'))),
      f('Shell', 'shell', pStr),
      ...at(2, f('ShouldExist', 'shouldExist', pBool)),
      f('System', 'system', pBool),
      f('UID', 'uid', pInt),
    ],
    key: (v) => strv(v, 'Name'),
  });
  const passwd = def({
    name: 'Passwd',
    fields: [f('Groups', 'groups', slice(struct(passwdGroup))), f('Users', 'users', slice(struct(passwdUser)))],
  });

  const nodeUser = def({ name: 'NodeUser', fields: [f('ID', 'id', pInt), f('Name', 'name', pStr)] });
  const nodeGroup = def({ name: 'NodeGroup', fields: [f('ID', 'id', pInt), f('Name', 'name', pStr)] });
  const node = def({
    name: 'Node',
    fields: [
      f('Group', 'group', struct(nodeGroup)),
      f('Overwrite', 'overwrite', pBool),
      f('Path', 'path', str(), false),
      f('User', 'user', struct(nodeUser)),
    ],
    key: (v) => strv(v, 'Path'),
  });
  const fileEmbedded1 = def({
    name: 'FileEmbedded1',
    fields: [
      f('Append', 'append', slice(struct(res30 ? fileContents : resource))),
      f('Contents', 'contents', struct(res30 ? fileContents : resource)),
      f('Mode', 'mode', pInt),
    ],
    ignoreDups: new Set(['Append']),
  });
  const nodeKey = (v: GoStruct) => strv(sv(v, 'Node'), 'Path');
  const file = def({ name: 'File', fields: [embed(node), embed(fileEmbedded1)], key: nodeKey, ignoreDups: new Set(['Append']) });
  const directoryEmbedded1 = def({ name: 'DirectoryEmbedded1', fields: [f('Mode', 'mode', pInt)] });
  const directory = def({ name: 'Directory', fields: [embed(node), embed(directoryEmbedded1)], key: nodeKey });
  const linkEmbedded1 = def({
    name: 'LinkEmbedded1',
    fields: [f('Hard', 'hard', pBool), minor >= 3 ? f('Target', 'target', pStr) : f('Target', 'target', str(), false)],
  });
  const link = def({ name: 'Link', fields: [embed(node), embed(linkEmbedded1)], key: nodeKey });

  const partition = def({
    name: 'Partition',
    fields: [
      f('GUID', 'guid', pStr),
      f('Label', 'label', pStr),
      f('Number', 'number', int),
      ...at(2, f('Resize', 'resize', pBool)),
      f('ShouldExist', 'shouldExist', pBool),
      f('SizeMiB', 'sizeMiB', pInt),
      f('StartMiB', 'startMiB', pInt),
      f('TypeGUID', 'typeGuid', pStr),
      f('WipePartitionEntry', 'wipePartitionEntry', pBool),
    ],
    key: (v) => {
      const n = intv(v, 'Number');
      const label = ptrv<string>(v, 'Label');
      return n !== 0 ? `number:${n}` : label !== undefined ? `label:${label}` : '';
    },
  });
  const disk = def({
    name: 'Disk',
    fields: [
      f('Device', 'device', str(), false),
      f('Partitions', 'partitions', slice(struct(partition))),
      f('WipeTable', 'wipeTable', pBool),
    ],
    key: (v) => strv(v, 'Device'),
  });
  const filesystem = def({
    name: 'Filesystem',
    fields: [
      f('Device', 'device', str(), false),
      f('Format', 'format', pStr),
      f('Label', 'label', pStr),
      ...at(1, f('MountOptions', 'mountOptions', slice(str('MountOption')))),
      f('Options', 'options', slice(str('FilesystemOption'))),
      f('Path', 'path', pStr),
      f('UUID', 'uuid', pStr),
      f('WipeFilesystem', 'wipeFilesystem', pBool),
    ],
    key: (v) => strv(v, 'Device'),
    ignoreDups: new Set(minor >= 1 ? ['Options', 'MountOptions'] : ['Options']),
  });
  const raid = def({
    name: 'Raid',
    fields: [
      f('Devices', 'devices', slice(str('Device')), minor >= 3),
      minor >= 3 ? f('Level', 'level', pStr) : f('Level', 'level', str(), false),
      f('Name', 'name', str(), false),
      f('Options', 'options', slice(str('RaidOption'))),
      f('Spares', 'spares', pInt),
    ],
    key: (v) => strv(v, 'Name'),
    ignoreDups: new Set(['Options']),
  });

  const tang = def({
    name: 'Tang',
    fields: [...at(4, f('Advertisement', 'advertisement', pStr)), f('Thumbprint', 'thumbprint', pStr), f('URL', 'url', str())],
    key: (v) => strv(v, 'URL'),
  });
  const clevisCustom =
    minor >= 3
      ? def({
          name: 'ClevisCustom',
          fields: [f('Config', 'config', pStr), f('NeedsNetwork', 'needsNetwork', pBool), f('Pin', 'pin', pStr)],
        })
      : def({
          name: 'Custom',
          fields: [f('Config', 'config', str(), false), f('NeedsNetwork', 'needsNetwork', pBool), f('Pin', 'pin', str(), false)],
        });
  const clevis = def({
    name: 'Clevis',
    fields: [
      f('Custom', 'custom', minor >= 3 ? struct(clevisCustom) : pStruct(clevisCustom)),
      f('Tang', 'tang', slice(struct(tang))),
      f('Threshold', 'threshold', pInt),
      f('Tpm2', 'tpm2', pBool),
    ],
  });
  const cex = def({ name: 'Cex', fields: [f('Enabled', 'enabled', pBool)] });
  const luks = def({
    name: 'Luks',
    fields: [
      ...at(5, f('Cex', 'cex', struct(cex))),
      f('Clevis', 'clevis', minor >= 3 ? struct(clevis) : pStruct(clevis)),
      f('Device', 'device', pStr),
      ...at(4, f('Discard', 'discard', pBool)),
      f('KeyFile', 'keyFile', struct(resource)),
      f('Label', 'label', pStr),
      f('Name', 'name', str(), false),
      ...at(4, f('OpenOptions', 'openOptions', slice(str('OpenOption')))),
      f('Options', 'options', slice(str('LuksOption'))),
      f('UUID', 'uuid', pStr),
      f('WipeVolume', 'wipeVolume', pBool),
    ],
    key: (v) => strv(v, 'Name'),
    ignoreDups: new Set(['Options']),
  });

  const storage = def({
    name: 'Storage',
    fields: [
      f('Directories', 'directories', slice(struct(directory))),
      f('Disks', 'disks', slice(struct(disk))),
      f('Files', 'files', slice(struct(file))),
      f('Filesystems', 'filesystems', slice(struct(filesystem))),
      f('Links', 'links', slice(struct(link))),
      ...at(2, f('Luks', 'luks', slice(struct(luks)))),
      f('Raid', 'raid', slice(struct(raid))),
    ],
    mergedKeys: { Directories: 'Node', Files: 'Node', Links: 'Node' },
  });

  const dropin = def({
    name: 'Dropin',
    fields: [f('Contents', 'contents', pStr), f('Name', 'name', str(), false)],
    key: (v) => strv(v, 'Name'),
  });
  const unit = def({
    name: 'Unit',
    fields: [
      f('Contents', 'contents', pStr),
      f('Dropins', 'dropins', slice(struct(dropin))),
      f('Enabled', 'enabled', pBool),
      f('Mask', 'mask', pBool),
      f('Name', 'name', str(), false),
    ],
    key: (v) => strv(v, 'Name'),
  });
  const systemd = def({ name: 'Systemd', fields: [f('Units', 'units', slice(struct(unit)))] });

  const config = def({
    name: 'Config',
    fields: [
      f('Ignition', 'ignition', struct(ignition), false),
      ...at(3, f('KernelArguments', 'kernelArguments', struct(kernelArguments))),
      f('Passwd', 'passwd', struct(passwd)),
      f('Storage', 'storage', struct(storage)),
      f('Systemd', 'systemd', struct(systemd)),
    ],
  });
  return { minor, config, byName };
}

const SPEC3 = new Map<Minor3, Spec3Types>(MINORS_3.map((m) => [m, buildSpec3(m)]));

/** The Go types of spec 3.<minor>. */
export function spec3Types(minor: Minor3): Spec3Types {
  return SPEC3.get(minor)!;
}

// ---- decoding (encoding/json) ---------------------------------------------------------------------------

/** The first json.UnmarshalTypeError met, in encoding/json's words. */
export interface DecodeResult<T> {
  value: T;
  typeError?: string;
  /** Keys no field took, as paths (`["storage","files",0,"foo"]`), in document order. */
  unused: (string | number)[][];
}

/** How Go spells a type in an UnmarshalTypeError (`int`, `types.Device`, `[]types.File`, `types.Storage`). */
export function goTypeName(t: GoType, pkg = 'types'): string {
  switch (t.kind) {
    case 'scalar':
      return t.named === undefined ? t.scalar : `${pkg}.${t.named}`;
    case 'ptr':
      return t.scalar;
    case 'ptrStruct':
    case 'struct':
      return `${pkg}.${t.struct.name}`;
    case 'slice':
      return t.named === undefined ? `[]${goTypeName(t.elem, pkg)}` : `${pkg}.${t.named}`;
  }
}

/** How encoding/json names the JSON value it could not store. */
export const jsonWhat = (v: unknown): string =>
  Array.isArray(v)
    ? 'array'
    : typeof v === 'object'
      ? 'object'
      : typeof v === 'number'
        ? 'number'
        : typeof v === 'boolean'
          ? 'bool'
          : 'string';

interface DecodeState {
  typeError?: string;
  unused: (string | number)[][];
  pkg: string;
}

/** A struct's fields with embedded ones promoted, each with the Go-field path to reach it. */
interface FlatField {
  def: FieldDef;
  via: string[];
}
const flatCache = new WeakMap<StructDef, FlatField[]>();
export function flatFields(s: StructDef): FlatField[] {
  let out = flatCache.get(s);
  if (out === undefined) {
    out = [];
    for (const fd of s.fields) {
      if (fd.embedded && fd.type.kind === 'struct') {
        for (const inner of flatFields(fd.type.struct)) out.push({ def: inner.def, via: [fd.go, ...inner.via] });
      } else out.push({ def: fd, via: [] });
    }
    flatCache.set(s, out);
  }
  return out;
}

/**
 * Decodes a JSON value into a Go value of type `t` the way encoding/json does: unknown keys are dropped, keys
 * match a field's name exactly or else without regard to case, JSON null leaves a non-pointer alone and makes a
 * pointer or slice nil, and a value of the wrong JSON type leaves the field as it was and is reported (the first
 * one only). `pkg` is the Go package name types print with (`types`).
 */
export function decode(json: unknown, t: GoType, pkg = 'types'): DecodeResult<GoValue> {
  const st: DecodeState = { unused: [], pkg };
  const value = decodeInto(zeroOf(t), json, t, st, { struct: '', fields: [], path: [] });
  return { value, unused: st.unused, ...(st.typeError === undefined ? {} : { typeError: st.typeError }) };
}

interface Ctx {
  /** The innermost Go struct type being decoded ('' at the top). */
  struct: string;
  /** The JSON keys from the root (Go's FieldStack). */
  fields: string[];
  /** The full path, with list indexes, for unused-key reports. */
  path: (string | number)[];
}

function typeError(st: DecodeState, ctx: Ctx, what: string, t: GoType): void {
  if (st.typeError !== undefined) return;
  const type = goTypeName(t, st.pkg);
  st.typeError =
    ctx.struct !== '' || ctx.fields.length > 0
      ? `json: cannot unmarshal ${what} into Go struct field ${ctx.struct}.${ctx.fields.join('.')} of type ${type}`
      : `json: cannot unmarshal ${what} into Go value of type ${type}`;
}

function decodeScalar(cur: GoValue, json: unknown, scalar: Scalar, t: GoType, st: DecodeState, ctx: Ctx): GoValue {
  if (scalar === 'string' && typeof json === 'string') return json;
  if (scalar === 'bool' && typeof json === 'boolean') return json;
  if (scalar === 'int' && typeof json === 'number') {
    if (Number.isSafeInteger(json)) return json;
    typeError(st, ctx, `number ${String(json)}`, t);
    return cur;
  }
  typeError(st, ctx, jsonWhat(json), t);
  return cur;
}

function decodeInto(cur: GoValue, json: unknown, t: GoType, st: DecodeState, ctx: Ctx): GoValue {
  if (json === null) return t.kind === 'ptr' || t.kind === 'ptrStruct' || t.kind === 'slice' ? null : cur;
  switch (t.kind) {
    case 'scalar':
      return decodeScalar(cur, json, t.scalar, t, st, ctx);
    case 'ptr':
      return decodeScalar(cur === null ? zeroOf({ kind: 'scalar', scalar: t.scalar }) : cur, json, t.scalar, t, st, ctx);
    case 'ptrStruct':
    case 'struct': {
      const base = isStruct(cur) ? cur : zeroStruct(t.struct);
      if (typeof json !== 'object' || Array.isArray(json)) {
        typeError(st, ctx, jsonWhat(json), t);
        return cur;
      }
      return decodeStruct(base, json as Record<string, unknown>, t.struct, st, ctx);
    }
    case 'slice': {
      if (!Array.isArray(json)) {
        typeError(st, ctx, jsonWhat(json), t);
        return cur;
      }
      return json.map((item, i) => decodeInto(zeroOf(t.elem), item, t.elem, st, { ...ctx, path: [...ctx.path, i] }));
    }
  }
}

function decodeStruct(base: GoStruct, json: Record<string, unknown>, s: StructDef, st: DecodeState, ctx: Ctx): GoStruct {
  const out = structuredClone(base);
  const flat = flatFields(s);
  for (const [key, val] of Object.entries(json)) {
    const hit = flat.find((x) => x.def.json === key) ?? flat.find((x) => x.def.json.toLowerCase() === key.toLowerCase());
    if (hit === undefined) {
      st.unused.push([...ctx.path, key]);
      continue;
    }
    let holder = out;
    for (const g of hit.via) holder = sv(holder, g);
    const inner: Ctx = { struct: s.name, fields: [...ctx.fields, hit.def.json], path: [...ctx.path, hit.def.json] };
    holder[hit.def.go] = decodeInto(holder[hit.def.go] ?? zeroOf(hit.def.type), val, hit.def.type, st, inner);
    if (hit.def.json !== key) st.unused.push([...ctx.path, key]);
  }
  return out;
}

// ---- encoding (clarketm/json) ---------------------------------------------------------------------------

/**
 * Marshals a Go value as github.com/clarketm/json does: struct fields in declaration order (embedded structs'
 * fields promoted), a field tagged omitempty left out when empty (a struct when every field in it is empty,
 * recursively), nil pointers and nil slices as null where there is no omitempty.
 */
export function encode(v: GoValue, t: GoType): unknown {
  switch (t.kind) {
    case 'scalar':
      return v ?? zeroOf(t);
    case 'ptr':
      return v ?? null;
    case 'ptrStruct':
    case 'struct':
      return isStruct(v) ? encodeStruct(v, t.struct) : t.kind === 'struct' ? encodeStruct(zeroStruct(t.struct), t.struct) : null;
    case 'slice':
      return Array.isArray(v) ? v.map((x) => encode(x, t.elem)) : null;
  }
}

function encodeStruct(v: GoStruct, s: StructDef): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const fd of s.fields) {
    const fv = v[fd.go];
    if (fd.embedded && fd.type.kind === 'struct') {
      Object.assign(out, encodeStruct(isStruct(fv) ? fv : zeroStruct(fd.type.struct), fd.type.struct));
      continue;
    }
    if (fd.omitempty && isEmpty(fv, fd.type)) continue;
    out[fd.json] = encode(fv ?? zeroOf(fd.type), fd.type);
  }
  return out;
}

// ---- conversion between minor versions ------------------------------------------------------------------

/**
 * Carries a value of one version's type into the next version's type field by field, as Ignition's
 * translate.Translator and the config/v3_x/translate packages do: same-named fields copied, new fields left
 * zero, a string that became a pointer always set (util.StrToPtr, even for ""), a nil struct pointer that
 * became a struct left zero.
 */
export function convert(v: GoValue, from: GoType, to: GoType): GoValue {
  if (to.kind === 'scalar') return v ?? zeroOf(to);
  if (to.kind === 'ptr') return from.kind === 'scalar' ? (v ?? zeroOf({ kind: 'scalar', scalar: to.scalar })) : (v ?? null);
  if (to.kind === 'slice') {
    if (!Array.isArray(v) || from.kind !== 'slice') return null;
    return v.map((x) => convert(x, from.elem, to.elem));
  }
  // struct or pointer to struct
  if (!isStruct(v)) return to.kind === 'struct' ? zeroStruct(to.struct) : null;
  const fromStruct = from.kind === 'struct' || from.kind === 'ptrStruct' ? from.struct : undefined;
  const out = zeroStruct(to.struct);
  if (fromStruct === undefined) return out;
  for (const fd of to.struct.fields) {
    const src = fromStruct.fields.find((x) => x.go === fd.go);
    if (src !== undefined) out[fd.go] = convert(v[fd.go] ?? zeroOf(src.type), src.type, fd.type);
  }
  return out;
}
