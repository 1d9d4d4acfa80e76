import { describe, expect, it } from 'vitest';
import { parseMappings } from '../../../src/release/new/mappings.js';
import { operatorVersions, replaceImageReferences, replaceVersions } from '../../../src/release/new/substitute.js';
import { payloadName } from '../../../src/release/new/naming.js';
import { checkManifest } from '../../../src/release/new/check.js';
import { releaseMetadata } from '../../../src/release/new/metadata.js';

const D = `reg.example/x@sha256:${'a'.repeat(64)}`;

describe('replacement rule', () => {
  const map = new Map([['quay.io/openshift/origin-foo', D]]);
  it.each([
    ['image: quay.io/openshift/origin-foo:latest', `image: ${D}`],
    ['image: quay.io/openshift/origin-foo', `image: ${D}`],
    [`image: "quay.io/openshift/origin-foo@sha256:${'b'.repeat(64)}"`, `image: "${D}"`],
    ['quay.io/openshift/origin-foo', D],
    ['args: [--image=quay.io/openshift/origin-foo:v1 ]', `args: [--image=${D} ]`],
    ["x: 'quay.io/openshift/origin-foo'", `x: '${D}'`],
  ])('%s', (input, output) => {
    expect(replaceImageReferences(input, map)).toBe(output);
  });
  it.each([
    'image: quay.io/openshift/origin-foobar:latest',
    'image: myquay.io/openshift/origin-foo',
    'image: quay.io/openshift/origin-foo/sub',
    'image: quay.io/openshift/origin-foo:latest,',
  ])('leaves %s alone', (input) => {
    expect(replaceImageReferences(input, map)).toBe(input);
  });
  it('never rewrites a target that contains another source', () => {
    const m = new Map([
      ['a.io/x', `b.io/y@sha256:${'1'.repeat(64)}`],
      ['b.io/y', `c.io/z@sha256:${'2'.repeat(64)}`],
    ]);
    expect(replaceImageReferences('i: a.io/x\nj: b.io/y', m)).toBe(
      `i: b.io/y@sha256:${'1'.repeat(64)}\nj: c.io/z@sha256:${'2'.repeat(64)}`,
    );
  });
});

describe('versions', () => {
  const inputs = [
    { name: 'machine-os-content', annotations: { 'io.openshift.build.versions': 'machine-os=413.92.1-0' } },
    { name: 'hyperkube', annotations: { 'io.openshift.build.versions': 'kubernetes=1.26.3,kubectl=1.26.3' } },
    { name: 'rhel-coreos', annotations: { 'io.openshift.build.versions': 'machine-os=413.92.1-0' } },
    { name: 'rhel-coreos-10', annotations: { 'io.openshift.build.versions': 'machine-os=10.2.20260217-0' } },
  ];
  const comps = operatorVersions(inputs, new Set(['machine-os-content', 'hyperkube', 'rhel-coreos-10']));
  it('replaces the snapshot version and component versions', () => {
    expect(replaceVersions('version: 0.0.1-snapshot\nos: 0.0.1-snapshot-machine-os\n', '4.99.0+build.5', comps)).toBe(
      'version: 4.99.0\nos: 413.92.1-0\n',
    );
  });
  it('leaves a snapshot after a word character, and every snapshot when the name is no semantic version, as oc does', () => {
    expect(replaceVersions('a: v0.0.1-snapshot b: 0.0.1-snapshotx', '4.99.0', comps)).toBe('a: v0.0.1-snapshot b: 0.0.1-snapshotx');
    expect(replaceVersions('a: 0.0.1-snapshot', 'notsemver', comps)).toBe('a: 0.0.1-snapshot');
  });
  it("names unknown components in oc's words", () => {
    expect(() => replaceVersions('v: 0.0.1-snapshot-nope', '4.99.0', comps)).toThrow('unknown version reference "nope"');
    expect(() => replaceVersions('v: 0.0.1-snapshot-a w: 0.0.1-snapshot-b', '4.99.0', comps)).toThrow('unknown version references: a, b');
    expect(() => replaceVersions('v: 0.0.1-snapshot-', '4.99.0', comps)).toThrow('empty version references are not allowed');
  });
  it('refuses different versions of one component; tags that agree on it are fine (oc refuses those too)', () => {
    expect(() =>
      operatorVersions(
        [
          { name: 'a', annotations: { 'io.openshift.build.versions': 'kubernetes=1.1.0' } },
          { name: 'b', annotations: { 'io.openshift.build.versions': 'kubernetes=1.2.0' } },
        ],
        new Set(['a', 'b']),
      ),
    ).toThrow('input image stream has multiple versions defined for version kubernetes: b defines 1.2.0 but was already set to 1.1.0 on a');
    const twice = operatorVersions(inputs, new Set(['machine-os-content', 'rhel-coreos']));
    expect(replaceVersions('os: 0.0.1-snapshot-machine-os', '4.99.0', twice)).toBe('os: 413.92.1-0');
    expect(() =>
      operatorVersions(
        [
          { name: 'rhel-coreos-10', annotations: { 'io.openshift.build.versions': 'machine-os=10.2.1-0' } },
          { name: 'rhel-coreos-10-extensions', annotations: { 'io.openshift.build.versions': 'machine-os=10.2.2-0' } },
        ],
        new Set(['rhel-coreos-10', 'rhel-coreos-10-extensions']),
      ),
    ).toThrow(
      'multiple versions defined for version machine-os: rhel-coreos-10-extensions defines 10.2.2-0 but was already set to 10.2.1-0 on rhel-coreos-10',
    );
  });
  it("reads a second OS stream's tags as that stream's, never the default stream's", () => {
    expect(comps.versions.get('machine-os')).toBe('413.92.1-0');
    expect(comps.tagsByName.get('machine-os')).toEqual(['machine-os-content']);
  });
});

