/** compareBootimages: the verdicts and notes verify gives for the payload's coreos-bootimages. */
import { describe, expect, test } from 'vitest';
import { compareBootimages } from '../../src/verify/bootimages.js';
import {
  bootimagesYaml,
  RHEL10_BUILD,
  RHEL9_AARCH64_BUILD,
  RHEL9_BUILD,
  RHEL9_STREAM,
  sampleStream,
  TWO_STREAMS,
} from '../helpers/bootimages.js';

const ask = (yaml: string | undefined, more: Partial<Parameters<typeof compareBootimages>[0]> = {}) => {
  const notes: string[] = [];
  const report = compareBootimages(
    {
      file: yaml === undefined ? undefined : Buffer.from(yaml),
      where: 'rel (release-manifests/x.yaml)',
      osStream: undefined,
      isDefault: true,
      arch: 'x86_64',
      pinnedBuild: RHEL9_BUILD,
      ...more,
    },
    notes,
  );
  return { report, notes };
};

describe('compareBootimages', () => {
  test('the default stream, the pinned arch: consistent; another arch at another build: differs', () => {
    expect(ask(bootimagesYaml({ streams: TWO_STREAMS })).report).toEqual({
      verdict: 'consistent',
      streamBuild: RHEL9_BUILD,
      pinnedBuild: RHEL9_BUILD,
      arch: 'x86_64',
      stream: 'data.stream',
    });
    expect(ask(bootimagesYaml({ streams: TWO_STREAMS }), { arch: 'aarch64' }).report).toMatchObject({
      verdict: 'differs',
      streamBuild: RHEL9_AARCH64_BUILD,
    });
  });

  test('another OS stream: data.streams[NAME]', () => {
    const r = ask(bootimagesYaml({ streams: TWO_STREAMS }), { osStream: 'rhel-10', isDefault: false, pinnedBuild: RHEL10_BUILD });
    expect(r.report).toMatchObject({ verdict: 'consistent', streamBuild: RHEL10_BUILD, stream: 'data.streams[rhel-10]' });
  });

  test('an OS stream the file lacks, or no file: absent (with a note for the first)', () => {
    const r = ask(bootimagesYaml({ stream: RHEL9_STREAM }), { osStream: 'rhel-10', isDefault: false });
    expect(r.report.verdict).toBe('absent');
    expect(r.notes).toEqual([
      "the payload's 0000_50_installer_coreos-bootimages.yaml has no bootimage stream for OS stream rhel-10 (it has data.stream only)",
    ]);
    expect(ask(undefined)).toEqual({
      report: { verdict: 'absent', streamBuild: null, pinnedBuild: RHEL9_BUILD, arch: 'x86_64', stream: null },
      notes: [],
    });
  });

  test('a stream without the arch: differs, streamBuild null, with a note', () => {
    const r = ask(bootimagesYaml({ stream: RHEL9_STREAM }), { arch: 's390x' });
    expect(r.report).toMatchObject({ verdict: 'differs', streamBuild: null, arch: 's390x' });
    expect(r.notes[0]).toContain('has no s390x build');
  });

  test('platforms at different builds: differs, both named', () => {
    const s = sampleStream('rhel-9', RHEL9_BUILD) as { architectures: { x86_64: { artifacts: { gcp: { release: string } } } } };
    s.architectures.x86_64.artifacts.gcp.release = '9.6.20251001-0';
    expect(ask(bootimagesYaml({ stream: s })).report).toMatchObject({
      verdict: 'differs',
      streamBuild: `9.6.20251001-0, ${RHEL9_BUILD}`,
    });
  });

  test('a file that is not a bootimages ConfigMap: absent, with a note', () => {
    const r = ask('apiVersion: v1\nkind: ConfigMap\ndata: {}\n');
    expect(r.report.verdict).toBe('absent');
    expect(r.notes[0]).toContain('not a coreos-bootimages ConfigMap (it has no data.stream)');
  });
});
