/** Go's printing of decoded JSON (src/golang/value.ts, fmt.ts): the building blocks of the -o template printers. */
import { describe, expect, test } from 'vitest';
import { goPrint, sprintf } from '../../src/golang/fmt.js';
import { goJson, goMapOrder } from '../../src/golang/json.js';
import { GoFloat, formatGoFloat, goQuote, goSyntax } from '../../src/golang/value.js';

describe("a float64 as Go's %v prints it", () => {
  test.each([
    [67939151, '6.7939151e+07'],
    [4, '4'],
    [0.5, '0.5'],
    [1022, '1022'],
    [100000, '100000'],
    [1000000, '1e+06'],
    [123456, '123456'],
    [1234567.5, '1.2345675e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [1e21, '1e+21'],
    [1.2345678901234569e23, '1.2345678901234569e+23'],
    [1e100, '1e+100'],
    [-2.5, '-2.5'],
    [-1234567, '-1.234567e+06'],
    [0, '0'],
  ])('%d → %s', (n, s) => {
    expect(formatGoFloat(n)).toBe(s);
  });
});

describe('%v of values', () => {
  test('jsonpath: every number is a float64; go-template: whole numbers are int64', () => {
    const v = { b: [1, 'x', null, true], a: { z: 67939151, y: 0.5 } };
    expect(goPrint(v)).toBe('map[a:map[y:0.5 z:6.7939151e+07] b:[1 x <nil> true]]');
    expect(goPrint(v, { ints: true })).toBe('map[a:map[y:0.5 z:67939151] b:[1 x <nil> true]]');
  });
});

describe("encoding/json's output as the jsonpath printer writes it (src/golang/json.ts)", () => {
  test('compact (json.Marshal) or indented by 4 spaces, keys sorted as a Go map, HTML-safe strings', () => {
    const v = { b: '<a&b>\u2028\u0001\n\t"\\', a: [], c: {}, d: [1.5, 67939151, 1e21, null, false] };
    expect(goJson(goMapOrder(v), null)).toBe(
      '{"a":[],"b":"\\u003ca\\u0026b\\u003e\\u2028\\u0001\\n\\t\\"\\\\","c":{},"d":[1.5,67939151,1e+21,null,false]}',
    );
    expect(goJson(goMapOrder({ y: [1], x: 2 }), '    ')).toBe('{\n    "x": 2,\n    "y": [\n        1\n    ]\n}');
    expect(goJson({ y: 1, x: 2 }, null)).toBe('{"y":1,"x":2}');
  });
});

describe('%#v and strconv.Quote (the jsonpath error dump)', () => {
  test('maps, slices, nil, strings', () => {
    expect(goSyntax({ b: [1, 'x'], a: null, c: true })).toBe(
      'map[string]interface {}{"a":interface {}(nil), "b":[]interface {}{1, "x"}, "c":true}',
    );
    expect(goQuote('a"b\\c\n\x01é\u202e')).toBe('"a\\"b\\\\c\\n\\x01é\\u202e"');
  });
});

describe('printf', () => {
  test.each([
    ['%s %d %t', ['s', 42, true], 's 42 true'],
    ['%x %X %o %c %q', [255, 255, 8, 65, 'q\n'], 'ff FF 10 A "q\\n"'],
    [
      '%e %g %.2g %+d %6.1f|%-6d|%06d',
      [1234.5678, 0.000012, 1234.5, 5, 1.23456, 7, -42],
      '1.234568e+03 1.2e-05 1.2e+03 +5    1.2|7     |-00042',
    ],
    ['%d %z %', ['x', 1], '%!d(string=x) %!z(int64=1) %!(NOVERB)'],
    ['%v %s', [{ a: 1 }, null], 'map[a:1] %!s(<nil>)'],
    ['%5s|%-5s|%.2s', ['ab', 'ab', 'abc'], '   ab|ab   |ab'],
    ['100%%', [], '100%'],
    // Ties round to even as Go's strconv does (JavaScript's toFixed rounds them up):
    // oc -o go-template='{{printf "%.0f %.1f %.2f %.1e %.3g %.0f %.2e %.1f" 2.5 3.25 1.005 1.25e10 2.675 0.5 9.999 9.96}}'
    [
      '%.0f %.1f %.2f %.1e %.3g %.0f %.2e %.1f',
      [2.5, 3.25, 1.005, new GoFloat(1.25e10), 2.675, 0.5, 9.999, 9.96],
      '2 3.2 1.00 1.2e+10 2.67 0 1.00e+01 10.0',
    ],
    [
      '%f %.3g %.2g %.10g %.0e %G',
      [1e21, 0.0001234, 100.5, 0.1, 5.5, 1e-7],
      '1000000000000000000000.000000 0.000123 1e+02 0.1 6e+00 1E-07',
    ],
  ])('%s', (format, args, out) => {
    expect(sprintf(format, args)).toBe(out);
  });
});

describe('hostile values in printf and in map keys', () => {
  test.each([
    ['%c', -1, '\uFFFD'],
    ['%c', 0x110000, '\uFFFD'],
    ['%c', 0xd800, '\uFFFD'],
    ['%q', 0xd800, "'\uFFFD'"],
    ['%c', 0x1f600, '\u{1F600}'],
  ])('%s of %d is what Go writes (U+FFFD for no code point)', (format, n, expected) => {
    expect(sprintf(format, [n])).toBe(expected);
  });

  test.each([
    ['%100000000d|', '%!(NOVERB)%!(EXTRA int64=1)'],
    ['x%.100000000f', 'x%!(NOVERB)%!(EXTRA int64=1)'],
    ['%10000000d', `${' '.repeat(9_999_999)}1`],
  ])("a width or precision over 10^6 is fmt's %%!(NOVERB), never a string of that size: %s", (format, expected) => {
    expect(sprintf(format, [1])).toBe(expected);
  });

  test('a "__proto__" key is a key like any other in Go\'s map order', () => {
    const data = JSON.parse('{"b":1,"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}');
    const ordered = goMapOrder(data) as Record<string, unknown>;
    expect(goJson(ordered, null)).toBe('{"__proto__":{"polluted":true},"b":1,"constructor":{"prototype":{"x":1}}}');
    expect(Object.getPrototypeOf(ordered)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
