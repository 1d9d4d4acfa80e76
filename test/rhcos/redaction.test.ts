/**
 * A release browser base URL with userinfo (`http://bob:pw@host`): the requests still carry the credential
 * (Basic, to that origin only), but nothing printed shows the password: not `resolve -o json` (baseURL,
 * buildsURL, metaURL, buildDir, the QEMU URLs), not the text view, not errors.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/browser', import.meta.url));
const PASSWORD = 'pw-s3cr3t';
let server: FileServer;
const authorizations: Array<string | undefined> = [];

beforeAll(async () => {
  server = await serveFolder(FIXTURES);
  server.faults.push((req) => {
    authorizations.push(req.headers.authorization);
    return false;
  });
});
afterAll(async () => server.close());
beforeEach(() => {
  authorizations.length = 0;
});

const withUser = () => server.url.replace('http://', `http://bob:${PASSWORD}@`);
const shown = () => server.url.replace('http://', 'http://bob:***@');
const basic = `Basic ${Buffer.from(`bob:${PASSWORD}`).toString('base64')}`;

describe('base URL with userinfo', () => {
  it('resolve -o json: userinfo password redacted in every URL, still sent as Basic auth', async () => {
    const r = await osimage(['resolve', '-o', 'json', '--base-url', withUser(), '--channel', 'rhcos-4.10', '--arch', 'aarch64']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain(PASSWORD);
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(j.baseURL).toBe(shown());
    expect(j.buildsURL).toBe(`${shown()}/rhcos-4.10/builds.json`);
    expect(j.buildDir).toBe(`${shown()}/rhcos-4.10/410.84.202201251203-0/aarch64/`);
    expect(j.metaURL).toBe(`${shown()}/rhcos-4.10/410.84.202201251203-0/aarch64/meta.json`);
    expect(authorizations.length).toBeGreaterThanOrEqual(2);
    expect(authorizations).toEqual(authorizations.map(() => basic));
  });

  it('resolve (text) and its errors never print the password', async () => {
    const ok = await osimage(['resolve', '--base-url', withUser(), '--channel', 'maipo']);
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toContain(`${shown()}`);
    expect(ok.stdout + ok.stderr).not.toContain(PASSWORD);

    const missingBuild = await osimage(['resolve', '--base-url', withUser(), '--channel', 'maipo', '--build', '47.999']);
    expect(missingBuild.exitCode).toBe(1);
    expect(missingBuild.stderr).toContain(`${shown()}/maipo/builds.json`);
    expect(missingBuild.stderr).not.toContain(PASSWORD);

    const missingChannel = await osimage(['resolve', '--base-url', withUser(), '--channel', 'nochannel']);
    expect(missingChannel.exitCode).toBe(1);
    expect(missingChannel.stderr).toMatch(/404/);
    expect(missingChannel.stderr).not.toContain(PASSWORD);

    const badMeta = await osimage(['resolve', '--base-url', withUser(), '--channel', 'badmeta']);
    expect(badMeta.exitCode).toBe(1);
    expect(badMeta.stderr).not.toContain(PASSWORD);
  });
});

describe('redactUrl', () => {
  it.each([
    ['http://bob:pw@host:8', 'http://bob:***@host:8'],
    ['http://bob:pw@host:8/a/b/?x=1&y&z=2#f', 'http://bob:***@host:8/a/b/?x=***&y&z=***#f'],
    ['http://a:p@ss@host/', 'http://a:***@host/'],
    ['https://token@host/x', 'https://***@host/x'],
    ['https://s3.example/b/k?X-Amz-Credential=AKIA&X-Amz-Signature=abc', 'https://s3.example/b/k?X-Amz-Credential=***&X-Amz-Signature=***'],
    ['https://host/plain/path', 'https://host/plain/path'],
    ['file:///tmp/x', 'file:///tmp/x'],
  ])('%s -> %s', async (input, want) => {
    const { redactUrl } = await import('../../src/http/redact.js');
    expect(redactUrl(input)).toBe(want);
  });
});
