/**
 * go-yaml v2's text for values decoded from JSON (sigs.k8s.io/yaml JSONToYAML): key order, scalar styles,
 * folding, numbers. The expected texts are go-yaml's (the CredentialsRequests oc 4.13 wrote in
 * test/fixtures/oc/extractflag-credentials-requests*.json, and go-yaml's documented rules).
 */
import { describe, expect, it } from 'vitest';
import { goFloat, marshalYamlV2, resolvesToString, yamlKeyLess } from '../../src/golang/yaml-v2.js';

describe('marshalYamlV2', () => {
  it('sorts keys as go-yaml does: non-letters first, letters by code point, digit runs by value', () => {
    const keys = ['a10', 'Zeta', 'apiVersion', '_private', 'a9', 'A1', 'count', '0x', '10', '9'];
    const sorted = [...keys].sort((a, b) => (yamlKeyLess(a, b) ? -1 : yamlKeyLess(b, a) ? 1 : 0));
    // `_` has no digits to compare, so it sorts before `0x` (a run of digits worth 0 but one character long).
    expect(sorted).toEqual(['_private', '0x', '9', '10', 'A1', 'Zeta', 'a9', 'a10', 'apiVersion', 'count']);
  });

  it('writes block mappings, indentless sequences in mappings and empty collections in flow style', () => {
    expect(marshalYamlV2({ spec: { list: ['a', 'b'], empty: [], none: {}, nested: [{ x: 1, z: [2, 3] }, [4, 5]] } })).toBe(
      'spec:\n  empty: []\n  list:\n  - a\n  - b\n  nested:\n  - x: 1\n    z:\n    - 2\n    - 3\n  - - 4\n    - 5\n  none: {}\n',
    );
    // Keys are strings like any other: `y` and `n` read as booleans in YAML 1.1, so go-yaml quotes them.
    expect(marshalYamlV2({ y: 1, n: 2, on: 3 })).toBe('"n": 2\n"on": 3\n"y": 1\n');
  });

  it('quotes strings that would read as something else, and those plain style cannot hold', () => {
    expect(
      marshalYamlV2({ a: 'yes', b: 'true', c: '1.0', d: '', e: '*', f: 'null', g: '2023-05-25', h: '1:20', i: 'it: is', j: '- x' }),
    ).toBe('a: "yes"\nb: "true"\nc: "1.0"\nd: ""\ne: \'*\'\nf: "null"\ng: "2023-05-25"\nh: "1:20"\ni: \'it: is\'\nj: \'- x\'\n');
    expect(marshalYamlV2({ a: 'plain text', b: 's3:CreateBucket', c: 'crn:v1:bluemix:public:iam::::serviceRole:Manager', d: "it's" })).toBe(
      "a: plain text\nb: s3:CreateBucket\nc: crn:v1:bluemix:public:iam::::serviceRole:Manager\nd: it's\n",
    );
    expect(marshalYamlV2({ tab: 'a\tb', ctl: 'bell\u0007', quote: ' lead' })).toBe('ctl: "bell\\a"\nquote: \' lead\'\ntab: "a\\tb"\n');
  });

  it('writes strings with line breaks as literal blocks with go-yaml chomping', () => {
    expect(marshalYamlV2({ notes: 'first line\nsecond line: with a colon\n' })).toBe(
      'notes: |\n  first line\n  second line: with a colon\n',
    );
    expect(marshalYamlV2({ k: { v: 'no end\nhere' } })).toBe('k:\n  v: |-\n    no end\n    here\n');
    expect(marshalYamlV2({ v: 'kept\n\n' })).toBe('v: |+\n  kept\n\n');
  });

  it('folds a long plain scalar at a space once past 80 columns, the rest one step in', () => {
    const description =
      "The ingress operator manages DNS records in the cluster's public and private zones, and needs these permissions for it.";
    expect(marshalYamlV2({ spec: { providerSpec: { description } } })).toBe(
      "spec:\n  providerSpec:\n    description: The ingress operator manages DNS records in the cluster's public\n      and private zones, and needs these permissions for it.\n",
    );
  });

  it('writes numbers as go-yaml: integers plain, floats as strconv g', () => {
    expect(marshalYamlV2({ i: 3, f: 0.5, big: 1e21, small: 0.00001, m: 1500000.5, neg: -2, z: 0, b: true, nil: null })).toBe(
      'b: true\nbig: 1e+21\nf: 0.5\ni: 3\nm: 1.5000005e+06\nneg: -2\nnil: null\nsmall: 1e-05\nz: 0\n',
    );
    expect(goFloat(0.0001)).toBe('0.0001');
    expect(goFloat(123456.7)).toBe('123456.7');
    expect(goFloat(1234567.5)).toBe('1.2345675e+06');
  });

  it('tells which plain scalars read back as strings', () => {
    // `<<` starts with no character go-yaml looks up, so it stays a string.
    for (const s of ['abc', 'a1', '.x', 'yesno', '0x1G', '1.2.3', 'Null-ish', '<<']) expect(resolvesToString(s), s).toBe(true);
    for (const s of ['', '~', 'Yes', 'off', '12', '-3', '+4', '0o17', '0x1F', '1_000', '1e3', '.5', '.inf', '-.inf', '2023-1-2'])
      expect(resolvesToString(s), s).toBe(false);
  });
});
