/**
 * `payload bootimages`: the coreos-bootimages ConfigMap of a folder made from release-browser builds: one stream
 * (data.stream), or several OS streams by name (data.streams, the default one also as data.stream), with
 * marketplace files merged into the streams they name. The command parses flags into this request and renders
 * the outcome; everything between is here.
 */
import type { Warning } from '../errors.js';
import { readText, requireDir } from '../files/read.js';
import { collectStream, type ArchRequest } from '../stream/collect.js';
import { generateStream } from '../stream/generate.js';
import { streamNameFor } from '../stream/name.js';
import type { StreamJson } from '../stream/types.js';
import {
  defaultOsStream,
  describeStream,
  mergeMarketplace,
  parseMarketplaceFile,
  writeBootimages,
  type OsStreamRequest,
} from './bootimages.js';
import { checkConfigMapFileName } from './write.js';

export interface BootimagesRequest {
  dir: string;
  file: string;
  baseUrl: string;
  /** The one stream's channel and build (when no OS streams are given). */
  channel: string;
  build: string;
  arches: ArchRequest[];
  /** The "stream" field of the one stream (default: from its channel). */
  name?: string | undefined;
  osStreams: OsStreamRequest[];
  marketplaces: Array<{ name: string | undefined; file: string }>;
  signatures: boolean;
  locationBase?: string | undefined;
  /** `osimage VERSION`, written as the streams' generator. */
  generator: string;
  onWarning: (w: Warning | string) => void;
}

export interface BootimagesOutcome {
  path: string;
  written: boolean;
  /** The line the command prints after `PATH: written|unchanged`. */
  summary: string;
}

/** The request's flag rules, checked before anything is read (the command turns a failure into a usage error). */
export function bootimagesRequestProblem(r: Pick<BootimagesRequest, 'osStreams' | 'name' | 'arches' | 'marketplaces'>): string | undefined {
  if (r.osStreams.length > 1 && r.name !== undefined)
    return '--name names one stream; with several --os-stream each is named from its channel';
  if (r.osStreams.length > 0 && r.arches.some((a) => a.channel !== undefined)) {
    return '--arch A=CHANNEL cannot be used with --os-stream (each OS stream has its own channel)';
  }
  const names = r.osStreams.map((s) => s.name);
  const stray = r.marketplaces.find((m) => m.name !== undefined && !names.includes(m.name));
  if (stray) {
    return `--marketplace ${stray.name}=${stray.file}: no --os-stream ${stray.name} (${names.length ? `streams: ${names.join(', ')}` : 'give --os-stream NAME=CHANNEL, or --marketplace FILE for the one stream'})`;
  }
  return undefined;
}

export async function writeBootimagesFromBuilds(r: BootimagesRequest): Promise<BootimagesOutcome> {
  checkConfigMapFileName(r.file, '--file');
  await requireDir(r.dir);

  const generate = async (channel: string, build: string, streamName: string): Promise<StreamJson> => {
    const collected = await collectStream({ baseUrl: r.baseUrl, channel, build }, r.arches);
    collected.warnings.forEach(r.onWarning);
    const { stream, warnings } = generateStream(collected.inputs, {
      name: streamName,
      generator: r.generator,
      signatures: r.signatures,
      ...(r.locationBase !== undefined ? { locationBase: r.locationBase } : {}),
      ...(collected.buildsTimestamp !== undefined ? { buildsTimestamp: collected.buildsTimestamp } : {}),
    });
    warnings.forEach(r.onWarning);
    return stream;
  };

  const named: Record<string, StreamJson> = {};
  for (const s of r.osStreams) named[s.name] = await generate(s.channel, s.build, r.name ?? streamNameFor(s.channel));
  const defaultName = r.osStreams.length > 0 ? defaultOsStream(Object.keys(named)) : undefined;
  let single = r.osStreams.length === 0 ? await generate(r.channel, r.build, r.name ?? streamNameFor(r.channel)) : undefined;
  for (const m of r.marketplaces) {
    const target = m.name ?? defaultName;
    const merged = mergeMarketplace(
      target !== undefined ? named[target]! : single!,
      parseMarketplaceFile(await readText(m.file), m.file),
      m.file,
    );
    if (target !== undefined) named[target] = merged.stream;
    else single = merged.stream;
    for (const arch of merged.skipped) {
      r.onWarning({ code: 'marketplace-arch', message: `${m.file}: ${arch} is not in the stream; its marketplace images are left out` });
    }
  }
  const content = defaultName !== undefined ? { stream: named[defaultName]!, streams: named } : { stream: single! };
  const { path, written } = await writeBootimages(r.dir, r.file, content);
  const what =
    defaultName !== undefined
      ? Object.keys(named)
          .sort()
          .map((n) => `stream ${n}${n === defaultName ? ' (default)' : ''}, ${describeStream(named[n]!)}`)
          .join('; ')
      : describeStream(content.stream);
  // One stream keeps the texts of before: `written (stream S, build B, A)`, `unchanged (build B, A)`.
  const summary = written && defaultName === undefined ? `stream ${content.stream.stream}, ${what}` : what;
  return { path, written, summary };
}
