/**
 * A base URL with userinfo through pin and pin --check: the pin itself keeps the URL (requests need it), but
 * what is printed and the pinned metadata snapshot (committed to git) never hold the password, and the check
 * of that snapshot still passes.
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
  const shown = sb.server.url.replace('http://', 'http://bob:***@');
  const pin = await osimage(['pin', '--write', script, '--meta', meta, '--latest', '--base-url', base]);
  expect(pin.exitCode).toBe(0);
  expect(pin.stdout).toContain(`base URL ${shown}`);
  expect(pin.stdout + pin.stderr).not.toContain(PASSWORD);
  const snapshot = await readFile(meta, 'utf8');
  expect(snapshot).toContain(shown);
  expect(snapshot).not.toContain(PASSWORD);

  const check = await osimage(['pin', '--check', '--write', script, '--meta', meta]);
  expect(check.stderr).toBe('');
  expect(check.exitCode).toBe(0);
  expect(check.stdout).toContain(`base URL ${shown}`);
  expect(check.stdout).not.toContain(PASSWORD);
});
