import { describe, hasCode, type OnWarning, type Warning } from '../errors.js';
import { resolveBuild } from '../rhcos/resolve.js';
import { defaultBaseUrlFor, normalizeBaseUrl, pinNames, type PinVar } from '../rhcos/settings.js';
import { LEGACY_CHANNEL } from '../rhcos/defaults.js';
import { buildDirUrl } from '../rhcos/urls.js';
import { type CheckReason, PinCheckError, PinScriptError } from './errors.js';
import { noSuchFile, readTextIfExists } from '../files/read.js';
import { layerSettings } from './plan.js';
import { misspeltPins, parseScript, readPins, type ScriptPins } from './script.js';
import type { Json } from '../json.js';
import { changedFields, describeChange, LATER_FIELDS, snapshotOf, type FieldChange } from './snapshot.js';
import { redactUrl } from '../http/redact.js';

export interface CheckRequest {
  file: string;
  meta?: string | undefined;
  /** --base-url: fetch from a mirror instead of the pinned base URL (the snapshot's baseURI still uses the pin). */
  baseUrl?: string | undefined;
  arch?: string | undefined;
  /** --os-stream: check that OS stream's pins (`RHCOS_RHEL_10_BUILD_NAME`, …) instead of `RHCOS_*`. */
  osStream?: string | undefined;
  /** Each warning as soon as it is known, so it is printed even when the check then fails. */
  onWarning?: OnWarning | undefined;
}

export interface CheckReport {
  file: string;
  build: string;
  channel: string;
  /** The pinned base URL. */
  baseUrl: string;
  /** Where builds.json and meta.json were read (the pin, or --base-url). */
  fetchedFrom: string;
  arch: string;
  buildsUrl: string;
  meta: string | undefined;
  /** The OS stream checked; undefined for the default stream. */
  stream: string | undefined;
  /** Pins the file leaves to the default (channel, base URL), by their default names. */
  defaulted: PinVar[];
  /** Every warning (also given to onWarning as it came). */
  warnings: Warning[];
}

/** `osimage pin [--os-stream S] --write FILE --meta META`: the command that rewrites the snapshot. */
function repinCommand(req: CheckRequest): string {
  return `osimage pin${req.osStream ? ` --os-stream ${req.osStream}` : ''} --write ${req.file} --meta ${req.meta}`;
}

/**
 * Check the pins of a script as it is written, not as the environment would override them: the file
 * assigns no misspelt variable, it pins a build, the build is still in builds.json (for the arch),
 * and with `meta` the snapshot file still matches the build's meta.json (a field the build has that an
 * older snapshot does not record is a warning). Throws PinCheckError. Warnings go to `onWarning` as they
 * are found, before any error.
 */
