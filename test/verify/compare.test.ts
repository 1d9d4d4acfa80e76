import { describe, expect, it } from 'vitest';
import { buildIdFromLabels, compareBuildIds, machineOsFromVersions } from '../../src/verify/build-id.js';
import { compareOsImages, type OsImageSide } from '../../src/verify/compare.js';

const d = (c: string) => `sha256:${c.repeat(64)}`;
const side = (pullspec: string, digest: string | undefined, buildId?: string): OsImageSide => ({
  pullspec,
  digest,
  buildId,
  buildIdSource: buildId ? 'test' : undefined,
});

describe('build ids', () => {
  it.each([
    ['47.245', '47.246', -1],
    ['47.246', '47.246', 0],
    ['410.8.20190325.0', '47.246', 1],
    ['412.86.202301311551-0', '412.86.202301250001-0', 1],
    ['412.86.202301311551-0', '412.86.202301311551-1', -1],
    ['9.6.20260512-0', '9.6.20260512', 1],
  ])('%s vs %s → %i', (a, b, want) => {
    expect(compareBuildIds(a, b)).toBe(want);
  });
  it('is undefined for things that are not build ids', () => {
    expect(compareBuildIds('latest', '47.1')).toBeUndefined();
  });
  it('reads machine-os from the versions annotation', () => {
    expect(machineOsFromVersions('kubernetes=1.26.1,machine-os=413.92.202305231734-0')).toBe('413.92.202305231734-0');
    expect(machineOsFromVersions('kubernetes=1.26.1')).toBeUndefined();
    expect(machineOsFromVersions(undefined)).toBeUndefined();
  });
  it('reads a build id from labels in ART order', () => {
    expect(buildIdFromLabels({ version: '412.86.1-0', 'org.opencontainers.image.version': '412.86.2-0' })).toBe('412.86.2-0');
    expect(buildIdFromLabels({ version: '412.86.1-0' })).toBe('412.86.1-0');
    expect(buildIdFromLabels(null)).toBeUndefined();
  });
});

describe('comparing the bootimage with the payload', () => {
  it('the same digest in another repository is consistent', () => {
    const c = compareOsImages(side(`quay.io/a/b@${d('a')}`, d('a'), '1.1'), side(`registry.example/c@${d('a')}`, d('a')));
    expect(c.verdict).toBe('consistent');
    expect(c.consistent).toBe(true);
  });
  it('a newer payload means a pivot and reboot', () => {
    const c = compareOsImages(side('x', d('a'), '412.86.1-0'), side('y', d('b'), '412.86.2-0'));
    expect(c.verdict).toBe('payload-newer');
    expect(c.meaning).toMatch(/pivots to 412\.86\.2-0 and reboots/);
  });
  it('a newer bootimage means a downgrade', () => {
    const c = compareOsImages(side('x', d('a'), '410.8.20190325.0'), side('y', d('b'), '410.8.20190322.0'));
    expect(c.verdict).toBe('bootimage-newer');
    expect(c.meaning).toMatch(/downgrade/);
  });
  it('unknown build ids still report a drift', () => {
    const c = compareOsImages(side('x', d('a'), '1.1'), side('y', d('b')));
    expect(c.verdict).toBe('different');
    expect(c.consistent).toBe(false);
  });
  it('a tag pullspec (no digest) is never called consistent', () => {
    expect(compareOsImages(side('x:latest', undefined, '1'), side('x:latest', undefined, '1')).consistent).toBe(false);
  });
});
