/**
 * The first run of a new user works or says what to do: when the built-in default base URL cannot be
 * reached the error keeps its facts and one `info:` line says it is the historical default and where to
 * point instead; a registry that cannot be reached is one line naming the URL and the cause, plus one hint.
 * The default is stood in by an unreachable local URL (vi.mock of src/rhcos/defaults.ts), so nothing here
 * needs DNS or a network.
 */
import { createServer, type Server } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { FetchError } from '../../src/errors.js';
import { hintFor } from '../../src/output/hints.js';
import { UnreachableRegistryError } from '../../src/registry/errors.js';
import { osimage } from '../helpers/cli.js';
import { selfSignedCert } from '../helpers/tls.js';

/** Nothing listens on port 1 (binding it needs root). */
const UNREACHABLE_DEFAULT = 'http://127.0.0.1:1';
vi.mock('../../src/rhcos/defaults.js', async (original) => ({
  ...(await original<typeof import('../../src/rhcos/defaults.js')>()),
  DEFAULT_BASE_URL: 'http://127.0.0.1:1',
}));

const lines = (stderr: string) => stderr.split('\n');

describe('first run: the default release browser', () => {
  test('no settings: the unreachable default gives its error line and one info line naming the mirror and the sample', async () => {
    const r = await osimage(['resolve']);
    expect(r.exitCode).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `error: request to ${UNREACHABLE_DEFAULT}/maipo/builds.json failed: connect ECONNREFUSED 127.0.0.1:1`,
      expect.stringMatching(/^info: http:\/\/127\.0\.0\.1:1 is osimage's historical default base URL and no longer answers; /),
    ]);
    expect(r.stderr).toContain('--base-url https://rhcos.mirror.openshift.com/art/storage/prod/streams --channel 4.16-9.4/builds');
    expect(r.stderr).toContain('--base-url hack/sample/releases');
  });

  test('the same for every command that reads the release browser (builds)', async () => {
    const r = await osimage(['builds']);
    expect(r.exitCode).toBe(1);
    expect(lines(r.stderr)).toHaveLength(2);
    expect(lines(r.stderr)[1]).toMatch(/^info: .*historical default.*--base-url hack\/sample\/releases/);
  });

  test('--base-url (or RHCOS_BASE_URL) at an unreachable host: one error line and no default hint', async () => {
    const flag = await osimage(['resolve', '--base-url', 'http://127.0.0.1:9']);
    expect(flag.exitCode).toBe(1);
    expect(lines(flag.stderr)).toEqual(['error: request to http://127.0.0.1:9/maipo/builds.json failed: connect ECONNREFUSED 127.0.0.1:9']);
    const fromEnv = await osimage(['resolve'], { env: { RHCOS_BASE_URL: 'http://127.0.0.1:9' } });
    expect(lines(fromEnv.stderr)).toHaveLength(1);
  });
});

describe('first run: a registry that cannot be reached', () => {
  test('a closed port: one line naming the URL and the cause, and one hint', async () => {
    const r = await osimage(['release', 'info', '127.0.0.1:1/ocp/release:4.16']);
    expect(r.exitCode).toBe(1);
    expect(lines(r.stderr)).toEqual([
      // oc adm release info 127.0.0.1:1/ocp/release:4.16 prints this first line, byte for byte.
      'error: unable to read image 127.0.0.1:1/ocp/release:4.16: Get "https://127.0.0.1:1/v2/": dial tcp 127.0.0.1:1: connect: connection refused',
      'info: is the registry running? for a plain-HTTP registry (e.g. on localhost) use --insecure',
    ]);
    const insecure = await osimage(['release', 'info', '--insecure', '127.0.0.1:1/ocp/release:4.16']);
    expect(lines(insecure.stderr)).toEqual([
      // oc adm release info --insecure 127.0.0.1:1/ocp/release:4.16
      'error: unable to read image 127.0.0.1:1/ocp/release:4.16: Get "http://127.0.0.1:1/v2/": dial tcp 127.0.0.1:1: connect: connection refused',
      'info: is the registry running at that address?',
    ]);
  });

  describe('https with a self-signed certificate', () => {
    let dir: string;
    let server: Server;
    let host: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'osimage-first-run-'));
      const tls = await selfSignedCert(dir);
      server = createServer({ cert: tls.cert, key: tls.key }, (_req, res) => res.writeHead(404).end());
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      host = `127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(async () => {
      await new Promise((done) => server?.close(done));
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    test('one line naming the URL and the certificate, and the CA hint', async () => {
      const r = await osimage(['release', 'info', `${host}/ocp/release:4.16`]);
      expect(r.exitCode).toBe(1);
      expect(lines(r.stderr)).toEqual([
        // oc adm release info 127.0.0.1:PORT/ocp/release:4.16 against a self-signed https server
        `error: unable to read image ${host}/ocp/release:4.16: Get "https://${host}/v2/": x509: certificate signed by unknown authority`,
        "info: the registry's certificate is not signed by a CA this system trusts: give its CA with --certificate-authority FILE, or skip verification with --insecure",
      ]);
    });
  });

  test('no such host (by its code, offline): the hint says to check the name', () => {
    const cause = Object.assign(new Error('getaddrinfo ENOTFOUND registry.invalid'), { code: 'ENOTFOUND' });
    const failure = new FetchError(
      'request to https://registry.invalid/v2/ failed',
      'https://registry.invalid/v2/',
      undefined,
      cause,
      'network',
    );
    const err = new UnreachableRegistryError('registry.invalid', failure, false);
    // Go names the resolver it asked (`on 10.255.255.53:53`): the first nameserver of /etc/resolv.conf.
    expect(err.message).toMatch(
      /^cannot reach registry registry\.invalid: Get "https:\/\/registry\.invalid\/v2\/": dial tcp: lookup registry\.invalid( on \S+:53)?: no such host$/,
    );
    expect(err.forImage('registry.invalid/x:1').message).toMatch(
      /^unable to read image registry\.invalid\/x:1: Get "https:\/\/registry\.invalid\/v2\/": dial tcp: lookup registry\.invalid( on \S+:53)?: no such host$/,
    );
    expect(hintFor(err)).toMatch(/^no host has that name: check the registry in the image reference/);
  });
});
