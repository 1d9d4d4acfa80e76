/** Files osimage reads whole are read within a bound: a huge or sparse file is an error, not the memory. */
import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES, readRegularFile, readText } from '../../src/files/read.js';
import { osimage } from '../helpers/cli.js';
import { tempDir, type Temp } from '../helpers/oci-builder.js';

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir('osimage-bounded-');
});
afterAll(async () => tmp.cleanup());

describe('readRegularFile', () => {
  it('a sparse file past the bound is refused before it is read', async () => {
    const f = join(tmp.dir, 'sparse');
    await writeFile(f, '');
    await truncate(f, MAX_FILE_BYTES + 1);
    await expect(readText(f)).rejects.toThrow(`${f} is larger than the 64 MiB osimage reads of such a file`);
  });

  it('reads a file within the bound exactly; a lower bound is honoured', async () => {
    const f = join(tmp.dir, 'small');
    await writeFile(f, 'x'.repeat(1000));
    expect((await readRegularFile(f)).length).toBe(1000);
    await expect(readRegularFile(f, 999)).rejects.toThrow(/is larger than/);
    expect((await readRegularFile(f, 1000)).toString()).toBe('x'.repeat(1000));
  });

  it('stream --check on a 200 MB target is one line naming the file', async () => {
    const f = join(tmp.dir, 'target.json');
    await writeFile(f, '');
    await truncate(f, 200 * 1024 * 1024);
    const r = await osimage(['stream', '--check', '--target', f]);
    expect(r).toMatchObject({ exitCode: 1, stdout: '' });
    expect(r.stderr).toBe(`error: ${f} is larger than the 64 MiB osimage reads of such a file`);
  });
});
