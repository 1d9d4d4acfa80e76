import { isAbsolute, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { redactUrl } from '../http/redact.js';
import { UsageError, type Warning } from '../errors.js';
import { editDistance } from './closest.js';
import { env as runEnv } from '../context.js';

import { DEFAULT_ARCH, DEFAULT_BASE_URL, EXAMPLE_CHANNEL, LEGACY_BASE_URL, LEGACY_CHANNELS } from './defaults.js';

export { DEFAULT_ARCH, DEFAULT_BASE_URL };

/** The three pin variables, in the order they are written. */
export const PIN_VARS = ['RHCOS_BUILD_NAME', 'RHCOS_DEFAULT_CHANNEL', 'RHCOS_BASE_URL'] as const;
export type PinVar = (typeof PIN_VARS)[number];

/**
 * An OS stream's name as `--os-stream` takes it (`rhel-10`, `centos-10`): lower-case letters and digits in
 * dash-separated words, so that its variable prefix (below) names one stream only.
 */
export function validateOsStream(value: string, origin = '--os-stream'): string {
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(value)) {
    throw new UsageError(
      `${origin}: invalid OS stream name ${JSON.stringify(value)} (lower-case letters and digits in words joined by '-', e.g. rhel-10)`,
    );
  }
  return value;
}

/**
 * THE mapping of an OS stream to the prefix of its pin variables: the default stream (undefined) has
 * `RHCOS_`; stream `rhel-10` has `RHCOS_RHEL_10_` (so `RHCOS_RHEL_10_BUILD_NAME`, …).
 */
export function pinVarPrefix(stream?: string): string {
  return stream === undefined ? 'RHCOS_' : `RHCOS_${validateOsStream(stream).toUpperCase().replace(/-/g, '_')}_`;
}

/** The real variable names of the three pins for an OS stream, keyed by the default stream's names. */
export type PinNames = Record<PinVar, string>;
export function pinNames(stream?: string): PinNames {
  const prefix = pinVarPrefix(stream);
  const name = (v: PinVar) => `${prefix}${v.slice('RHCOS_'.length)}`;
  return {
    RHCOS_BUILD_NAME: name('RHCOS_BUILD_NAME'),
    RHCOS_DEFAULT_CHANNEL: name('RHCOS_DEFAULT_CHANNEL'),
    RHCOS_BASE_URL: name('RHCOS_BASE_URL'),
  };
}

export type Source = 'flag' | 'env' | 'default';

/** Where a release browser is and which build of it we mean. */
export interface Settings {
  /** Base URL without a trailing slash. */
  baseUrl: string;
  /** Empty only when the caller allowed a missing channel (`channelOptional`); its source is then 'default'. */
  channel: string;
  /** Empty means the newest build. */
  build: string;
  arch: string;
  sources: { baseUrl: Source; channel: Source; build: Source; arch: Source };
}

export interface SettingsFlags {
  baseUrl?: string | undefined;
  channel?: string | undefined;
  build?: string | undefined;
  arch?: string | undefined;
  /** --os-stream: read that stream's variables (`RHCOS_RHEL_10_BUILD_NAME`, …) instead of `RHCOS_*`. */
  osStream?: string | undefined;
}

function pick(flag: string | undefined, envValue: string | undefined, dflt: string): [string, Source] {
  if (flag !== undefined) return [flag, 'flag'];
  if (envValue !== undefined && envValue !== '') return [envValue, 'env'];
  return [dflt, 'default'];
}

/**
 * The base URL a channel means when none is given: the 2019 channels (maipo, ootpa) lived only on the legacy
 * release browser, every other on today's default. Pins read from a file use it, so that a 2019 script
 * means what it meant then.
 */
export function defaultBaseUrlFor(channel: string): string {
  return LEGACY_CHANNELS.has(channel) ? LEGACY_BASE_URL : DEFAULT_BASE_URL;
}

/**
 * The usage error for a channel that neither the flag nor the environment gives: there is no default
 * channel, so it names both and a real one. `envName` is the OS stream's variable with --os-stream.
 */
