/**
 * The name cli.ts gives the launcher's code cache entry of a command run (src/launcher/code-cache.ts keeps one per
 * name): the command, its subcommand from the command table only, and `-help` for a help run.
 */
import { describe, expect, test } from 'vitest';
import { codeCacheProfile } from '../../src/cli.js';

describe('codeCacheProfile', () => {
  test.each([
    [['release', 'info', 'quay.io/x:1'], 'release', 'release-info'],
    [['-v', '6', 'release', 'extract', '--to', 'd', 'x'], 'release', 'release-extract'],
    [['release', 'info', '--help'], 'release', 'release-info-help'],
    [['release', '-h'], 'release', 'release-help'],
    [['release', 'bogus'], 'release', 'release'],
    [['resolve', '--channel', 'info'], 'resolve', 'resolve'],
    [['diff', 'a', 'b'], 'diff', 'diff'],
    [['cache', 'prune'], 'cache', 'cache-prune'],
    [['completion', 'bash'], 'completion', 'completion'],
  ])('%j names %s as %s', (argv, name, want) => {
    expect(codeCacheProfile(argv, name)).toBe(want);
  });

  test('a run in this process leaves no name behind for the next one', async () => {
    const { main } = await import('../../src/cli.js');
    const { PassThrough } = await import('node:stream');
    const out = new PassThrough();
    await main(['release', 'info', '--help'], { stdout: out as never, stderr: new PassThrough() as never });
    expect((globalThis as Record<symbol, unknown>)[Symbol.for('osimage.codeCacheProfile')]).toBeUndefined();
  });
});
