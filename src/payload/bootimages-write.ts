/**
 * `payload bootimages`: the coreos-bootimages ConfigMap of a folder made from release-browser builds: one stream
 * (data.stream), or several OS streams by name (data.streams, the default one also as data.stream), with
 * marketplace files merged into the streams they name, in the form of an installer era (by default the one the
 * file already has, else today's). The command parses flags into this request and renders the outcome;
 * everything between is here.
 */
import { join } from 'node:path';
import type { Warning } from '../errors.js';
import { readText, readTextIfExists, requireDir } from '../files/read.js';
import { collectStream, type ArchRequest } from '../stream/collect.js';
import { generateStream } from '../stream/generate.js';
import { streamNameFor } from '../stream/name.js';
import type { StreamJson } from '../stream/types.js';
import {
  CURRENT_ERA,
  defaultOsStream,
  describeStream,
  eraMarketplaceNeedsExtensions,
  eraWritesStreams,
  existingBootimages,
  mergeMarketplace,
  nameFlagsProblem,
  nameFor,
  parseMarketplaceFile,
  writeBootimages,
  type BootimagesEra,
  type OsStreamRequest,
  type StreamNameFlag,
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
  /**
   * `--name [OS_STREAM=]NAME`: the "stream" field of the one stream or of each OS stream. A stream not named
   * keeps the name the file already gives it (as `plume cosa2stream --target` keeps a stream file's name),
   * else is named from its channel.
   */
  names: StreamNameFlag[];
  osStreams: OsStreamRequest[];
  marketplaces: Array<{ name: string | undefined; file: string }>;
  signatures: boolean;
  locationBase?: string | undefined;
  /** The installer era whose form to write; `auto`: the existing file's, else today's (always today's with --os-stream). */
  era: BootimagesEra | 'auto';
  /** `osimage VERSION`, written as the streams' generator. */
  generator: string;
  onWarning: (w: Warning | string) => void;
}

export interface BootimagesOutcome {
  path: string;
  written: boolean;
  /** The line the command prints after `PATH: written|unchanged`. */
  summary: string;
  era: BootimagesEra;
  /** The era was taken from the existing file (`--era auto`). */
  eraFromFile: boolean;
  /** The streams written (or already there): the one data.stream, or every OS stream of data.streams by name. */
  streams: WrittenStream[];
}

export interface WrittenStream {
  /** The --os-stream name; undefined for the one stream of data.stream. */
  osStream: string | undefined;
  /** data.stream is this stream (the one stream, or the default OS stream). */
  isDefault: boolean;
  stream: StreamJson;
}

/** The request's flag rules, checked before anything is read (the command turns a failure into a usage error). */
export function bootimagesRequestProblem(
  r: Pick<BootimagesRequest, 'osStreams' | 'names' | 'arches' | 'marketplaces'> & { era?: BootimagesEra | 'auto' },
): string | undefined {
  if (r.osStreams.length > 0 && r.arches.some((a) => a.channel !== undefined)) {
    return '--arch A=CHANNEL cannot be used with --os-stream (each OS stream has its own channel)';
  }
  const names = r.osStreams.map((s) => s.name);
  const naming = nameFlagsProblem(r.names, names);
  if (naming !== undefined) return naming;
  const stray = r.marketplaces.find((m) => m.name !== undefined && !names.includes(m.name));
  if (stray) {
    return `--marketplace ${stray.name}=${stray.file}: no --os-stream ${stray.name} (${names.length ? `streams: ${names.join(', ')}` : 'give --os-stream NAME=CHANNEL, or --marketplace FILE for the one stream'})`;
  }
  if (r.osStreams.length > 0 && r.era !== undefined && r.era !== 'auto' && !eraWritesStreams(r.era)) {
    return `--era ${r.era}: that installer wrote data.stream alone; --os-stream (data.streams) needs --era ${CURRENT_ERA} or auto`;
  }
  return undefined;
}

export async function writeBootimagesFromBuilds(r: BootimagesRequest): Promise<BootimagesOutcome> {
  checkConfigMapFileName(r.file, '--file');
  await requireDir(r.dir);
  const existingText = await readTextIfExists(join(r.dir, r.file));
  const existing = existingBootimages(existingText);
  // OS streams mean data.streams, which only today's form has; otherwise follow the file, so reruns keep its form.
  const eraFromFile = r.era === 'auto' && r.osStreams.length === 0 && existing !== undefined;
  const era: BootimagesEra = r.era !== 'auto' ? r.era : eraFromFile ? existing!.era : CURRENT_ERA;

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
  /** The file's own name for a stream: data.streams[NAME], or data.stream for the default / the one stream. */
  const existingName = (osStream: string | undefined, isDefault: boolean): string | undefined => {
    const own = osStream !== undefined ? existing?.streams?.[osStream] : undefined;
    const s = own ?? (isDefault && (osStream === undefined || existing?.streams === undefined) ? existing?.stream : undefined);
    return typeof s?.stream === 'string' && s.stream !== '' ? s.stream : undefined;
  };

  const named: Record<string, StreamJson> = {};
  const osNames = r.osStreams.map((s) => s.name);
  const defaultName = r.osStreams.length > 0 ? defaultOsStream(osNames) : undefined;
  for (const s of r.osStreams) {
    const name =
      nameFor(r.names, s.name, r.osStreams.length === 1) ?? existingName(s.name, s.name === defaultName) ?? streamNameFor(s.channel);
    named[s.name] = await generate(s.channel, s.build, name);
  }
  let single =
    r.osStreams.length === 0
      ? await generate(r.channel, r.build, nameFor(r.names, undefined, true) ?? existingName(undefined, true) ?? streamNameFor(r.channel))
      : undefined;
  for (const m of r.marketplaces) {
    const target = m.name ?? defaultName;
    const merged = mergeMarketplace(
      target !== undefined ? named[target]! : single!,
      parseMarketplaceFile(await readText(m.file), m.file),
      m.file,
      { needsExtensions: eraMarketplaceNeedsExtensions(era) },
    );
    if (target !== undefined) named[target] = merged.stream;
    else single = merged.stream;
    for (const arch of merged.skipped) {
      r.onWarning({ code: 'marketplace-arch', message: `${m.file}: ${arch} is not in the stream; its marketplace images are left out` });
    }
    for (const arch of merged.noExtensions) {
      r.onWarning({
        code: 'marketplace-arch',
        message: `${m.file}: ${arch} has no rhel-coreos-extensions, and the ${era} installer merged marketplace images only into arches that had them; left out`,
      });
    }
  }
  const content = defaultName !== undefined ? { stream: named[defaultName]!, streams: named } : { stream: single! };
  const { path, written } = await writeBootimages(r.dir, r.file, content, { era, existing: existingText });
  const what =
    defaultName !== undefined
      ? Object.keys(named)
          .sort()
          .map((n) => `stream ${n}${n === defaultName ? ' (default)' : ''}, ${describeStream(named[n]!)}`)
          .join('; ')
      : describeStream(content.stream);
  // One stream keeps the texts of before: `written (stream S, build B, A)`, `unchanged (build B, A)`.
  const summary = written && defaultName === undefined ? `stream ${content.stream.stream}, ${what}` : what;
  const streams: WrittenStream[] =
    defaultName !== undefined
      ? Object.keys(named)
          .sort()
          .map((n) => ({ osStream: n, isDefault: n === defaultName, stream: named[n]! }))
      : [{ osStream: undefined, isDefault: true, stream: content.stream }];
  return { path, written, summary, era, eraFromFile, streams };
}
