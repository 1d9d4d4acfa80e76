/**
 * A base URL with userinfo through pin and pin --check: the script and the metadata snapshot are committed to
 * git, so neither holds the credentials (the pin is the URL without them, and a warning says they belong in
 * ~/.netrc), nothing printed shows the password, and the check of what was pinned still passes.
 */
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { scriptSandbox, type Sandbox } from './setup.js';

const PASSWORD = 'pw-s3cr3t';
let sb: Sandbox;
let script: string;
let meta: string;
beforeEach(async () => {
  ({ sb, script, meta } = await scriptSandbox());
});
afterEach(async () => {
  await sb.close();
});

it('pin --write and pin --check with a userinfo base URL: no password printed or in the snapshot', async () => {
  const base = sb.server.url.replace('http://', `http://bob:${PASSWORD}@`);
  const dry = await osimage(['pin', '--write', script, '--meta', meta, '--latest', '--base-url', base, '--dry-run']);
  expect(dry.exitCode).toBe(0);
  expect(dry.stdout + dry.stderr).not.toContain(PASSWORD);
  const pin = await osimage(['pin', '--write', script, '--meta', meta, '--latest', '--base-url', base]);
  expect(pin.exitCode).toBe(0);
  expect(pin.stdout).toContain(`base URL ${sb.server.url}`);
  expect(pin.stdout + pin.stderr).not.toContain(PASSWORD);
  expect(pin.stderr).toContain(`are not written to ${script}: put them in ~/.netrc`);
  const written = await readFile(script, 'utf8');
  expect(written).toContain(`RHCOS_BASE_URL="\${RHCOS_BASE_URL:-${sb.server.url}}"`);
  expect(written).not.toContain('bob');
  const snapshot = await readFile(meta, 'utf8');
  expect(snapshot).toContain(`"baseURI": "${sb.server.url}/`);
  expect(snapshot).not.toContain('bob');

  const check = await osimage(['pin', '--check', '--write', script, '--meta', meta]);
  expect(check.stderr).toBe('');
  expect(check.exitCode).toBe(0);
  expect(check.stdout).not.toContain(PASSWORD);
});
