/**
 * The release `release new --from-release` starts from, read as oc reads it: image-references and release-metadata
 * from the top layer, in oc's words when they are missing or broken; a release naming more images than any real
 * one is refused before one is read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openImage } from '../../../src/registry/open.js';
import { MAX_TAGS } from '../../../src/oci/image-stream.js';
import { readInputRelease } from '../../../src/release/new/release-input.js';
import { baseEntries, entry, image, layout, releaseEntries, tempDir, type Temp } from '../../helpers/oci-builder.js';

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir('osimage-release-input-');
});
afterAll(async () => tmp?.cleanup());

async function read(layers: Parameters<typeof image>[0]) {
  const ref = await layout(tmp.dir, `l${Math.random().toString(16).slice(2)}`, [entry(await image(layers), 'r')], 'r');
  const source = await openImage(ref);
  try {
    return await readInputRelease(source, undefined);
  } finally {
    await source.close();
  }
}

describe('the input release', () => {
  it('reads the payload of the top layer', async () => {
    const r = await read([{ entries: baseEntries() }, { entries: releaseEntries() }]);
    expect(r.stream.metadata.name).toBe('4.13.1');
    expect(r.metadata.previous).toEqual(['4.13.0', '4.12.17', '4.12.16']);
    expect(r.files.map((f) => f.name)).toEqual(['0000_50_x_a.yaml']);
  });

  it("says what is missing in oc's words", async () => {
    await expect(read([{ entries: baseEntries() }])).rejects.toThrow('release image did not contain any image-references content');
    await expect(read([{ entries: releaseEntries({ metadata: false }) }])).rejects.toThrow(
      'unable to load release-metadata from release contents: unexpected end of JSON input',
    );
  });

  it('refuses a tag name that is a path (it becomes part of payload file names)', async () => {
    for (const name of ['../../escape', 'a/b', '.hidden', '']) {
      await expect(read([{ entries: releaseEntries({ tags: [{ name }] }) }])).rejects.toThrow(
        `image-references names tag ${JSON.stringify(name)}, which is no tag name`,
      );
    }
  });

  it('refuses a release that names more images than any real one (each would be read)', async () => {
    const tags = Array.from({ length: MAX_TAGS + 1 }, (_, i) => ({ name: `t${i}` }));
    await expect(read([{ entries: releaseEntries({ tags }) }])).rejects.toThrow(
      `unable to load image-references from release contents: image-references has ${MAX_TAGS + 1} tags, more than the ${MAX_TAGS} osimage reads`,
    );
  });
});

describe('writing payload files', () => {
  it('never writes a name that is a path', async () => {
    const { writeReleaseDir } = await import('../../../src/release/new/publish.js');
    const { readdir } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const out = join(tmp.dir, 'flat');
    for (const name of ['../escape.yaml', 'a/b.yaml', '..', '']) {
      await expect(writeReleaseDir([{ name, data: Buffer.from('x') }], out)).rejects.toThrow('a payload file name is never a path');
    }
    expect(await readdir(tmp.dir)).not.toContain('escape.yaml');
  });
});
