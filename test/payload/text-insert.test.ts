/** Adding what a manifest lacks without touching a byte of what it has (src/payload/text-insert.ts via text.ts). */
import { describe, expect, it } from 'vitest';
import { appendToSeq, parseManifestText, setStringAt } from '../../src/payload/text.js';

const LONG = `quay.io/${'a-very-long-repository-path/'.repeat(6)}os@sha256:${'a'.repeat(64)}`;
const set = (text: string, path: Array<string | number>, v: string) => setStringAt(parseManifestText(text, 'f.yaml'), path, v);
const item = (name: string) => ({ name, from: { kind: 'DockerImage', name: LONG } });
const itemText =
  (name: string) =>
  ({ dash, pad, step }: { dash: string; pad: string; step: string }) =>
    `${dash}name: ${name}\n${pad}from:\n${pad}${step}kind: DockerImage\n${pad}${step}name: ${LONG}\n`;

describe('a missing key is added as one new line beside its siblings', () => {
  it('in a block map, after the last key, in the quoting of its siblings, never folded', () => {
    const text = 'kind: ConfigMap\ndata:\n  # the OS\n  osImageURL: "x"\n# trailing note\nother: 1\n';
    expect(set(text, ['data', 'baseOSContainerImage'], LONG)).toBe(
      `kind: ConfigMap\ndata:\n  # the OS\n  osImageURL: "x"\n  baseOSContainerImage: "${LONG}"\n# trailing note\nother: 1\n`,
    );
  });

  it('follows single quotes, plain style, four-space indentation and CRLF line ends', () => {
    expect(set("data:\n    a: 'x'\n", ['data', 'b'], "it's")).toBe("data:\n    a: 'x'\n    b: 'it''s'\n");
    expect(set('data:\n  a: x\n', ['data', 'b'], 'quay.io/x@sha256:1')).toBe('data:\n  a: x\n  b: quay.io/x@sha256:1\n');
    // a plain value that would read back as something else is quoted
    expect(set('data:\n  a: x\n', ['data', 'b'], 'true')).toBe('data:\n  a: x\n  b: "true"\n');
    expect(set('data:\r\n  a: "x"\r\n', ['data', 'b'], 'y')).toBe('data:\r\n  a: "x"\r\n  b: "y"\r\n');
  });

  it('a missing parent map is added at the end of the document, nested one step deeper', () => {
    expect(set('kind: ConfigMap\nmetadata:\n    name: x\n', ['data', 'osImageURL'], LONG)).toBe(
      `kind: ConfigMap\nmetadata:\n    name: x\ndata:\n    osImageURL: ${LONG}\n`,
    );
    expect(set('kind: ConfigMap', ['data', 'k'], 'v')).toBe('kind: ConfigMap\ndata:\n  k: v\n');
  });

  it('a key holding nothing, null or ~ gets the map beneath it; a trailing comment stays', () => {
    expect(set('data:\nkind: X\n', ['data', 'k'], 'v')).toBe('data:\n  k: v\nkind: X\n');
    expect(set('data: ~\nkind: X\n', ['data', 'k'], 'v')).toBe('data:\n  k: v\nkind: X\n');
    expect(set('data: # none yet\nkind: X\n', ['data', 'k'], 'v')).toBe('data: # none yet\n  k: v\nkind: X\n');
  });

  it('in a YAML flow map the member goes before the brace', () => {
    expect(set('data: {a: x}\n', ['data', 'b'], LONG)).toBe(`data: {a: x, b: "${LONG}"}\n`);
    expect(set('data: {}\n', ['data', 'b'], 'y')).toBe('data: {b: "y"}\n');
  });

  it('a stream ending in --- (or holding --- ~) is one document, as oc reads it', () => {
    expect(set('data:\n  a: x\n---\n', ['data', 'b'], 'y')).toBe('data:\n  a: x\n  b: y\n---\n');
    expect(parseManifestText('---\nkind: A\n--- ~\n', 'f.yaml').value).toEqual({ kind: 'A' });
  });

  it('only the document addressed of a multi-document file changes', () => {
    const text = 'kind: A\ndata:\n  a: x\n---\nkind: B\ndata:\n  a: x\n';
    const m = parseManifestText(text, 'f.yaml', 1);
    expect(setStringAt(m, ['data', 'b'], 'y')).toBe('kind: A\ndata:\n  a: x\n---\nkind: B\ndata:\n  a: x\n  b: y\n');
  });
});

