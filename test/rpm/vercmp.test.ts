/**
 * rpmvercmp against rpm's own published rules and test vectors (rpm's tests/rpmvercmp.at: equal strings,
 * numeric vs alpha segments, leading zeros, separators, `~` pre-releases, `^` snapshots), written out here,
 * and the EVR order (epoch, then version, then release).
 */
import { describe, expect, test } from 'vitest';
import { compareEvr, formatEvr, rpmvercmp } from '../../src/rpm/vercmp.js';

// [a, b, rpmvercmp(a, b)]
const VECTORS: Array<[string, string, -1 | 0 | 1]> = [
  // plain numbers and more segments
  ['1.0', '1.0', 0],
  ['1.0', '2.0', -1],
  ['2.0', '1.0', 1],
  ['2.0.1', '2.0.1', 0],
  ['2.0', '2.0.1', -1],
  ['2.0.1', '2.0', 1],
  // a trailing letter segment is newer than none
  ['2.0.1a', '2.0.1a', 0],
  ['2.0.1a', '2.0.1', 1],
  ['2.0.1', '2.0.1a', -1],
  // letters then digits in one segment
  ['5.5p1', '5.5p1', 0],
  ['5.5p1', '5.5p2', -1],
  ['5.5p2', '5.5p1', 1],
  ['5.5p10', '5.5p10', 0],
  ['5.5p1', '5.5p10', -1],
  ['5.5p10', '5.5p1', 1],
  ['10xyz', '10.1xyz', -1],
  ['10.1xyz', '10xyz', 1],
  ['xyz10', 'xyz10', 0],
  ['xyz10', 'xyz10.1', -1],
  ['xyz10.1', 'xyz10', 1],
  ['xyz.4', 'xyz.4', 0],
  ['xyz.4', '8', -1],
  ['8', 'xyz.4', 1],
  ['xyz.4', '2', -1],
  ['2', 'xyz.4', 1],
  ['5.5p2', '5.6p1', -1],
  ['5.6p1', '5.5p2', 1],
  ['5.6p1', '6.5p1', -1],
  ['6.5p1', '5.6p1', 1],
  // a number beats letters
  ['6.0.rc1', '6.0', 1],
  ['6.0', '6.0.rc1', -1],
  ['10b2', '10a1', 1],
  ['10a2', '10b2', -1],
  ['1.0aa', '1.0aa', 0],
  ['1.0a', '1.0aa', -1],
  ['1.0aa', '1.0a', 1],
  // leading zeros do not count; longer numbers are bigger
  ['10.0001', '10.0001', 0],
  ['10.0001', '10.1', 0],
  ['10.1', '10.0001', 0],
  ['10.0001', '10.0039', -1],
  ['10.0039', '10.0001', 1],
  ['4.999.9', '5.0', -1],
  ['5.0', '4.999.9', 1],
  ['20101121', '20101121', 0],
  ['20101121', '20101122', -1],
  ['20101122', '20101121', 1],
  ['2_0', '2_0', 0],
  ['2.0', '2_0', 0],
  ['2_0', '2.0', 0],
  // separators only separate; a string of separators is empty
  ['a', 'a', 0],
  ['a+', 'a+', 0],
  ['a+', 'a_', 0],
  ['a_', 'a+', 0],
  ['+a', '+a', 0],
  ['+a', '_a', 0],
  ['_a', '+a', 0],
  ['+_', '+_', 0],
  ['_+', '+_', 0],
  ['_+', '_', 0],
  ['+', '_', 0],
  ['1.0~rc1', '1.0~rc1', 0],
  // ~ sorts before anything, even the end
  ['1.0~rc1', '1.0', -1],
  ['1.0', '1.0~rc1', 1],
  ['1.0~rc1', '1.0~rc2', -1],
  ['1.0~rc2', '1.0~rc1', 1],
  ['1.0~rc1~git123', '1.0~rc1~git123', 0],
  ['1.0~rc1~git123', '1.0~rc1', -1],
  ['1.0~rc1', '1.0~rc1~git123', 1],
  // ^ sorts after the end, before any further segment
  ['1.0^', '1.0^', 0],
  ['1.0^', '1.0', 1],
  ['1.0', '1.0^', -1],
  ['1.0^git1', '1.0^git1', 0],
  ['1.0^git1', '1.0', 1],
  ['1.0', '1.0^git1', -1],
  ['1.0^git1', '1.0^git2', -1],
  ['1.0^git2', '1.0^git1', 1],
  ['1.0^git1', '1.01', -1],
  ['1.01', '1.0^git1', 1],
  ['1.0^20160101', '1.0^20160101', 0],
  ['1.0^20160101', '1.0.1', -1],
  ['1.0.1', '1.0^20160101', 1],
  ['1.0^20160101^git1', '1.0^20160101^git1', 0],
  ['1.0^20160102', '1.0^20160101^git1', 1],
  ['1.0^20160101^git1', '1.0^20160102', -1],
  // ~ and ^ together
  ['1.0~rc1^git1', '1.0~rc1^git1', 0],
  ['1.0~rc1^git1', '1.0~rc1', 1],
  ['1.0~rc1', '1.0~rc1^git1', -1],
  ['1.0^git1~pre', '1.0^git1~pre', 0],
  ['1.0^git1', '1.0^git1~pre', 1],
  ['1.0^git1~pre', '1.0^git1', -1],
];