export async function checkPins(req: CheckRequest): Promise<CheckReport> {
  const names = pinNames(req.osStream);
  const warnings: Warning[] = [];
  const warn = (w: Warning) => {
    warnings.push(w);
    req.onWarning?.(w);
  };
  const text = await readTextIfExists(req.file);
  if (text === undefined) throw new PinCheckError('no-file', noSuchFile(req.file).message);
  const parsed = parseScript(text);

  const misspelt = misspeltPins(parsed);
  if (misspelt.length > 0) {
    const list = misspelt.map((m) => `${m.name} (line ${m.line}; did you mean ${m.suggestion}?)`).join(', ');
    throw new PinCheckError('misspelt', `${req.file} assigns ${list}, which osimage does not read: the pin would be silently ignored`);
  }
  let pins: ScriptPins;
  try {
    pins = readPins(parsed, req.file, req.osStream);
  } catch (err) {
    if (err instanceof PinScriptError) throw new PinCheckError('unreadable', err.message, err);
    throw err;
  }
  const build = pins.RHCOS_BUILD_NAME;
  if (!build)
    throw new PinCheckError(
      'no-pin',
      `${req.file} has no pin: it does not assign ${names.RHCOS_BUILD_NAME} (the build would float to the newest)`,
    );
  if (build.value === '') {
    throw new PinCheckError(
      'no-pin',
      `${req.file} has no pin: ${names.RHCOS_BUILD_NAME} is empty on line ${build.line} (the build would float to the newest)`,
    );
  }

  // An OS stream's pins came after channels were pinned: without its channel the file names no build.
  if (req.osStream !== undefined && !pins.RHCOS_DEFAULT_CHANNEL?.value) {
    throw new PinCheckError(
      'no-pin',
      `${req.file} pins ${names.RHCOS_BUILD_NAME} but not ${names.RHCOS_DEFAULT_CHANNEL}, so it names no build`,
    );
  }
  const flags = { baseUrl: req.baseUrl, arch: req.arch, osStream: req.osStream };
  const layered = layerSettings(flags, {}, pins, req.file, { ignoreEnv: true });
  const settings = layered.settings;
  const pinnedBase = pins.RHCOS_BASE_URL
    ? normalizeBaseUrl(pins.RHCOS_BASE_URL.value, `${req.file}:${pins.RHCOS_BASE_URL.line}`)
    : defaultBaseUrlFor(settings.channel);
  const defaulted: PinVar[] = [];
  if (!pins.RHCOS_DEFAULT_CHANNEL?.value) {
    defaulted.push('RHCOS_DEFAULT_CHANNEL');
    warn({
      code: 'pin-defaulted',
      message: `${req.file} does not pin ${names.RHCOS_DEFAULT_CHANNEL}; checked against ${LEGACY_CHANNEL}, the channel of release scripts pinned in 2019`,
    });
  }
  if (!pins.RHCOS_BASE_URL?.value) {
    defaulted.push('RHCOS_BASE_URL');
    warn({
      code: 'pin-defaulted',
      message: `${req.file} does not pin ${names.RHCOS_BASE_URL}; read as ${pinnedBase}, the default for channel ${settings.channel}`,
    });
  }

  // A failure from here on still says which pins were defaulted, as a pass does.
  const failed = (reason: CheckReason, message: string, cause?: unknown) => new PinCheckError(reason, message, cause, defaulted);
  const where = `${req.file}:${build.line} pins ${names.RHCOS_BUILD_NAME}=${build.value}`;
  let resolved;
  try {
    resolved = await resolveBuild(settings);
  } catch (err) {
    if (hasCode(err, 'build-not-found')) throw failed('build-gone', `${where}, but ${err.message}`, err);
    throw err;
  }
  resolved.warnings.forEach(warn);

  if (req.meta !== undefined) {
    const snapText = await readTextIfExists(req.meta);
    if (snapText === undefined) {
      throw failed('meta-missing', `${noSuchFile(req.meta).message} (write it with: ${repinCommand(req)})`);
    }
    let snap: Json;
    try {
      snap = JSON.parse(snapText) as Json;
    } catch (err) {
      throw failed('meta-invalid', `${req.meta} is not valid JSON: ${describe(err)}`);
    }
    if (typeof snap !== 'object' || snap === null || Array.isArray(snap)) throw failed('meta-invalid', `${req.meta} is not a JSON object`);
    if (snap.buildid !== build.value) {
      throw failed(
        'meta-changed',
        `${req.meta} is the snapshot of build ${String(snap.buildid)}, but ${req.file}:${build.line} pins ${build.value} (re-run ${repinCommand(req)})`,
      );
    }
    const pinnedDir = buildDirUrl(pinnedBase, resolved.channel, resolved.build, resolved.layout, resolved.arch);
    const all = changedFields(snap, snapshotOf(resolved.meta, redactUrl(pinnedDir)));
    const unrecorded = all.filter(notRecordedYet);
    if (unrecorded.length > 0) {
      warn({
        code: 'meta-field-unrecorded',
        message: `${req.meta} does not record ${unrecorded.map((c) => c.field).join(', ')}, which ${resolved.metaUrl} has (a snapshot from before osimage kept them); refresh it with: ${repinCommand(req)}`,
      });
    }
    const changes = all.filter((c) => !notRecordedYet(c));
    if (changes.length > 0) {
      throw failed(
        'meta-changed',
        `${req.meta} no longer matches ${resolved.metaUrl}: ${changes.length} field${changes.length === 1 ? '' : 's'} changed: ${changes.map(describeChange).join('; ')}`,
      );
    }
  }
  return {
    file: req.file,
    build: resolved.build,
    channel: resolved.channel,
    baseUrl: pinnedBase,
    fetchedFrom: resolved.baseUrl,
    arch: resolved.arch,
    buildsUrl: resolved.buildsUrl,
    meta: req.meta,
    stream: req.osStream,
    defaulted,
    warnings,
  };
}

/** A field of the snapshot format added later (LATER_FIELDS) that the snapshot lacks altogether. */
function notRecordedYet(c: FieldChange): boolean {
  return c.old === undefined && LATER_FIELDS.includes(c.field);
}
