/**
 * src/golang/json.ts: the text Go's encoding/json (Go 1.19, as oc 4.13 is built) writes. Expected values are
 * Go's own output: `json.MarshalIndent(v, "", "  ")` of the decoded value.
 */
import { describe, expect, it } from 'vitest';
import { goField, goJson, goKeyCompare, goMapOrder, goString } from '../../src/golang/json.js';

describe('goString', () => {
  it('escapes as Go does: HTML characters, U+2028/9, controls as \\u00XX (Go 1.19 has no \\b or \\f)', () => {
    expect(goString('a<b>&c')).toBe('"a\\u003cb\\u003e\\u0026c"');
    expect(goString('tab\there\nnl\rcr\bbs\ffeed\u0001')).toBe('"tab\\there\\nnl\\rcr\\u0008bs\\u000cfeed\\u0001"');
    expect(goString('q"b\\s\u2028\u2029\u007f')).toBe('"q\\"b\\\\s\\u2028\\u2029\u007f"');
    expect(goString('é😀')).toBe('"é😀"');
    expect(goString('lone\ud800x')).toBe('"lone\\ufffdx"');
  });
});

describe('goJson', () => {
  it('indents by two spaces, keeps struct order, writes empty lists and maps compactly', () => {
    expect(goJson({ b: 1, a: [], c: {}, d: [1.5e-7, 1e21, 100, true, null], e: { x: 'y' } })).toBe(
      '{\n  "b": 1,\n  "a": [],\n  "c": {},\n  "d": [\n    1.5e-7,\n    1e+21,\n    100,\n    true,\n    null\n  ],\n  "e": {\n    "x": "y"\n  }\n}',
    );
  });
  it('orders a map as Go does, integer-like keys included', () => {
    expect(goJson(goMapOrder({ z: 1, '10': 2, '2': 3, '<': { b: 1, a: 2 } }))).toBe(
      '{\n  "10": 2,\n  "2": 3,\n  "\\u003c": {\n    "a": 2,\n    "b": 1\n  },\n  "z": 1\n}',
    );
  });
});

describe('goJson, compact and with undefined members', () => {
  it('writes json.Marshal text and drops what JSON has no form for', () => {
    expect(goJson({ a: [1, { b: 'x<', c: undefined }], d: {}, e: [], f: undefined }, null)).toBe(
      '{"a":[1,{"b":"x\\u003c"}],"d":{},"e":[]}',
    );
    expect(goJson({ z: undefined })).toBe('{}');
  });
});

describe('goKeyCompare', () => {
  it('orders by code point (UTF-8 bytes), where UTF-16 order differs', () => {
    // U+E000 is below U+1F600, though its UTF-16 unit is above the surrogate pair's first unit.
    expect(['\u{1F600}', '\uE000', 'b', 'a', 'é'].sort(goKeyCompare)).toEqual(['a', 'b', 'é', '\uE000', '\u{1F600}']);
    expect(goKeyCompare('same', 'same')).toBe(0);
  });
});

describe('goField', () => {
  it('folds the Kelvin sign to k, as Go does', () => {
    expect(goField({ '\u212Aind': 'K' }, 'Kind')).toBe('K');
    expect(goField({ kind: 1, kinx: 2, KIND_: 3 }, 'Kind')).toBe(1);
  });
  it('matches keys ignoring case, the last one winning', () => {
    expect(goField({ cmd: ['a'] }, 'Cmd')).toEqual(['a']);
    expect(goField({ Labels: 1, labels: 2 }, 'Labels')).toBe(2);
    expect(goField({}, 'x')).toBeUndefined();
  });
});