describe('JSON keeps its layout', () => {
  const jset = (text: string, path: string[], v: string) => setStringAt(parseManifestText(text, 'f.json'), path, v);

  it('CRLF JSON gets CRLF lines', () => {
    expect(jset('{\r\n  "kind": "X"\r\n}\r\n', ['data', 'b'], 'y')).toBe(
      '{\r\n  "kind": "X",\r\n  "data": {\r\n    "b": "y"\r\n  }\r\n}\r\n',
    );
  });

  it('pretty JSON: a member on its own line at its siblings indentation (spaces or tabs)', () => {
    const doc = { kind: 'ConfigMap', data: { a: 'x' } };
    for (const indent of ['  ', '\t', '    ']) {
      const text = `${JSON.stringify(doc, null, indent)}\n`;
      expect(jset(text, ['data', 'b'], LONG)).toBe(`${JSON.stringify({ ...doc, data: { a: 'x', b: LONG } }, null, indent)}\n`);
      expect(jset(text, ['metadata', 'name'], 'n')).toBe(`${JSON.stringify({ ...doc, metadata: { name: 'n' } }, null, indent)}\n`);
    }
  });

  it('one-line JSON stays one line; an empty object is filled', () => {
    expect(jset('{"data":{"a":"x"}}', ['data', 'b'], 'y')).toBe('{"data":{"a":"x"}, "b": "y"}'.replace('}, "b": "y"}', ', "b": "y"}}'));
    expect(jset('{"data": {}}', ['data', 'b'], 'y')).toBe('{"data": {"b": "y"}}');
    expect(jset('{\n  "data": {}\n}\n', ['data', 'b'], 'y')).toBe('{\n  "data": {\n    "b": "y"\n  }\n}\n');
  });
});

describe('a list item is added without reflowing', () => {
  it('to a flow or JSON list, or a list that is missing', () => {
    const y = (text: string) => appendToSeq(parseManifestText(text, 'f.yaml'), ['spec', 'tags'], item('os'), itemText('os'));
    expect(y('spec:\n  tags: []\n')).toBe(`spec:\n  tags: [{"name":"os","from":{"kind":"DockerImage","name":"${LONG}"}}]\n`);
    expect(y('spec:\n  x: 1\n')).toBe(`spec:\n  x: 1\n  tags:\n  - name: os\n    from:\n      kind: DockerImage\n      name: ${LONG}\n`);
    const doc = { spec: { tags: [item('a')] } };
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    const out = appendToSeq(parseManifestText(text, 'f.json'), ['spec', 'tags'], item('os'), itemText('os'));
    expect(out).toBe(`${JSON.stringify({ spec: { tags: [item('a'), item('os')] } }, null, 2)}\n`);
  });
});

describe('a value replaced in place', () => {
  it('a block scalar becomes one quoted line; the next key is untouched', () => {
    expect(set('data:\n  a: >-\n    folded\n    text\n  b: y\n', ['data', 'a'], LONG)).toBe(`data:\n  a: "${LONG}"\n  b: y\n`);
  });

  it('no line but the value changes when the value is long', () => {
    const text = `data:\n  a: "${'x'.repeat(120)}"\n  b: "short"\n`;
    expect(set(text, ['data', 'b'], LONG)).toBe(`data:\n  a: "${'x'.repeat(120)}"\n  b: "${LONG}"\n`);
  });
});

describe('a refused insertion says what osimage could not do and why, naming the file', () => {
  it("osimage's own limits are worded as osimage's, not as a fault of the file", () => {
    expect(() => set('x: {a: 1, b: }\n', ['x', 'b', 'c'], 'v')).toThrow(
      /^f\.yaml: osimage cannot add x\.b\.c here: x\.b is an empty value inside a flow map, which osimage does not fill \(it only adds text, never rewrites lines it did not write\); add it by hand and run again$/,
    );
    expect(() => set('spec:\n  tags: []\n', ['spec', 'tags', 3, 'name'], 'v')).toThrow(
      /^f\.yaml: osimage cannot add spec\.tags\.3\.name here: spec\.tags has no item 3, and osimage adds map keys, not list items \(/,
    );
  });

  it('a file whose shape cannot hold the key is named with what it holds instead', () => {
    expect(() => set('data: [1]\n', ['data', 'k'], 'v')).toThrow(/^f\.yaml: cannot add data\.k: data is a list, not a map$/);
    expect(() => set('data: 5\n', ['data', 'k'], 'v')).toThrow(/^f\.yaml: cannot add data\.k: data is a number, not a map$/);
    expect(() => set('- a\n', ['data', 'k'], 'v')).toThrow(/^f\.yaml: cannot add data\.k: the document is a list, not a map$/);
  });

  it('a key holding nothing or null takes a single value in place (once refused)', () => {
    expect(set('data:\n  k: ~\n', ['data', 'k'], 'v')).toBe('data:\n  k: v\n');
    expect(set('data:\n  k:\n', ['data', 'k'], 'v')).toBe('data:\n  k: v\n');
    expect(set('data:\n  k: # none yet\n  j: 1\n', ['data', 'k'], 'v')).toBe('data:\n  k: v # none yet\n  j: 1\n');
    expect(set('data:\n  k: null\n', ['data', 'k'], 'true')).toBe('data:\n  k: "true"\n');
  });
});
