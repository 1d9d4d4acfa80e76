/**
 * `-v N` / `--loglevel N` / `--debug` / OSIMAGE_DEBUG against a real Node HTTP server serving a release browser:
 * one line per exchange from level 6, headers from level 8, and no credential ever on stderr (a password in the
 * base URL, its Basic header, a cookie the server sets, a signed redirect's query).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { withIo } from '../../src/context.js';
import { redactHeader } from '../../src/http/log.js';
import { DEBUG_LEVEL, HTTP_LEVEL, beginLog, debugLog, setVerbosity, verbosity } from '../../src/verbosity.js';
import { REPO, osimage } from '../helpers/cli.js';
import { type FileServer, serveFolder } from '../helpers/file-server.js';

const PASSWORD = 's3cr3t-pw';
const SIGNATURE = 'SIG-0123456789';
const COOKIE = 'session-id-42';

let server: FileServer;
let withPassword: string;
beforeAll(async () => {
  server = await serveFolder(join(REPO, 'test/fixtures/browser'));
  withPassword = server.url.replace('http://', `http://bob:${PASSWORD}@`);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.faults.length = 0;
});

const resolve = (...args: string[]) => osimage(['resolve', '--base-url', server.url, '--channel', 'maipo', ...args]);
const LINE = (method: string, path: string, status: string) =>
  new RegExp(`^debug: http: ${method} ${server.url.replace(/[.]/g, '\\.')}${path} ${status} in \\d+ ms$`);
const lines = (stderr: string) => stderr.split('\n').filter((l) => l !== '');

describe('the level', () => {
  test('0 (the default) and 5: stderr stays empty', async () => {
    expect((await resolve()).stderr).toBe('');
    expect((await resolve('-v', '5')).stderr).toBe('');
  });

  test('6: one line per exchange, method, URL, status and time; stdout unchanged', async () => {
    const quiet = await resolve();
    const r = await resolve('-v', '6');
    expect(r.stdout).toBe(quiet.stdout);
    const got = lines(r.stderr);
    expect(got).toHaveLength(2);
    expect(got[0]).toMatch(LINE('GET', '/maipo/builds.json', '200 OK'));
    expect(got[1]).toMatch(LINE('GET', '/maipo/47.246/meta.json', '200 OK'));
  });

  test.each([[['-v6']], [['--v=6']], [['--loglevel', '6']], [['--loglevel=7']], [['--debug']], [['-v', '0', '--debug']]])(
    '%j: the same lines, wherever on the line',
    async (flags) => {
      for (const r of [await resolve(...flags), await osimage([...flags, 'resolve', '--base-url', server.url, '--channel', 'maipo'])]) {
        expect(r.exitCode).toBe(0);
        expect(lines(r.stderr)).toHaveLength(2);
      }
    },
  );

  test('OSIMAGE_DEBUG is --debug; a flag on the line wins over it', async () => {
    const env = { OSIMAGE_DEBUG: '1' };
    expect(lines((await osimage(['resolve', '--base-url', server.url, '--channel', 'maipo'], { env })).stderr)).toHaveLength(2);
    expect((await osimage(['resolve', '--base-url', server.url, '--channel', 'maipo', '-v', '0'], { env })).stderr).toBe('');
    expect((await osimage(['resolve', '--base-url', server.url, '--channel', 'maipo'], { env: { OSIMAGE_DEBUG: '0' } })).stderr).toBe('');
  });

  test("a level that is not a number: pflag's words, exit 2", async () => {
    expect(await resolve('-v', 'high')).toEqual({
      stdout: '',
      stderr: 'error: invalid argument "high" for "-v, --v" flag: strconv.ParseInt: parsing "high": invalid syntax',
      exitCode: 2,
    });
    expect((await resolve('--loglevel=1.5')).stderr).toBe(
      'error: invalid argument "1.5" for "--loglevel" flag: strconv.ParseInt: parsing "1.5": invalid syntax',
    );
  });

  test('a request that gets no answer: a line saying so', async () => {
    server.faults.push((req) => {
      if (req.url?.endsWith('builds.json')) req.socket.destroy();
      return req.url?.endsWith('builds.json') === true;
    });
    const r = await osimage(['resolve', '--base-url', server.url, '--channel', 'maipo', '-v', '6'], { env: { OSIMAGE_HTTP_RETRIES: '0' } });
    expect(r.exitCode).toBe(1);
    expect(lines(r.stderr)[0]).toMatch(
      new RegExp(`^debug: http: GET ${server.url.replace(/[.]/g, '\\.')}/maipo/builds\\.json failed in \\d+ ms: `),
    );
  });
});

describe('src/verbosity.ts', () => {
  const inRun = <T>(env: NodeJS.ProcessEnv, fn: () => T): T =>
    withIo({ stdout: process.stdout, stderr: process.stderr, env, cwd: process.cwd() }, fn);

  test("a line is written when the run asks for its level, to the run's sink, never outside a run", () => {
    const got: string[] = [];
    inRun({}, () => {
      beginLog((l) => got.push(l));
      debugLog(DEBUG_LEVEL, 'hidden at 0');
      setVerbosity(4);
      debugLog(DEBUG_LEVEL, 'cache: shown at 4');
      debugLog(HTTP_LEVEL, 'hidden at 4');
    });
    debugLog(0, 'outside any run');
    expect(got).toEqual(['debug: cache: shown at 4']);
  });

  test('OSIMAGE_DEBUG is level 6 until a flag sets one; runs do not share a level', () => {
    inRun({ OSIMAGE_DEBUG: 'true' }, () => {
      beginLog(() => undefined);
      expect(verbosity()).toBe(6);
      inRun({}, () => {
        beginLog(() => undefined);
        expect(verbosity()).toBe(0);
      });
      setVerbosity(2);
      expect(verbosity()).toBe(2);
    });
    inRun({ OSIMAGE_DEBUG: 'false' }, () => expect(verbosity()).toBe(0));
  });
});

describe('secrets never reach stderr', () => {
  test('8: headers both ways; the password of the base URL, its Basic header, cookies and signed queries are masked', async () => {
    // builds.json sets a cookie and redirects to a signed URL of itself, as an object store would.
    server.faults.push((req, res) => {
      if (req.url === '/maipo/builds.json') {
        res.writeHead(302, { location: `/maipo/builds.json?X-Amz-Signature=${SIGNATURE}`, 'set-cookie': `sid=${COOKIE}; Path=/` }).end();
        return true;
      }
      return false;
    });
    const r = await osimage(['resolve', '--base-url', withPassword, '--channel', 'maipo', '-v', '8']);
    expect(r.exitCode).toBe(0);
    const got = lines(r.stderr);
    expect(got[0]).toMatch(LINE('GET', '/maipo/builds.json', '302 Found'));
    expect(got).toContain('debug: http: > Authorization: Basic ***');
    expect(got).toContain('debug: http: > User-Agent: osimage/0.1.0');
    expect(got).toContain('debug: http: < Set-Cookie: ***');
    expect(got).toContain('debug: http: < Location: /maipo/builds.json?X-Amz-Signature=***');
    expect(got).toContainEqual(expect.stringMatching(LINE('GET', '/maipo/builds\\.json\\?X-Amz-Signature=\\*\\*\\*', '200 OK')));
    expect(got).toContain('debug: http: < Content-Type: application/json');
    for (const secret of [PASSWORD, Buffer.from(`bob:${PASSWORD}`).toString('base64'), COOKIE, SIGNATURE]) {
      expect(r.stderr).not.toContain(secret);
    }
  });

  test('7: no headers', async () => {
    const r = await osimage(['resolve', '--base-url', withPassword, '--channel', 'maipo', '-v', '7']);
    expect(r.stderr).not.toMatch(/http: [<>]/);
    expect(r.stderr).not.toContain(PASSWORD);
  });

  test('the masking rule', () => {
    expect(redactHeader('Authorization', 'Bearer eyJhbGciOi.x.y')).toBe('Bearer ***');
    expect(redactHeader('proxy-authorization', 'Basic Ym9iOnB3')).toBe('Basic ***');
    expect(redactHeader('authorization', 'opaque')).toBe('***');
    expect(redactHeader('Cookie', 'a=b')).toBe('***');
    expect(redactHeader('X-Auth-Token', 'abc')).toBe('***');
    expect(redactHeader('X-Amz-Security-Token', 'abc')).toBe('***');
    expect(redactHeader('location', 'https://s3/x?X-Amz-Credential=AKIA&X-Amz-Signature=f00')).toBe(
      'https://s3/x?X-Amz-Credential=***&X-Amz-Signature=***',
    );
    // A challenge names where to get a token, not a token.
    expect(redactHeader('WWW-Authenticate', 'Bearer realm="https://auth/token",service="reg"')).toBe(
      'Bearer realm="https://auth/token",service="reg"',
    );
    expect(redactHeader('Content-Type', 'application/json')).toBe('application/json');
    expect(redactHeader('Location', 'next?token=abc')).toBe('next?token=***');
  });
});
