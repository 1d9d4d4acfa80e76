/** src/json.ts: words for JSON values and the depth bound. */
import { describe, expect, test } from 'vitest';
import { MAX_JSON_DEPTH, bracketDepth, jsonKind, tooDeep } from '../../src/json.js';

const nested = (n: number): unknown => JSON.parse(`{"a":${'['.repeat(n)}${']'.repeat(n)}}`);

describe('tooDeep', () => {
  test('a document at the limit passes; one level more is refused with where it starts', () => {
    expect(tooDeep(nested(MAX_JSON_DEPTH - 1))).toBeUndefined();
    expect(tooDeep(nested(MAX_JSON_DEPTH))).toMatch(/^\.a(\[0\])+…$/);
  });

  test('100,000 levels are measured without recursion', () => {
    expect(tooDeep(nested(100_000))).toMatch(/^\.a\[0\]/);
  });

  test('wide documents pass', () => {
    expect(tooDeep({ tags: Array.from({ length: 10_000 }, (_, i) => ({ name: `t${i}`, from: { kind: 'DockerImage' } })) })).toBeUndefined();
  });
});

test('jsonKind', () => {
  expect([null, [], {}, 'x', 5, true].map(jsonKind)).toEqual(['null', 'a list', 'a map', 'a string', 'the number 5', 'the value true']);
});

test('bracketDepth skips quoted strings', () => {
  expect(bracketDepth('a: [[1], {b: [2]}]')).toBe(3);
  expect(bracketDepth(`a: "${'['.repeat(500)}"\nb: '{{'`)).toBe(0);
  expect(bracketDepth('['.repeat(100_000))).toBe(100_000);
});
