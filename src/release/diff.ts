/**
 * What changed between two releases (`release info --changes-from OLD NEW`): the machine-os version,
 * component versions, and the images added, removed and changed. Pure: two ReleaseInfo in, a diff out.
 */
import type { ReleaseInfo } from './info.js';
import { digestOf } from '../oci/digest.js';
import { dockerImage } from '../oci/image-stream.js';
import { ANNOTATION_COMMIT } from './references.js';

export interface ReleaseSummary {
  image: string;
  /** The release version (release-metadata), else image-references' metadata.name. */
  name: string;
  /** The list digest for a manifest list, else the manifest digest. */
  digest: string;
}

export interface VersionChange {
  component: string;
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

export interface ReleaseDiff {
  from: ReleaseSummary;
  to: ReleaseSummary;
  /** The machine-os component version on each side (null when a side has none). */
  machineOs: { from: string | null; to: string | null; changed: boolean };
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
  const components: VersionChange[] = [];
  const keys = [...new Set([...oldR.componentVersions.keys(), ...newR.componentVersions.keys()])].sort();
  for (const k of keys) {
    const a = oldR.componentVersions.get(k);
    const b = newR.componentVersions.get(k);
    if (a?.version === b?.version) continue;
    components.push({
      component: k,
      displayName: b?.displayName || a?.displayName || '',
      from: a?.version ?? null,
      to: b?.version ?? null,
    });
  }
  const osFrom = oldR.componentVersions.get('machine-os')?.version ?? null;
  const osTo = newR.componentVersions.get('machine-os')?.version ?? null;

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
    machineOs: { from: osFrom, to: osTo, changed: osFrom !== osTo },
    components,
    images: { added: added.sort(byName), removed: removed.sort(byName), changed: changed.sort(byName), unchanged },
  };
}
