/**
 * Go's text/template as oc 4.13's `-o go-template` runs it (src/golang/template.ts, template-parse.ts,
 * fmt.ts): feature by feature, error by error. Expected texts are what oc printed for the same template
 * (`oc adm release info -o go-template=…`); test/output/template-formats-oc.test.ts replays oc's recordings.
 */
import { describe, expect, test } from 'vitest';
import { GoTemplateExecError, GoTemplateSyntaxError, goTemplate, parseGoTemplate } from '../../src/golang/template.js';

const data = {
  name: '4.13.1',
  size: 67939151,
  ratio: 0.5,
  ok: true,
  none: null,
  empty: [],
  displayVersions: {
    'machine-os': { Version: '413.92.202305231734-0', DisplayName: 'Red Hat Enterprise Linux CoreOS' },
    kubectl: { Version: '1.26.1', DisplayName: '' },
  },
  tags: [
    { name: 'cli', from: { name: 'quay.io/x@sha256:aa' } },
    { name: 'machine-os-content', from: { name: 'quay.io/x@sha256:bb' } },
  ],
  previous: ['4.13.0', '4.12.17'],
  b64: 'aGVsbG8=',
};
const gt = (t: string, o = {}) => goTemplate(t, data, o);

describe('actions and values', () => {
  test('fields, index for keys with dashes, Go value formatting', () => {
    // oc -o go-template='{{.config.size}}' → 67939151 (integers decode as int64); maps print as Go maps with sorted keys
    expect(gt('{{.size}} {{.ratio}} {{.ok}} {{.name}}')).toBe('67939151 0.5 true 4.13.1');
    expect(gt('{{index .displayVersions "machine-os"}}')).toBe(
      'map[DisplayName:Red Hat Enterprise Linux CoreOS Version:413.92.202305231734-0]',
    );
    expect(gt('{{(index .displayVersions "machine-os").Version}}')).toBe('413.92.202305231734-0');
    expect(gt('{{.previous}} {{.tags}}')).toBe(
      '[4.13.0 4.12.17] [map[from:map[name:quay.io/x@sha256:aa] name:cli] map[from:map[name:quay.io/x@sha256:bb] name:machine-os-content]]',
    );
    expect(gt('{{index .tags 1 "name"}} {{index . "name"}}')).toBe('machine-os-content 4.13.1');
  });

  test('a newline inside an action is a space', () => {
    expect(gt('line1\n{{.name\n}}')).toBe('line1\n4.13.1');
  });

  test('missing keys and null print <no value>; with missingkey=error they fail', () => {
    expect(gt('{{.nope}} {{.nope.deeper}} {{.none}} {{index .displayVersions "x"}}')).toBe('<no value> <no value> <no value> <no value>');
    expect(() => gt('{{.nope}}', { missingKeyError: true })).toThrow(
      new GoTemplateExecError('template: output:1:2: executing "output" at <.nope>: map has no entry for key "nope"'),
    );
  });

  test('range over arrays and maps (sorted keys), variables, else, break and continue', () => {
    expect(gt('{{range .tags}}{{.name}}{{"\\n"}}{{end}}')).toBe('cli\nmachine-os-content\n');
    expect(gt('{{range $i, $t := .tags}}{{$i}}={{$t.name}} {{end}}')).toBe('0=cli 1=machine-os-content ');
    expect(gt('{{range $k, $v := .displayVersions}}{{$k}}={{$v.Version}};{{end}}')).toBe(
      'kubectl=1.26.1;machine-os=413.92.202305231734-0;',
    );
    expect(gt('{{range $v := .previous}}{{$v}},{{end}}')).toBe('4.13.0,4.12.17,');
    expect(gt('{{range .empty}}x{{else}}empty{{end}} {{range .nope}}x{{else}}none{{end}}')).toBe('empty none');
    expect(gt('{{range .previous}}{{if eq . "4.12.17"}}{{break}}{{end}}{{.}},{{end}}')).toBe('4.13.0,');
    expect(gt('{{range .previous}}{{if eq . "4.13.0"}}{{continue}}{{end}}{{.}},{{end}}')).toBe('4.12.17,');
    expect(gt('{{$x := .name}}{{$x}} {{$x = "b"}}{{$x}} {{$.size}}')).toBe('4.13.1 b 67939151');
  });

  test('if / else if / else, with, comparisons, and / or / not', () => {
    expect(gt('{{if .nope}}a{{else if .ok}}b{{else}}c{{end}}')).toBe('b');
    expect(gt('{{with .displayVersions.kubectl}}{{.Version}}{{end}}{{with .nope}}x{{else}}-{{end}}')).toBe('1.26.1-');
    expect(gt('{{eq .name "4.13.1"}} {{ne 1 2}} {{lt 1 2}} {{le "a" "b"}} {{gt .size 5}} {{ge 2 3}} {{eq 1 2 1}}')).toBe(
      'true true true true true false true',
    );
    expect(gt('{{and .ok .name}} {{or .nope .name}} {{not .empty}} {{and 1 0}}')).toBe('4.13.1 4.13.1 true 0');
  });

  test('printf, print, println, len, pipelines, trim markers, comments, literals', () => {
    expect(gt('{{printf "%s=%d %v %q %5.2f|%-4s|%x" .name .size .previous .name 1.5 "ab" "hi"}}')).toBe(
      '4.13.1=67939151 [4.13.0 4.12.17] "4.13.1"  1.50|ab  |6869',
    );
    expect(gt('{{.size | printf "%012d"}} {{printf "%s" .size}} {{printf "%d" 1.5}} {{printf "%v"}} {{printf "a" 1}}')).toBe(
      '000067939151 %!s(int64=67939151) %!d(float64=1.5) %!v(MISSING) a%!(EXTRA int=1)',
    );
    expect(gt('{{print 1 2 "a" 3}}|{{println 1 "a"}}|{{len .tags}} {{len .name}} {{.name | len}}')).toBe('1 2a3|1 a\n|2 6 6');
    expect(gt('a  {{- "b" -}}  c {{/* a comment */}}{{- /* trimmed */ -}} d')).toBe('abc d');
    expect(gt("{{1e3}} {{0x10}} {{'a'}} {{-5}} {{1_000}} {{`raw\\n`}}")).toBe('1000 16 97 -5 1000 raw\\n');
  });

  test("kubectl's exists and base64decode; html and urlquery", () => {
    expect(gt('{{exists . "displayVersions" "kubectl"}} {{exists . "nope"}} {{exists .previous 1}} {{exists .previous 9}}')).toBe(
      'true false true false',
    );
    expect(gt('{{base64decode .b64}}')).toBe('hello');
    expect(gt('{{html "<a&\'\\"b>"}} {{urlquery "a b/c?"}}')).toBe('&lt;a&amp;&#39;&#34;b&gt; a+b%2Fc%3F');
  });
});

