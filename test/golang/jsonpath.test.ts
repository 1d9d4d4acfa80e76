/**
 * kubectl's JSONPath dialect (src/golang/jsonpath.ts, jsonpath-parse.ts), feature by feature and error by error.
 * Expected texts are what oc 4.13 prints (`oc adm release info -o jsonpath=…`, client-go's jsonpath with
 * AllowMissingKeys(true)); test/output/template-formats-oc.test.ts replays oc's recorded outputs case by case.
 */
import { describe, expect, test } from 'vitest';
import { JsonPathExecError, JsonPathSyntaxError, jsonPath, parseJsonPath } from '../../src/golang/jsonpath.js';

const data = {
  name: '4.13.1',
  size: 67939151,
  ratio: 0.5,
  count: 4,
  tiny: 0.00001,
  big: 1e21,
  ok: true,
  none: null,
  html: '<a&b>',
  displayVersions: { 'machine-os': { Version: '413.92.202305231734-0', DisplayName: 'Red Hat Enterprise Linux CoreOS' } },
  tags: [
    { name: 'cli', n: 1, from: { name: 'quay.io/x@sha256:aa' } },
    { name: 'machine-os-content', n: 2, from: { name: 'quay.io/x@sha256:bb' }, extra: 'yes' },
    { name: 'tests', n: 3, from: { name: 'quay.io/x@sha256:cc' } },
  ],
  list: ['a', 'b', 'c', 'd'],
  nested: { z: 1, a: [{ k: 'v' }] },
};
const jp = (t: string, o = {}) => jsonPath(t, data, o);

describe('paths', () => {
  test('fields, dashes in names, quoted keys and missing keys', () => {
    // oc adm release info -o jsonpath='{.displayVersions.machine-os.Version}' → 413.92.202305231734-0
    expect(jp('{.displayVersions.machine-os.Version}')).toBe('413.92.202305231734-0');
    expect(jp("{.displayVersions['machine-os'].DisplayName}")).toBe('Red Hat Enterprise Linux CoreOS');
    expect(jp('{.nope}')).toBe('');
    expect(jp('{.nope.deeper}{.name.x}')).toBe('');
    expect(jp('{@.name}|{$.name}')).toBe('4.13.1|4.13.1');
  });

  test('a missing key is an error only without AllowMissingKeys', () => {
    expect(() => jp('{.nope}', { allowMissingKeys: false })).toThrow(new JsonPathExecError('nope is not found'));
  });

  test('indexes, negative indexes, slices, steps and unions', () => {
    expect(jp('{.list[0]} {.list[-1]} {.list[1:3]} {.list[:2]} {.list[2:]} {.list[::2]} {.list[*]}')).toBe('a d b c a b c d a c a b c d');
    expect(jp('{.list[0,2]}')).toBe('a c');
    expect(jp("{.tags[0]['name','n']}")).toBe('cli 1');
    expect(jp('{.list[2:2]}')).toBe('');
  });

  test('wildcards and filters', () => {
    expect(jp('{.tags[*].name}')).toBe('cli machine-os-content tests');
    expect(jp('{.tags[?(@.name=="machine-os-content")].from.name}')).toBe('quay.io/x@sha256:bb');
    expect(jp("{.tags[?(@.name!='cli')].name}")).toBe('machine-os-content tests');
    expect(jp('{.tags[?(@.extra)].name}')).toBe('machine-os-content');
    // JSON numbers are float64: compared with a float literal; an int literal is another type (see errors).
    expect(jp('{.tags[?(@.n>1.0)].name} {.tags[?(@.n<=2.0)].name} {.tags[?(@.n>=3.0)].name} {.tags[?(@.n<2.0)].name}')).toBe(
      'machine-os-content tests cli machine-os-content tests cli',
    );
    expect(jp('{.tags[?(@.name>"d")].name}')).toBe('machine-os-content tests');
    expect(jp('{.nested.*}')).toBe('1 [{"k":"v"}]');
  });

  test('recursive descent visits every object and array (Go visits map values in random order)', () => {
    expect(jp('{..k}')).toBe('v');
    expect(jp('{..name}').split(' ').sort()).toEqual(
      ['4.13.1', 'cli', 'machine-os-content', 'quay.io/x@sha256:aa', 'quay.io/x@sha256:bb', 'quay.io/x@sha256:cc', 'tests'].sort(),
    );
  });

  test('range, nested range and literal text', () => {
    expect(jp('{range .tags[*]}{.name}{"\\t"}{.from.name}{"\\n"}{end}')).toBe(
      'cli\tquay.io/x@sha256:aa\nmachine-os-content\tquay.io/x@sha256:bb\ntests\tquay.io/x@sha256:cc\n',
    );
    expect(jp('{range .tags[*]}[{range .list[*]}x{end}]{end}')).toBe('[][][]');
    expect(jp('{range .nested.a[*]}{range .k}<{@}>{end}{end}after')).toBe('<v>after');
    expect(jp('{range .nope[*]}{.x}{end}done')).toBe('done');
    expect(jp('name: {.name}, ok')).toBe('name: 4.13.1, ok');
    expect(jp("{\"a\\u00e9\\x41\\101\"}{'it\\'s'}")).toBe("aéAAit's");
  });
});

