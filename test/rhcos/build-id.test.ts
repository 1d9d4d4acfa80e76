import { describe, expect, it } from 'vitest';
import { buildIdFromLabels, closestBuildId, compareBuildIds, machineOsFromVersions, parseBuildId } from '../../src/rhcos/build-id.js';

describe('parsing build ids of every era', () => {
  it.each([
    ['47.246', { shape: 'counter', rhel: 7, date: null, serial: 246 }],
    ['400.7.20190306.0', { shape: 'ocp-rhel', rhel: 7, date: '20190306', serial: 0 }],
    ['410.8.20190325.0', { shape: 'ocp-rhel', rhel: 8, date: '20190325', serial: 0 }],
    ['48.84.202105190318-0', { shape: 'ocp-rhel', rhel: 8, date: '202105190318', serial: 0 }],
    ['412.86.202301311551-0', { shape: 'ocp-rhel', rhel: 8, date: '202301311551', serial: 0 }],
    ['413.92.202305231734-0', { shape: 'ocp-rhel', rhel: 9, date: '202305231734', serial: 0 }],
    ['418.94.202605101521-0', { shape: 'ocp-rhel', rhel: 9, date: '202605101521', serial: 0 }],
    ['422.102.202606010000-1', { shape: 'ocp-rhel', rhel: 10, date: '202606010000', serial: 1 }],
    ['9.6.20250508-0', { shape: 'rhel', rhel: 9, date: '20250508', serial: 0 }],
    ['9.8.20260428-0', { shape: 'rhel', rhel: 9, date: '20260428', serial: 0 }],
    ['10.2.20260217-0', { shape: 'rhel', rhel: 10, date: '20260217', serial: 0 }],
    ['9.6.20260512', { shape: 'rhel', rhel: 9, date: '20260512', serial: null }],
    ['4.21.9.6.202602041851-0', { shape: 'node', rhel: 9, date: '202602041851', serial: 0 }],
  ])('%s', (id, want) => {
    expect(parseBuildId(id)).toEqual({ id, ...want });
  });

  it('reads a node image tag as ART does', () => {
    const want = { id: '4.21.9.6.202602041851-0', shape: 'node', rhel: 9, date: '202602041851', serial: 0 };
    expect(parseBuildId('4.21-9.6-202602041851-node-image')).toEqual(want);
    expect(parseBuildId('4.21-9.6-202602041851-node-image-extensions')).toEqual(want);
  });

  it.each(['latest', '1.0', '412.86.1-0', '418.94.2026051015-0', '418.94.202605101521-x', '', '4.21-9.6-202602041851'])(
    'rejects %j',
    (text) => {
      expect(parseBuildId(text)).toBeUndefined();
    },
  );
});

describe('comparing build ids', () => {
  it.each([
    // one RHEL stream: by date, then serial
    ['47.245', '47.246', 'older'],
    ['47.246', '47.246', 'same'],
    ['410.8.20190325.0', '410.8.20190322.0', 'newer'],
    ['410.8.20190325.0', '48.84.202105190318-0', 'older'],
    ['412.86.202301311551-0', '412.86.202301250001-0', 'newer'],
    ['412.86.202301311551-0', '412.86.202301311551-1', 'older'],
    ['9.6.20260512-0', '9.6.20260512', 'newer'],
    ['418.94.202605101521-0', '418.94.202604221012-0', 'newer'],
    ['413.92.202305231734-0', '418.94.202605101521-0', 'older'],
    ['10.2.20260212-0', '10.2.20260217-0', 'older'],
    ['4.21.9.6.202602041851-0', '9.6.20250508-0', 'newer'],
    ['9.8.20260428-0', '418.94.202605101521-0', 'older'],
    ['4.21-9.6-202602041851-node-image', '4.21.9.6.202602041851-0', 'same'],
    // never a wrong newer/older
    ['410.8.20190325.0', '47.246', 'different'],
    ['10.2.20260217-0', '9.8.20260428-0', 'different'],
    ['9.8.20260428-0', '10.2.20260217-0', 'different'],
    ['418.94.202605101521-0', '10.2.20260217-0', 'different'],
    ['48.84.202105190318-0', '418.94.202605101521-0', 'different'],
    ['400.7.20190306.0', '47.246', 'different'],
    ['4.21.9.6.202602041851-0', '9.6.20260204-0', 'different'],
    ['413.92.202305231734-0', '414.92.202305231734-0', 'different'],
    ['latest', '47.1', 'different'],
    ['412.86.1-0', '412.86.2-0', 'different'],
  ])('%s vs %s → %s', (a, b, want) => {
    expect(compareBuildIds(a, b)).toBe(want);
  });
});

describe('the closest match for an unknown pin', () => {
  const MAIPO = ['47.246', '47.245', '47.235'];
  it('suggests nothing from another stream or shape (not 47.235 for a 4.12 pin against maipo)', () => {
    expect(closestBuildId('412.86.202301250001-0', MAIPO)).toBeUndefined();
    expect(closestBuildId('9.8.20260428-0', ['10.2.20260217-0', '10.2.20260212-0'])).toBeUndefined();
  });
  it('prefers the same shape and stream, then the same stream', () => {
    const mixed = ['10.2.20260217-0', '9.8.20260428-0', '418.94.202605101521-0', '418.94.202604221012-0'];
    expect(closestBuildId('418.94.202604221013-0', mixed)).toBe('418.94.202604221012-0');
    expect(closestBuildId('9.8.20260428-1', mixed)).toBe('9.8.20260428-0');
    expect(closestBuildId('9.6.20250508-0', ['10.2.20260217-0', '418.94.202605101521-0'])).toBe('418.94.202605101521-0');
    expect(closestBuildId('47.999', MAIPO)).toBe('47.246');
  });
  it('a pin that is no build id gets the nearest name of the list', () => {
    expect(closestBuildId('47.24b', MAIPO)).toBe('47.246');
  });
});

describe('build ids from annotations and labels', () => {
  it('reads machine-os from the versions annotation', () => {
    expect(machineOsFromVersions('kubernetes=1.26.1,machine-os=413.92.202305231734-0')).toBe('413.92.202305231734-0');
    expect(machineOsFromVersions('kubernetes=1.26.1')).toBeUndefined();
    expect(machineOsFromVersions(undefined)).toBeUndefined();
  });
  it('reads a build id from labels in ART order', () => {
    expect(buildIdFromLabels({ version: '412.86.202301250001-0', 'org.opencontainers.image.version': '412.86.202301311551-0' })).toBe(
      '412.86.202301311551-0',
    );
    expect(buildIdFromLabels({ version: '412.86.1-0' })).toBe('412.86.1-0');
    expect(buildIdFromLabels(null)).toBeUndefined();
  });
  it("a node image's manifest-list tag names the node image, not its base build", () => {
    const labels = {
      'coreos.build.manifest-list-tag': '4.21-9.6-202602041851-node-image',
      'org.opencontainers.image.version': '9.6.20260204-0',
    };
    expect(buildIdFromLabels(labels)).toBe('9.6.20260204-0');
  });
});
