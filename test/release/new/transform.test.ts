import { describe, expect, it } from 'vitest';
import { parseMappings } from '../../../src/release/new/mappings.js';
import { operatorVersions, replaceImageReferences, replaceVersions } from '../../../src/release/new/substitute.js';
import { payloadName } from '../../../src/release/new/naming.js';
import { checkManifest } from '../../../src/release/new/check.js';
import { quickJsonCheck, quickManifestCheck } from '../../../src/release/new/manifest-fast.js';
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
  // What oc 4.13 answers for each (its verifier over ghodss/yaml and go-yaml v2, run on these texts).
  it('reads the first document only, as oc does: later ones may be anything', () => {
    expect(() => checkManifest('op/a.yaml', 'kind: A\napiVersion: v1\n---\nfoo: [\n')).not.toThrow();
    expect(() => checkManifest('op/a.yaml', 'kind: A\napiVersion: v1\n...\ngarbage: [\n')).not.toThrow();
    expect(() => checkManifest('op/a.yaml', '# c\n---\nkind: A\napiVersion: v1\n---\njust: data\n')).not.toThrow();
    expect(() => checkManifest('op/a.json', '{"kind":"A","apiVersion":"v1"}\n---\n[1]\n')).not.toThrow();
  });
  it('refuses an empty first document, a list or a scalar as oc does: not a valid YAML/JSON object', () => {
    for (const text of ['', '# only a comment\n', '---\n---\nkind: A\napiVersion: v1\n', '[1,2]\n', 'text\n']) {
      expect(() => checkManifest('op/a.yaml', text), JSON.stringify(text)).toThrow(/^op\/a\.yaml: not a valid YAML\/JSON object, got: "/);
    }
    // oc quotes the first 30 bytes; on one line here.
    expect(() => checkManifest('op/a.yaml', '- a\n- b\n')).toThrow(/^op\/a\.yaml: not a valid YAML\/JSON object, got: "- a\\n- b\\n"$/);
  });
  it('a key given twice counts once, the last one winning, as go-yaml v2 reads it', () => {
    expect(() => checkManifest('op/a.yaml', 'kind: A\napiVersion: v1\nkind: B\n')).not.toThrow();
    expect(() => checkManifest('op/a.yaml', 'kind: A\napiVersion: v1\nmetadata:\n  name: x\n  name: y\n')).not.toThrow();
    expect(() => checkManifest('op/a.json', '{"kind":"A","apiVersion":"v1","kind":"B"}')).not.toThrow();
    expect(() => checkManifest('op/a.yaml', 'apiVersion: v1\nkind: A\nkind: ""\n')).toThrow(/set: kind is empty$/);
  });
  it("names the field that is missing, empty or not a string after oc's words", () => {
    expect(() => checkManifest('op/a.yaml', 'kind: A\n')).toThrow(
      /^op\/a\.yaml: manifests must contain Kubernetes API objects with 'kind' and 'apiVersion' set: apiVersion is missing$/,
    );
    expect(() => checkManifest('op/a.yaml', 'kind: 1\napiVersion: v1\n')).toThrow(/set: kind is 1, not a string$/);
    expect(() => checkManifest('op/a.json', '{"kind":"A","apiVersion":null}')).toThrow(/set: apiVersion is null, not a string$/);
  });
  it('gives the line of a syntax error, as go-yaml does', () => {
    expect(() => checkManifest('op/a.yaml', 'kind: A\napiVersion: v1\nx: [1,\n')).toThrow(/^op\/a\.yaml: invalid YAML\/JSON: line \d: /);
    expect(() => checkManifest('op/a.yaml', 'kind: A\n  apiVersion: v1\n')).toThrow(/^op\/a\.yaml: invalid YAML\/JSON: line \d: /);
    expect(() => checkManifest('op/a.yaml', 'kind: A\napiVersion: v1\nx: "open\n---\nkind: B\n')).toThrow(/invalid YAML\/JSON/);
  });
  it('takes the quick paths only for what the full parser accepts (plain, quoted, folded, flow, block scalars)', () => {
    const ok = [
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x # note\n  labels: {a: b, c: "d"}\ndata:\n  s: |\n    line: one\n     # two\n  t: >-\n    x\n',
      "apiVersion: v1\nkind: 'Pod'\nspec:\n  containers:\n  - name: a\n    args: [\"--v=2\", x]\n    env:\n    - name: X\n      value: 'it''s'\n  - - nested\n",
      'apiVersion: v1\nkind: Event\nmessage: a long message that a\n  serializer folded\nnote: "a quoted one\n  folded too"\n',
      '{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": []\n}\n',
      'kind: A\r\napiVersion: v1\r\n',
    ];
    for (const text of ok) {
      expect(() => checkManifest('op/a.yaml', text), text).not.toThrow();
      if (!text.startsWith('{')) expect(quickManifestCheck(text), text).toBe(true);
    }
    const bad = [
      'kind: A\napiVersion: v1\nx: 1\n y: 2\n', // a key less indented than its map
      'kind: A\napiVersion: v1\nmessage: one\n  two: three\n', // a folded line that is a map
      'kind: A\napiVersion: v1\nx: "a\\q"\n', // an unknown escape
      'kind: A\napiVersion: v1\nl:\n- a\n  b: c\n', // a folded line that is a map, in a list
      'kind: A\napiVersion: v1\nx: [a, b\n',
      'kind: A\napiVersion: v1\nx: "open\n',
    ];
    for (const text of bad) {
      expect(quickManifestCheck(text), text).toBe(false);
      expect(() => checkManifest('op/a.yaml', text), text).toThrow(/^op\/a\.yaml: invalid YAML\/JSON: /);
    }
  });
  it('tabs only inside block scalars; a no-break space is never indentation', () => {
    expect(quickManifestCheck('kind: A\napiVersion: v1\nscript: |\n  if x; then\n  \techo y\n  fi\n')).toBe(true);
    expect(quickManifestCheck('kind: A\napiVersion: v1\nx:\n\ty: 1\n')).toBe(false);
    expect(quickManifestCheck('kind: A\napiVersion: v1\nx:\n\u00a0 y: 1\n')).toBe(false);
    expect(quickManifestCheck('\u00a0\nkind: A\napiVersion: v1\n')).toBe(false);
  });
  it('gives the full parser no more than 512 KiB, where it needs some 300 bytes of memory a byte', () => {
    const items = (item: string, n: number) => `apiVersion: v1\nkind: List\nitems:\n${item.repeat(n)}`;
    // Plain YAML of any size takes the quick path; YAML it cannot read (anchors here) is refused past 512 KiB.
    expect(() => checkManifest('op/big.yaml', items('  - {a: "x"}\n', 100_000))).not.toThrow();
    expect(() => checkManifest('op/big.yaml', items('  - &a {a: "x"}\n', 40_000))).toThrow(
      /^op\/big\.yaml: cannot check this manifest: its first document is 626 KiB of YAML that osimage reads only with its full parser, which it gives at most 512 KiB .*; --skip-manifest-check leaves the check out$/,
    );
    // Only the first document counts.
    expect(() => checkManifest('op/big.yaml', `${items('  - &a x\n', 10)}---\n${'x: &a 1\n'.repeat(100_000)}`)).not.toThrow();
  });
  it('JSON past 1 MiB is scanned, not parsed into objects, with the answers of JSON.parse', () => {
    const big = (items: string) => `{"apiVersion":"v1","kind":"List","items":[${items}]}`;
    const many = '[],'.repeat(400_000);
    for (const [text, want] of [
      [big(`${many}[]`), true],
      [big(`${many}[],`), false], // a trailing comma
      [big(`${many}{"a":1,"b":[true,false,null,-1.5e3,"\\u00e9"]}`), true],
      [big(`${many}{"a":01}`), false],
      [`${big(`${many}[]`)} x`, false],
      [`{"kind":"","apiVersion":"v1","items":[${many}[]],"kind":"A"}`, true], // the last kind counts
      [`{"kind":"A","apiVersion":"v1","x":{"kind":""},"items":[${many}[]]}`, true], // only top-level members count
      [`{"kind":{"a":1},"apiVersion":"v1","items":[${many}[]]}`, false],
    ] as const) {
      expect(text.length).toBeGreaterThan(1024 * 1024);
      expect(quickJsonCheck(text), text.slice(-60)).toBe(want);
      let parsed = false;
      try {
        const v = JSON.parse(text);
        parsed = typeof v.kind === 'string' && v.kind !== '' && typeof v.apiVersion === 'string';
      } catch {}
      expect(parsed, text.slice(-60)).toBe(want);
    }
  });
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
