import { describe, expect, it } from 'vitest';
import { imageStreamFromObject, type ImageStream } from '../../../src/oci/image-stream.js';
import { defaultReleaseName } from '../../../src/release/new/created.js';
import { parseStreamFile, tagsFromStream } from '../../../src/release/new/from-stream.js';
import { baseFor, signatureMessage } from '../../../src/release/new/output.js';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const D3 = `sha256:${'3'.repeat(64)}`;

const stream = (spec: unknown[], status?: Record<string, unknown>): ImageStream =>
  imageStreamFromObject({
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: 'x' },
    spec: { tags: spec },
    ...(status ? { status } : {}),
  });

const names = (tags: Array<{ name: string; from?: { name?: string } | null }>) => tags.map((t) => [t.name, t.from?.name]);

describe('tagsFromStream: the input tags by --reference-mode, as oc 4.13 takes them', () => {
  const spec = [
    { name: 'cli', from: { kind: 'DockerImage', name: `quay.io/src/cli@${D1}` }, annotations: { kept: 'yes' } },
    { name: 'cvo', from: { kind: 'DockerImage', name: `image-registry.svc:5000/ocp/x@${D2}` } },
    { name: 'istag', from: { kind: 'ImageStreamTag', name: 'other:latest' } },
    { name: 'by-tag', from: { kind: 'DockerImage', name: 'quay.io/src/tagged:1' } },
  ];
  const status = {
    dockerImageRepository: 'image-registry.svc:5000/ocp/x',
    publicDockerImageRepository: 'registry.example/ocp/x',
    tags: [
      { tag: 'by-tag', items: [{ dockerImageReference: `quay.io/src/tagged@${D3}`, image: D3 }] },
      { tag: 'status-only', items: [{ dockerImageReference: `quay.io/src/only:2`, image: D3 }] },
    ],
  };

  it('public (the default): the public repository with each digest; spec tags keep their other fields', () => {
    const tags = tagsFromStream(stream(spec, status), undefined, new Set());
    expect(names(tags)).toEqual([
      ['cli', `registry.example/ocp/x@${D1}`],
      ['cvo', `registry.example/ocp/x@${D2}`],
      ['by-tag', `registry.example/ocp/x@${D3}`],
      ['status-only', `registry.example/ocp/x@${D3}`],
    ]);
    expect(tags[0]!.annotations).toEqual({ kept: 'yes' });
    expect(tags[3]!.annotations).toBeUndefined();
    expect(tagsFromStream(stream(spec, status), 'public', new Set())).toEqual(tags);
  });

  it('source: the pullspecs as given, never the internal registry; status tags by their repository and image', () => {
    const tags = tagsFromStream(stream(spec, status), 'source', new Set(['cli']));
    expect(names(tags)).toEqual([
      ['cvo', `registry.example/ocp/x@${D2}`],
      ['by-tag', `quay.io/src/tagged@${D3}`],
      ['status-only', `quay.io/src/only@${D3}`],
    ]);
    const { publicDockerImageRepository: _p, ...noPublic } = status;
    expect(names(tagsFromStream(stream(spec.slice(0, 2), noPublic), 'source', new Set()))).toEqual([
      ['cli', `quay.io/src/cli@${D1}`],
      ['by-tag', `quay.io/src/tagged@${D3}`],
      ['status-only', `quay.io/src/only@${D3}`],
    ]);
  });

  it('a spec tag with a generation is taken from its status, and must have been imported', () => {
    const gen = [{ name: 'a', from: { kind: 'DockerImage', name: 'quay.io/src/a:1' }, generation: 2 }];
    const imported = { publicDockerImageRepository: 'r.example/x', tags: [{ tag: 'a', items: [{ image: D1, generation: 2 }] }] };
    expect(names(tagsFromStream(stream(gen, imported), undefined, new Set()))).toEqual([['a', `r.example/x@${D1}`]]);
    const waiting = { ...imported, tags: [{ tag: 'a', items: [{ image: D1, generation: 1 }] }] };
    expect(() => tagsFromStream(stream(gen, waiting), undefined, new Set())).toThrow(
      'the tag "a" in the source input stream has not been imported yet',
    );
    // oc compares an ImportSuccess condition's status with "Success", which True and False never are.
    const failed = {
      publicDockerImageRepository: 'r.example/x',
      tags: [{ tag: 'b', items: [], conditions: [{ type: 'ImportSuccess', status: 'True' }] }],
    };
    expect(() => tagsFromStream(stream([], failed), undefined, new Set())).toThrow(
      'the tag "b" in the source input stream has not been imported yet',
    );
  });

  it("refuses what oc refuses, in oc's words", () => {
    expect(() => tagsFromStream(stream(spec), undefined, new Set())).toThrow(
      'only image streams or releases with public image repositories can be the source for releases when using the default --reference-mode',
    );
    expect(() => tagsFromStream(stream(spec, status), 'internal', new Set())).toThrow(
      'supported reference modes are: "public" (default) and "source"',
    );
    const noId = {
      publicDockerImageRepository: 'r.example/x',
      tags: [{ tag: 'by-tag', items: [{ dockerImageReference: 'q/x:1', image: '' }] }],
    };
    expect(() => tagsFromStream(stream(spec.slice(3), noId), undefined, new Set())).toThrow(
      'the tag "by-tag" in the source input stream has no image id',
    );
  });
});

