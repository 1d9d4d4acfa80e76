/**
 * `-o json` of pin, pin --check and promote (the shapes of docs/pins.md): stdout is one JSON document and
 * nothing else; warnings stay on stderr, one line each; an unknown -o value is a usage error.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { NEWEST_412, OLDER_412, eachScriptSandbox } from './setup.js';

const s = eachScriptSandbox();

/** stdout parsed: it must be exactly one JSON document. */
const parsed = (stdout: string): Record<string, unknown> => JSON.parse(stdout) as Record<string, unknown>;

const PIN_KEYS = [
  'file',
  'osStream',
  'build',
  'channel',
  'baseUrl',
  'buildFrom',
  'previousBuild',
  'dryRun',
  'changed',
  'script',
  'meta',
  'written',
  'diff',
  'warnings',
];
const CHECK_KEYS = [
  'ok',
  'file',
  'osStream',
  'build',
  'channel',
  'arch',
  'baseUrl',
  'checkedAt',
  'buildsUrl',
  'meta',
  'defaulted',
  'warnings',
  'error',
];
const PROMOTE_KEYS = [
  'status',
  'file',
  'osStream',
  'build',
  'previousBuild',
  'channel',
  'baseUrl',
  'meta',
  'written',
  'commit',
  'warnings',
];