describe("errors in Go's words", () => {
  test.each([
    ['{{.a', 'template: output:1: unclosed action'],
    ['{{range .x}}', 'template: output:1: unexpected EOF'],
    ['{{end}}', 'template: output:1: unexpected {{end}}'],
    ['{{foo}}', 'template: output:1: function "foo" not defined'],
    ['{{if}}{{end}}', 'template: output:1: missing value for if'],
    ['{{"abc}}', 'template: output:1: unterminated quoted string'],
    ['{{ .a }', 'template: output:1: unexpected "}" in operand'],
    ['{{$y}}', 'template: output:1: undefined variable "$y"'],
    ['{{.displayVersions.machine-os}}', "template: output:1: bad character U+002D '-'"],
    ['line1\n{{.a | foo}}', 'template: output:2: function "foo" not defined'],
    ['{{/* open', 'template: output:1: unclosed comment'],
    ['{{break}}', 'template: output:1: {{break}} outside {{range}}'],
    ['{{define "x"}}{{end}}', 'template: output:1: {{define}} is not supported: osimage supports fields'],
    ['{{call .x}}', 'template: output:1: function "call" is not supported: osimage supports fields'],
  ])('parse %j', (template, message) => {
    let err: unknown;
    try {
      parseGoTemplate(template);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GoTemplateSyntaxError);
    expect((err as Error).message.startsWith(message)).toBe(true);
  });

  test.each([
    ['{{index .tags 5}}', 'template: output:1:2: executing "output" at <index .tags 5>: error calling index: index out of range: 5'],
    ['{{.size.x}}', 'template: output:1:7: executing "output" at <.size.x>: can\'t evaluate field x in type interface {}'],
    ['{{.none.x}}', 'template: output:1:7: executing "output" at <.none.x>: nil pointer evaluating interface {}.x'],
    ['{{len 3}}', 'template: output:1:2: executing "output" at <len 3>: error calling len: len of type int'],
    ['{{len 1 2}}', 'template: output:1:2: executing "output" at <len>: wrong number of args for len: want 1 got 2'],
    ['{{eq .size 1.5}}', 'template: output:1:2: executing "output" at <eq .size 1.5>: error calling eq: incompatible types for comparison'],
    ['{{range .size}}{{end}}', 'template: output:1:8: executing "output" at <.size>: range can\'t iterate over 67939151'],
    ['{{eq 2.0 2}}', 'template: output:1:2: executing "output" at <eq 2.0 2>: error calling eq: incompatible types for comparison'],
    ['{{3 4}}', 'template: output:1:2: executing "output" at <3>: can\'t give argument to non-function 3'],
    ['{{nil}}', 'template: output:1:2: executing "output" at <nil>: nil is not a command'],
    ['{{.tags | .name}}', 'template: output:1:10: executing "output" at <.name>: name is not a method but has arguments'],
    [
      '\n  {{base64decode "!!"}}',
      'template: output:2:4: executing "output" at <base64decode "!!">: error calling base64decode: base64 decode failed: illegal base64 data at input byte 0',
    ],
  ])('execute %j', (template, message) => {
    expect(() => gt(template)).toThrow(new GoTemplateExecError(message));
  });
});

describe('hostile image data', () => {
  test('"__proto__" and "constructor" keys are keys like any other, never Object\'s properties', () => {
    const data = JSON.parse('{"__proto__":{"x":1},"constructor":"c"}');
    expect(goTemplate('{{.__proto__.x}} {{.constructor}} {{index . "__proto__"}} {{.toString}} {{exists . "hasOwnProperty"}}', data)).toBe(
      '1 c map[x:1] <no value> false',
    );
    expect(goTemplate('{{range $k, $v := .}}{{$k}};{{end}}{{len .}}', data)).toBe('__proto__;constructor;2');
  });

  test("a template nested deeper than the parser's stack is one error in Go's words, not a stack overflow", () => {
    const deep = `{{${'('.repeat(20000)}1${')'.repeat(20000)}}}`;
    expect(() => parseGoTemplate(deep)).toThrow(GoTemplateSyntaxError);
    expect(() => parseGoTemplate(deep)).toThrow('template: output:1: max expression depth exceeded');
    // A modest nesting still parses.
    expect(goTemplate(`{{${'('.repeat(50)}1${')'.repeat(50)}}}`, {})).toBe('1');
  });
});
