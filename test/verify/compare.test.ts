import { describe, expect, it } from 'vitest';
import type { OsImageSide } from '../../src/release/os-build.js';
import { compareOsImages } from '../../src/verify/compare.js';

const d = (c: string) => `sha256:${c.repeat(64)}`;
const side = (pullspec: string, digest: string | undefined, buildId?: string): OsImageSide => ({
  pullspec,
  digest,
  buildId,
  buildIdSource: buildId ? 'test' : undefined,
});

describe('comparing the bootimage with the payload', () => {
  it('the same digest in another repository is consistent', () => {
    const c = compareOsImages(side(`quay.io/a/b@${d('a')}`, d('a'), '1.1'), side(`registry.example/c@${d('a')}`, d('a')));
    expect(c.verdict).toBe('consistent');
    expect(c.consistent).toBe(true);
  });
  it('a newer payload means a pivot and reboot', () => {
    const c = compareOsImages(side('x', d('a'), '412.86.202301250001-0'), side('y', d('b'), '412.86.202301311551-0'));
    expect(c.verdict).toBe('payload-newer');
    expect(c.meaning).toMatch(/pivots to 412\.86\.202301311551-0 and reboots/);
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
