/**
 * `-v 6` / `-v 8` against the real registry (test/infra) behind htpasswd and behind a token server: every
 * exchange of the pull (the /v2/ ping, the token, the manifest, the blobs) is one line, and neither the password,
 * its Basic header nor the bearer token ever appears on stderr. `--authfile` (podman's and skopeo's name) is
 * --registry-config, and `docker://REF` is the registry reference.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { pushBuilt, releaseImage, tempDir, type Temp } from '../helpers/oci-builder.js';
import { authFileFor, printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';

const USER = 'alice';
const PASSWORD = 'w0nderl4nd-pw';
// What `-o name` prints for test/helpers/oci-builder.ts releaseImage().
const NAMES = 'cli\nmachine-os-content';

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir('osimage-verbosity-');
});
afterAll(async () => {
  await tmp?.cleanup();
});

const lines = (stderr: string) => stderr.split('\n').filter((l) => l !== '');
const quoteRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.each(['htpasswd', 'token'] as const)('a registry with %s auth', (mode) => {
  let reg: TestRegistry | undefined;
  let ref: string;
  let auth: string;
  printLogsOnFailure(() => reg);
  beforeAll(async () => {
    reg = await startRegistry({ mode, users: { [USER]: PASSWORD } });
    auth = join(tmp.dir, `${mode}.json`);
    await writeFile(auth, authFileFor(reg.host, USER, PASSWORD));
    ref = `${reg.host}/ocp/release:4.13.1`;
    await pushBuilt(ref, await releaseImage(), { registryConfig: auth });
  });
  afterAll(async () => {
    await reg?.stop();
  });
  // A HOME of the test's own: no credentials but those the test writes.
  const run = (args: string[]) =>
    osimage(['release', 'info', '--insecure', '-o', 'name', ...args], {
      env: { HOME: join(tmp.dir, 'home'), XDG_RUNTIME_DIR: join(tmp.dir, 'run'), XDG_CONFIG_HOME: undefined },
    });

  test('-v 6: the ping, the challenge answered, the manifest and the blobs, one line each; stdout unchanged', async () => {
    const r = await run(['-a', auth, ref, '-v', '6']);
    expect(r).toMatchObject({ stdout: NAMES, exitCode: 0 });
    const host = quoteRe(reg!.host);
    const got = lines(r.stderr);
    // Every line is one exchange: an answer, or (--insecure first asks over https) a failure on one line.
    expect(got.filter((l) => !/^debug: http: (GET|HEAD) https?:\/\/\S+ (\d{3} [A-Za-z ]+|failed) in \d+ ms(: .+)?$/.test(l))).toEqual([]);
    expect(got).toContainEqual(
      expect.stringMatching(new RegExp(`^debug: http: GET https://${host}/v2/ failed in \\d+ ms: .*WRONG_VERSION_NUMBER`)),
    );
    expect(got).toContainEqual(expect.stringMatching(new RegExp(`^debug: http: GET http://${host}/v2/ 401 Unauthorized in \\d+ ms$`)));
    expect(got).toContainEqual(
      expect.stringMatching(new RegExp(`^debug: http: (GET|HEAD) http://${host}/v2/ocp/release/manifests/4\\.13\\.1 200 OK`)),
    );
    expect(got).toContainEqual(
      expect.stringMatching(new RegExp(`^debug: http: GET http://${host}/v2/ocp/release/blobs/sha256:[0-9a-f]{64} 200 OK`)),
    );
    if (mode === 'token') {
      // The token request's query (account, scope, service) is masked as every query is.
      expect(got).toContainEqual(expect.stringMatching(/^debug: http: GET http:\/\/127\.0\.0\.1:\d+\/token\?\S*account=\*\*\*\S* 200 OK/));
    }
  });

  test('-v 8: headers both ways, with no password, Basic credential or token in them', async () => {
    const r = await run(['-a', auth, ref, '--loglevel=8']);
    expect(r.exitCode).toBe(0);
    const got = lines(r.stderr);
    expect(got).toContain(`debug: http: > User-Agent: osimage/0.1.0`);
    const challenge = got.find((l) => l.startsWith('debug: http: < Www-Authenticate: '));
    expect(challenge).toMatch(mode === 'token' ? /Bearer realm="http:\/\/127\.0\.0\.1:\d+\/token",service=/ : /Basic realm=/);
    expect(got).toContain(`debug: http: > Authorization: ${mode === 'token' ? 'Bearer' : 'Basic'} ***`);
    for (const secret of [PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString('base64'), 'eyJ']) {
      expect(r.stderr).not.toContain(secret);
    }
  });

  test('--authfile is --registry-config; docker://REF is the registry reference', async () => {
    expect(await run(['--authfile', auth, ref])).toEqual({ stdout: NAMES, stderr: '', exitCode: 0 });
    expect(await run([`--authfile=${auth}`, `docker://${ref}`])).toEqual({ stdout: NAMES, stderr: '', exitCode: 0 });
    // The last of the two on the line wins, as pflag's last value does.
    expect((await run(['--authfile', join(tmp.dir, 'missing.json'), '-a', auth, ref])).exitCode).toBe(0);
  });
});
