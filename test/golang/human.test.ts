/** ShortHumanDuration and HumanSize as Go prints them (values checked against go 1.19 and go-units). */
import { describe, expect, test } from 'vitest';
import { humanSize, shortHumanDuration } from '../../src/golang/human.js';

describe('shortHumanDuration', () => {
  const s = 1000;
  const h = 3600 * s;
  test.each([
    [-3 * s, '<invalid>'],
    [-1500, '0s'],
    [0, '0s'],
    [59_999, '59s'],
    [60 * s, '1m'],
    [h - 1, '59m'],
    [h, '1h'],
    [24 * h - 1, '23h'],
    [48 * h, '2d'],
    [365 * 24 * h - 1, '364d'],
    [365 * 24 * h, '1y'],
    [800 * 24 * h, '2y'],
  ])('%d ms is %s', (ms, text) => {
    expect(shortHumanDuration(ms)).toBe(text);
  });
});

describe('humanSize', () => {
  test.each([
    [0, '0B'],
    [999, '999B'],
    [1000, '1kB'],
    [1234, '1.234kB'],
    [999_999, '1000kB'],
    [67_939_151, '67.94MB'],
    [5.5e6, '5.5MB'],
    [1e12, '1TB'],
    [2_096_123, '2.096MB'],
  ])('%d bytes is %s', (bytes, text) => {
    expect(humanSize(bytes)).toBe(text);
  });
});
