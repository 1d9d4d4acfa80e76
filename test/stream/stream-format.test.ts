/**
 * goStreamJson: a stream as Go writes it after decoding into stream-metadata-go's types (the form the
 * installer's ConfigMap generator and plume cosa2stream write); the byte-for-byte checks against real files
 * are in test/payload/bootimages-installer.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { goStreamJson, goStreamValue } from '../../src/stream/format.js';

// JSON.parse keeps a `__proto__` key as data, as a stream file read from disk would.
const parsed = JSON.parse(`{
  "architectures": { "x86_64": {
    "images": { "gcp": { "name": "n", "project": "p" }, "aws": { "regions": { "__proto__": { "image": "ami-1", "release": "1" }, "x": {} } } },
    "artifacts": { "metal": { "formats": { "iso": { "disk": { "location": "https://h/a&b<c>", "sha256": "s" } } }, "release": "1" } } } },
  "metadata": { "last-modified": "t" },
  "stream": "rhcos-4.22"
}`) as unknown;

describe('goStreamJson', () => {
  it('compact: one line in stream-metadata order, Go escaping, zero values for missing fields, `__proto__` a key like any other', () => {
    expect(goStreamJson(parsed, { layout: 'compact' })).toBe(
      '{"stream":"rhcos-4.22","metadata":{"last-modified":"t"},"architectures":{"x86_64":{"artifacts":{"metal":{"release":"1","formats":{"iso":{"disk":{"location":"https://h/a\\u0026b\\u003cc\\u003e","sha256":"s"}}}}},"images":{"aws":{"regions":{"__proto__":{"release":"1","image":"ami-1"},"x":{"release":"","image":""}}},"gcp":{"release":"","project":"p","name":"n"}}}}}',
    );
  });

  it('indented has no final newline, file has one; without zero values a missing field stays missing', () => {
    const s = {
      stream: 's',
      metadata: { 'last-modified': 't' },
      architectures: { a: { artifacts: {}, images: { gcp: { project: 'p', name: 'n' } } } },
    };
    const indented = goStreamJson(s, { layout: 'indented' });
    expect(indented.endsWith('}')).toBe(true);
    expect(goStreamJson(s, { layout: 'file' })).toBe(`${indented}\n`);
    expect(indented).toContain('"gcp": {\n          "release": "",\n');
    expect(goStreamJson(s, { layout: 'file', zeroValues: false })).toContain('"gcp": {\n          "project": "p",\n');
  });

  it('drops unknown fields, reads keys in any case, writes nil maps as null and omits empty omitempty fields', () => {
    const v = goStreamValue({
      STREAM: 'x',
      extra: 1,
      architectures: { a: { Artifacts: null, images: null, 'rhel-coreos-extensions': {} } },
    });
    expect(JSON.stringify(v)).toBe(
      '{"stream":"x","metadata":{"last-modified":""},"architectures":{"a":{"artifacts":null,"images":{},"rhel-coreos-extensions":{}}}}',
    );
    expect(goStreamJson({ stream: 'a\ud800b', metadata: {}, architectures: {} }, { layout: 'compact' })).toBe(
      '{"stream":"a\ufffdb","metadata":{"last-modified":""},"architectures":{}}',
    );
  });

  it('a value of the wrong type is an error naming the source and the field', () => {
    const bad = { stream: 's', metadata: {}, architectures: { x86_64: { artifacts: { metal: { release: 48, formats: {} } } } } };
    expect(() => goStreamJson(bad, { layout: 'compact', source: 'f.json' })).toThrow(
      'f.json: architectures.x86_64.artifacts.metal.release: a number where stream-metadata has a string',
    );
    expect(() => goStreamJson([], { layout: 'compact' })).toThrow('stream: the stream: an array where stream-metadata has an object');
  });
});
