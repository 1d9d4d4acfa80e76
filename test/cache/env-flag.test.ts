/**
 * One rule for every boolean environment variable (src/env-flag.ts): empty, `0` and `false` mean off, anything
 * else on; the cache, the colour and the code cache all read their switch through it.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { openCache } from '../../src/cache/settings.js';
import { withIo } from '../../src/context.js';
import { envFlag } from '../../src/env-flag.js';
import { useColor } from '../../src/output/terminal.js';

const tty = Object.assign(new PassThrough(), { isTTY: true });
const inRun = <T>(vars: NodeJS.ProcessEnv, fn: () => T): T => withIo({ stdout: tty, stderr: tty, env: vars, cwd: '/' }, fn);

describe('envFlag', () => {
  test.each([
    [undefined, false],
    ['', false],
    ['0', false],
    ['false', false],
    ['FALSE', false],
    [' 0 ', false],
    ['1', true],
    ['true', true],
    ['yes', true],
    ['no', true],
  ])('%j → %s', (value, on) => {
    expect(envFlag(value)).toBe(on);
  });

  test('OSIMAGE_NO_CACHE: 0, false and empty leave the cache on; 1 turns it off', () => {
    const vars = { OSIMAGE_CACHE_DIR: '/tmp/osimage-env-flag-test' };
    for (const off of ['0', 'false', '']) expect(inRun({ ...vars, OSIMAGE_NO_CACHE: off }, () => openCache({}))).toBeDefined();
    expect(inRun({ ...vars, OSIMAGE_NO_CACHE: '1' }, () => openCache({}))).toBeUndefined();
  });

  test('NO_COLOR: 0, false and empty leave colour on a TTY; 1 turns it off', () => {
    for (const off of ['0', 'false', '']) expect(useColor(tty, { NO_COLOR: off, TERM: 'xterm' })).toBe(true);
    expect(useColor(tty, { NO_COLOR: '1', TERM: 'xterm' })).toBe(false);
    expect(useColor(new PassThrough(), { FORCE_COLOR: 'false' })).toBe(false);
  });
});
