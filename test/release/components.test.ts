/**
 * The component images `release info --size / --verify / --include-images` reads: one manifest (a list
 * resolved as oc resolves a component's) and config per DockerImage tag, verified; a failure fails the whole
 * query with the first failing tag's error; an unparseable pull spec is only a warning; reads are bounded by
 * --max-per-registry. Against a real registry.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { ImageStream } from '../../src/oci/image-stream.js';
import { openImage } from '../../src/registry/open.js';
import type { ImageSource } from '../../src/registry/types.js';
import { readComponentImages } from '../../src/release/components.js';
import { image, multiArch, pushBuilt } from '../helpers/oci-builder.js';
import { useRegistry } from '../helpers/registry.js';

const refs = (tags: Array<[string, string, string?]>): ImageStream => ({
  kind: 'ImageStream',
  apiVersion: 'image.openshift.io/v1',
  metadata: { name: '4.13.1' },
  spec: { tags: tags.map(([name, pullspec, kind = 'DockerImage']) => ({ name, from: { kind, name: pullspec } })) },
});

describe('readComponentImages', () => {
  const registry = useRegistry();
  const at: Record<string, string> = {};
  const open = (ref: string) => openImage(ref, { insecure: true });

  beforeAll(async () => {
    const one = (arch: string, name: string) =>
      image([{ entries: [{ name: `bin/${name}`, data: `${name} ${arch}` }] }], { architecture: arch, created: '2023-05-25T08:25:20Z' });
    const host = registry().host;
    const push = async (name: string, top: Parameters<typeof pushBuilt>[1]) => {
      at[name] = `${host}/ocp/art@${await pushBuilt(`${host}/ocp/art:${name}`, top)}`;
    };
    await push('single', await one('amd64', 'single'));
    await push(
      'two',
      multiArch([
        { image: await one('amd64', 'two'), platform: { os: 'linux', architecture: 'amd64' } },
        { image: await one('arm64', 'two'), platform: { os: 'linux', architecture: 'arm64' } },
      ]),
    );
    await push(
      'arms',
      multiArch([
        { image: await one('arm64', 'arms'), platform: { os: 'linux', architecture: 'arm64' } },
        { image: await one('arm', 'arms'), platform: { os: 'linux', architecture: 'arm', variant: 'v7' } },
      ]),
    );
    await push('lonely', multiArch([{ image: await one('s390x', 'lonely'), platform: { os: 'linux', architecture: 's390x' } }]));
  });

  test('each DockerImage tag: manifest, config and layers; a list resolved to its linux/amd64 entry by default', async () => {
    const r = await readComponentImages(
      refs([
        ['a', at.single!],
        ['b', at.two!],
        ['c', at.lonely!],
        ['d', 'x:y', 'ImageStreamTag'],
      ]),
      open,
    );
    expect([...r.images.keys()].sort()).toEqual(['a', 'b', 'c']);
    const b = r.images.get('b')!;
    expect(b.listDigest).toBe(at.two!.split('@')[1]);
    expect(b.config.architecture).toBe('amd64');
    expect(b.name).toBe(at.two);
    expect(b.contentDigest).toBe(b.digest);
    expect(r.images.get('a')!.listDigest).toBe('');
    expect(r.images.get('a')!.layers).toHaveLength(1);
    // A one-entry list is taken whatever its platform when no filter was given.
    expect(r.images.get('c')!.config.architecture).toBe('s390x');
    expect(r.warnings).toEqual([]);
  });

  test('with --filter-by-os exactly one entry must match, also in a one-entry list', async () => {
    const arm = await readComponentImages(refs([['b', at.two!]]), open, { filterByOs: 'linux/arm64' });
    expect(arm.images.get('b')!.config.architecture).toBe('arm64');
    await expect(readComponentImages(refs([['x', at.arms!]]), open, { filterByOs: 'linux/arm.*' })).rejects.toThrow(
      'no matching image found in manifest list',
    );
    await expect(readComponentImages(refs([['c', at.lonely!]]), open, { filterByOs: 'linux/arm64' })).rejects.toThrow(
      'no matching image found in manifest list',
    );
  });

  test("one image that cannot be read fails the query: the first failing tag's error; a bad pull spec is a warning", async () => {
    const host = registry().host;
    const missing = `${host}/ocp/art@sha256:${'e'.repeat(64)}`;
    await expect(
      readComponentImages(
        refs([
          ['a', at.single!],
          ['m', missing],
          ['z', `${host}/ocp/none@sha256:${'f'.repeat(64)}`],
        ]),
        open,
      ),
    ).rejects.toThrow(`image "${missing}" not found`);
    const r = await readComponentImages(
      refs([
        ['a', at.single!],
        ['bad', 'Not A Reference!'],
      ]),
      open,
    );
    expect([...r.images.keys()]).toEqual(['a']);
    expect(r.warnings).toEqual([expect.stringMatching(/^tag "bad" has an invalid reference: /)]);
  });

  test('at most --max-per-registry reads at once (below 1 means 1)', async () => {
    for (const [max, bound] of [
      [2, 2],
      [0, 1],
    ] as const) {
      let inFlight = 0;
      let peak = 0;
      const counting = async (ref: string): Promise<ImageSource> => {
        const s = await open(ref);
        const manifest = s.manifest.bind(s);
        s.manifest = async () => {
          peak = Math.max(peak, ++inFlight);
          await new Promise((r) => setTimeout(r, 20));
          try {
            return await manifest();
          } finally {
            inFlight--;
          }
        };
        return s;
      };
      const tags = Array.from({ length: 6 }, (_, i): [string, string] => [`t${i}`, at.single!]);
      await readComponentImages(refs(tags), counting, { maxPerRegistry: max });
      expect(peak).toBe(bound);
    }
  });
});
