import { describe, expect, it } from 'vitest';
import { compileGoRegexp } from '../../src/golang/regexp.js';
import { osimage } from '../helpers/cli.js';

/**
 * oc's own words, recorded from oc 4.13 (built from openshift/oc release-4.13), each line the first line of
 *   oc adm release info --filter-by-os="PATTERN" 127.0.0.1:1/foo:bar
 * after the prefix `error: --filter-by-os was not a valid regular expression: `.
 */
const OC: [string, string][] = [
  ['[', 'error parsing regexp: missing closing ]: `[`'],
  ['linux/[amd', 'error parsing regexp: missing closing ]: `[amd`'],
  ['[a', 'error parsing regexp: missing closing ]: `[a`'],
  ['(', 'error parsing regexp: missing closing ): `(`'],
  [')', 'error parsing regexp: unexpected ): `)`'],
  ['x)', 'error parsing regexp: unexpected ): `x)`'],
  ['*', 'error parsing regexp: missing argument to repetition operator: `*`'],
  ['{2}', 'error parsing regexp: missing argument to repetition operator: `{2}`'],
  ['(*)', 'error parsing regexp: missing argument to repetition operator: `*`'],
  ['a|*', 'error parsing regexp: missing argument to repetition operator: `*`'],
  ['a**', 'error parsing regexp: invalid nested repetition operator: `**`'],
  ['a++', 'error parsing regexp: invalid nested repetition operator: `++`'],
  ['a+??', 'error parsing regexp: invalid nested repetition operator: `+??`'],
  ['a{1000}{2}', 'error parsing regexp: invalid nested repetition operator: `{1000}{2}`'],
  ['a{1001}', 'error parsing regexp: invalid repeat count: `{1001}`'],
  ['a{2,1}', 'error parsing regexp: invalid repeat count: `{2,1}`'],
  ['a\\', 'error parsing regexp: trailing backslash at end of expression: ``'],
  ['\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
  ['\\Cx', 'error parsing regexp: invalid escape sequence: `\\C`'],
  ['ab\\q', 'error parsing regexp: invalid escape sequence: `\\q`'],
  ['[\\q]', 'error parsing regexp: invalid escape sequence: `\\q`'],
  ['[a-\\d]', 'error parsing regexp: invalid escape sequence: `\\d`'],
  ['\\x', 'error parsing regexp: invalid escape sequence: `\\x`'],
  ['\\xZZ', 'error parsing regexp: invalid escape sequence: `\\xZZ`'],
  ['\\x{}', 'error parsing regexp: invalid escape sequence: `\\x{}`'],
  ['\\x{zz}', 'error parsing regexp: invalid escape sequence: `\\x{z`'],
  ['[z-a]', 'error parsing regexp: invalid character class range: `z-a`'],
  ['[[:foo:]]', 'error parsing regexp: invalid character class range: `[:foo:]`'],
  ['(?=x)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
  ['(?<n>x)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?<`'],
  ['(?i', 'error parsing regexp: invalid or unsupported Perl syntax: `(?i`'],
  ['(?P<x', 'error parsing regexp: invalid named capture: `(?P<x`'],
  ['(?P<>x)', 'error parsing regexp: invalid named capture: `(?P<>`'],
  ['(?P<a-b>x)', 'error parsing regexp: invalid named capture: `(?P<a-b>`'],
];

describe("compileGoRegexp: Go's regexp syntax and errors", () => {
  it.each(OC)('%s', (pattern, message) => {
    expect(() => compileGoRegexp(pattern)).toThrow(message);
    let thrown: unknown;
    try {
      compileGoRegexp(pattern);
    } catch (err) {
      thrown = err;
    }
    expect((thrown as Error).message).toBe(message);
  });

  it.each([
    ['linux/arm64', 'linux/arm64', true],
    ['linux/(amd64|arm64)', 'linux/arm64', true],
    ['^linux/arm64$', 'linux/arm64/v8', false],
    ['linux/arm64/v8', 'linux/arm64/v8', true],
    ['.*', 'linux/s390x', true],
    ['(?i)LINUX/AMD64', 'linux/amd64', true],
    ['\\Qlinux/amd64\\E', 'linux/amd64', true],
    ['\\Qlinux.amd64\\E', 'linux/amd64', false],
    ['^*linux', 'linux/amd64', true],
    ['linux/[[:alpha:]]+64', 'linux/arm64', true],
    ['linux/ppc64{1}le', 'linux/ppc64le', true],
    ['linux/(?P<arch>arm64)', 'linux/arm64', true],
    ['linux/x{', 'linux/x{', true],
    ['\\x6cinux', 'linux/amd64', true],
    ['\\Alinux/amd64\\z', 'linux/amd64', true],
  ])('%s matches %s: %s (as Go)', (pattern, platform, matches) => {
    expect(compileGoRegexp(pattern).test(platform)).toBe(matches);
  });

  it('says so for what Go accepts and osimage cannot match', () => {
    // oc accepts \pL (no error before the network); osimage names it.
    expect(() => compileGoRegexp('\\pL')).toThrow('osimage cannot match Unicode classes');
  });
});

describe('--filter-by-os on the command line', () => {
  it('a bad expression is a usage error before any network, even for an image that is no list', async () => {
    // oc adm release info --filter-by-os='[' 127.0.0.1:1/foo:bar  →  (oc exits 1; a usage error is 2 here)
    const ocText = 'error: --filter-by-os was not a valid regular expression: error parsing regexp: missing closing ]: `[`';
    const r = await osimage(['release', 'info', '--filter-by-os', '[', '127.0.0.1:1/foo:bar']);
    expect(r).toEqual({ stdout: '', stderr: ocText, exitCode: 2 });
    const sample = await osimage(['release', 'info', '--filter-by-os=[', 'oci-archive:hack/sample/release.oci-archive:4.13.1']);
    expect(sample).toEqual({ stdout: '', stderr: ocText, exitCode: 2 });
    const extract = await osimage([
      'release',
      'extract',
      '--filter-by-os=a**',
      '--file',
      'x',
      'oci-archive:hack/sample/release.oci-archive:4.13.1',
    ]);
    expect(extract.stderr).toBe(
      'error: --filter-by-os was not a valid regular expression: error parsing regexp: invalid nested repetition operator: `**`',
    );
    expect(extract.exitCode).toBe(2);
  });
});

describe('hostile expressions and platform strings (Go is linear; a JavaScript RegExp backtracks)', () => {
  it.each([
    ['(a+)+$', `${'a'.repeat(40)}!`],
    ['(a|a)*b', 'a'.repeat(40)],
    ['.*.*.*.*.*.*.*.*.*.*x', 'a'.repeat(60)],
    ['(\\w+/?)+$', `linux/${'a'.repeat(60)}!`],
    ['((a{1,5}){1,5}){1,5}$', `${'a'.repeat(60)}!`],
  ])('%s answers on %s without backtracking', (pattern, text) => {
    expect(compileGoRegexp(pattern).test(text)).toBe(false);
  });

  it('matches as the JavaScript pattern it stands for', () => {
    const cases: [string, string][] = [
      ['(?i)^LINUX/(amd|arm)64(/v8)?$', 'linux/arm64/v8'],
      ['linux/.+\\bv\\d', 'linux/arm64/v8'],
      ['\\Bx{2,3}y', 'axxy'],
      ['[^[:digit:]]{3}/a+?', 'abc/aa'],
      ['^(|linux)/amd64$', '/amd64'],
    ];
    for (const [pattern, text] of cases) {
      const re = compileGoRegexp(pattern);
      for (const t of [text, text.toUpperCase(), text.slice(1), `${text}!`, ''])
        expect(re.test(t), `${pattern} on ${t}`).toBe(new RegExp(re.source, re.flags).test(t));
    }
  });

  it('a platform string longer than any real os/arch/variant never matches', () => {
    expect(compileGoRegexp('.*').test('x'.repeat(100_000))).toBe(false);
    expect(compileGoRegexp('.*').test('x'.repeat(64))).toBe(true);
    expect(compileGoRegexp('.*').test('x'.repeat(65))).toBe(false);
    // Nested repetitions over a hostile 241-character platform: answered at once (it took seconds per entry).
    expect(compileGoRegexp(`${'('.repeat(80)}a*${')*'.repeat(80)}b`).test(`linux/${'a'.repeat(235)}`)).toBe(false);
  });

  it.each(['constructor', '__proto__', 'toString'])('[[:%s:]] is no POSIX class (not a property of Object)', (name) => {
    expect(() => compileGoRegexp(`[[:${name}:]]`)).toThrow(`error parsing regexp: invalid character class range: \`[:${name}:]\``);
  });
});
