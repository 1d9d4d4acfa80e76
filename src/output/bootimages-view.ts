/** `release bootimages` text view: per stream, a table of each arch's build, platforms and region counts. */
import { type PickedStream, summarizeStream } from '../release/bootimages.js';
import { escapeText } from './escape.js';
import { keyValues, table } from './format.js';

/** `aws 27, aliyun 12`, or `-` when the arch has no regional images. */
function regionCounts(regions: Record<string, number>): string {
  const parts = Object.entries(regions).map(([k, n]) => `${k} ${n}`);
  return parts.length ? parts.join(', ') : '-';
}

/** One block a stream: its name, `stream` field and last-modified, then the arch table. */
export function renderBootimages(picked: PickedStream[], defaultName: string | undefined): string {
  const blocks = picked.map((p) => {
    const label = p.name === undefined ? 'data.stream (default)' : p.name === defaultName ? `${p.name} (default)` : p.name;
    const head = keyValues([
      ['Stream', label],
      ['Name', p.doc.stream],
      ['Last modified', p.doc.metadata?.['last-modified']],
      ['Generator', p.doc.metadata?.generator],
    ]);
    const rows = summarizeStream(p.doc).map((a) => [
      a.arch,
      a.builds.join(', ') || '-',
      a.platforms.join(', ') || '-',
      regionCounts(a.regions),
    ]);
    const body = rows.length ? table([['ARCH', 'BUILD', 'PLATFORMS', 'REGIONS'], ...rows]) : 'No architectures.';
    return `${head}\n\n${body}`;
  });
  return escapeText(`${blocks.join('\n\n')}\n`);
}
