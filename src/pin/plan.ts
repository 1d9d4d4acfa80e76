import { OsimageError, type Warning } from '../errors.js';
import type { AtomicWrite } from '../files/atomic.js';
import { editFilesAtomic } from '../files/edit.js';
import { readTextIfExists } from '../files/read.js';
import { hasUserinfo, redactUrl, withoutUserinfo } from '../http/redact.js';
import { resolveBuild, type ResolvedBuild } from '../rhcos/resolve.js';
import {
  DEFAULT_ARCH,
  defaultBaseUrlFor,
  missingChannelError,
  normalizeBaseUrl,
  pinNames,
  validateArch,
  validateBuildName,
  validateChannel,
  type PinVar,
  type Settings,
  type SettingsFlags,
} from '../rhcos/settings.js';
import { editPins, misspeltPins, newScript, parseScript, readPins, type PinValues, type ScriptPins } from './script.js';
import { snapshotOf, stableJson } from './snapshot.js';
import { LEGACY_CHANNEL } from '../rhcos/defaults.js';

/** Where a setting came from when pinning: flag > env > the file's current pin > default (or the newest build). */
export type PinSource = 'flag' | 'env' | 'file' | 'default' | 'newest';

export interface LayeredSettings {
  settings: Settings;
  from: { baseUrl: PinSource; channel: PinSource; build: PinSource };
  /** Things worth saying: the environment overriding the file (`env-over-pin`), --latest leaving a pin behind (`latest-ignores-env`). */
  notes: Warning[];
}

/**
 * The settings `pin` and `promote` resolve with. Each of base URL and channel comes from the flag, else
 * the environment, else the file's current pin, else the default. There is no default channel (a usage
 * error), except for a file that pins a build of the default stream but no channel: such a script was
 * written in 2019 and meant `maipo` (LEGACY_CHANNEL), so old branches still check. The default base URL is
 * the one of the channel (defaultBaseUrlFor). The build comes from --build, else
 * RHCOS_BUILD_NAME, else the file's pin, else the newest build; with `latest` it is always the newest.
 * With `ignoreEnv` (pin --check) the environment is not read at all. With `flags.osStream` the file's and the
 * environment's variables are that OS stream's (`RHCOS_RHEL_10_BUILD_NAME`, …); `filePins` was read for it.
 */
