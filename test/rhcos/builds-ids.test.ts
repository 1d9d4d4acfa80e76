/**
 * build ids read from builds.json follow the rules of `--build` (one path segment).
 * An id with `/` used to end in `ERR_INVALID_FILE_URL_PATH` naming nothing, and `..` made osimage fetch
 * `<channel>/../meta.json`. One bad id anywhere in the list fails the whole list when it is read (naming
 * builds.json, the index and the id): a hostile list is not half-trusted, even when the build asked for is fine.
 * Served by a real HTTP server and read over file://.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OsimageError } from '../../src/errors.js';
import { resolveBuild } from '../../src/rhcos/resolve.js';
import { resolveSettings } from '../../src/rhcos/settings.js';
import { type FileServer, serveFolder } from '../helpers/file-server.js';

const GOOD_META = fileURLToPath(new URL('../fixtures/browser/maipo/47.246/meta.json', import.meta.url));

let root: string;
let server: FileServer;

/** Channel name → builds.json document; every channel also has a valid 47.246 build (legacy layout). */
const CHANNELS: Record<string, unknown> = {
  slash: { builds: ['47.246/../../x', '47.246'] },
  dotdot: { builds: ['..', '47.246'] },
  later: { builds: ['47.246', '47.245', 'evil/../..'] },
  space: { builds: ['47.246', '47 246'] },
  empty: { builds: ['47.246', ''] },
  v1: {
    'schema-version': '1.0.0',
    builds: [
      { id: '47.246', arches: ['x86_64'] },
      { id: '..', arches: ['x86_64'] },
    ],
  },
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'osimage-build-ids-'));
  for (const [channel, doc] of Object.entries(CHANNELS)) {
    await mkdir(join(root, channel, '47.246', 'x86_64'), { recursive: true });
    await writeFile(join(root, channel, 'builds.json'), JSON.stringify(doc));
    await cp(GOOD_META, join(root, channel, '47.246', 'meta.json'));
    await cp(GOOD_META, join(root, channel, '47.246', 'x86_64', 'meta.json'));
  }
  // What `..` would reach: a meta.json one level up from the channel.
  await cp(GOOD_META, join(root, 'meta.json'));
  server = await serveFolder(root);
});
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

const bases = {
  http: () => server.url,
  file: () => pathToFileURL(root).toString(),
};

async function failure(base: string, channel: string, build?: string): Promise<OsimageError> {
  const settings = resolveSettings({ baseUrl: base, channel, ...(build ? { build } : {}) }, {});
  const err = await resolveBuild(settings).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OsimageError);
  return err as OsimageError;
}

describe.each(Object.entries(bases))('build ids in builds.json over %s', (kind, base) => {
  it.each([
    ['slash', undefined, 'builds[0]: build name "47.246/../../x" contains a slash'],
    ['dotdot', undefined, 'builds[0]: build name ".." is not a build'],
    ['later', undefined, 'builds[2]: build name "evil/../.." contains a slash'],
    ['later', '47.245', 'builds[2]: build name "evil/../.." contains a slash'],
    ['space', '47.246', 'builds[1]: build name "47 246" contains whitespace'],
    ['empty', undefined, 'builds[1] has no "id"'],
    ['v1', '47.246', 'builds[1]: build name ".." is not a build'],
  ])('channel %s (build %s): %s', async (channel, build, what) => {
    const before = kind === 'http' ? server.requests.length : 0;
    const err = await failure(base(), channel, build);
    expect(err.message).toBe(`invalid builds.json at ${base()}/${channel}/builds.json: ${what}`);
    expect(err.exitCode).toBe(1);
    expect(err.code).toBe('invalid-input');
    // Refused when the list is read: no meta.json was asked for, good or bad.
    if (kind === 'http') expect(server.requests.slice(before)).toEqual([`/${channel}/builds.json`]);
  });
});