describe('naming', () => {
  it('prefixes and de-duplicates', () => {
    const taken = new Set<string>();
    expect(payloadName('op', 'deploy.yaml', taken)).toBe('0000_50_op_deploy.yaml');
    expect(payloadName('op', '0000_30_x.yaml', taken)).toBe('0000_30_x.yaml');
    expect(payloadName('other', '0000_30_x.yaml', taken)).toBe('0000_30_x_2.yaml');
    expect(payloadName('other', '0000_30_x.yaml', taken)).toBe('0000_30_x_3.yaml');
    expect(payloadName('op', 'README', taken)).toBe('0000_50_op_README');
  });
});

describe('manifest check', () => {
  it('accepts multi-document Kubernetes objects', () => {
    expect(() => checkManifest('op/a.yaml', 'kind: A\napiVersion: v1\n---\n---\nkind: B\napiVersion: v1\n')).not.toThrow();
    expect(() => checkManifest('op/a.json', '{"kind":"A","apiVersion":"v1"}')).not.toThrow();
  });
  it('names the file for bad YAML and for non-objects', () => {
    expect(() => checkManifest('op/a.yaml', 'kind: [\n')).toThrow(/^op\/a\.yaml: invalid YAML\/JSON: /);
    expect(() => checkManifest('op/b.yaml', 'kind: A\n')).toThrow(
      /^op\/b\.yaml: manifests must contain Kubernetes API objects with 'kind' and 'apiVersion' set/,
    );
  });
});

describe('mappings', () => {
  it('reads arguments and a file with comments', () => {
    const cli = `reg/cli@sha256:${'1'.repeat(64)}`;
    const m = parseMappings([`cli=${cli}`], { path: 'map.txt', text: '# header\nfoo=reg/foo:1 bar=reg/bar:2 # trailing\n\n' });
    expect(m.map((x) => `${x.source}>${x.target}`)).toEqual([`cli>${cli}`, 'foo>reg/foo:1', 'bar>reg/bar:2']);
  });
  it('refuses a target that is no image reference, naming the mapping (they are written into the payload as given)', () => {
    expect(() => parseMappings(['cli=reg/cli@sha256:zz'])).toThrow(/^mapping cli: "reg\/cli@sha256:zz" is not a valid image reference: /);
    expect(() => parseMappings([], { path: 'm', text: 'a=file:///etc/passwd' })).toThrow(
      /^file m, line 1: mapping a: "file:\/\/\/etc\/passwd" is not a valid image reference/,
    );
    expect(() => parseMappings(['a=reg/x\u001b[31m:1'])).toThrow(/^mapping a: .* is not a valid image reference/);
    expect(() => parseMappings([`a=reg/${'x'.repeat(100_000)}:1`])).toThrow(/^mapping a: .* is not a valid image reference/);
  });
  it("uses oc's errors", () => {
    expect(() => parseMappings(['nope'])).toThrow('all arguments must be valid SRC=DST mappings');
    expect(() => parseMappings([], { path: 'm', text: 'a=b\nc' })).toThrow('file m, line 2: all arguments must be valid SRC=DST mappings');
    expect(() => parseMappings(['a=b'], { path: 'm', text: 'a=c' })).toThrow(
      'file m, line 1: each source tag may only be specified once: a',
    );
  });
});

describe('release-metadata', () => {
  it('normalises and sorts', () => {
    expect(releaseMetadata({ name: '4.13.1', previous: ['4.13.0', '4.12.16,4.12.17'], metadataJson: '{"url":"u"}' })).toEqual({
      kind: 'cincinnati-metadata-v0',
      version: '4.13.1',
      previous: ['4.12.16', '4.12.17', '4.13.0'],
      metadata: { url: 'u' },
    });
  });
  it('splits --next at commas, as oc (a string slice flag) does', () => {
    expect(releaseMetadata({ name: '4.13.1', next: ['4.13.3,4.13.2'] }).next).toEqual(['4.13.2', '4.13.3']);
  });
  it('refuses a non-semver name and a non-object metadata', () => {
    expect(() => releaseMetadata({ name: 'four' })).toThrow(/--name/);
    expect(() => releaseMetadata({ name: '4.1.0', metadataJson: '[1]' })).toThrow(
      'invalid --metadata: json: cannot unmarshal array into Go value of type release.CincinnatiMetadata',
    );
    expect(releaseMetadata({ name: '4.1.0', metadataJson: 'null' }).metadata).toBeUndefined();
  });
});
