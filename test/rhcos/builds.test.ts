import { describe, expect, it } from 'vitest';
import { OsimageError } from '../../src/errors.js';
import { newestBuild, parseBuildList } from '../../src/rhcos/builds.js';
import { checkPinnedBuild, chooseBuild } from '../../src/rhcos/resolve.js';

const URL_ = 'http://h/maipo/builds.json';
const LEGACY = { builds: ['47.246', '47.245', '47.235'], timestamp: '2019-01-05T23:11:19Z' };
const V1 = {
  'schema-version': '1.0.0',
  builds: [
    { id: '410.84.202201251203-0', arches: ['x86_64', 'aarch64'] },
    { id: '410.84.202201201132-0', arches: ['x86_64'] },
  ],
  timestamp: '2022-01-25T12:00:00Z',
};

describe('builds.json, legacy schema', () => {
  it('reads a string list newest first, with the timestamp', () => {
    const l = parseBuildList(LEGACY, URL_);
    expect(l.layout).toBe('legacy');
    expect(l.schemaVersion).toBe('0.0.1');
    expect(l.builds.map((b) => b.id)).toEqual(['47.246', '47.245', '47.235']);
    expect(l.timestamp).toBe('2019-01-05T23:11:19Z');
    expect(newestBuild(l, 'x86_64').id).toBe('47.246');
  });

  it('accepts an explicit 0.x schema-version and no timestamp', () => {
    const l = parseBuildList({ 'schema-version': '0.0.1', builds: ['1'] }, URL_);
    expect(l.layout).toBe('legacy');
    expect(l.timestamp).toBeUndefined();
  });

  it('has no other arch than x86_64', () => {
    expect(() => newestBuild(parseBuildList(LEGACY, URL_), 'aarch64')).toThrow(/no build for arch aarch64/);
  });
});

describe('builds.json, schema 1.x', () => {
  const l = parseBuildList(V1, URL_);
  it('reads objects with arches', () => {
    expect(l.layout).toBe('v1');
    expect(l.builds[1]).toEqual({ id: '410.84.202201201132-0', arches: ['x86_64'] });
  });
  it('takes the first entry listing the arch', () => {
    expect(newestBuild(l, 'aarch64').id).toBe('410.84.202201251203-0');
    expect(newestBuild(parseBuildList({ ...V1, builds: [...V1.builds].reverse() }, URL_), 'x86_64').id).toBe('410.84.202201201132-0');
  });
  it('fails for an arch no build has, listing the arches', () => {
    expect(() => newestBuild(l, 's390x')).toThrow('no build for arch s390x in http://h/maipo/builds.json (arches there: x86_64, aarch64)');
  });
  it('rejects a pinned build that lacks the arch', () => {
    expect(() => checkPinnedBuild(l, '410.84.202201201132-0', 'aarch64')).toThrow(/has no aarch64.*\[x86_64\]/);
  });
  it('accepts 1.x minors', () => {
    expect(parseBuildList({ ...V1, 'schema-version': '1.2.0' }, URL_).layout).toBe('v1');
  });
});

describe('builds.json errors', () => {
  it.each([
    [{ 'schema-version': '2.0.0', builds: [] }, 'Unsupported build metadata version 2.0.0'],
    [{ builds: ['47.246', { id: 'x', arches: [] }] }, 'mixes strings and objects'],
    [{ builds: 'x' }, '"builds" must be a list'],
    [[1, 2], 'expected a JSON object'],
    [{ 'schema-version': '1.0.0', builds: ['47.246'] }, 'needs build objects'],
    [{ 'schema-version': '1.0.0', builds: [{ arches: ['x86_64'] }] }, 'builds[0] has no "id"'],
    [{ 'schema-version': '1.0.0', builds: [{ id: 'a' }] }, 'has no "arches" list'],
    [{ 'schema-version': 1, builds: [] }, 'schema-version must be a string'],
  ])('%j → %s', (doc, msg) => {
    expect(() => parseBuildList(doc, URL_)).toThrow(OsimageError);
    expect(() => parseBuildList(doc, URL_)).toThrow(msg);
  });
});

describe('an empty list', () => {
  const empty = parseBuildList({ builds: [] }, URL_);
  it('fails with no builds found when nothing is pinned', () => {
    expect(() => chooseBuild(empty, { build: '', arch: 'x86_64' })).toThrow('no builds found in http://h/maipo/builds.json');
  });
  it('fails with the unknown-build error when a build is pinned', () => {
    expect(() => chooseBuild(empty, { build: '47.245', arch: 'x86_64' })).toThrow(
      "no build with name '47.245' found at 'http://h/maipo/builds.json'. Available builds are: []",
    );
  });
});

describe('choosing a build', () => {
  const l = parseBuildList(LEGACY, URL_);
  it('keeps a valid pin rather than the newest', () => {
    expect(chooseBuild(l, { build: '47.245', arch: 'x86_64' })).toBe('47.245');
  });
  it('names the pin, the URL, the builds and the closest match for an unknown pin', () => {
    expect(() => chooseBuild(l, { build: '47.999', arch: 'x86_64' })).toThrow(
      "no build with name '47.999' found at 'http://h/maipo/builds.json'. Available builds are: [47.246, 47.245, 47.235]; closest match: 47.246",
    );
  });
  it('lists only the newest ten of a long list', () => {
    const many = parseBuildList({ builds: Array.from({ length: 50 }, (_, i) => `1.${50 - i}`) }, URL_);
    let msg = '';
    try {
      chooseBuild(many, { build: '1.77', arch: 'x86_64' });
    } catch (err) {
      msg = (err as Error).message;
    }
    expect(msg).toContain('(newest 10 of 50): [1.50, 1.49');
    expect(msg).not.toContain('1.40,');
    expect(msg).toMatch(/closest match: 1\.47$/);
  });
});

describe('bounds on builds.json', () => {
  it('more builds than any stream holds is one line naming the URL', () => {
    const many = { builds: Array.from({ length: 100_001 }, (_, i) => `47.${i}`) };
    expect(() => parseBuildList(many, URL_)).toThrow(`invalid builds.json at ${URL_}: 100001 builds, more than the 100000 osimage reads`);
  });

  it('a builds.json past 16 MiB is refused before it is read (file:// and http alike)', async () => {
    const { mkdtemp, mkdir, writeFile, truncate } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { osimage } = await import('../helpers/cli.js');
    const root = await mkdtemp(join(tmpdir(), 'osimage-builds-'));
    await mkdir(join(root, 'big'));
    const file = join(root, 'big', 'builds.json');
    await writeFile(file, '');
    await truncate(file, 16 * 1024 * 1024 + 1);
    const r = await osimage(['resolve', '--base-url', `file://${root}`, '--channel', 'big']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/builds\.json is 16777217 bytes, more than the 16777216 allowed/);
  });
});
