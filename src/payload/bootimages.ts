/**
 * `coreos-bootimages`: the bootimage streams carried in the payload as the installer writes them: a ConfigMap
 * whose `data.stream` is the default stream's JSON and, with several OS streams (2026), `data.streams` a JSON
 * object name → stream. The streams themselves come from the one generator (src/stream/generate.ts); this
 * module names, merges and writes them, in the form the installer's generator of a given era wrote (see
 * {@link BOOTIMAGES_ERAS}).
 */
import { join } from 'node:path';
import { OsimageError, UsageError, describe } from '../errors.js';
import { editFileAtomic } from '../files/edit.js';
import { readTextIfExists, requireDir } from '../files/read.js';
import { parseYamlDocuments, yamlValue } from '../files/yaml.js';
import { goKeyCompare } from '../golang/json.js';
import { validateBuildName, validateChannel, validateOsStream } from '../rhcos/settings.js';
import { goStreamValue, layoutJson, type StreamLayout } from '../stream/format.js';
import type { StreamJson } from '../stream/types.js';
import { configMapYaml } from './bootimages-yaml.js';
import { MCO_NAMESPACE } from './osimageurl.js';
import { checkConfigMapFileName } from './write.js';

export const BOOTIMAGES_CONFIGMAP = 'coreos-bootimages';
/** The installer's manifest name; oc prefixes it to `0000_50_installer_coreos-bootimages.yaml`. */
export const RELEASE_VERSION_PLACEHOLDER = '0.0.1-snapshot';
/** With several OS streams, the installer's default. */
export const DEFAULT_OS_STREAM = 'rhel-9';
export const BOOTIMAGES_ANNOTATIONS = {
  'include.release.openshift.io/ibm-cloud-managed': 'true',
  'include.release.openshift.io/self-managed-high-availability': 'true',
  'include.release.openshift.io/single-node-developer': 'true',
};

/**
 * The forms the installer's `hack/build-coreos-manifest.go` has written, named by when each reached its main
 * branch. Every era's stream went through stream-metadata-go's types (plume cosa2stream wrote the stream
 * file that way, and from 2025 the generator decodes and encodes it again), so unknown fields are dropped and
 * Go's escaping applies in all of them.
 */
export const BOOTIMAGES_ERAS = ['2021', '2025-08', '2025-11', '2026'] as const;
export type BootimagesEra = (typeof BOOTIMAGES_ERAS)[number];
/** A new file, or no file to follow: today's form. */
export const CURRENT_ERA: BootimagesEra = '2026';

interface EraForm {
  /** How `data.stream` (and each stream of `data.streams`) is laid out. */
  layout: StreamLayout;
  /** Zero values for missing fields: the installer re-encoded the stream itself (see goStreamJson). */
  zeroValues: boolean;
  creationTimestamp: boolean;
  /** `data.streams` is written. */
  streams: boolean;
  /**
   * Marketplace images reached only arches that already had `rhel-coreos-extensions`: the generator set them
   * on a copy of each arch, so a new extensions object it made was lost.
   */
  marketplaceNeedsExtensions: boolean;
}

const ERA_FORMS: Record<BootimagesEra, EraForm> = {
  // 2021-04 … 2025-08: data.stream is the stream file (data/data/coreos/rhcos.json) as read, which
  // plume cosa2stream wrote: 2-space indent and a final newline, so `stream: |`.
  '2021': { layout: 'file', zeroValues: false, creationTimestamp: true, streams: false, marketplaceNeedsExtensions: false },
  // 2025-08 … 2026-03: the stream is decoded, the marketplace file merged, and json.Marshal'd: one line.
  '2025-08': { layout: 'compact', zeroValues: true, creationTimestamp: true, streams: false, marketplaceNeedsExtensions: true },
  // From 2025-11 the vendored Kubernetes types leave creationTimestamp out.
  '2025-11': { layout: 'compact', zeroValues: true, creationTimestamp: false, streams: false, marketplaceNeedsExtensions: true },
  // 2026-03 on: one file per OS stream; each stream json.MarshalIndent'ed (no final newline, so `|-`), and
  // data.streams the map of them, MarshalIndent'ed as a whole.
  '2026': { layout: 'indented', zeroValues: true, creationTimestamp: false, streams: true, marketplaceNeedsExtensions: false },
};

/** Whether an era writes `data.streams`. */
export const eraWritesStreams = (era: BootimagesEra): boolean => ERA_FORMS[era].streams;
/** Whether marketplace images of an era reach only arches that already have rhel-coreos-extensions. */
export const eraMarketplaceNeedsExtensions = (era: BootimagesEra): boolean => ERA_FORMS[era].marketplaceNeedsExtensions;

