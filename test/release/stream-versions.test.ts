/**
 * Component versions per OS stream, as units: which stream a tag's versions belong to, the
 * warnings of `release info` (only within one stream), the lines of `Component Versions`, and the diff.
 */
import { describe, expect, test } from 'vitest';
import { parseImageReferences, type ImageStream } from '../../src/oci/image-stream.js';
import { renderDiff } from '../../src/output/release-diff-view.js';
import { diffReleases } from '../../src/release/diff.js';
import type { ReleaseInfo } from '../../src/release/info.js';
import { imageReferences } from '../helpers/oci-builder.js';
import { componentVersions, streamVersionList, versionLabel, versionStream } from '../../src/release/references.js';

const stream = (tags: Record<string, string>): ImageStream =>
  parseImageReferences(
    Buffer.from(
      imageReferences(
        'x',
        Object.entries(tags).map(([name, versions]) => ({ name, annotations: { 'io.openshift.build.versions': versions } })),
      ),
    ),
  );

describe('versionStream', () => {
  test.each([
    ['rhel-coreos-10', 'rhel-10'],
    ['rhel-coreos-10-extensions', 'rhel-10'],
    ['rhel-coreos', ''],
    ['rhel-coreos-8', ''],
    ['rhel-coreos-8-extensions', ''],
    ['machine-os-content', ''],
    ['cli', ''],
  ])('%s → %j', (tag, want) => {
    expect(versionStream(tag)).toBe(want);
  });

  test('labels', () => {
    expect(versionLabel('machine-os', '')).toBe('machine-os');
    expect(versionLabel('machine-os', 'rhel-10')).toBe('machine-os (rhel-10)');
  });
});

describe('componentVersions per stream', () => {
  test('two streams, each consistent: no warning; the default stream stays in versions', () => {
    const cv = componentVersions(
      stream({
        'machine-os-content': 'machine-os=418.94.202605101521-0',
        'rhel-coreos': 'machine-os=418.94.202605101521-0',
        'rhel-coreos-10': 'machine-os=10.2.20260217-0',
        'rhel-coreos-10-extensions': 'machine-os=10.2.20260217-0',
        hyperkube: 'kubernetes=1.35.1',
      }),
    );
    expect(cv.warnings).toEqual([]);
    expect(Object.fromEntries([...cv.versions].map(([k, v]) => [k, v.version]))).toEqual({
      kubernetes: '1.35.1',
      'machine-os': '418.94.202605101521-0',
    });
    expect([...cv.streams.keys()]).toEqual(['rhel-10']);
    expect(cv.streams.get('rhel-10')?.get('machine-os')?.version).toBe('10.2.20260217-0');
    expect(streamVersionList(cv.versions, cv.streams).map((v) => `${versionLabel(v.component, v.stream)}=${v.version}`)).toEqual([
      'kubernetes=1.35.1',
      'machine-os=418.94.202605101521-0',
      'machine-os (rhel-10)=10.2.20260217-0',
    ]);
  });

  test('a conflict within a stream still warns, naming the stream; the lowest is kept', () => {
    const cv = componentVersions(
      stream({
        'rhel-coreos': 'machine-os=418.94.202605101521-0',
        'rhel-coreos-10': 'machine-os=10.2.20260301-0',
        'rhel-coreos-10-extensions': 'machine-os=10.2.20260217-0',
      }),
    );
    expect(cv.warnings).toEqual([
      {
        code: 'multiple-versions',
        message: 'multiple versions or display names reported for the following component(s): machine-os (rhel-10)',
      },
    ]);
    expect(cv.streams.get('rhel-10')?.get('machine-os')?.version).toBe('10.2.20260217-0');
  });

  test('a legacy 4.12 payload (machine-os-content and rhel-coreos-8 disagreeing) warns as before', () => {
    const cv = componentVersions(
      stream({ 'machine-os-content': 'machine-os=412.86.202301250001-0', 'rhel-coreos-8': 'machine-os=412.86.202302010001-0' }),
    );
    expect(cv.warnings.map((w) => w.message)).toEqual([
      'multiple versions or display names reported for the following component(s): machine-os',
    ]);
    expect(cv.streams.size).toBe(0);
  });
});

describe('diff per stream', () => {
  const info = (tags: Record<string, string>): ReleaseInfo => {
    const references = stream(tags);
    const cv = componentVersions(references);
    return {
      image: 'x',
      digest: `sha256:${'1'.repeat(64)}`,
      references,
      componentVersions: cv.versions,
      streamVersions: cv.streams,
    } as unknown as ReleaseInfo;
  };

  test('a stream that appears: machineOsStreams from null, a component line with its stream', () => {
    const d = diffReleases(
      info({ 'rhel-coreos': 'machine-os=418.94.202605101521-0' }),
      info({ 'rhel-coreos': 'machine-os=418.94.202605101521-0', 'rhel-coreos-10': 'machine-os=10.2.20260217-0' }),
    );
    expect(d.machineOs).toEqual({ from: '418.94.202605101521-0', to: '418.94.202605101521-0', changed: false });
    expect(d.machineOsStreams).toEqual([{ stream: 'rhel-10', from: null, to: '10.2.20260217-0', changed: true }]);
    expect(d.components).toEqual([{ component: 'machine-os', stream: 'rhel-10', displayName: '', from: null, to: '10.2.20260217-0' }]);
    const text = renderDiff(d);
    expect(text).toContain('Machine OS: 418.94.202605101521-0 (unchanged)\nMachine OS (rhel-10): <none> -> 10.2.20260217-0\n');
    expect(text).toContain('\nComponent Versions:\n  machine-os (rhel-10) <none> -> 10.2.20260217-0\n');
  });

  test('one stream on both sides: no stream lines, components without a stream', () => {
    const d = diffReleases(
      info({ 'rhel-coreos': 'machine-os=418.94.202605101521-0' }),
      info({ 'rhel-coreos': 'machine-os=418.94.202605111200-0' }),
    );
    expect(d.machineOsStreams).toEqual([]);
    expect(d.components).toEqual([
      { component: 'machine-os', stream: null, displayName: '', from: '418.94.202605101521-0', to: '418.94.202605111200-0' },
    ]);
    expect(renderDiff(d)).not.toContain('Machine OS (');
  });
});
