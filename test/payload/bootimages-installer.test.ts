/**
 * coreos-bootimages byte for byte as the installer's generator of each era writes it, against real files
 * (test/fixtures/installer-bootimages/README.md says where each comes from): ConfigMaps read with our reader and
 * written again with our writer in the era the reader found, and ConfigMaps built from the installer's own
 * stream and marketplace files, compared with what Go's encoders make of them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type BootimagesEra,
  bootimagesConfigMap,
  eraMarketplaceNeedsExtensions,
  mergeMarketplace,
  readBootimages,
} from '../../src/payload/bootimages.js';
import { formatStream, goStreamJson } from '../../src/stream/format.js';
import { parseStreamFile } from '../../src/stream/target.js';
import type { StreamJson } from '../../src/stream/types.js';

const DIR = fileURLToPath(new URL('../fixtures/installer-bootimages', import.meta.url));
const text = (f: string) => readFileSync(join(DIR, f), 'utf8');
const stream = (f: string) => parseStreamFile(text(f), f);
/** The made-up files hold what parseStreamFile refuses (a `Stream` key, null artifacts): read them as plain JSON. */
const loose = (f: string) => JSON.parse(text(f)) as StreamJson;
const withMarketplace = (s: StreamJson, f: string, era: BootimagesEra) =>
  mergeMarketplace(s, JSON.parse(text(f)), f, { needsExtensions: eraMarketplaceNeedsExtensions(era) });

describe("the installer's stream files (plume cosa2stream output, 2026)", () => {
  it.each(['coreos-rhel-9.json', 'coreos-rhel-10.json', 'edge/edge-plume.json'])('%s: read and written again, the same bytes', (f) => {
    const s = f.startsWith('edge/') ? loose(f) : stream(f);
    expect(goStreamJson(s, { layout: 'file', source: f })).toBe(text(f));
    if (!f.startsWith('edge/')) expect(formatStream(s)).toBe(text(f));
  });
});

describe('ConfigMaps read and written again in the era they were found in', () => {
  it.each([
    ['hypershift-4.8-installer-coreos-bootimages.yaml', '2021'],
    ['hypershift-4.10-installer-coreos-bootimages.yaml', '2021'],
    ['go-2025-08-coreos-bootimages.yaml', '2025-08'],
    ['go-2026-coreos-bootimages.yaml', '2026'],
    ['edge/edge-2021.yaml', '2021'],
    ['edge/edge-2025-08.yaml', '2025-08'],
    ['edge/edge-2025-11.yaml', '2025-11'],
    ['edge/edge-2026.yaml', '2026'],
  ] as const)('%s (%s)', (f, era) => {
    const read = readBootimages(text(f), f);
    expect(read.era).toBe(era);
    const { era: _era, ...content } = read;
    expect(bootimagesConfigMap(content, era)).toBe(text(f));
  });

  it("the 2025-11 form is the 2025-08 form without creationTimestamp (a real file's stream)", () => {
    const { stream: s } = readBootimages(text('go-2025-08-coreos-bootimages.yaml'), 'f');
    expect(bootimagesConfigMap({ stream: s }, '2025-11')).toBe(
      text('go-2025-08-coreos-bootimages.yaml').replace('  creationTimestamp: null\n', ''),
    );
  });
});

describe("ConfigMaps built from the installer's files, as its generator builds them", () => {
  it('2026: rhel-9 with its marketplace file, rhel-10; data.stream the rhel-9 stream', () => {
    const r9 = withMarketplace(stream('coreos-rhel-9.json'), 'marketplace/coreos-rhel-9.json', '2026');
    expect([r9.skipped, r9.noExtensions]).toEqual([[], []]);
    const r10 = stream('coreos-rhel-10.json');
    const out = bootimagesConfigMap({ stream: r9.stream, streams: { 'rhel-9': r9.stream, 'rhel-10': r10 } }, '2026');
    expect(out).toBe(text('go-2026-coreos-bootimages.yaml'));
    expect(out).toContain('\n  stream: |-\n    {\n      "stream": "rhcos-4.21",\n');
    expect(out).toContain('\n  streams: |-\n    {\n      "rhel-10": {\n        "stream": "rhcos-4.22",\n');
  });

  it('2025-08: one line of JSON, single-quoted and folded past 80 columns, creationTimestamp: null', () => {
    const r9 = withMarketplace(stream('coreos-rhel-9.json'), 'marketplace/coreos-rhel-9.json', '2025-08');
    const out = bootimagesConfigMap({ stream: r9.stream }, '2025-08');
    expect(out).toBe(text('go-2025-08-coreos-bootimages.yaml'));
    expect(out.split('\n')[3]).toBe(
      `  stream: '{"stream":"rhcos-4.21","metadata":{"last-modified":"2026-04-08T16:31:47Z","generator":"plume`,
    );
  });

  it('escaping, unknown and missing fields, another case, the 2025 marketplace rule, folding at several spaces', () => {
    const edge = loose('edge/edge.json');
    expect(bootimagesConfigMap({ stream: loose('edge/edge-plume.json') }, '2021')).toBe(text('edge/edge-2021.yaml'));
    for (const era of ['2025-08', '2025-11'] as const) {
      const m = withMarketplace(edge, 'edge/market.json', era);
      // That generator put the images on a copy of each arch: an arch without extensions never got them.
      expect(m.noExtensions).toEqual(['aarch64']);
      expect(bootimagesConfigMap({ stream: m.stream }, era)).toBe(text(`edge/edge-${era}.yaml`));
    }
    const m = withMarketplace(edge, 'edge/market.json', '2026');
    expect(m.noExtensions).toEqual([]);
    const small = loose('edge/small.json');
    expect(bootimagesConfigMap({ stream: m.stream, streams: { 'rhel-9': m.stream, 'rhel-10': small } }, '2026')).toBe(
      text('edge/edge-2026.yaml'),
    );
  });
});
