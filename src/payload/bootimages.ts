/**
 * `coreos-bootimages`: the bootimage streams carried in the payload as the installer writes them
 * (`hack/build-coreos-manifest.go`): a ConfigMap whose `data.stream` is the default stream's JSON and, with
 * several OS streams (2025+), `data.streams` a JSON object name → stream. The streams themselves come from
 * the one generator (src/stream/generate.ts); this module names, merges and writes them.
 */
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { OsimageError, UsageError, describe } from '../errors.js';
import { editFileAtomic } from '../files/edit.js';
import { readTextIfExists, requireDir } from '../files/read.js';
import { parseYamlDocuments, yamlValue } from '../files/yaml.js';
import { validateBuildName, validateChannel, validateOsStream } from '../rhcos/settings.js';
import { formatStream } from '../stream/format.js';
import type { StreamJson } from '../stream/types.js';
import { toYaml } from './machineconfig.js';
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

/** NAME of `--os-stream NAME=…` or `--marketplace NAME=…`: an OS stream name as every command takes it. */
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

/** The default of named streams: the only one, else rhel-9 (an error when it is not among them). */
export function defaultOsStream(names: readonly string[]): string {
  if (names.length === 1) return names[0]!;
  if (names.includes(DEFAULT_OS_STREAM)) return DEFAULT_OS_STREAM;
  throw new UsageError(
    `--os-stream: with several OS streams the default (data.stream) is ${DEFAULT_OS_STREAM}, which is not among ${names.join(', ')}`,
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A marketplace file (the installer's `data/data/coreos/marketplace/*.json`: arch → marketplace images, e.g.
 * `{"x86_64": {"azure": {...}}}`) merged into each arch's `rhel-coreos-extensions.marketplace`. Arches the
 * stream does not hold are returned, so the caller can say they were left out.
 */
export function mergeMarketplace(stream: StreamJson, doc: unknown, file: string): { stream: StreamJson; skipped: string[] } {
  if (!isObject(doc) || !Object.values(doc).every(isObject)) {
    throw new OsimageError(`${file}: a marketplace file must be a JSON object of arch → marketplace images`, { code: 'invalid-input' });
  }
  const out: StreamJson = structuredClone(stream);
  const skipped: string[] = [];
  for (const [arch, images] of Object.entries(doc)) {
    const a = out.architectures[arch];
    if (!a) {
      skipped.push(arch);
      continue;
    }
    const ext = (a['rhel-coreos-extensions'] ??= {});
    ext.marketplace = { ...(ext.marketplace ?? {}), ...(images as Record<string, unknown>) };
  }
  return { stream: out, skipped };
}

/** A marketplace file's JSON, with the file named in the error. */
export function parseMarketplaceFile(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new OsimageError(`${file}: invalid JSON: ${describe(err)}`, { code: 'invalid-input' });
  }
}

/** `data.streams`: name → stream, names sorted (as Go writes a map), 2-space indent, each stream in field order. */
function streamsJson(streams: Record<string, StreamJson>): string {
  const ordered = Object.fromEntries(
    Object.keys(streams)
      .sort()
      .map((n) => [n, JSON.parse(formatStream(streams[n]!)) as unknown]),
  );
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** The ConfigMap as YAML; `data.stream` (and `data.streams`) are JSON in literal blocks. */
export function bootimagesConfigMap(b: Bootimages): string {
  return toYaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: BOOTIMAGES_CONFIGMAP, namespace: MCO_NAMESPACE, annotations: BOOTIMAGES_ANNOTATIONS },
    data: {
      releaseVersion: RELEASE_VERSION_PLACEHOLDER,
      stream: formatStream(b.stream),
      ...(b.streams ? { streams: streamsJson(b.streams) } : {}),
    },
  });
}

/** The streams an existing file holds, or undefined when it is not readable as ours. */
function existingBootimages(text: string): Bootimages | undefined {
  try {
    const doc = parseYamlDocuments(text, BOOTIMAGES_CONFIGMAP)[0];
    const value = doc ? yamlValue(doc, text, BOOTIMAGES_CONFIGMAP) : undefined;
    const data = isObject(value) && isObject(value.data) ? value.data : undefined;
    if (typeof data?.stream !== 'string') return undefined;
    const stream = JSON.parse(data.stream) as StreamJson;
    if (data.streams === undefined) return { stream };
    return typeof data.streams === 'string' ? { stream, streams: JSON.parse(data.streams) as Record<string, StreamJson> } : undefined;
  } catch {
    return undefined;
  }
}

/** `s` with `old`'s metadata when the two differ only there. */
function keepMetadata(s: StreamJson, old: StreamJson | undefined): StreamJson {
  if (!isObject(old) || !isObject(old.metadata)) return s;
  return isDeepStrictEqual({ ...s, metadata: {} }, { ...old, metadata: {} }) ? { ...s, metadata: old.metadata } : s;
}

/**
 * The text to write, or undefined when the existing file already says the same: streams equal apart from
 * `metadata` (`last-modified`, `generator`) count as the same, so a rerun (or a newer osimage) leaves the file alone.
 */
export function bootimagesUpdate(existing: string | undefined, b: Bootimages): string | undefined {
  const text = bootimagesConfigMap(b);
  if (existing === undefined) return text;
  if (existing === text) return undefined;
  const old = existingBootimages(existing);
  if (old) {
    const kept: Bootimages = {
      stream: keepMetadata(b.stream, old.stream),
      ...(b.streams
        ? { streams: Object.fromEntries(Object.entries(b.streams).map(([n, s]) => [n, keepMetadata(s, old.streams?.[n])])) }
        : {}),
    };
    if (bootimagesConfigMap(kept) === existing) return undefined;
  }
  return text;
}

/** Write `<dir>/<file>` atomically unless it already says the same; returns its path and whether it was written. */
export async function writeBootimages(dir: string, file: string, b: Bootimages): Promise<{ path: string; written: boolean }> {
  checkConfigMapFileName(file, '--file');
  await requireDir(dir);
  const path = join(dir, file);
  const text = bootimagesUpdate(await readTextIfExists(path), b);
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
