/**
 * `osimage release bootimages`: releases carrying coreos-bootimages with one stream (data.stream) and two
 * (data.streams, rhel-9 the default), as oci-archives and in the real distribution registry; a release without
 * the file; a stream name the release lacks; the read stops at the first layer that has the file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openImage } from '../../src/registry/open.js';
import { readReleaseBootimages } from '../../src/release/bootimages.js';
import { bootimagesEntry, bootimagesYaml, RHEL10_STREAM, RHEL9_STREAM, TWO_STREAMS } from '../helpers/bootimages.js';
import { osimage } from '../helpers/cli.js';
import {
  archive,
  baseEntries,
  entry,
  image,
  pushBuilt,
  RecordingSource,
  releaseEntries,
  releaseImage,
  tempDir,
  type Temp,
} from '../helpers/oci-builder.js';
import { useRegistry } from '../helpers/registry.js';

let tmp: Temp;
const refs: Record<string, string> = {};
const ONE = bootimagesYaml({ stream: RHEL9_STREAM });
const TWO = bootimagesYaml({ streams: TWO_STREAMS });

beforeAll(async () => {
  tmp = await tempDir('osimage-bootimages-');
  const rel = async (name: string, yaml?: string) => {
    const img = await releaseImage({ extra: yaml ? [bootimagesEntry(yaml)] : [] });
    refs[name] = await archive(tmp.dir, `${name}.tar`, [entry(img, '4.21.0')], '4.21.0');
  };
  await rel('one', ONE);
  await rel('two', TWO);
  await rel('none');
});
afterAll(async () => {
  await tmp?.cleanup();
});

describe('release bootimages (oci-archive)', () => {
  test('one stream: the text table per arch', async () => {
    const r = await osimage(['release', 'bootimages', refs.one!]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      [
        'Stream:         data.stream (default)',
        'Name:           rhel-9',
        'Last modified:  2025-10-20T08:10:00Z',
        'Generator:      plume cosa2stream 0000000',
        '',
        'ARCH     BUILD           PLATFORMS        REGIONS',
        'aarch64  9.6.20251012-1  aws, metal       aws 2',
        'x86_64   9.6.20251015-0  aws, gcp, metal  aws 3',
      ].join('\n'),
    );
  });

  test('one stream -o json: data.stream exactly as stored', async () => {
    const r = await osimage(['release', 'bootimages', refs.one!, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(JSON.stringify(RHEL9_STREAM, null, 2));
  });

  test('two streams: one block a stream, the default marked', async () => {
    const r = await osimage(['release', 'bootimages', refs.two!]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Stream:         rhel-10\nName:           rhel-10');
    expect(r.stdout).toContain('Stream:         rhel-9 (default)\nName:           rhel-9');
    expect(r.stdout).toContain('x86_64   10.1.20251020-0  aws, gcp, metal  aws 3');
  });

  test('two streams --os-stream rhel-10 -o json: data.streams["rhel-10"]', async () => {
    const r = await osimage(['release', 'bootimages', '--os-stream', 'rhel-10', refs.two!, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(RHEL10_STREAM);
    expect(r.stdout).toBe(JSON.stringify(RHEL10_STREAM, null, 2));
  });

  test('a stream name the release lacks: an error listing the names it has', async () => {
    const r = await osimage(['release', 'bootimages', '--os-stream', 'rhel-11', refs.two!, '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`has no bootimage stream "rhel-11" in 0000_50_installer_coreos-bootimages.yaml (it has rhel-10, rhel-9)`);
    const one = await osimage(['release', 'bootimages', '--os-stream', 'rhel-9', refs.one!]);
    expect(one.exitCode).toBe(1);
    expect(one.stderr).toContain('(it has data.stream only, no data.streams)');
  });

  test('a release without the file: the error, exit 1', async () => {
    const r = await osimage(['release', 'bootimages', refs.none!]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: release image did not contain 0000_50_installer_coreos-bootimages.yaml');
  });

  test('stops at the first layer that has it: the base layer below is never opened', async () => {
    const img = await image([{ entries: baseEntries() }, { entries: releaseEntries({ extra: [bootimagesEntry(TWO)] }) }]);
    const ref = await archive(tmp.dir, 'layers.tar', [entry(img, 'x')], 'x');
    const source = new RecordingSource(await openImage(ref, {}));
    try {
      const found = await readReleaseBootimages(source);
      expect(Object.keys(found.streams ?? {})).toEqual(['rhel-9', 'rhel-10']);
      expect(source.blobsOpened).toEqual([img.layers[1]!.descriptor.digest]);
    } finally {
      await source.close();
    }
  });
});

describe('release bootimages (registry)', () => {
  const registry = useRegistry();
  let repo: string;
  beforeAll(async () => {
    repo = `${registry().host}/ocp/release`;
    await pushBuilt(`${repo}:two`, await releaseImage({ extra: [bootimagesEntry(TWO)] }));
    await pushBuilt(`${repo}:none`, await releaseImage());
  });

  test('two streams: rhel-9 -o json from the registry', async () => {
    const r = await osimage(['release', 'bootimages', '--insecure', '--os-stream', 'rhel-9', `${repo}:two`, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(RHEL9_STREAM);
  });

  test('without the file: the error, exit 1', async () => {
    const r = await osimage(['release', 'bootimages', '--insecure', `${repo}:none`]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('error: release image did not contain 0000_50_installer_coreos-bootimages.yaml');
  });
});

describe('a hostile coreos-bootimages ConfigMap', () => {
  test('data.stream nested absurdly deep is one line naming the file, before any view walks it', async () => {
    const { parseBootimages } = await import('../../src/release/bootimages.js');
    let deep = '1';
    for (let i = 0; i < 5000; i++) deep = `[${deep}]`;
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coreos-bootimages\ndata:\n  stream: '{"stream":"x","architectures":{"x86_64":{"artifacts":${deep}}}}'\n`;
    expect(() => parseBootimages(yaml, 'REL (release-manifests/0000_50_installer_coreos-bootimages.yaml)')).toThrow(
      /^REL \(release-manifests\/0000_50_installer_coreos-bootimages\.yaml\): data\.stream is nested more than 100 levels deep \(at architectures\.x86_64\.artifacts/,
    );
  });
});
