/**
 * The coreos-bootimages YAML writer against go-yaml v2's output (test/fixtures/installer-bootimages/README.md):
 * literal blocks, single-quoted scalars folded at the first lone space past column 80, doubled quotes; and the
 * values it refuses rather than guess at.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configMapYaml } from '../../src/payload/bootimages-yaml.js';

const DIR = fileURLToPath(new URL('../fixtures/installer-bootimages/edge', import.meta.url));
const cm = (data: Array<[string, string]>) =>
  configMapYaml({ data, annotations: { 'include.release.openshift.io/x': 'true' }, name: 'n', namespace: 'ns', creationTimestamp: false });

describe('configMapYaml: data values as go-yaml v2 writes them', () => {
  it('matches go-yaml at the folding boundary (a space at column 80 stays, at 81 folds), with quotes and empty lines', () => {
    const data = JSON.parse(readFileSync(join(DIR, 'yaml-scalars.json'), 'utf8')) as Record<string, string>;
    const out = configMapYaml({
      data: Object.entries(data),
      annotations: {
        'include.release.openshift.io/single-node-developer': 'true',
        'include.release.openshift.io/ibm-cloud-managed': 'true',
        'include.release.openshift.io/self-managed-high-availability': 'true',
      },
      name: 'coreos-bootimages',
      namespace: 'openshift-machine-config-operator',
      creationTimestamp: false,
    });
    expect(out).toBe(readFileSync(join(DIR, 'yaml-scalars.yaml'), 'utf8'));
  });

  it('keys sorted; no annotations key when there are none; creationTimestamp: null when asked', () => {
    const out = configMapYaml({
      data: [
        ['b', '{}'],
        ['a', 'x1'],
      ],
      annotations: {},
      name: 'n',
      namespace: 'ns',
      creationTimestamp: true,
    });
    expect(out).toBe(
      "apiVersion: v1\ndata:\n  a: x1\n  b: '{}'\nkind: ConfigMap\nmetadata:\n  creationTimestamp: null\n  name: n\n  namespace: ns\n",
    );
  });

  it('refuses what go-yaml would double-quote, naming the key', () => {
    expect(() => cm([['stream', '{"a":"\u{1F600}"}']])).toThrow(
      /^coreos-bootimages data.stream: it holds U\+1F600, which the installer's YAML writer/,
    );
    expect(() => cm([['stream', '{"a":"\t"}']])).toThrow(/data.stream: it holds U\+0009/);
    expect(() => cm([['stream', '{\n  "a": 1 \n}']])).toThrow(/data.stream: a line ends in a space/);
    expect(() => cm([['stream', '{}\n\n']])).toThrow(/more than one line break/);
    expect(() => cm([['releaseVersion', '1.2']])).toThrow(/"1.2" is neither JSON nor a plain word/);
  });
});
