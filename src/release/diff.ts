/**
 * What changed between two releases, osimage's report (`release diff OLD NEW`): the machine-os version (of each
 * OS stream), component versions, and the images added, removed and changed. Pure: two ReleaseInfo in, a diff out.
 * oc's own comparison (`release info --changes-from`) is release/changes.ts.
 */
import type { ReleaseInfo } from './info.js';
import { digestOf } from '../oci/digest.js';
import { dockerImage } from '../oci/image-stream.js';
import { ANNOTATION_COMMIT, byComponentAndStream, DEFAULT_STREAM, MACHINE_OS, streamVersionList } from './references.js';

export interface ReleaseSummary {
  image: string;
  /** The release version (release-metadata), else image-references' metadata.name. */
  name: string;
  /** The list digest for a manifest list, else the manifest digest. */
  digest: string;
}

export interface VersionChange {
  component: string;
  /** The OS stream (`rhel-10`) whose images carry the component; null for the default stream. */
  stream: string | null;
  displayName: string;
  /** null when the component is new in NEW. */
  from: string | null;
  /** null when the component is gone from NEW. */
  to: string | null;
}

export interface ImageEntry {
  name: string;
  pullspec: string;
  digest: string | null;
}

export interface ImageChange {
  name: string;
  from: string;
  to: string;
  fromDigest: string | null;
  toDigest: string | null;
  /** false when only the repository moved: the same digest under another name. */
  digestChanged: boolean;
  /** true when both sides name the same non-empty source commit: a rebuild, not a code change. */
  rebuilt: boolean;
}

/** The machine-os version of one OS stream on each side (null when a side has none). */
export interface MachineOsChange {
  from: string | null;
  to: string | null;
  changed: boolean;
}

export interface ReleaseDiff {
  from: ReleaseSummary;
  to: ReleaseSummary;
  /** The machine-os component version on each side (null when a side has none). */
  machineOs: MachineOsChange;
  /** The machine-os version of each other OS stream either side ships (`rhel-10`), sorted by stream. */
  machineOsStreams: Array<MachineOsChange & { stream: string }>;
  /** Components whose version changed, appeared or disappeared, sorted by name. */
  components: VersionChange[];
  images: { added: ImageEntry[]; removed: ImageEntry[]; changed: ImageChange[]; unchanged: number };
}

function summary(r: ReleaseInfo): ReleaseSummary {
  return { image: r.image, name: r.metadata?.version || r.references.metadata.name || '', digest: r.listDigest ?? r.digest };
}

/** DockerImage tags by name (the first of a repeated name wins, as --image-for does). */
function imagesOf(r: ReleaseInfo): Map<string, { pullspec: string; commit: string }> {
  const out = new Map<string, { pullspec: string; commit: string }>();
  for (const tag of r.references.spec.tags ?? []) {
    const pullspec = dockerImage(tag);
    if (pullspec && !out.has(tag.name)) out.set(tag.name, { pullspec, commit: tag.annotations?.[ANNOTATION_COMMIT] ?? '' });
  }
  return out;
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function diffReleases(oldR: ReleaseInfo, newR: ReleaseInfo): ReleaseDiff {
  const key = (v: { stream: string; component: string }) => `${v.stream}\0${v.component}`;
  const oldVersions = new Map(streamVersionList(oldR.componentVersions, oldR.streamVersions).map((v) => [key(v), v]));
  const newVersions = new Map(streamVersionList(newR.componentVersions, newR.streamVersions).map((v) => [key(v), v]));
  const pairs = new Map([...oldVersions, ...newVersions]);
  const components: VersionChange[] = [];
  const machineOsStreams: ReleaseDiff['machineOsStreams'] = [];
  let machineOs: MachineOsChange = { from: null, to: null, changed: false };
  for (const p of [...pairs.values()].sort(byComponentAndStream)) {
    const a = oldVersions.get(key(p));
    const b = newVersions.get(key(p));
    const [from, to] = [a?.version ?? null, b?.version ?? null];
    if (p.component === MACHINE_OS) {
      if (p.stream === DEFAULT_STREAM) machineOs = { from, to, changed: from !== to };
      else machineOsStreams.push({ stream: p.stream, from, to, changed: from !== to });
    }
    if (from === to) continue;
    components.push({
      component: p.component,
      stream: p.stream === DEFAULT_STREAM ? null : p.stream,
      displayName: b?.displayName || a?.displayName || '',
      from,
      to,
    });
  }

  const oldImages = imagesOf(oldR);
  const newImages = imagesOf(newR);
  const added: ImageEntry[] = [];
  const removed: ImageEntry[] = [];
  const changed: ImageChange[] = [];
  let unchanged = 0;
  for (const [name, n] of newImages) {
    const o = oldImages.get(name);
    if (!o) {
      added.push({ name, pullspec: n.pullspec, digest: digestOf(n.pullspec) ?? null });
      continue;
    }
    if (o.pullspec === n.pullspec) {
      unchanged++;
      continue;
    }
    const fromDigest = digestOf(o.pullspec) ?? null;
    const toDigest = digestOf(n.pullspec) ?? null;
    const digestChanged = fromDigest === null || toDigest === null || fromDigest !== toDigest;
    changed.push({
      name,
      from: o.pullspec,
      to: n.pullspec,
      fromDigest,
      toDigest,
      digestChanged,
      rebuilt: digestChanged && o.commit !== '' && o.commit === n.commit,
    });
  }
  for (const [name, o] of oldImages) {
    if (!newImages.has(name)) removed.push({ name, pullspec: o.pullspec, digest: digestOf(o.pullspec) ?? null });
  }
  return {
    from: summary(oldR),
    to: summary(newR),
    machineOs,
    machineOsStreams,
    components,
    images: { added: added.sort(byName), removed: removed.sort(byName), changed: changed.sort(byName), unchanged },
  };
}