/** `--era auto|ERA`. */
export function parseEra(value: string): BootimagesEra | 'auto' {
  if (value === 'auto' || (BOOTIMAGES_ERAS as readonly string[]).includes(value)) return value as BootimagesEra | 'auto';
  throw new UsageError(`--era ${value}: expected auto or one of ${BOOTIMAGES_ERAS.join(', ')}`);
}

/** What the ConfigMap holds: the default stream, and every OS stream by name when there are named ones. */
export interface Bootimages {
  stream: StreamJson;
  streams?: Record<string, StreamJson>;
}

/** `--os-stream NAME=CHANNEL[@BUILD]`. */
export interface OsStreamRequest {
  name: string;
  channel: string;
  /** Empty: the newest build of the channel. */
  build: string;
}

/** NAME of `--os-stream NAME=…`, `--marketplace NAME=…` or `--name NAME=…`: an OS stream name as every command takes it. */
const streamName = (name: string, flag: string, value: string) => validateOsStream(name, `${flag} ${value}`);

/** Parse repeated `--os-stream NAME=CHANNEL[@BUILD]`; a name given twice is a usage error. */
export function parseOsStreamFlags(values: readonly string[]): OsStreamRequest[] {
  const seen = new Set<string>();
  return values.map((v) => {
    const eq = v.indexOf('=');
    if (eq === -1) throw new UsageError(`--os-stream ${v}: expected NAME=CHANNEL[@BUILD], e.g. rhel-10=rhel-10.2/builds`);
    const name = streamName(v.slice(0, eq), '--os-stream', v);
    if (seen.has(name)) throw new UsageError(`--os-stream: ${name} given twice`);
    seen.add(name);
    const rest = v.slice(eq + 1);
    const at = rest.lastIndexOf('@');
    const channel = validateChannel(at === -1 ? rest : rest.slice(0, at), `--os-stream ${name}=`);
    const build = at === -1 ? '' : validateBuildName(rest.slice(at + 1), `--os-stream ${name}=…@`);
    return { name, channel, build };
  });
}

/** Parse repeated `--marketplace [NAME=]FILE` (no NAME: the default stream). */
export function parseMarketplaceFlags(values: readonly string[]): Array<{ name: string | undefined; file: string }> {
  return values.map((v) => {
    const eq = v.indexOf('=');
    if (eq === -1) return { name: undefined, file: v };
    const file = v.slice(eq + 1);
    if (file === '') throw new UsageError(`--marketplace ${v}: the file is empty`);
    return { name: streamName(v.slice(0, eq), '--marketplace', v), file };
  });
}

/** `--name [OS_STREAM=]NAME`: the "stream" field of one OS stream, or (no OS_STREAM) of the one stream. */
export interface StreamNameFlag {
  osStream: string | undefined;
  name: string;
  /** The flag as given, for messages. */
  flag: string;
}

/** Parse repeated `--name [OS_STREAM=]NAME`; the same stream named twice is a usage error. */
export function parseNameFlags(values: readonly string[]): StreamNameFlag[] {
  const seen = new Set<string>();
  return values.map((v) => {
    const eq = v.indexOf('=');
    const osStream = eq === -1 ? undefined : streamName(v.slice(0, eq), '--name', v);
    const name = eq === -1 ? v : v.slice(eq + 1);
    if (name.trim() === '' || /[\u0000-\u001f\u007f]/.test(name)) {
      throw new UsageError(`--name ${v}: expected [OS_STREAM=]NAME with a non-empty NAME, e.g. rhel-10=rhcos-4.22`);
    }
    const key = osStream ?? '';
    if (seen.has(key)) throw new UsageError(`--name: ${osStream === undefined ? 'the stream' : osStream} named twice`);
    seen.add(key);
    return { osStream, name, flag: `--name ${v}` };
  });
}

/**
 * The `--name` rules against the OS streams given: without OS streams only a plain NAME; with one, a plain
 * NAME names it; with several, each NAME says its stream. Undefined when they fit.
 */
export function nameFlagsProblem(names: readonly StreamNameFlag[], osStreams: readonly string[]): string | undefined {
  for (const n of names) {
    if (n.osStream === undefined) {
      if (osStreams.length > 1) {
        return `${n.flag}: with several --os-stream say which stream it names: --name ${osStreams.at(-1)}=${n.name}`;
      }
      if (osStreams.length === 1 && names.some((o) => o.osStream === osStreams[0])) return `--name: ${osStreams[0]} named twice`;
    } else if (!osStreams.includes(n.osStream)) {
      return `${n.flag}: no --os-stream ${n.osStream} (${osStreams.length ? `streams: ${osStreams.join(', ')}` : 'give --os-stream NAME=CHANNEL, or --name NAME for the one stream'})`;
    }
  }
  return undefined;
}

