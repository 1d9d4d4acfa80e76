import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { OsimageError, hasCode, type Warning } from '../../src/errors.js';
import { checkPins } from '../../src/pin/check.js';
import { PinCheckError } from '../../src/pin/errors.js';
import { sha256Digest, verifyBytes, verifyingStream } from '../../src/oci/digest.js';
import { checkPinnedBuild } from '../../src/rhcos/resolve.js';
import type { BuildList } from '../../src/rhcos/builds.js';
import { OLDER_412, sandbox, type Sandbox } from '../pin/setup.js';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

describe('errors and warnings carry codes; callers branch on the code, not the text', () => {
  test('a digest mismatch throws code digest-mismatch, or with skipVerification warns with that code', () => {
    const bytes = Buffer.from('hello');
    const wrong = sha256Digest('other');
    const err = (() => {
      try {
        verifyBytes(bytes, wrong, { what: 'blob x' });
      } catch (e) {
        return e;
      }
    })();
    expect(hasCode(err, 'digest-mismatch')).toBe(true);
    const warnings: Warning[] = [];
    verifyBytes(bytes, wrong, { skipVerification: true, onWarning: (w) => warnings.push(w) });
    expect(warnings.map((w) => w.code)).toEqual(['digest-mismatch']);
  });

  test('a size mismatch in a stream warns with code size-mismatch', async () => {
    const warnings: Warning[] = [];
    const s = verifyingStream({ digest: sha256Digest('abc'), size: 5 }, { skipVerification: true, onWarning: (w) => warnings.push(w) });
    s.resume();
    await new Promise<void>((resolve, reject) => {
      s.on('end', resolve).on('error', reject);
      s.end(Buffer.from('abc'));
    });
    expect(warnings.map((w) => w.code)).toEqual(['size-mismatch']);
  });

  test('a pinned build builds.json does not list is build-not-found', () => {
    const list: BuildList = {
      layout: 'v1',
      schemaVersion: '1.0.0',
      builds: [{ id: 'a', arches: ['x86_64'] }],
      url: 'http://x/builds.json',
    };
    const err = (() => {
      try {
        checkPinnedBuild(list, 'b', 'x86_64');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(OsimageError);
    expect((err as OsimageError).code).toBe('build-not-found');
  });
});

describe('pin --check sorts failures by code: build-gone only for a build that is gone', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await sandbox();
    // a listed build whose meta.json is gone: its error is not "the build is gone"
    await rm(join(sb.releases, 'rhcos-4.12', OLDER_412, 'x86_64', 'meta.json'));
  });
  afterAll(async () => sb.close());

  const script = async (build: string) => {
    const file = join(sb.work, `${build}.sh`);
    await writeFile(file, `#!/bin/bash\nRHCOS_BUILD_NAME=${build}\nRHCOS_DEFAULT_CHANNEL=rhcos-4.12\nRHCOS_BASE_URL=${sb.server.url}\n`);
    return file;
  };

  test('a build not in builds.json is PinCheckError build-gone', async () => {
    const err = await checkPins({ file: await script('412.86.209901010000-0') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PinCheckError);
    expect((err as PinCheckError).reason).toBe('build-gone');
  });

  test('a listed build whose meta.json cannot be read is not build-gone', async () => {
    const err = await checkPins({ file: await script(OLDER_412) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OsimageError);
    expect(err).not.toBeInstanceOf(PinCheckError);
  });
});
