import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { imageStreamFromObject, InvalidImageStreamError } from '../../src/oci/image-stream.js';
import { selectForRole } from '../../src/payload/machineconfig.js';
import { osImageUrlOf } from '../../src/payload/osimageurl.js';
import { requireDir } from '../../src/files/read.js';
import { checkConfigMapFileName } from '../../src/payload/write.js';
import { cleanup, tempDir } from './helpers.js';

afterEach(cleanup);

const IS = { kind: 'ImageStream', apiVersion: 'image.openshift.io/v1' };
const CM = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'machine-config-osimageurl' } };
const MC = {
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfig',
  metadata: { name: 'm', labels: { 'machineconfiguration.openshift.io/role': 'master' } },
};

describe('every refusal is a typed error naming its source', () => {
  it.each([
    ['a list', [], /f: expected an ImageStream object/],
    ['spec not a map', { ...IS, spec: [] }, /f: spec must be a map/],
    ['tags not a list', { ...IS, spec: { tags: {} } }, /f: spec.tags must be a list/],
    ['a tag without name', { ...IS, spec: { tags: [{ from: {} }] } }, /f: spec.tags\[0\] has no name/],
    ['from not a map', { ...IS, spec: { tags: [{ name: 'a', from: 'x' }] } }, /f: spec.tags\[0\] \(a\): from must be a map/],
    [
      'from.name not a string',
      { ...IS, spec: { tags: [{ name: 'a', from: { kind: 'DockerImage', name: 5 } }] } },
      /from.kind and from.name must be strings/,
    ],
  ])('image-references: %s', (_what, doc, why) => {
    expect(() => imageStreamFromObject(doc, { strict: true, source: 'f' })).toThrow(InvalidImageStreamError);
    expect(() => imageStreamFromObject(doc, { strict: true, source: 'f' })).toThrow(why);
  });

  it.each([
    ['not an object', 'x', /f: expected a ConfigMap object/],
    ['another kind', { ...CM, kind: 'Secret' }, /f: holds Secret "machine-config-osimageurl", not ConfigMap/],
    ['another apiVersion', { ...CM, apiVersion: 'v2' }, /f: apiVersion "v2" is not v1/],
    ['data not a map', { ...CM, data: 'x' }, /f: data must be a map/],
    ['osImageURL not a string', { ...CM, data: { osImageURL: 1 } }, /f: data.osImageURL must be a string/],
  ])('osimageurl ConfigMap: %s', (_what, doc, why) => {
    expect(() => osImageUrlOf(doc, 'f')).toThrow(why);
  });

  it.each([
    ['no name', { ...MC, metadata: { labels: MC.metadata.labels } }, /s: MachineConfig has no metadata.name/],
    ['spec not a map', { ...MC, spec: [] }, /s: MachineConfig m: spec must be a map/],
    ['config not a map', { ...MC, spec: { config: 'x' } }, /s: MachineConfig m: spec.config must be a map/],
  ])('MachineConfig: %s', (_what, value, why) => {
    expect(() => selectForRole([{ source: 's', value }], 'master')).toThrow(why);
  });

  it('file names and folders', async () => {
    expect(() => checkConfigMapFileName('a/b.yaml', '--file')).toThrow(/^--file must be a file name inside --dir, not "a\/b.yaml"$/);
    expect(() => checkConfigMapFileName('..')).toThrow(/--configmap-file must be a file name/);
    expect(checkConfigMapFileName('cm.yaml')).toBe('cm.yaml');
    const dir = await tempDir();
    await writeFile(join(dir, 'f'), '');
    await expect(requireDir(join(dir, 'f'))).rejects.toThrow(/f: is not a directory/);
    await expect(requireDir(dir)).resolves.toBeUndefined();
  });
});