/** The `--name` given for an OS stream (or, with `osStream` undefined, for the one stream). */
export function nameFor(names: readonly StreamNameFlag[], osStream: string | undefined, onlyOne: boolean): string | undefined {
  return (
    names.find((n) => n.osStream !== undefined && n.osStream === osStream) ??
    (onlyOne ? names.find((n) => n.osStream === undefined) : undefined)
  )?.name;
}

/** The default of named streams: the only one, else rhel-9 (an error when it is not among them). */
export function defaultOsStream(names: readonly string[]): string {
  if (names.length === 1) return names[0]!;
  if (names.includes(DEFAULT_OS_STREAM)) return DEFAULT_OS_STREAM;
  throw new UsageError(
    `--os-stream: with several OS streams the default (data.stream) is ${DEFAULT_OS_STREAM}, which is not among ${names.join(', ')}`,
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface MarketplaceOptions {
  /** Only arches that already have rhel-coreos-extensions take the images (the 2025 generator's behaviour). */
  needsExtensions?: boolean;
}

/**
 * A marketplace file (the installer's `data/data/coreos/marketplace/*.json`: arch → marketplace images, e.g.
 * `{"x86_64": {"azure": {...}}}`) merged into each arch's `rhel-coreos-extensions.marketplace`. Arches the
 * stream does not hold (and, with `needsExtensions`, arches without extensions) are returned, so the caller
 * can say they were left out.
 */
export function mergeMarketplace(
  stream: StreamJson,
  doc: unknown,
  file: string,
  opts: MarketplaceOptions = {},
): { stream: StreamJson; skipped: string[]; noExtensions: string[] } {
  if (!isObject(doc) || !Object.values(doc).every(isObject)) {
    throw new OsimageError(`${file}: a marketplace file must be a JSON object of arch → marketplace images`, { code: 'invalid-input' });
  }
  const out: StreamJson = structuredClone(stream);
  const skipped: string[] = [];
  const noExtensions: string[] = [];
  for (const [arch, images] of Object.entries(doc)) {
    const a = out.architectures[arch];
    if (!a) {
      skipped.push(arch);
      continue;
    }
    if (opts.needsExtensions && !a['rhel-coreos-extensions']) {
      noExtensions.push(arch);
      continue;
    }
    const ext = (a['rhel-coreos-extensions'] ??= {});
    ext.marketplace = { ...(ext.marketplace ?? {}), ...(images as Record<string, unknown>) };
  }
  return { stream: out, skipped, noExtensions };
}

/** A marketplace file's JSON, with the file named in the error. */
export function parseMarketplaceFile(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new OsimageError(`${file}: invalid JSON: ${describe(err)}`, { code: 'invalid-input' });
  }
}

/** A key set as data on a fresh object (a stream named `__proto__` is a name like any other). */
function put(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/**
 * The ConfigMap as the installer's generator of `era` writes it (default today's): see {@link BOOTIMAGES_ERAS}.
 * `data.streams` needs an era that writes it.
 */
export function bootimagesConfigMap(b: Bootimages, era: BootimagesEra = CURRENT_ERA): string {
  const form = ERA_FORMS[era];
  if (b.streams && !form.streams) {
    throw new UsageError(
      `data.streams (--os-stream) is written only in the ${CURRENT_ERA} form; the ${era} installer wrote data.stream alone`,
    );
  }
  const value = (s: StreamJson, what: string) => goStreamValue(s, { zeroValues: form.zeroValues, source: what });
  const data: Array<[string, string]> = [
    ['releaseVersion', RELEASE_VERSION_PLACEHOLDER],
    ['stream', layoutJson(value(b.stream, 'data.stream'), form.layout)],
  ];
  if (b.streams) {
    // A Go map of the streams, keys in Go's order; json.MarshalIndent indents each stream one level deeper.
    const all: Record<string, unknown> = {};
    for (const n of Object.keys(b.streams).sort(goKeyCompare)) put(all, n, value(b.streams[n]!, `data.streams.${n}`));
    data.push(['streams', layoutJson(all, form.layout)]);
  }
  return configMapYaml({
    data,
    annotations: BOOTIMAGES_ANNOTATIONS,
    name: BOOTIMAGES_CONFIGMAP,
    namespace: MCO_NAMESPACE,
    creationTimestamp: form.creationTimestamp,
  });
}

/** A coreos-bootimages file as read: its streams and the era whose form it has. */
export interface ReadBootimages extends Bootimages {
  era: BootimagesEra;
}

/**
 * The era a ConfigMap's text was written in, from the marks each generator left: `data.streams` (2026); a
 * one-line `data.stream` (2025, with `creationTimestamp: null` until 2025-11); a multi-line one ending in a
 * newline (the stream file itself, 2021) or not (2026).
 */
function eraOf(data: Record<string, unknown>, metadata: Record<string, unknown>, stream: string): BootimagesEra {
  if (data.streams !== undefined) return '2026';
  if (!stream.includes('\n')) return 'creationTimestamp' in metadata ? '2025-08' : '2025-11';
  return stream.endsWith('\n') ? '2021' : '2026';
}

/** Read a coreos-bootimages ConfigMap's streams and era; errors name `source`. */
export function readBootimages(text: string, source: string): ReadBootimages {
  const fail = (why: string): never => {
    throw new OsimageError(`${source}: not a ${BOOTIMAGES_CONFIGMAP} ConfigMap: ${why}`, { code: 'invalid-input' });
  };
  const doc = parseYamlDocuments(text, source)[0];
  const value = doc ? yamlValue(doc, text, source) : undefined;
  if (!isObject(value) || !isObject(value.data)) return fail('no data');
  const data = value.data;
  const metadata = isObject(value.metadata) ? value.metadata : {};
  if (typeof data.stream !== 'string') return fail('no data.stream');
  const json = (t: string, key: string): unknown => {
    try {
      return JSON.parse(t);
    } catch (err) {
      return fail(`data.${key} is not JSON: ${describe(err)}`);
    }
  };
  const stream = json(data.stream, 'stream');
  if (!isObject(stream)) return fail('data.stream is not a JSON object');
  const era = eraOf(data, metadata, data.stream);
  if (data.streams === undefined) return { stream: stream as unknown as StreamJson, era };
  const streams = typeof data.streams === 'string' ? json(data.streams, 'streams') : undefined;
  if (!isObject(streams) || !Object.values(streams).every(isObject)) return fail('data.streams is not a JSON object of streams');
  return { stream: stream as unknown as StreamJson, streams: streams as Record<string, StreamJson>, era };
}

/** The streams and era of an existing file, or undefined when it is not readable as a coreos-bootimages ConfigMap. */
export function existingBootimages(text: string | undefined): ReadBootimages | undefined {
  if (text === undefined) return undefined;
  try {
    return readBootimages(text, BOOTIMAGES_CONFIGMAP);
  } catch {
    return undefined;
  }
}

/** `s` with `old`'s metadata (when `old` has some). */
const withMetadata = (s: StreamJson, old: StreamJson | undefined): StreamJson =>
  isObject(old) && isObject(old.metadata) ? { ...s, metadata: old.metadata } : s;

/**
 * The text to write, or undefined when the existing file already says the same: streams equal apart from
 * `metadata` (`last-modified`, `generator`) count as the same, so a rerun (or a newer osimage) leaves the file
 * alone.
 */
export function bootimagesUpdate(existing: string | undefined, b: Bootimages, era: BootimagesEra = CURRENT_ERA): string | undefined {
  const text = bootimagesConfigMap(b, era);
  if (existing === undefined) return text;
  if (existing === text) return undefined;
  const old = existingBootimages(existing);
  if (old) {
    const kept: Bootimages = {
      stream: withMetadata(b.stream, old.stream),
      ...(b.streams
        ? { streams: Object.fromEntries(Object.entries(b.streams).map(([n, s]) => [n, withMetadata(s, old.streams?.[n])])) }
        : {}),
    };
    try {
      if (bootimagesConfigMap(kept, era) === existing) return undefined;
    } catch {
      // The old metadata cannot be written (not stream-metadata's shape): the new text replaces it.
    }
  }
  return text;
}

export interface WriteBootimagesOptions {
  /** The form to write (default today's). */
  era?: BootimagesEra;
  /** The file's text when the caller has read it already (undefined: no file). */
  existing?: string | undefined;
}

/** Write `<dir>/<file>` atomically unless it already says the same; returns its path and whether it was written. */
export async function writeBootimages(
  dir: string,
  file: string,
  b: Bootimages,
  opts: WriteBootimagesOptions = {},
): Promise<{ path: string; written: boolean }> {
  checkConfigMapFileName(file, '--file');
  await requireDir(dir);
  const path = join(dir, file);
  const existing = 'existing' in opts ? opts.existing : await readTextIfExists(path);
  const text = bootimagesUpdate(existing, b, opts.era);
  if (text === undefined) return { path, written: false };
  await editFileAtomic(path, text);
  return { path, written: true };
}

/** `build B, aarch64, x86_64` when every arch is at one build, else `aarch64 B1, x86_64 B2` (arches sorted). */
export function describeStream(s: StreamJson): string {
  const builds = Object.entries(s.architectures)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([arch, a]) => {
      const releases = [...new Set(Object.values(a.artifacts).map((p) => p.release))];
      return { arch, build: releases.join('/') || 'no artifacts' };
    });
  const one = new Set(builds.map((b) => b.build));
  if (one.size === 1) return `build ${builds[0]!.build}, ${builds.map((b) => b.arch).join(', ')}`;
  return builds.map((b) => `${b.arch} ${b.build}`).join(', ');
}
