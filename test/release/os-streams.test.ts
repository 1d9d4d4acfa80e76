/** The OS image streams of a release, without a registry: candidates, grouping, dropping, the default stream. */
import { describe, expect, test } from 'vitest';
import { parseImageReferences } from '../../src/oci/image-stream.js';
import { candidateTags, defaultStreamOf, discoverOsStreams } from '../../src/release/os-streams.js';
import { imageReferences, type TagSpec } from '../helpers/oci-builder.js';

const at = (c: string) => `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${c.repeat(64)}`;
const os = (stream: string) => ({ 'io.openshift.os.streamclass': stream, 'containers.bootc': 'true' });
const ext = (stream: string) => ({ 'io.openshift.os.streamclass': stream, 'io.openshift.os.extensions': 'true' });

/** A release `version` with these tags → labels; a fetcher that answers from the map and counts calls. */
function fixture(version: string, tags: Array<TagSpec & { labels?: Record<string, string> }>) {
  const is = parseImageReferences(Buffer.from(imageReferences(version, tags)));
  const byPullspec = new Map(tags.map((t) => [t.pullspec!, t.labels ?? {}]));
  const asked: string[] = [];
  let running = 0;
  let most = 0;
  const fetch = async (pullspec: string) => {
    asked.push(pullspec);
    running++;
    most = Math.max(most, running);
    await new Promise((r) => setTimeout(r, 5));
    running--;
    return byPullspec.get(pullspec) ?? {};
  };
  return { is, fetch, asked, most: () => most };
}

const TWO_STREAMS = [
  { name: 'cli', pullspec: at('1') },
  { name: 'rhel-coreos', pullspec: at('2'), labels: os('rhel-9') },
  { name: 'rhel-coreos-extensions', pullspec: at('3'), labels: ext('rhel-9') },
  { name: 'rhel-coreos-10', pullspec: at('4'), labels: os('rhel-10') },
  { name: 'rhel-coreos-10-extensions', pullspec: at('5'), labels: ext('rhel-10') },
];

describe('candidates', () => {
  test('by name pattern or by the openshift/os source location; never other tags', () => {
    const { is } = fixture('4.21.0', [
      { name: 'cli', pullspec: at('1') },
      { name: 'rhel-coreos', pullspec: at('2') },
      { name: 'stream-coreos-extensions', pullspec: at('3') },
      { name: 'rhel-coreos-10-extensions', pullspec: at('4') },
      { name: 'node-os', pullspec: at('5'), annotations: { 'io.openshift.build.source-location': 'https://github.com/openshift/os' } },
      { name: 'machine-os-content', pullspec: at('6') },
      { name: 'coreos-rhel', pullspec: at('7') },
    ]);
    expect(candidateTags(is).map((c) => c.tag.name)).toEqual([
      'node-os',
      'rhel-coreos',
      'rhel-coreos-10-extensions',
      'stream-coreos-extensions',
    ]);
  });

  test("the MCO's name pattern, edge by edge; a hostile name is answered in one pass", () => {
    const names = ['rhelx-coreos', 'stream.9-coreos.1', 'rhel-coreo', 'rhel', 'rhel_coreos', 'rhel-coreos!', 'xrhel-coreos', 'rhel-ext'];
    // 1,600 overlapping `-coreos-extensions` then a character outside the pattern: a backtracking regex takes
    // minutes here; the check is linear.
    const hostile = `rhel${'-coreos-extensions'.repeat(1600)}!`;
    const { is } = fixture(
      '4.21.0',
      [...names, hostile].map((name, i) => ({ name, pullspec: at(String((i % 9) + 1)) })),
    );
    expect(candidateTags(is).map((c) => c.tag.name)).toEqual(['rhelx-coreos', 'stream.9-coreos.1']);
  });
});