export function missingChannelError(envName = 'RHCOS_DEFAULT_CHANNEL'): UsageError {
  return new UsageError(
    `no channel: give --channel or ${envName}, e.g. --channel ${EXAMPLE_CHANNEL} (a stream of the public mirror ${DEFAULT_BASE_URL})`,
  );
}

/**
 * Flag beats env beats default; an empty env value counts as unset. Values are validated here. With
 * `flags.osStream` the environment variables are that stream's (`RHCOS_RHEL_10_BUILD_NAME`, …). There is
 * no default channel: a missing one is a usage error (missingChannelError), unless `opts.channelOptional`
 * (a command whose operands may name the channel), which leaves it empty for the caller to require.
 */
export function resolveSettings(
  flags: SettingsFlags = {},
  env: NodeJS.ProcessEnv = runEnv(),
  opts: { channelOptional?: boolean } = {},
): Settings {
  const names = pinNames(flags.osStream);
  const [baseUrl, baseSrc] = pick(flags.baseUrl, env[names.RHCOS_BASE_URL], DEFAULT_BASE_URL);
  const [channel, chanSrc] = pick(flags.channel, env[names.RHCOS_DEFAULT_CHANNEL], '');
  if (chanSrc === 'default' && !opts.channelOptional) throw missingChannelError(names.RHCOS_DEFAULT_CHANNEL);
  const [build, buildSrc] = pick(flags.build, env[names.RHCOS_BUILD_NAME], '');
  const [arch, archSrc] = pick(flags.arch, undefined, DEFAULT_ARCH);
  const origin = (src: Source, flag: string, envName: string) => (src === 'flag' ? flag : src === 'env' ? envName : 'default');
  return {
    baseUrl: normalizeBaseUrl(baseUrl, origin(baseSrc, '--base-url', names.RHCOS_BASE_URL)),
    channel: chanSrc === 'default' ? '' : validateChannel(channel, origin(chanSrc, '--channel', names.RHCOS_DEFAULT_CHANNEL)),
    build: validateBuildName(build, origin(buildSrc, '--build', names.RHCOS_BUILD_NAME)),
    arch: validateArch(arch),
    sources: { baseUrl: baseSrc, channel: chanSrc, build: buildSrc, arch: archSrc },
  };
}

/**
 * http(s) and file URLs are kept (trailing slashes dropped so joins never give `//`);
 * a plain path means a release browser on disk and becomes a file:// URL.
 */
export function normalizeBaseUrl(value: string, origin = '--base-url'): string {
  const v = value.trim();
  if (v === '') throw new UsageError(`${origin}: the base URL is empty`);
  let url: URL;
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(v)) {
    try {
      url = new URL(v);
    } catch {
      throw new UsageError(`${origin}: invalid base URL ${JSON.stringify(value)}`);
    }
    if (!['http:', 'https:', 'file:'].includes(url.protocol)) {
      throw new UsageError(`${origin}: unsupported scheme ${url.protocol} in ${redactUrl(value)} (use http, https or file)`);
    }
    if (url.search || url.hash) throw new UsageError(`${origin}: the base URL must not carry a query or fragment: ${redactUrl(value)}`);
  } else {
    url = pathToFileURL(isAbsolute(v) ? v : resolvePath(v));
  }
  return url.toString().replace(/\/+$/, '');
}

/** A build name is one path segment: no whitespace, no `/`, not `.` or `..`. */
export function validateBuildName(value: string, origin = '--build'): string {
  if (value === '') return '';
  if (/\s/.test(value)) throw new UsageError(`${origin}: build name ${JSON.stringify(value)} contains whitespace`);
  if (value.includes('/') || value.includes('\\')) throw new UsageError(`${origin}: build name ${JSON.stringify(value)} contains a slash`);
  if (value === '.' || value === '..') throw new UsageError(`${origin}: build name ${JSON.stringify(value)} is not a build`);
  return value;
}

/** A channel is one or more path segments (`maipo`, `rhcos-4.12`, `4.16-9.4/builds`). */
export function validateChannel(value: string, origin = '--channel'): string {
  const v = value.replace(/^\/+|\/+$/g, '');
  if (v === '') throw new UsageError(`${origin}: the channel is empty`);
  if (/\s/.test(v)) throw new UsageError(`${origin}: channel ${JSON.stringify(value)} contains whitespace`);
  if (v.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw new UsageError(`${origin}: channel ${JSON.stringify(value)} has an empty, '.' or '..' segment`);
  }
  return v;
}

