/**
 * The documented `-o json` objects of payload write, payload render and payload bootimages (docs/payload.md).
 * Every key is always present; a value that is not known (or does not apply) is null.
 */
import type { Warning } from '../errors.js';
import type { BootimagesOutcome } from '../payload/bootimages-write.js';
import type { MachineConfig, WrittenFile } from '../payload/machineconfig.js';
import type { FileOutcome, PayloadWriteResult } from '../payload/write.js';
import type { StreamJson } from '../stream/types.js';
import { warningsJson, type WarningJson } from './warnings-json.js';

export interface FileJson {
  path: string;
  /** created, appended (a tag or key added to the file), updated or unchanged. */
  action: FileOutcome['action'];
}

export interface PayloadWriteJson {
  /** legacy, mixed or layered: the folder's generation. */
  generation: string;
  osStream: string | null;
  /** The build the values came from; null when every value was given. */
  build: string | null;
  changed: boolean;
  imageReferences: FileJson;
  /** null when the ConfigMap is left alone (an OS stream other than the default). */
  configMap: FileJson | null;
  tags: Array<{ tag: string; container: string; pullspec: string; source: string; action: string; previous: string | null }>;
  keys: Array<{ key: string; tag: string; value: string; previous: string | null }>;
  buildVersions: Array<{ tag: string; value: string; previous: string }>;
  warnings: WarningJson[];
}

const fileJson = (f: FileOutcome): FileJson => ({ path: f.path, action: f.action });

/** `payload write -o json`. */
export function payloadWriteJson(r: PayloadWriteResult): PayloadWriteJson {
  return {
    generation: r.generation,
    osStream: r.stream ?? null,
    build: r.build ?? null,
    changed: r.changed,
    imageReferences: fileJson(r.imageReferences),
    configMap: r.configMap ? fileJson(r.configMap) : null,
    tags: r.tags.map((t) => ({
      tag: t.tag,
      container: t.container,
      pullspec: t.pullspec,
      source: t.source,
      action: t.action,
      previous: t.previous ?? null,
    })),
    keys: r.keys.map((k) => ({ key: k.key, tag: k.tag, value: k.value, previous: k.previous ?? null })),
    buildVersions: r.buildVersions.map((b) => ({ tag: b.tag, value: b.value, previous: b.previous })),
    warnings: warningsJson(r.warnings),
  };
}

/** `payload render -o json` without --out: the MachineConfigs as one v1 List (as `oc get -o json` prints several). */
export function renderListJson(configs: MachineConfig[]): { apiVersion: 'v1'; kind: 'List'; items: MachineConfig[] } {
  return { apiVersion: 'v1', kind: 'List', items: configs };
}

/** `payload render --out DIR -o json`: each file and what happened to it. */
export function renderFilesJson(dir: string, written: WrittenFile[]): { dir: string; files: Array<{ path: string; action: string }> } {
  return { dir, files: written.map((w) => ({ path: w.path, action: w.action })) };
}

export interface BootimagesArchJson {
  arch: string;
  /** The builds its artifacts name (one, unless arches were taken at different builds). */
  builds: string[];
  platforms: string[];
}

export interface BootimagesJson {
  path: string;
  written: boolean;
  era: string;
  eraFromFile: boolean;
  /** The OS stream data.stream holds when there are several (data.streams), else null. */
  defaultStream: string | null;
  streams: Array<{ osStream: string | null; default: boolean; name: string; architectures: BootimagesArchJson[] }>;
  warnings: WarningJson[];
}

function architectures(s: StreamJson): BootimagesArchJson[] {
  return Object.keys(s.architectures)
    .sort()
    .map((arch) => {
      const artifacts = s.architectures[arch]!.artifacts;
      return {
        arch,
        builds: [...new Set(Object.values(artifacts).map((p) => p.release))].sort(),
        platforms: Object.keys(artifacts).sort(),
      };
    });
}

/** `payload bootimages -o json`. */
export function bootimagesJson(o: BootimagesOutcome, warnings: ReadonlyArray<Warning | string>): BootimagesJson {
  const several = o.streams.some((s) => s.osStream !== undefined);
  return {
    path: o.path,
    written: o.written,
    era: o.era,
    eraFromFile: o.eraFromFile,
    defaultStream: several ? (o.streams.find((s) => s.isDefault)?.osStream ?? null) : null,
    streams: o.streams.map((s) => ({
      osStream: s.osStream ?? null,
      default: s.isDefault,
      name: s.stream.stream,
      architectures: architectures(s.stream),
    })),
    warnings: warningsJson(warnings),
  };
}