describe('grouping and dropping', () => {
  test('two complete streams, grouped by the streamclass label; 4.x defaults to rhel-9', async () => {
    const f = fixture('4.21.0', TWO_STREAMS);
    const r = await discoverOsStreams(f.is, f.fetch);
    expect(r.defaultStream).toBe('rhel-9');
    expect(r.streams).toEqual([
      { name: 'rhel-10', osImage: at('4'), osTag: 'rhel-coreos-10', extensionsImage: at('5'), extensionsTag: 'rhel-coreos-10-extensions' },
      { name: 'rhel-9', osImage: at('2'), osTag: 'rhel-coreos', extensionsImage: at('3'), extensionsTag: 'rhel-coreos-extensions' },
    ]);
    expect(r.dropped).toEqual([]);
    expect(f.asked).not.toContain(at('1'));
    expect(f.asked).toHaveLength(4);
  });

  test('configs are read concurrently, at most 4 at a time', async () => {
    const many = Array.from({ length: 10 }, (_, i) => ({ name: `rhel-coreos-x${i}`, pullspec: at(String(i)) }));
    const f = fixture('4.21.0', many);
    await discoverOsStreams(f.is, f.fetch);
    expect(f.asked).toHaveLength(10);
    expect(f.most()).toBe(4);
  });

  test('a stream lacking its extensions or its OS image is dropped; unlabelled and neither-kind images are ignored', async () => {
    const f = fixture('4.21.0', [
      ...TWO_STREAMS.slice(0, 3),
      { name: 'rhel-coreos-10', pullspec: at('4'), labels: os('rhel-10') },
      { name: 'stream-coreos-extensions', pullspec: at('6'), labels: ext('centos-10') },
      { name: 'rhel-coreos-11', pullspec: at('7'), labels: { 'io.openshift.os.streamclass': 'rhel-11' } },
      { name: 'rhel-coreos-12', pullspec: at('8'), labels: { 'containers.bootc': '1' } },
    ]);
    const r = await discoverOsStreams(f.is, f.fetch);
    expect(r.streams.map((s) => s.name)).toEqual(['rhel-9']);
    expect(r.dropped).toEqual([
      { name: 'centos-10', missing: 'os', tag: 'stream-coreos-extensions' },
      { name: 'rhel-10', missing: 'extensions', tag: 'rhel-coreos-10' },
    ]);
    expect(r.defaultStream).toBe('rhel-9');
  });

  test('`containers.bootc: 1` and `true` both mark an OS image; a second OS image for a stream is a note', async () => {
    const f = fixture('4.21.0', [...TWO_STREAMS.slice(1, 3), { name: 'rhel-coreos-9', pullspec: at('9'), labels: os('rhel-9') }]);
    const r = await discoverOsStreams(f.is, f.fetch);
    expect(r.streams).toHaveLength(1);
    expect(r.streams[0]!.osTag).toBe('rhel-coreos');
    expect(r.notes).toEqual(['tags rhel-coreos and rhel-coreos-9 are both the os image of stream rhel-9; rhel-coreos is used']);
  });

  test('a failed read fails the whole', async () => {
    const f = fixture('4.21.0', TWO_STREAMS);
    await expect(
      discoverOsStreams(f.is, async () => {
        throw new Error('unreachable');
      }),
    ).rejects.toThrow('unreachable');
  });
});

describe('the default stream', () => {
  test('a single stream is the default, whatever the version', () => {
    expect(defaultStreamOf(['rhel-10'], '4.21.0').name).toBe('rhel-10');
    expect(defaultStreamOf(['rhel-9'], '5.0.0').name).toBe('rhel-9');
  });
  test('OKD: centos-10 and no rhel-* stream', () => {
    expect(defaultStreamOf(['centos-10', 'centos-9'], '4.21.0-okd-scos.0').name).toBe('centos-10');
  });
  test('OCP 4.x → rhel-9, 5.x and later → rhel-10', () => {
    expect(defaultStreamOf(['rhel-10', 'rhel-9'], '4.21.0').name).toBe('rhel-9');
    expect(defaultStreamOf(['rhel-10', 'rhel-9'], '5.0.0-ec.1').name).toBe('rhel-10');
    expect(defaultStreamOf(['rhel-10', 'rhel-9'], '6.1.0').name).toBe('rhel-10');
    expect(defaultStreamOf(['centos-10', 'rhel-10'], '5.0.0').name).toBe('rhel-10');
  });
  test('a default not among the streams, an unreadable version, or no stream at all: null, with the reason', () => {
    expect(defaultStreamOf(['rhel-10', 'centos-10'], '4.21.0')).toEqual({
      name: null,
      note: 'the default stream for version 4.21.0 would be rhel-9, which the release does not ship',
    });
    expect(defaultStreamOf(['rhel-10', 'rhel-9'], 'latest').name).toBeNull();
    expect(defaultStreamOf([], '4.21.0')).toEqual({ name: null, note: 'the release ships no complete OS image stream' });
  });
  test("the release's own version is image-references' name", async () => {
    const f = fixture('5.0.0', TWO_STREAMS);
    expect((await discoverOsStreams(f.is, f.fetch)).defaultStream).toBe('rhel-10');
    const none = fixture('5.0.0', [{ name: 'cli', pullspec: at('1') }]);
    expect(await discoverOsStreams(none.is, none.fetch)).toEqual({
      defaultStream: null,
      streams: [],
      dropped: [],
      notes: ['the release ships no complete OS image stream'],
    });
  });
});