export function validateArch(value: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(value)) throw new UsageError(`--arch: invalid architecture ${JSON.stringify(value)}`);
  return value;
}

/** Names that once pinned (or were meant to pin) the same thing. */
const KNOWN_MISTAKES: Record<string, PinVar> = {
  RHCOS_BUILDNAME: 'RHCOS_BUILD_NAME',
  RHCOS_BUILD: 'RHCOS_BUILD_NAME',
  RHCOS_BUILD_ID: 'RHCOS_BUILD_NAME',
  RELEASE_BUILD_NAME: 'RHCOS_BUILD_NAME',
  OPENSHIFT_INSTALL_RHCOS_BUILD_NAME: 'RHCOS_BUILD_NAME',
  OPENSHIFT_INSTALL_RHCOS_BASE_URL: 'RHCOS_BASE_URL',
  OPENSHIFT_INSTALL_RHCOS_DEFAULT_CHANNEL: 'RHCOS_DEFAULT_CHANNEL',
  RHCOS_CHANNEL: 'RHCOS_DEFAULT_CHANNEL',
  RHCOS_BASEURL: 'RHCOS_BASE_URL',
  RHCOS_URL: 'RHCOS_BASE_URL',
};

export interface Misspelling {
  name: string;
  /** The real name: a default pin (`RHCOS_BUILD_NAME`) or a stream's (`RHCOS_RHEL_10_BUILD_NAME`). */
  suggestion: string;
}

/**
 * A name that looks meant for an OS stream's family (pinVarPrefix): `RHCOS_<letters>_<digits>_<rest>`, as
 * `RHCOS_RHEL_10_…` and `RHCOS_CENTOS_10_…`. Its rest is judged as if it followed `RHCOS_`.
 */
const STREAM_LIKE = /^(RHCOS_[A-Z]+_\d+_)(.+)$/;

/**
 * The real pin an upper-case name is a known mistake for, or close to (edit distance ≤ 2). With a stream's
 * `prefix` (`RHCOS_RHEL_10_`), the rest of the name is compared as if it followed `RHCOS_`, and the answer
 * is that stream's variable.
 */
function closestPin(upper: string, prefix?: string): string | undefined {
  const tail = prefix === undefined ? upper : `RHCOS_${upper.slice(prefix.length)}`;
  const real = KNOWN_MISTAKES[tail] ?? PIN_VARS.find((r) => editDistance(tail, r) <= 2);
  if (real === undefined) return undefined;
  return prefix === undefined ? real : `${prefix}${real.slice('RHCOS_'.length)}`;
}

/**
 * Names that look like a misspelt or outdated pin: the known historical mistakes, and near misses
 * (edit distance ≤ 2, any case) of the three real names, also of an OS stream's family
 * (`RHCOS_RHEL_10_BUILDNAME` → `RHCOS_RHEL_10_BUILD_NAME`). The real names, and every stream family's
 * real names (`RHCOS_RHEL_10_BUILD_NAME`), never match.
 */
export function findMisspeltPins(names: Iterable<string>): Misspelling[] {
  const found: Misspelling[] = [];
  for (const name of names) {
    if ((PIN_VARS as readonly string[]).includes(name)) continue;
    const upper = name.toUpperCase();
    const stream = STREAM_LIKE.exec(upper);
    const suggestion = (stream && closestPin(upper, stream[1])) ?? closestPin(upper);
    if (suggestion !== undefined && suggestion !== name) found.push({ name, suggestion });
  }
  return found;
}

/** Warnings for misspelt pins set (non-empty) in the environment. */
export function misspeltEnvWarnings(env: NodeJS.ProcessEnv = runEnv()): Warning[] {
  const set = Object.keys(env).filter((k) => env[k] !== undefined && env[k] !== '');
  return findMisspeltPins(set).map((m) => ({
    code: 'misspelt-pin',
    message: `environment variable ${m.name} is set but is not read; did you mean ${m.suggestion}? (osimage reads ${m.suggestion})`,
  }));
}
