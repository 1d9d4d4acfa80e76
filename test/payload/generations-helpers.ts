/** Builds and release browsers of our own for payload write tests (temp folders; no shared sample builds). */
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMeta } from '../../src/rhcos/meta.js';
import type { BuildSource } from '../../src/payload/write.js';
import { HEX, tempDir } from './helpers.js';

export const GENERATIONS = fileURLToPath(new URL('../../hack/sample/generations', import.meta.url));
export const ART = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
/** The three containers of a build, each by its own made-up digest. */
export const OSC = `${ART}@sha256:${HEX('1')}`;
export const BASE = `${ART}@sha256:${HEX('2')}`;
export const EXT = `${ART}@sha256:${HEX('3')}`;
export const BASE_LIST = `${ART}@sha256:${HEX('4')}`;
export const EXT_LIST = `${ART}@sha256:${HEX('5')}`;

/** meta.json of a build publishing the given containers (digest beside `image`, as coreos-assembler writes it). */
export function metaJson(id: string, keys: Array<'oscontainer' | 'base-oscontainer' | 'extensions-container'>): Record<string, unknown> {
  const doc: Record<string, unknown> = { buildid: id };
  if (keys.includes('oscontainer')) doc.oscontainer = { image: ART, digest: `sha256:${HEX('1')}` };
  if (keys.includes('base-oscontainer'))
    doc['base-oscontainer'] = {
      image: ART,
      digest: `sha256:${HEX('2')}`,
      'manifest-list-digest': `sha256:${HEX('4')}`,
      tags: [`${id}-coreos`],
    };
  if (keys.includes('extensions-container'))
    doc['extensions-container'] = { image: `${ART}@sha256:${HEX('3')}`, 'manifest-list-digest': `sha256:${HEX('5')}` };
  return doc;
}

/** A BuildSource as the command would hand it over. */
export function buildSource(
  id: string,
  keys: Array<'oscontainer' | 'base-oscontainer' | 'extensions-container'>,
  opts: { manifestList?: boolean } = {},
): BuildSource {
  const metaUrl = `file:///browser/${id}/meta.json`;
  return { build: id, meta: parseMeta(metaJson(id, keys), metaUrl), metaUrl, ...opts };
}

/** A release browser on disk: `<channel>/builds.json` and `<channel>/<id>/x86_64/meta.json` for each build. */
export async function releaseBrowser(channels: Record<string, Array<{ id: string; meta: Record<string, unknown> }>>): Promise<string> {
  const root = await tempDir();
  for (const [channel, builds] of Object.entries(channels)) {
    await mkdir(join(root, channel), { recursive: true });
    const list = {
      'schema-version': '1.0.0',
      builds: builds.map((b) => ({ id: b.id, arches: ['x86_64'] })),
      timestamp: '2026-05-10T15:21:00Z',
    };
    await writeFile(join(root, channel, 'builds.json'), JSON.stringify(list, null, 2));
    for (const b of builds) {
      await mkdir(join(root, channel, b.id, 'x86_64'), { recursive: true });
      await writeFile(join(root, channel, b.id, 'x86_64', 'meta.json'), JSON.stringify(b.meta, null, 2));
    }
  }
  return root;
}

/** A temp copy of one sample generation folder. */
export async function generation(name: string): Promise<string> {
  const dir = await tempDir();
  await cp(join(GENERATIONS, name), dir, { recursive: true });
  return dir;
}