export function layerSettings(
  flags: SettingsFlags,
  env: NodeJS.ProcessEnv,
  filePins: ScriptPins,
  file: string,
  opts: { latest?: boolean; ignoreEnv?: boolean } = {},
): LayeredSettings {
  const notes: Warning[] = [];
  const names = pinNames(flags.osStream);
  const fromEnv = (k: PinVar) => {
    const v = env[names[k]];
    return opts.ignoreEnv || v === undefined || v === '' ? undefined : v;
  };
  function pick(flag: string | undefined, role: PinVar, dflt: string, dfltSource: PinSource): [string, PinSource, string] {
    const pinned = filePins[role];
    const name = names[role];
    if (flag !== undefined) return [flag, 'flag', flagName(role)];
    const e = fromEnv(role);
    if (e !== undefined) {
      if (pinned && pinned.value !== e && pinned.value !== '') {
        notes.push({
          code: 'env-over-pin',
          message: `${name}=${e} from the environment is used instead of the pin ${pinned.value} in ${file}:${pinned.line}`,
        });
      }
      return [e, 'env', name];
    }
    if (pinned && pinned.value !== '') return [pinned.value, 'file', `${file}:${pinned.line} (${name})`];
    return [dflt, dfltSource, 'default'];
  }
  const pinsBuild = flags.osStream === undefined && (filePins.RHCOS_BUILD_NAME?.value ?? '') !== '';
  const [channel, chanFrom, chanOrigin] = pick(flags.channel, 'RHCOS_DEFAULT_CHANNEL', pinsBuild ? LEGACY_CHANNEL : '', 'default');
  if (channel === '') throw missingChannelError(names.RHCOS_DEFAULT_CHANNEL);
  if (chanFrom === 'default') {
    notes.push({
      code: 'pin-defaulted',
      message: `${file} pins a build but no ${names.RHCOS_DEFAULT_CHANNEL}: read as ${LEGACY_CHANNEL}, the channel of release scripts pinned in 2019`,
    });
  }
  const [baseUrl, baseFrom, baseOrigin] = pick(flags.baseUrl, 'RHCOS_BASE_URL', defaultBaseUrlFor(channel), 'default');
  let build: string;
  let buildFrom: PinSource;
  let buildOrigin: string;
  if (opts.latest) {
    [build, buildFrom, buildOrigin] = ['', 'newest', 'newest'];
    const e = fromEnv('RHCOS_BUILD_NAME');
    if (e !== undefined)
      notes.push({ code: 'latest-ignores-env', message: `--latest: ignoring ${names.RHCOS_BUILD_NAME}=${e} from the environment` });
  } else {
    [build, buildFrom, buildOrigin] = pick(flags.build, 'RHCOS_BUILD_NAME', '', 'newest');
  }
  const arch = flags.arch ?? DEFAULT_ARCH;
  const asSource = (s: PinSource) => (s === 'flag' || s === 'env' ? s : 'default');
  return {
    settings: {
      baseUrl: normalizeBaseUrl(baseUrl, baseOrigin),
      channel: validateChannel(channel, chanOrigin),
      build: validateBuildName(build, buildOrigin),
      arch: validateArch(arch),
      sources: {
        baseUrl: asSource(baseFrom),
        channel: asSource(chanFrom),
        build: asSource(buildFrom),
        arch: flags.arch ? 'flag' : 'default',
      },
    },
    from: { baseUrl: baseFrom, channel: chanFrom, build: buildFrom },
    notes,
  };
}

function flagName(name: PinVar): string {
  return name === 'RHCOS_BUILD_NAME' ? '--build' : name === 'RHCOS_DEFAULT_CHANNEL' ? '--channel' : '--base-url';
}

export interface FileChange {
  path: string;
  /** undefined: the file does not exist yet. */
  before: string | undefined;
  after: string;
  changed: boolean;
}

export interface PinPlan {
  file: string;
  resolved: ResolvedBuild;
  values: PinValues;
  /** The pins the file had before. */
  previous: ScriptPins;
  from: LayeredSettings['from'];
  /** `edited` and `added` name the real variables (a stream's: `RHCOS_RHEL_10_BUILD_NAME`). */
  script: FileChange & { edited: string[]; added: string[] };
  /** The OS stream pinned (--os-stream); undefined for the default stream. */
  stream: string | undefined;
  meta: FileChange | undefined;
  notes: Warning[];
  /** Misspelt variables in the file, resolver warnings. */
  warnings: Warning[];
}

export interface PinRequest {
  file: string;
  meta?: string | undefined;
  flags: SettingsFlags;
  env: NodeJS.ProcessEnv;
  latest?: boolean;
}

/** The values the pins take for a resolved build. */
export function pinValuesOf(r: Pick<ResolvedBuild, 'build' | 'channel' | 'baseUrl'>): PinValues {
  // A pin is committed to git: a user, password or token in the base URL never goes there.
  return { RHCOS_BUILD_NAME: r.build, RHCOS_DEFAULT_CHANNEL: r.channel, RHCOS_BASE_URL: withoutUserinfo(r.baseUrl) };
}

/** The warning when the base URL's credentials were left out of what is written (`where`). */
export function credentialsNotWritten(baseUrl: string, where: string): Warning[] {
  if (!hasUserinfo(baseUrl)) return [];
  let host = '';
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    // not a URL osimage could have fetched; the message names no host
  }
  return [
    {
      code: 'credentials-not-written',
      message: `the credentials in the base URL ${redactUrl(baseUrl)} are not written to ${where}: put them in ~/.netrc (or the file $NETRC names) as "machine ${host || 'HOST'} login USER password PASSWORD", where osimage reads them`,
    },
  ];
}

