import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { checkOperators, checkPayloadDir, readInputImages } from '../../src/payload/check.js';
import { imageStreamFromObject, type TagReference } from '../../src/oci/image-stream.js';
import { cleanup, FIXTURES, read, tempDir } from './helpers.js';

afterEach(cleanup);

const OPS = join(FIXTURES, 'operators');
const MISSING = join(FIXTURES, 'inputs', 'missing.json');
const COMPLETE = join(FIXTURES, 'inputs', 'complete.json');

/** An operator's image-references holding these tags. */
const refs = (tags: TagReference[]) => imageStreamFromObject({ kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', spec: { tags } });

describe('payload check', () => {
  it('reports every missing tag across operators and a duplicated source repository, in oc words', async () => {
    const r = await checkPayloadDir(OPS, MISSING);
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => p.message)).toEqual([
      'operator "cluster-etcd-operator" contained an invalid image-references file: no input image tag named "setup-etcd-environment"',
      'operator "console" contained an invalid image-references file: the source repository "quay.io/openshift/origin-console:latest" was defined more than once (for "console" and "console-downloads")',
      'operator "machine-config-operator" contained an invalid image-references file: no input image tag named "machine-os-content"',
    ]);
    expect(r.problems.map((p) => p.kind)).toEqual(['missing-tag', 'duplicate-repository', 'missing-tag']);
    expect(r).toMatchObject({ operators: 4, withReferences: 3, references: 7, inputTags: 5 });
  });

  it('is sound when the inputs have every tag and no repository repeats (YAML input too)', async () => {
    const dir = await tempDir('operators');
    const consoleRefs = join(dir, 'console', 'image-references');
    await writeFile(
      consoleRefs,
      (await read(consoleRefs)).replace(/origin-console:latest\n(?![\s\S]*origin-console)/, 'origin-console-downloads:latest\n'),
    );
    const yamlInput = join(dir, 'images.yaml');
    await writeFile(yamlInput, stringify(JSON.parse(await read(COMPLETE))));
    const r = await checkPayloadDir(dir, yamlInput);
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ ok: true, operators: 4, references: 7, inputTags: 7 });
  });

  it('the core takes a parsed ImageStream (as a release image will give it)', async () => {
    const input = imageStreamFromObject(JSON.parse(await read(COMPLETE)), { strict: true, source: 'release image quay.io/x/release:4.1' });
    const r = checkOperators(
      [
        {
          operator: 'b',
          file: 'b/image-references',
          manifests: 1,
          references: refs([
            { name: 'cli', from: { kind: 'DockerImage', name: 'x' } },
            { name: 'nope', from: { kind: 'DockerImage', name: '' } },
          ]),
        },
        { operator: 'a', file: undefined, manifests: 1, references: undefined },
      ],
      input,
    );
    expect(r.problems.map((p) => p.message)).toEqual([
      'operator "b" contained an invalid image-references file: image "nope" has an empty from.name',
      'operator "b" contained an invalid image-references file: no input image tag named "nope"',
    ]);
  });

  it('input tags that are not DockerImage do not count', () => {
    const input = imageStreamFromObject(
      {
        kind: 'ImageStream',
        apiVersion: 'image.openshift.io/v1',
        spec: { tags: [{ name: 'cli', from: { kind: 'ImageStreamTag', name: 'cli:latest' } }] },
      },
      { strict: true, source: 'in' },
    );
    const r = checkOperators(
      [{ operator: 'a', file: 'f', manifests: 0, references: refs([{ name: 'cli', from: { kind: 'DockerImage', name: 'q' } }]) }],
      input,
    );
    expect(r.problems.map((p) => p.kind)).toEqual(['missing-tag']);
  });

  it('errors name the file: a bad input, a bad operator image-references, a folder without operators', async () => {
    const dir = await tempDir();
    await expect(readInputImages(join(dir, 'none.json'))).rejects.toThrow(/none.json: no such file/);
    await writeFile(join(dir, 'in.json'), '{"kind": "List", "apiVersion": "v1"}');
    await expect(readInputImages(join(dir, 'in.json'))).rejects.toThrow(/in.json: kind "List" is not ImageStream/);
    await expect(checkPayloadDir(dir, COMPLETE)).rejects.toThrow(/holds no operator folders/);
    const ops = await tempDir('operators');
    await writeFile(
      join(ops, 'console', 'image-references'),
      'kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags:\n  - from: {}\n',
    );
    await expect(checkPayloadDir(ops, COMPLETE)).rejects.toThrow(/console\/image-references: spec.tags\[0\] has no name/);
  });
});
