/** `release os-streams` views: a table of the streams, and the documented `-o json` object. */
import type { OsStreams } from '../release/os-streams.js';
import { escapeText } from './escape.js';
import { table } from './format.js';

/**
 * The stable `release os-streams -o json` object:
 *
 * { "defaultStream": string | null,
 *   "streams": [{ "name", "osImage", "osTag", "extensionsImage", "extensionsTag" }] }
 */
export interface OsStreamsJson {
  defaultStream: string | null;
  streams: Array<{ name: string; osImage: string; osTag: string; extensionsImage: string; extensionsTag: string }>;
}

export function osStreamsJson(r: OsStreams): OsStreamsJson {
  return {
    defaultStream: r.defaultStream,
    streams: r.streams.map((s) => ({
      name: s.name,
      osImage: s.osImage,
      osTag: s.osTag,
      extensionsImage: s.extensionsImage,
      extensionsTag: s.extensionsTag,
    })),
  };
}

export function renderOsStreams(r: OsStreams): string {
  const lines = [`Default stream: ${r.defaultStream ?? 'none'}`];
  if (r.streams.length > 0) {
    lines.push('');
    lines.push(
      table([
        ['NAME', 'OS TAG', 'OS IMAGE', 'EXTENSIONS TAG', 'EXTENSIONS IMAGE'],
        ...r.streams.map((s) => [s.name, s.osTag, s.osImage, s.extensionsTag, s.extensionsImage]),
      ]),
    );
  }
  for (const d of r.dropped) {
    const has = d.missing === 'os' ? 'extensions' : 'OS';
    lines.push(`Dropped: stream ${d.name} has no ${d.missing === 'os' ? 'OS' : 'extensions'} image (only the ${has} image, tag ${d.tag})`);
  }
  for (const n of r.notes) lines.push(`Note: ${n}`);
  return escapeText(`${lines.join('\n')}\n`);
}