describe('values as oc prints them', () => {
  test('numbers as Go formats a float64 (%v: shortest, exponent from 1e+06), booleans, null', () => {
    // oc -o jsonpath='{67939151.0}|{1234567.5}|{100000.0}|{0.00001}|{0.0001}' → 6.7939151e+07|1.2345675e+06|100000|1e-05|0.0001
    expect(jp('{.size}|{.ratio}|{.count}|{.tiny}|{.big}')).toBe('6.7939151e+07|0.5|4|1e-05|1e+21');
    expect(jp('{67939151.0}|{1234567.5}|{100000.0}|{0.0001}|{5}|{-3}|{true}')).toBe('6.7939151e+07|1.2345675e+06|100000|0.0001|5|-3|true');
    expect(jp('{.ok} {.none}')).toBe('true <nil>');
  });

  test('objects and arrays as compact JSON with sorted keys, HTML characters escaped as Go does', () => {
    expect(jp('{.nested}')).toBe('{"a":[{"k":"v"}],"z":1}');
    expect(jp('{.tags[0]}')).toBe('{"from":{"name":"quay.io/x@sha256:aa"},"n":1,"name":"cli"}');
    expect(jp('{.html} {.list}')).toBe('<a&b> ["a","b","c","d"]');
    expect(jp('{.tags[?(@.n==2.0)]}')).toContain('"extra":"yes"');
    expect(jp('{.nested.a}{.html}')).toBe('[{"k":"v"}]<a&b>');
    expect(jsonPath('{.x}', { x: ['<a&b>', 67939151, null] })).toBe('["\\u003ca\\u0026b\\u003e",67939151,null]');
  });

  test('jsonpath-as-json: each {} as a JSON array indented by 4 spaces', () => {
    // oc -o jsonpath-as-json='{.references.spec.tags[*].name}{.x}' → [\n    "cli",\n    "machine-os-content"\n]\n[]\n
    expect(jp('{.tags[*].name}{.nope}{.nested}', { asJson: true })).toBe(
      '[\n    "cli",\n    "machine-os-content",\n    "tests"\n]\n[]\n[\n    {\n        "a": [\n            {\n                "k": "v"\n            }\n        ],\n        "z": 1\n    }\n]\n',
    );
    expect(jp('{.size}{.none}', { asJson: true })).toBe('[\n    67939151\n]\n[\n    null\n]\n');
  });
});

describe('errors in client-go words', () => {
  test.each([
    ['{.a', 'unclosed action'],
    ['{.a\n}', 'unclosed action'],
    ['{#}', "unrecognized character in action: U+0023 '#'"],
    ['{.a[}', 'unterminated array'],
    ['{.a[x]}', 'invalid array index x'],
    ['{.a[1:x]}', 'invalid array index 1:x'],
    ['{"abc}', 'unterminated quoted string'],
    ['{"\\q"}', 'unquote string "\\q" error invalid syntax'],
    ['{.a[?(@.x]}', 'unterminated filter'],
    ['{.a[?(@.x)}', 'unclosed array expect ]'],
    ['{.....a}', 'invalid multiple recursive descent'],
    ['{1.2.3}', 'cannot parse number 1.2.3'],
    ['{+}', 'cannot parse number +'],
    ['{.a[?(@.name=~"c")]}', "unrecognized character in action: U+007E '~'"],
  ])('parse %j: %s', (template, message) => {
    expect(() => parseJsonPath(template)).toThrow(new JsonPathSyntaxError(message));
  });

  test.each([
    ['{.list[7]}', 'array index out of bounds: index 7, length 4'],
    ['{.list[-7]}', 'array index out of bounds: index -3, length 4'],
    ['{.list[3:1]}', 'starting index 3 is greater than ending index 1'],
    ['{.list[::0]}', 'step must be > 0'],
    ['{.name[0]}', 'string is not array or slice'],
    ['{.nested[0]}', 'map[string]interface {} is not array or slice'],
    ['{.nested[?(@.x)]}', 'map[a:[map[k:v]] z:1] is not array or slice and cannot be filtered'],
    ['{.tags[?(@.n>1)]}', 'incompatible types for comparison'],
    ['{.tags[?(@.from>1)]}', 'invalid type for comparison'],
    ['{.tags[?(@.name<>"c")]}', 'unrecognized filter operator <>'],
    ['{end}', 'not in range, nothing to end'],
    ['{foo}', 'unrecognized identifier foo'],
  ])('execute %j: %s', (template, message) => {
    expect(() => jp(template)).toThrow(new JsonPathExecError(message));
  });
});

describe('hostile image data', () => {
  const hostile = () => JSON.parse('{"__proto__":{"x":1},"constructor":{"name":"c"},"toString":"t","a":[1]}');

  test('"__proto__" and "constructor" keys are keys like any other, never Object\'s properties', () => {
    expect(jsonPath('{.__proto__.x} {.constructor.name} {.toString} {.hasOwnProperty}', hostile())).toBe('1 c t ');
    expect(jsonPath('{$}', hostile())).toBe('{"__proto__":{"x":1},"a":[1],"constructor":{"name":"c"},"toString":"t"}');
    expect(jsonPath('{.a.constructor}{.a.length}', hostile())).toBe('');
  });

  test('data nested thousands deep is a one-line error naming the template, not a stack trace', async () => {
    const { parseOutputFormat, printTemplate } = await import('../../src/output/output-format.js');
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = { a: [deep] };
    for (const [value, what] of [
      ['jsonpath={$}', 'jsonpath "{$}"'],
      ['go-template={{.}}', 'template "{{.}}"'],
    ]) {
      const format = await parseOutputFormat(value);
      const r = await printTemplate(format as never, { d: deep });
      expect(r).toEqual({ out: '', error: `error executing ${what}: the data is nested too deeply to print` });
    }
  });
});
