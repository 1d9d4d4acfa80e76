/**
 * `release info --changes-from OLD NEW` (and `release info OLD NEW`) as text, laid out as oc 4.13 lays it out:
 * a FROM/TO table (name, age, platform when it differs, version and whether NEW upgrades from OLD), then the
 * images changed (a new source commit), rebuilt (the same or no commit), added and removed. Go's tabwriter
 * with two spaces of padding for the table and one inside each images section.
 */
import { digestOf } from '../oci/digest.js';
import type { TagReference } from '../oci/image-stream.js';
import { createdAge, type SourceRef, sourceChange, sourceOf } from '../oc/changes.js';
import type { ImageChange, ReleaseChanges } from '../release/changes.js';
import type { ReleaseInfo } from '../release/info.js';
import { ANNOTATION_COMMIT, ANNOTATION_SOURCE_LOCATION } from '../release/references.js';
import { tabwrite } from './release-view.js';

export interface ChangesViewOptions {
  /** `--commits`: source links instead of digests. */
  commits: boolean;
  /** The clock the ages are measured against. */
  now: Date;
}

/** The release's version (release-metadata), else its image-references name, as oc names a release. */
const preferredName = (r: ReleaseInfo) => (r.metadata ? r.metadata.version : (r.references.metadata.name ?? ''));

const annotation = (tag: TagReference, key: string): string => {
  const v = tag.annotations?.[key];
  return typeof v === 'string' ? v : '';
};
const source = (tag: TagReference): SourceRef => ({
  repo: annotation(tag, ANNOTATION_SOURCE_LOCATION),
  commit: annotation(tag, ANNOTATION_COMMIT),
});

/** A new source commit on both sides: changed; else (the same commit, or one side without one) rebuilt. */
const codeChanged = (from: TagReference, to: TagReference) => {
  const [a, b] = [annotation(from, ANNOTATION_COMMIT), annotation(to, ANNOTATION_COMMIT)];
  return a !== '' && b !== '' && a !== b;
};

const pullspec = (tag: TagReference) => tag.from?.name ?? '';
const digestOrRef = (tag: TagReference) => digestOf(pullspec(tag)) ?? pullspec(tag);

export function renderChanges(c: ReleaseChanges, o: ChangesViewOptions): string {
  const { from, to } = c;
  if (from.digest === to.digest) return 'Releases are identical\n';
  let t = '\tFROM\tTO\n';
  t += `Name:\t${preferredName(from)}\t${preferredName(to)}\n`;
  t += `Created:\t${createdAge(from.config.created, o.now)}\t${createdAge(to.config.created, o.now)}\n`;
  if (from.platform !== to.platform) t += `OS/Arch:\t${from.platform}\t${to.platform}\n`;
  if (from.metadata && to.metadata) {
    t += `\nVersion:\t${from.metadata.version}\t${to.metadata.version}\n`;
    t += `Upgrade From:\t\t${(to.metadata.previous ?? []).includes(from.metadata.version) ? 'Yes' : 'No'}\n`;
  } else if (from.metadata) {
    t += 'Has Release Metadata:\tYes\t\n';
  } else if (to.metadata) {
    t += 'Has Release Metadata:\t\tYes\n';
  }
  if (c.images.length > 0) t += imageSections(c.images, o.commits);
  return tabwrite(`${t}\n`, 2);
}

/**
 * The four images sections, each laid out on its own. Names are padded to the longest changed name (in bytes,
 * as oc pads them), so the removed section's lines end in spaces as oc's do. A tag whose pullspec changed but
 * whose digest did not (a moved repository) counts for its section's heading but gets no line, as in oc.
 */
function imageSections(images: readonly ImageChange[], commits: boolean): string {
  const width = Math.max(...images.map((i) => Buffer.byteLength(i.name)));
  const justify = (s: string) => s + ' '.repeat(width - Buffer.byteLength(s));
  const both = images.filter((i): i is ImageChange & { from: TagReference; to: TagReference } => i.from !== null && i.to !== null);
  const changedLine = (i: ImageChange & { from: TagReference; to: TagReference }) => {
    const [a, b] = [digestOrRef(i.from), digestOrRef(i.to)];
    if (a === b) return '';
    return commits ? `  ${justify(i.name)}\t${sourceChange(source(i.from), source(i.to))}\n` : `  ${justify(i.name)}\t${a}\t${b}\n`;
  };
  const section = (title: string, lines: string[]) => (lines.length > 0 ? tabwrite(`\n${title}:\n${lines.join('')}`) : '');

  let t = section('Images Changed', both.filter((i) => codeChanged(i.from, i.to)).map(changedLine));
  t += section('Images Rebuilt', both.filter((i) => !codeChanged(i.from, i.to)).map(changedLine));
  t += section(
    'Images Added',
    images
      .filter((i): i is ImageChange & { to: TagReference } => i.from === null && i.to !== null)
      .map((i) => `  ${justify(i.name)}\t${commits ? sourceOf(source(i.to)) : digestOrRef(i.to)}\n`),
  );
  t += section(
    'Images Removed',
    images.filter((i) => i.to === null).map((i) => `  ${justify(i.name)}\n`),
  );
  return t;
}