describe('osimage pin -o json', () => {
  it('--dry-run: what would be pinned, the diff inside the object, nothing written', async () => {
    const r = await osimage([
      'pin',
      '--write',
      s.script,
      '--meta',
      s.meta,
      '--latest',
      '--base-url',
      s.sb.server.url,
      '--dry-run',
      '-o',
      'json',
    ]);
    expect(r.exitCode).toBe(0);
    const j = parsed(r.stdout);
    expect(Object.keys(j)).toEqual(PIN_KEYS);
    expect(j).toMatchObject({
      file: s.script,
      osStream: null,
      build: NEWEST_412,
      channel: 'rhcos-4.12',
      baseUrl: s.sb.server.url,
      buildFrom: 'newest',
      previousBuild: OLDER_412,
      dryRun: true,
      changed: true,
      script: { path: s.script, created: false, changed: true, edited: ['RHCOS_BUILD_NAME', 'RHCOS_BASE_URL'], added: [] },
      meta: { path: s.meta, created: true, changed: true },
      written: [],
      warnings: [],
    });
    expect(j.diff).toContain(`+export RHCOS_BUILD_NAME="\${RHCOS_BUILD_NAME:-${NEWEST_412}}"`);
    expect(j.diff).toContain(`+++ ${s.meta}`);
    // The text summary of a dry run is not printed beside the JSON: the object says it.
    expect(r.stderr).not.toContain('dry run');
    expect(await readFile(s.script, 'utf8')).toBe(s.original);
  });

  it('writes and says which files it wrote; a second run changes nothing', async () => {
    const args = ['pin', '--write', s.script, '--meta', s.meta, '--latest', '--base-url', s.sb.server.url, '-o', 'json'];
    const r = await osimage(args);
    expect(r.exitCode).toBe(0);
    expect(parsed(r.stdout)).toMatchObject({ dryRun: false, changed: true, build: NEWEST_412, written: [s.script, s.meta] });
    const again = parsed((await osimage(args)).stdout);
    expect(again).toMatchObject({ changed: false, previousBuild: NEWEST_412, written: [], diff: '', meta: { changed: false } });
  });

  it('text stays the default and -o text the same; an unknown -o is a usage error', async () => {
    const text = await osimage(['pin', '--write', s.script, '--base-url', s.sb.server.url, '-o', 'text']);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(/^pinned 412\.86\.202301250001-0 \(channel rhcos-4\.12/);
    const bad = await osimage(['pin', '--write', s.script, '-o', 'yaml']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain("error: option '-o, --output <format>' argument 'yaml' is invalid. Allowed choices are text, json.");
  });
});

describe('osimage pin --check -o json', () => {
  const pin = async () => {
    expect((await osimage(['pin', '--write', s.script, '--meta', s.meta, '--base-url', s.sb.server.url])).exitCode).toBe(0);
  };

  it('a sound pin: ok, the pinned build and where it was checked', async () => {
    await pin();
    const r = await osimage(['pin', '--check', '--pins', s.script, '--meta', s.meta, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const j = parsed(r.stdout);
    expect(Object.keys(j)).toEqual(CHECK_KEYS);
    expect(j).toEqual({
      ok: true,
      file: s.script,
      osStream: null,
      build: OLDER_412,
      channel: 'rhcos-4.12',
      arch: 'x86_64',
      baseUrl: s.sb.server.url,
      checkedAt: s.sb.server.url,
      buildsUrl: `${s.sb.server.url}/rhcos-4.12/builds.json`,
      meta: s.meta,
      defaulted: [],
      warnings: [],
      error: null,
    });
  });

  it('a failed check still prints the object (ok false, the reason), then the error on stderr, exit 1', async () => {
    await pin();
    const list = join(s.sb.releases, 'rhcos-4.12/builds.json');
    const doc = JSON.parse(await readFile(list, 'utf8'));
    doc.builds = doc.builds.filter((b: { id: string }) => b.id !== OLDER_412);
    await writeFile(list, JSON.stringify(doc));
    const r = await osimage(['pin', '--check', '--pins', s.script, '-o', 'json']);
    expect(r.exitCode).toBe(1);
    const j = parsed(r.stdout);
    expect(Object.keys(j)).toEqual(CHECK_KEYS);
    expect(j).toMatchObject({ ok: false, file: s.script, build: null, meta: null, error: { reason: 'build-gone' } });
    expect((j.error as { message: string }).message).toContain(`pins RHCOS_BUILD_NAME=${OLDER_412}, but no build with name`);
    expect(r.stderr).toMatch(/^error: .*pins RHCOS_BUILD_NAME=/);
  });

  it('a failed check names the pins it defaulted, as a passing one does', async () => {
    await writeFile(s.script, `#!/bin/sh\nexport RHCOS_BUILD_NAME=no-such-build\nexport RHCOS_DEFAULT_CHANNEL=rhcos-4.12\n`);
    const r = await osimage(['pin', '--check', '--pins', s.script, '--base-url', s.sb.server.url, '-o', 'json']);
    expect(r.exitCode).toBe(1);
    const j = parsed(r.stdout);
    expect(j).toMatchObject({ ok: false, error: { reason: 'build-gone' } });
    expect(j.defaulted).toEqual(['RHCOS_BASE_URL']);
  });

  it('warnings are in the object and still one line each on stderr', async () => {
    await writeFile(s.script, `#!/bin/sh\nexport RHCOS_BUILD_NAME=${OLDER_412}\nexport RHCOS_DEFAULT_CHANNEL=rhcos-4.12\n`);
    const r = await osimage(['pin', '--check', '--pins', s.script, '--base-url', s.sb.server.url, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const j = parsed(r.stdout);
    expect(j.defaulted).toEqual(['RHCOS_BASE_URL']);
    expect(j.warnings).toEqual([{ code: 'pin-defaulted', message: expect.stringContaining('does not pin RHCOS_BASE_URL') }]);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning: '))).toHaveLength(1);
  });
});

describe('osimage promote -o json', () => {
  const promote = (args: string[]) => osimage(['promote', '--write', s.script, '--base-url', s.sb.server.url, ...args, '-o', 'json']);

  it('promoted, then already pinned; the test output stays on stderr', async () => {
    const r = await promote(['--test', 'echo tested', '--meta', s.meta]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('tested');
    const j = parsed(r.stdout);
    expect(Object.keys(j)).toEqual(PROMOTE_KEYS);
    expect(j).toMatchObject({
      status: 'promoted',
      file: s.script,
      osStream: null,
      build: NEWEST_412,
      previousBuild: OLDER_412,
      channel: 'rhcos-4.12',
      baseUrl: s.sb.server.url,
      meta: s.meta,
      commit: null,
      warnings: [],
    });
    expect((j.written as string[]).map((p) => p.slice(p.lastIndexOf('/') + 1))).toEqual(['release.sh', 'rhcos.json']);

    const again = parsed((await promote(['--test', 'exit 1'])).stdout);
    expect(again).toMatchObject({ status: 'already-pinned', build: NEWEST_412, previousBuild: NEWEST_412, meta: null, written: [] });
  });

  it('an unknown -o is a usage error before any test runs', async () => {
    const r = await osimage(['promote', '--write', s.script, '--test', 'exit 0', '-o', 'env']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("argument 'env' is invalid. Allowed choices are text, json.");
    expect(await readFile(s.script, 'utf8')).toBe(s.original);
  });
});
