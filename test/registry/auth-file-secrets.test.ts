/** An auth file that is not valid JSON: the error names the file (and where, when known), never its text. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAuthFile } from '../../src/registry/auth.js';

const SECRET = 's3cr3t-PAS';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-authjson-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('auth file parse errors', () => {
  it.each([
    ['an unquoted password', `{"auths":{"quay.io":{"username":"bob","password":${SECRET}}}}`, undefined],
    ['an unterminated string', `{\n  "auths": {\n    "quay.io": {"auth": "${SECRET}`, 'line 3, column'],
    ['a missing comma', `{"auths":{"quay.io":{"username":"bob" "password":"${SECRET}"}}}`, 'line 1, column 39'],
  ])('an auth file with %s: not valid JSON, its content never quoted', async (_name, text, where) => {
    const file = join(dir, 'auth.json');
    await writeFile(file, text);
    const err = await readAuthFile(file).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(new RegExp(`^auth file ${file} is not valid JSON`));
    expect(err?.message).not.toContain(SECRET);
    expect(err?.message).not.toContain('s3cr');
    if (where) expect(err?.message).toContain(where);
  });
});