/** The file's current pins (of the OS stream, when given), and warnings about misspelt variables in it. */
export function pinsOfText(text: string | undefined, file: string, stream?: string): { pins: ScriptPins; warnings: Warning[] } {
  if (text === undefined) return { pins: {}, warnings: [] };
  const parsed = parseScript(text);
  const warnings = misspeltPins(parsed).map(
    (m): Warning => ({
      code: 'misspelt-pin',
      message: `${file}:${m.line} assigns ${m.name}, which osimage does not read; did you mean ${m.suggestion}?`,
    }),
  );
  return { pins: readPins(parsed, file, stream), warnings };
}

/** Compute the edits for a resolved build: the script (created when absent) and the metadata snapshot. */
export async function planFor(
  file: string,
  metaFile: string | undefined,
  resolved: ResolvedBuild,
  before?: string,
  stream?: string,
): Promise<Pick<PinPlan, 'script' | 'meta' | 'values'>> {
  const scriptBefore = before ?? (await readTextIfExists(file));
  const values = pinValuesOf(resolved);
  let script: PinPlan['script'];
  if (scriptBefore === undefined) {
    script = { path: file, before: undefined, after: newScript(values, file, stream), changed: true, edited: [], added: [] };
  } else {
    const e = editPins(scriptBefore, values, file, stream);
    script = { path: file, before: scriptBefore, after: e.text, changed: e.changed, edited: e.edited, added: e.added };
  }
  let meta: FileChange | undefined;
  if (metaFile !== undefined) {
    const metaBefore = await readTextIfExists(metaFile);
    const after = stableJson(snapshotOf(resolved.meta, resolved.buildDir));
    meta = { path: metaFile, before: metaBefore, after, changed: metaBefore !== after };
  }
  return { script, meta, values };
}

/** Resolve the build the request means and compute the edits. Nothing is written. */
export async function planPin(req: PinRequest): Promise<PinPlan> {
  if (req.meta !== undefined && req.meta === req.file) throw new OsimageError(`--meta and --write name the same file: ${req.file}`);
  const before = await readTextIfExists(req.file);
  const stream = req.flags.osStream;
  const { pins, warnings } = pinsOfText(before, req.file, stream);
  const layered = layerSettings(req.flags, req.env, pins, req.file, { latest: req.latest ?? false });
  let resolved: ResolvedBuild;
  try {
    resolved = await resolveBuild(layered.settings);
  } catch (err) {
    const chan = pins.RHCOS_DEFAULT_CHANNEL?.value;
    if (err instanceof OsimageError && layered.from.build === 'file' && chan && chan !== layered.settings.channel) {
      throw new OsimageError(
        `${err.message} (that build is the pin ${req.file} has for channel ${chan}; use --latest or --build to pin a build of ${layered.settings.channel})`,
        { cause: err },
      );
    }
    throw err;
  }
  const planned = await planFor(req.file, req.meta, resolved, before, stream);
  return {
    file: req.file,
    stream,
    resolved,
    previous: pins,
    from: layered.from,
    notes: layered.notes,
    warnings: [...warnings, ...resolved.warnings, ...credentialsNotWritten(resolved.baseUrl, req.file)],
    ...planned,
  };
}

/**
 * Write the changed files all together or not at all; a new script gets mode 0755. A symlink is kept and its
 * target written (a dangling link's target is created); a read-only file is refused. Returns what was written.
 */
export async function applyPlan(plan: Pick<PinPlan, 'script' | 'meta'>): Promise<string[]> {
  const writes: AtomicWrite[] = [];
  const written: string[] = [];
  if (plan.script.changed) {
    writes.push({ path: plan.script.path, data: plan.script.after, mode: 0o755 });
    written.push(plan.script.path);
  }
  if (plan.meta?.changed) {
    writes.push({ path: plan.meta.path, data: plan.meta.after, mode: 0o644 });
    written.push(plan.meta.path);
  }
  if (writes.length > 0) await editFilesAtomic(writes);
  return written;
}
