import { describe, expect, it } from 'vitest';
import { formatStream } from '../../src/stream/format.js';
import { updateTarget } from '../../src/stream/target.js';
import type { StreamJson } from '../../src/stream/types.js';

const arch = (release: string) => ({
  images: {},
  artifacts: {
    qemu: { formats: { 'qcow2.gz': { disk: { sha256: 'b', location: `https://h/${release}/q` } } }, release },
    metal: { release, formats: { pxe: { rootfs: { location: 'r' }, kernel: { location: 'k' } } } },
  },
});

describe('formatStream: as the installer keeps stream files', () => {
  it('2-space indent, stream-metadata field order, map keys sorted, final newline', () => {
    const s = {
      architectures: { x86_64: arch('2'), aarch64: arch('1') },
      metadata: { generator: 'g', 'last-modified': 't' },
      stream: 'rhcos-4.16',
    } as unknown as StreamJson;
    const text = formatStream(s);
    expect(text.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(text))).toEqual(['stream', 'metadata', 'architectures']);
    const parsed = JSON.parse(text) as StreamJson;
    expect(Object.keys(parsed.metadata)).toEqual(['last-modified', 'generator']);
    expect(Object.keys(parsed.architectures)).toEqual(['aarch64', 'x86_64']);
    expect(Object.keys(parsed.architectures.x86_64!)).toEqual(['artifacts', 'images']);
    expect(Object.keys(parsed.architectures.x86_64!.artifacts)).toEqual(['metal', 'qemu']);
    expect(Object.keys(parsed.architectures.x86_64!.artifacts.qemu!)).toEqual(['release', 'formats']);
    expect(Object.keys(parsed.architectures.x86_64!.artifacts.qemu!.formats['qcow2.gz']!.disk!)).toEqual(['location', 'sha256']);
    expect(Object.keys(parsed.architectures.x86_64!.artifacts.metal!.formats.pxe!)).toEqual(['kernel', 'rootfs']);
    expect(text).toContain('\n  "metadata": {\n    "last-modified": "t",\n');
  });
});

describe('updateTarget: a stream file rewritten as plume cosa2stream --target does', () => {
  const file = (name: string, arches: Record<string, unknown>, lm = '2024-01-01T00:00:00Z') =>
    formatStream({
      stream: name,
      metadata: { 'last-modified': lm, generator: 'plume cosa2stream 1' },
      architectures: arches,
    } as unknown as StreamJson);
  const gen = (arches: Record<string, unknown>) =>
    ({
      stream: 'rhcos-4.16-9.4',
      metadata: { 'last-modified': '2024-02-01T00:00:00Z', generator: 'osimage 0' },
      architectures: arches,
    }) as unknown as StreamJson;

  it("keeps arches not asked for and the file's own stream name; replaces the arches generated", () => {
    const before = file('rhcos-4.16', { x86_64: arch('1'), s390x: arch('1') });
    const u = updateTarget(before, 'f.json', gen({ x86_64: arch('2') }));
    expect(u).toMatchObject({ changed: ['x86_64'], kept: ['s390x'], name: 'rhcos-4.16' });
    const after = JSON.parse(u.text!) as StreamJson;
    expect(after.stream).toBe('rhcos-4.16');
    expect(after.metadata).toEqual({ 'last-modified': '2024-02-01T00:00:00Z', generator: 'osimage 0' });
    // A run on an older build never moves last-modified back.
    const newer = file('rhcos-4.16', { x86_64: arch('1') }, '2025-01-01T00:00:00Z');
    const back = JSON.parse(updateTarget(newer, 'f.json', gen({ x86_64: arch('3') })).text!) as StreamJson;
    expect(back.metadata['last-modified']).toBe('2025-01-01T00:00:00Z');
    expect(after.architectures.s390x).toEqual(arch('1'));
    expect(after.architectures.x86_64!.artifacts.qemu!.release).toBe('2');
  });

  it('a run that would change only metadata leaves the file untouched', () => {
    const before = file('rhcos-4.16', { x86_64: arch('1') });
    expect(updateTarget(before, 'f.json', gen({ x86_64: arch('1') })).text).toBeUndefined();
  });

  it('a new file is the generated stream; a file that is not a stream is an error naming it', () => {
    expect(updateTarget(undefined, 'f.json', gen({ x86_64: arch('1') })).text).toBe(formatStream(gen({ x86_64: arch('1') })));
    expect(() => updateTarget('[]', 'f.json', gen({}))).toThrow('f.json: not a stream file');
    expect(() => updateTarget('{', 'f.json', gen({}))).toThrow(/^f.json: not a stream file: /);
  });
});