describe('parseStreamFile', () => {
  it('reads YAML or JSON, an image.openshift.io/v1 ImageStream only', () => {
    expect(parseStreamFile(Buffer.from('kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags: []\n')).spec.tags).toEqual([]);
    expect(() => parseStreamFile(Buffer.from('{"kind":"List","apiVersion":"v1"}'))).toThrow(
      'unrecognized input image stream file, must be an ImageStream in image.openshift.io/v1',
    );
    expect(() => parseStreamFile(Buffer.from('kind: [\n'))).toThrow(/^unable to load input image stream file: /);
    expect(() =>
      parseStreamFile(Buffer.from('{"kind":"ImageStream","apiVersion":"image.openshift.io/v1","spec":{"tags":[{"name":"a","from":5}]}}')),
    ).toThrow(/^unable to load input image stream file: .*from must be a map/);
    // A tag's name becomes part of payload file names: never a path.
    expect(() =>
      parseStreamFile(
        Buffer.from('{"kind":"ImageStream","apiVersion":"image.openshift.io/v1","spec":{"tags":[]},"status":{"tags":[{"tag":"../x"}]}}'),
      ),
    ).toThrow('the input image stream file: image-references names tag "../x", which is no tag name');
  });
});

describe("oc's defaults and messages", () => {
  it('names a release 0.0.1-<UTC time> when --name is not given', () => {
    expect(defaultReleaseName('2026-12-02T02:03:13Z')).toBe('0.0.1-2026-12-02-020313');
    expect(defaultReleaseName('1970-01-01T00:00:00Z')).toBe('0.0.1-1970-01-01-000000');
  });

  it('writes the --to-signature message as oc does: the digest, the repository by digest, its creator and time', () => {
    expect(
      signatureMessage({
        creator: 'osimage-release-new/1.0.0',
        created: '2023-05-25T08:25:20Z',
        digest: D1,
        pushed: 'registry.example:5000/ocp/release:4.13.1',
      }),
    ).toBe(`{
  "critical": {
    "type": "atomic container signature",
    "image": {
      "docker-manifest-digest": "${D1}"
    },
    "identity": {
      "docker-reference": "registry.example:5000/ocp/release@${D1}"
    }
  },
  "optional": {
    "creator": "osimage-release-new/1.0.0",
    "timestamp": 1685003120
  }
}`);
  });

  it('builds on the --to-image-base-tag tag of the payload, or on nothing when it is empty', () => {
    const p = {
      version: '4.1.0',
      files: [],
      created: '1970-01-01T00:00:00Z',
      imageStream: stream([{ name: 'cluster-version-operator', from: { kind: 'DockerImage', name: `q/cvo@${D1}` } }]),
    };
    expect(baseFor(p, undefined)).toBe(`q/cvo@${D1}`);
    expect(baseFor({ ...p, base: 'q/other:1' }, undefined)).toBe('q/other:1');
    expect(baseFor(p, '')).toBeUndefined();
    expect(() => baseFor(p, 'cli')).toThrow('the base image tag "cli" could not be found in the input, cannot build a release image');
  });
});
