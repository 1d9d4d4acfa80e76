import { describe, expect, it } from 'vitest';
import { containerKeyForTag, streamOfTag, streamTags } from '../../src/oci/os-tags.js';

describe('payload OS tags and meta.json containers', () => {
  it.each([
    ['machine-os-content', 'oscontainer'],
    ['rhel-coreos-8', 'base-oscontainer'],
    ['rhel-coreos', 'base-oscontainer'],
    ['rhel-coreos-10', 'base-oscontainer'],
    ['rhel-coreos-8-extensions', 'extensions-container'],
    ['rhel-coreos-extensions', 'extensions-container'],
    ['rhel-coreos-10-extensions', 'extensions-container'],
    ['etcd', undefined],
    ['rhel-coreos-ten', undefined],
  ])('%s pairs with %s', (tag, key) => {
    expect(containerKeyForTag(tag)).toBe(key);
  });

  it('stream tags: the default stream is unsuffixed, rhel-N has its own', () => {
    expect(streamTags()).toEqual({ os: 'rhel-coreos', extensions: 'rhel-coreos-extensions' });
    expect(streamTags('rhel-10')).toEqual({ os: 'rhel-coreos-10', extensions: 'rhel-coreos-10-extensions' });
    expect(streamTags('centos-10')).toBeUndefined();
    expect(streamOfTag('rhel-coreos-10-extensions')).toBe('rhel-10');
    expect(streamOfTag('rhel-coreos-8')).toBeUndefined();
    expect(streamOfTag('rhel-coreos')).toBeUndefined();
  });
});
