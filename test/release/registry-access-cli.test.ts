/**
 * `release info` against the real registry behind credentials and behind TLS with a CA of its own: the texts oc 4.13
 * prints (recorded beside osimage in hack/oc-compare as the auth-* and tls-* pairs), osimage's hint after them, and
 * where credentials and CAs are found (-a, REGISTRY_AUTH_FILE, podman's and docker's files; --certificate-authority,
 * SSL_CERT_FILE, SSL_CERT_DIR).
 */
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { baseEntries, image, pushBuilt, releaseEntries, tempDir, type Temp } from '../helpers/oci-builder.js';
import { authFileFor, printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir('osimage-access-');
});
afterAll(async () => {
  await tmp?.cleanup();
});

const release = () => image([{ entries: baseEntries() }, { entries: releaseEntries() }]);

describe('a registry that asks for a user and password (htpasswd)', () => {
  let reg: TestRegistry | undefined;
  let ref: string;
  let digestRef: string;
  let good: string;
  printLogsOnFailure(() => reg);
  beforeAll(async () => {
    reg = await startRegistry({ mode: 'htpasswd' });
    good = join(tmp.dir, 'good.json');
    await writeFile(good, authFileFor(reg.host, 'alice', 'wonderland'));
    ref = `${reg.host}/ocp/release:4.13.1`;
    digestRef = `${reg.host}/ocp/release@${await pushBuilt(ref, await release(), { registryConfig: good })}`;
  });
  afterAll(async () => {
    await reg?.stop();
  });
  // A HOME and XDG_RUNTIME_DIR of the test's own: no credentials but those the test writes.
  const run = (args: string[], env: Record<string, string | undefined> = {}) =>
    osimage(['release', 'info', '--insecure', '-o', 'name', ...args], {
      env: { HOME: join(tmp.dir, 'home'), XDG_RUNTIME_DIR: join(tmp.dir, 'run'), XDG_CONFIG_HOME: undefined, ...env },
    });

  test("no credentials: oc's line (the HEAD for a tag, the GET for a digest), then where to put them", async () => {
    const r = await run([ref]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe(
      `error: unable to read image ${ref}: Head "http://${reg!.host}/v2/ocp/release/manifests/4.13.1": no basic auth credentials`,
    );
    expect(r.stderr.split('\n')[1]).toMatch(/^info: no credentials for 127\.0\.0\.1:\d+ were found: give an auth file/);
    const d = await run([digestRef]);
    expect(d.stderr.split('\n')[0]).toBe(
      `error: unable to read image ${digestRef}: Get "http://${reg!.host}/v2/ocp/release/manifests/${digestRef.split('@')[1]}": no basic auth credentials`,
    );
  });

  test("a wrong password: oc's line, then who was refused and from which file", async () => {
    const wrong = join(tmp.dir, 'wrong.json');
    await writeFile(wrong, authFileFor(reg!.host, 'alice', 'nope'));
    const r = await run(['-a', wrong, ref]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      `error: unable to read image ${ref}: unauthorized: authentication required\ninfo: ${reg!.host} refused the credentials of alice from ${wrong}: check the user and password (or token) there`,
    );
  });

  test("-a, REGISTRY_AUTH_FILE, podman's and docker's files each give the credentials", async () => {
    expect((await run(['-a', good, ref])).exitCode).toBe(0);
    expect((await run([`--registry-config=${good}`, ref])).exitCode).toBe(0);
    expect((await run([ref], { REGISTRY_AUTH_FILE: good })).exitCode).toBe(0);
    try {
      await mkdir(join(tmp.dir, 'run', 'containers'), { recursive: true });
      await copyFile(good, join(tmp.dir, 'run', 'containers', 'auth.json'));
      expect((await run([ref])).stdout).toContain('cli\n');
      // docker's file, with podman's holding a wrong password: podman's comes first (containers-auth.json order).
      await mkdir(join(tmp.dir, 'home', '.docker'), { recursive: true });
      await copyFile(good, join(tmp.dir, 'home', '.docker', 'config.json'));
      await writeFile(join(tmp.dir, 'run', 'containers', 'auth.json'), authFileFor(reg!.host, 'alice', 'nope'));
      expect((await run([ref])).stderr).toMatch(
        /unauthorized: authentication required\ninfo: .* refused the credentials of alice from .*run\/containers\/auth\.json/,
      );
    } finally {
      // The other tests run without credentials in the default places, whichever order they run in.
      await rm(join(tmp.dir, 'run', 'containers'), { recursive: true, force: true });
      await rm(join(tmp.dir, 'home', '.docker'), { recursive: true, force: true });
    }
  });

  test("a missing -a or REGISTRY_AUTH_FILE: oc's words, before any request", async () => {
    const nope = join(tmp.dir, 'nope.json');
    expect(await run(['-a', nope, ref])).toMatchObject({
      stderr: `error: unable to load --registry-config: stat ${nope}: no such file or directory`,
      exitCode: 1,
    });
    expect(await run([ref], { REGISTRY_AUTH_FILE: nope })).toMatchObject({
      stderr: `error: stat ${nope}: no such file or directory`,
      exitCode: 1,
    });
  });
});

describe('a registry behind TLS with a CA of its own', () => {
  let reg: TestRegistry | undefined;
  let ref: string;
  printLogsOnFailure(() => reg);
  beforeAll(async () => {
    reg = await startRegistry({ mode: 'open', tls: true });
    ref = `${reg.host}/ocp/release:4.13.1`;
    await pushBuilt(ref, await release());
  });
  afterAll(async () => {
    await reg?.stop();
  });
  const run = (args: string[], env: Record<string, string | undefined> = {}) =>
    osimage(['release', 'info', '-o', 'name', ...args], { env: { SSL_CERT_FILE: undefined, SSL_CERT_DIR: undefined, ...env } });

  test("untrusted: oc's line, then the two ways out", async () => {
    const r = await run([ref]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe(
      `error: unable to read image ${ref}: Get "https://${reg!.host}/v2/": x509: certificate signed by unknown authority`,
    );
    expect(r.stderr.split('\n')[1]).toMatch(/^info: .*--certificate-authority FILE, or skip verification with --insecure$/);
  });

  test('--insecure, --certificate-authority, SSL_CERT_FILE and SSL_CERT_DIR each let it through', async () => {
    const ok = { stdout: expect.stringContaining('cli\n'), stderr: '', exitCode: 0 };
    expect(await run(['--insecure', ref])).toMatchObject(ok);
    expect(await run(['--certificate-authority', reg!.caFile!, ref])).toMatchObject(ok);
    expect(await run([ref], { SSL_CERT_FILE: reg!.caFile! })).toMatchObject(ok);
    const dir = join(tmp.dir, 'certs');
    await mkdir(dir, { recursive: true });
    await copyFile(reg!.caFile!, join(dir, 'registry-ca.pem'));
    await writeFile(join(dir, 'README'), 'not a certificate\n');
    expect(await run([ref], { SSL_CERT_DIR: `${join(tmp.dir, 'none')}:${dir}` })).toMatchObject(ok);
    // SSL_CERT_FILE replaces the built-in list (as in Go): a bundle without this CA does not let it through.
    await writeFile(join(tmp.dir, 'other.pem'), '');
    expect((await run([ref], { SSL_CERT_FILE: join(tmp.dir, 'other.pem') })).exitCode).toBe(1);
  });
});
