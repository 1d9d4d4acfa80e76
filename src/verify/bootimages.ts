/**
 * The bootimage-stream half of `verify`: does the payload's coreos-bootimages (the stream the installer boots
 * new machines from, and the machine-config-operator's boot-image controller reads) name the pinned build for
 * the pinned arch? The default OS stream is `data.stream`; another is `data.streams[NAME]`.
 */
import { describe } from '../errors.js';
import { BOOTIMAGES_MANIFEST, buildsForArch, parseBootimages, type ReleaseBootimages } from '../release/bootimages.js';

export type BootimagesVerdict = 'consistent' | 'differs' | 'absent';

export interface BootimagesReport {
  verdict: BootimagesVerdict;
  /** The stream's build for the arch (several joined with `, ` when its platforms disagree); null when unknown. */
  streamBuild: string | null;
  pinnedBuild: string;
  arch: string;
  /** Which stream was read: `data.stream`, or `data.streams[NAME]`; null when none was. */
  stream: string | null;
}

export interface BootimagesQuestion {
  /** The ConfigMap's bytes, undefined when the release does not carry it. */
  file: Buffer | undefined;
  /** Where the file came from, for messages. */
  where: string;
  /** The OS stream verified (--os-stream), undefined for the default. */
  osStream: string | undefined;
  /** Whether that OS stream is the release's default (then `data.stream` is read). */
  isDefault: boolean;
  arch: string;
  pinnedBuild: string;
}

/** The verdict, with notes for what could not be read. */
export function compareBootimages(q: BootimagesQuestion, notes: string[]): BootimagesReport {
  const report = { pinnedBuild: q.pinnedBuild, arch: q.arch };
  const absent = (stream: string | null = null): BootimagesReport => ({ ...report, verdict: 'absent', streamBuild: null, stream });
  if (q.file === undefined) return absent();
  let parsed: ReleaseBootimages;
  try {
    parsed = parseBootimages(q.file, q.where);
  } catch (err) {
    notes.push(`could not read the payload's ${BOOTIMAGES_MANIFEST}: ${describe(err)}`);
    return absent();
  }
  let doc: unknown;
  let stream: string;
  if (q.osStream === undefined || q.isDefault) {
    doc = JSON.parse(parsed.stream);
    stream = 'data.stream';
  } else {
    stream = `data.streams[${q.osStream}]`;
    if (!parsed.streams || !Object.hasOwn(parsed.streams, q.osStream)) {
      const have = Object.keys(parsed.streams ?? {}).sort();
      notes.push(
        `the payload's ${BOOTIMAGES_MANIFEST} has no bootimage stream for OS stream ${q.osStream} (${have.length ? `it has ${have.join(', ')}` : 'it has data.stream only'})`,
      );
      return absent();
    }
    doc = parsed.streams[q.osStream];
  }
  const builds = buildsForArch(doc as Parameters<typeof buildsForArch>[0], q.arch);
  if (builds === undefined || builds.length === 0) {
    notes.push(`the payload's bootimage stream (${stream}) has no ${q.arch} build: the installer has no bootimage to boot for ${q.arch}`);
    return { ...report, verdict: 'differs', streamBuild: null, stream };
  }
  const same = builds.length === 1 && builds[0] === q.pinnedBuild;
  return { ...report, verdict: same ? 'consistent' : 'differs', streamBuild: builds.join(', '), stream };
}