describe("rpmvercmp: rpm's test vectors", () => {
  test('there are enough of them', () => {
    expect(VECTORS.length).toBeGreaterThanOrEqual(40);
  });
  test.each(VECTORS)('rpmvercmp(%j, %j) = %i', (a, b, want) => {
    expect(rpmvercmp(a, b)).toBe(want);
  });
});

describe('rpmvercmp on RHCOS versions', () => {
  test.each([
    ['5.2.2', '5.2.2', 0],
    ['427.40.1.el9_4', '427.50.1.el9_4', -1],
    ['32.el9_4.7', '32.el9_4.10', -1],
    ['3.rhaos4.18.git0c7f2a1.el9', '2.rhaos4.18.git5e9d1b4.el9', 1],
    ['2.20.0~rc1', '2.20.0', -1],
    ['1.rhaos4.18.el9', '1.rhaos4.19.el9', -1],
  ] as const)('%s vs %s', (a, b, want) => {
    expect(rpmvercmp(a, b)).toBe(want);
  });
});

describe('compareEvr: epoch, then version, then release', () => {
  const e = (epoch: string, version: string, release: string) => ({ epoch, version, release });
  test('the epoch wins over the version', () => {
    expect(compareEvr(e('1', '1.0', '1'), e('0', '9.9', '9'))).toBe(1);
    expect(compareEvr(e('', '2.0', '1'), e('1', '1.0', '1'))).toBe(-1);
  });
  test('a missing epoch is 0; epochs compare as numbers', () => {
    expect(compareEvr(e('', '1.0', '1'), e('0', '1.0', '1'))).toBe(0);
    expect(compareEvr(e('10', '1.0', '1'), e('9', '1.0', '1'))).toBe(1);
    expect(compareEvr(e('007', '1.0', '1'), e('7', '1.0', '1'))).toBe(0);
  });
  test('the version before the release', () => {
    expect(compareEvr(e('0', '1.1', '1'), e('0', '1.0', '9'))).toBe(1);
    expect(compareEvr(e('0', '1.0', '1.el9'), e('0', '1.0', '2.el9'))).toBe(-1);
    expect(compareEvr(e('3', '2.1.12', '2.rhaos4.18.el9'), e('3', '2.1.12', '1.rhaos4.18.el9'))).toBe(1);
  });
  test('formatEvr shows the epoch only when it is not 0', () => {
    expect(formatEvr(e('0', '1.0', '1'))).toBe('1.0-1');
    expect(formatEvr(e('', '1.0', '1'))).toBe('1.0-1');
    expect(formatEvr(e('17', '8.2.0', '11.el9_4.6'))).toBe('17:8.2.0-11.el9_4.6');
  });
});
