/**
 * The first run of a new user works or says what to do: with no channel (there is no default) one usage line
 * names the flag, the variable and a real channel; when the built-in default base URL (the public mirror)
 * cannot be reached the error keeps its facts and one `info:` line says what it is and where else to point,
 * never at a file an installed copy lacks; a 2019 pin's release browser gets its own hint. A registry that
 * cannot be reached is one line naming the URL and the cause, plus one hint. The defaults are stood in by
 * unreachable local URLs (vi.mock of src/rhcos/defaults.ts), so nothing here needs DNS or a network.
 */
import { createServer, type Server } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { FetchError } from '../../src/errors.js';
import { hintFor } from '../../src/output/hints.js';
import { UnreachableRegistryError } from '../../src/registry/errors.js';
import { osimage } from '../helpers/cli.js';
import { selfSignedCert } from '../helpers/tls.js';

/** Nothing listens on ports 1 and 2 (binding them needs root). */
const UNREACHABLE_DEFAULT = 'http://127.0.0.1:1';
const UNREACHABLE_LEGACY = 'http://127.0.0.1:2/storage/releases';
vi.mock('../../src/rhcos/defaults.js', async (original) => ({
  ...(await original<typeof import('../../src/rhcos/defaults.js')>()),
  DEFAULT_BASE_URL: 'http://127.0.0.1:1',
  LEGACY_BASE_URL: 'http://127.0.0.1:2/storage/releases',
}));

const lines = (stderr: string) => stderr.split('\n');

describe('first run: the default release browser', () => {
  test('no settings: one usage line naming --channel, RHCOS_DEFAULT_CHANNEL and a real channel (exit 2)', async () => {
    for (const command of [['resolve'], ['builds'], ['packages'], ['stream'], ['payload', 'write', '--dir', '.']]) {
      const r = await osimage(command);
      expect(r.exitCode, command.join(' ')).toBe(2);
      expect(lines(r.stderr), command.join(' ')).toEqual([
        `error: no channel: give --channel or RHCOS_DEFAULT_CHANNEL, e.g. --channel 4.16-9.4/builds (a stream of the public mirror ${UNREACHABLE_DEFAULT})`,
      ]);
    }
    const stream = await osimage(['pin', '--os-stream', 'rhel-10', '--write', 'nowhere.sh']);
    expect(stream.stderr).toMatch(/^error: no channel: give --channel or RHCOS_RHEL_10_DEFAULT_CHANNEL, e\.g\. /);
  });

  test('the default base URL unreachable: its error line and one info line saying what it is and what to do', async () => {
    const r = await osimage(['resolve', '--channel', '4.16-9.4/builds']);
    expect(r.exitCode).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `error: request to ${UNREACHABLE_DEFAULT}/4.16-9.4/builds/builds.json failed: connect ECONNREFUSED 127.0.0.1:1`,
      `info: osimage's default release browser, the public RHCOS mirror ${UNREACHABLE_DEFAULT}, did not answer: check the network (and any proxy settings), or point --base-url (or RHCOS_BASE_URL) at a mirror of it or at a folder on disk`,
    ]);
    const builds = await osimage(['builds'], { env: { RHCOS_DEFAULT_CHANNEL: '4.18-9.4/builds' } });
    expect(lines(builds.stderr)).toHaveLength(2);
    expect(lines(builds.stderr)[1]).toMatch(/^info: osimage's default release browser/);
  });

  test('a 2019 release script (a build, no channel, no base URL): maipo on its own release browser, with a note and a hint', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'osimage-first-run-pins-'));
    try {
      const script = join(dir, 'release.sh');
      await writeFile(script, '#!/bin/sh\nRHCOS_BUILD_NAME=47.246\n');
      const r = await osimage(['pin', '--check', '--pins', script]);
      expect(r.exitCode).toBe(1);
      expect(lines(r.stderr)).toEqual([
        `warning: ${script} does not pin RHCOS_DEFAULT_CHANNEL; checked against maipo, the channel of release scripts pinned in 2019`,
        `warning: ${script} does not pin RHCOS_BASE_URL; read as ${UNREACHABLE_LEGACY}, the default for channel maipo`,
        `error: request to ${UNREACHABLE_LEGACY}/maipo/builds.json failed: connect ECONNREFUSED 127.0.0.1:2`,
        `info: ${UNREACHABLE_LEGACY}, the release browser of the maipo and ootpa channels (2019), no longer answers: point --base-url at a copy of it (a mirror, or a folder on disk)`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('--base-url (or RHCOS_BASE_URL) at an unreachable host: one error line and no default hint', async () => {
    const flag = await osimage(['resolve', '--base-url', 'http://127.0.0.1:9', '--channel', 'maipo']);
    expect(flag.exitCode).toBe(1);
    expect(lines(flag.stderr)).toEqual(['error: request to http://127.0.0.1:9/maipo/builds.json failed: connect ECONNREFUSED 127.0.0.1:9']);
    const fromEnv = await osimage(['resolve', '--channel', 'maipo'], { env: { RHCOS_BASE_URL: 'http://127.0.0.1:9' } });
    expect(lines(fromEnv.stderr)).toHaveLength(1);
  });

  test("a channel the default mirror lacks (404): the hint names the mirror's stream names, or where rhcos-4.N channels are", () => {
    const missing = (channel: string) =>
      new FetchError('incorrect HTTP response (404 Not Found)', `${UNREACHABLE_DEFAULT}/${channel}/builds.json`, 404);
    expect(hintFor(missing('4.16'))).toBe(
      `the public RHCOS mirror ${UNREACHABLE_DEFAULT} has no stream 4.16: its streams are named like 4.16-9.4/builds or rhel-10.2/builds`,
    );
    expect(hintFor(missing('rhcos-4.12'))).toBe(
      `channel rhcos-4.12 is not one of the public RHCOS mirror's streams (named like 4.16-9.4/builds): the rhcos-4.N channels are on https://rhcos.mirror.openshift.com/art/storage/releases (give it as --base-url)`,
    );
    // A base URL the user gave is theirs: no hint.
    expect(hintFor(new FetchError('incorrect HTTP response (404 Not Found)', 'http://127.0.0.1:9/4.16/builds.json', 404))).toBeUndefined();
  });

  test('no hint names a file an installed copy lacks', () => {
    const network = (url: string) =>
      new FetchError(`request to ${url} failed`, url, undefined, Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), 'network');
    for (const url of [`${UNREACHABLE_DEFAULT}/x/builds.json`, `${UNREACHABLE_LEGACY}/maipo/builds.json`]) {
      const hint = hintFor(network(url));
      expect(hint).toBeDefined();
      expect(hint).not.toMatch(/docs\/|hack\/|\.md\b/);
    }
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
