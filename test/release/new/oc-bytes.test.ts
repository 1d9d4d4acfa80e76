/**
 * `release new --to-dir` side by side with oc 4.13 on the same folder (test/fixtures/oc-4.13/release-new,
 * whose README has the command): every payload file byte for byte (image-references as oc's Go type
 * encodes it, sorted annotations, input metadata kept, Go's escaping; release-metadata indented), and oc's
 * `info:` lines on stderr. Only the creation time differs: osimage's is reproducible.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { osimage } from '../../helpers/cli.js';
import { tempDir, type Temp } from '../../helpers/oci-builder.js';

const OC = fileURLToPath(new URL('../../fixtures/oc-4.13/release-new', import.meta.url));
const PAYLOAD = join(OC, 'payload');
let tmp: Temp;
let out: string;
let run: Awaited<ReturnType<typeof osimage>>;

beforeAll(async () => {
  tmp = await tempDir('osimage-new-oc-');
  out = join(tmp.dir, 'to-dir');
  run = await osimage([
    'release',
    'new',
    '--from-dir',
    PAYLOAD,
    '--name',
    '4.99.0',
    '--previous',
    '4.98.1,4.98.0',
    '--next',
    '4.99.1',
    '--metadata',
    '{"url":"https://example.com/?a=1&b=2","b":{"z":1,"a":2}}',
    '--to-dir',
    out,
  ]);
});
afterAll(async () => tmp.cleanup());

describe('release new --to-dir, side by side with oc 4.13', () => {
  it("prints oc's info lines, every operator folder counted", async () => {
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('');
    expect(`${run.stderr}\n`).toBe((await readFile(join(OC, 'stderr'), 'utf8')).replace('{{DIR}}', PAYLOAD));
  });

  it("writes oc's files, byte for byte", async () => {
    const names = (await readdir(join(OC, 'to-dir'))).sort();
    expect((await readdir(out)).sort()).toEqual(names);
    for (const name of names) {
      const oc = (await readFile(join(OC, 'to-dir', name), 'utf8')).replace('{{CREATED}}', '1970-01-01T00:00:00Z');
      expect(await readFile(join(out, name), 'utf8'), name).toBe(oc);
    }
  });
});
