/**
 * `release info --changes-from OLD NEW --changelog DIR` (markdown, or `-o json`) and `--bugs DIR` (`-o name`,
 * `-o json`), as oc 4.13 writes them: the release's header, component versions, new, removed and rebuilt
 * images, then per source repository its merged pull requests with their bug links.
 */
import { goJson } from '../golang/json.js';
import { kubeTime } from '../oc/image-stream.js';
import type { TagReference } from '../oci/image-stream.js';
import { parseImageReference } from '../oci/reference.js';
import { browseUrl, type BugRef } from '../release/bug-refs.js';
import type { ImageChange } from '../release/changes.js';
import type { CodeChangeLog, ContentChanges } from '../release/changelog.js';
import { parseSourceLocation, type MergeCommit, type SourceUrl } from '../release/git-log.js';
import type { ReleaseInfo } from '../release/info.js';
import type { ComponentVersion } from '../release/references.js';
import { ANNOTATION_COMMIT, ANNOTATION_SOURCE_LOCATION } from '../release/references.js';

export interface ChangelogInput {
  from: ReleaseInfo;
  to: ReleaseInfo;
  /** The images that differ (release/changes.ts). */
  images: readonly ImageChange[];
  content: ContentChanges;
  logs: readonly CodeChangeLog[];
}

const FROM_RELEASE = 'release.openshift.io/from-release';

const preferredName = (r: ReleaseInfo) => (r.metadata ? r.metadata.version : (r.references.metadata.name ?? ''));

/** image-references' creationTimestamp as Go's time.Time.String() prints it in UTC. */
function createdText(r: ReleaseInfo): string {
  const t = kubeTime(r.references.metadata.creationTimestamp) ?? '0001-01-01T00:00:00Z';
  return `${t.slice(0, 10)} ${t.slice(11, 19)} +0000 UTC`;
}

/** The same time as encoding/json writes a time.Time. */
const createdJson = (r: ReleaseInfo) => kubeTime(r.references.metadata.creationTimestamp) ?? '0001-01-01T00:00:00Z';

/** oc's label for a component: its display name, else the key with each dash-separated word capitalised. */
export function componentDisplayName(key: string, displayName: string): string {
  if (displayName !== '') return displayName;
  return key
    .split('-')
    .map((p) => (p === '' ? p : p[0]!.toUpperCase() + p.slice(1)))
    .join(' ');
}

/** Text from commit messages may not open HTML in markdown: `<` and `>` become entities. */
const safe = (s: string) => s.replaceAll('<', '&lt;').replaceAll('>', '&gt;');

const ann = (t: TagReference, k: string): string | undefined => t.annotations?.[k] ?? undefined;

function githubOf(t: TagReference): SourceUrl | undefined {
  try {
    const u = parseSourceLocation(ann(t, ANNOTATION_SOURCE_LOCATION) ?? '');
    return u.host === 'github.com' ? u : undefined;
  } catch {
    return undefined;
  }
}

/** The pullspec's digest, else `:tag`-less tag, else the whole; undefined when it does not parse. */
function imageRefOf(pullspec: string): { id?: string; tag?: string; exact: string } | undefined {
  try {
    const r = parseImageReference(pullspec);
    if (r.digest) return { id: r.digest, exact: pullspec };
    if (r.tag) return { tag: r.tag, exact: pullspec };
    return { exact: pullspec };
  } catch {
    return undefined;
  }
}

/** `[name](repo) git [commit](link) `digest`` for the markdown lists of new and rebuilt images. */
function shortDescription(t: TagReference): string {
  if (!t.from) return t.name;
  let name = t.name;
  const gh = githubOf(t);
  if (gh) {
    const commit = ann(t, ANNOTATION_COMMIT);
    name =
      commit !== undefined
        ? `[${name}](https://github.com${gh.path}) git [${commit.slice(0, 8)}](https://github.com${gh.path}/commit/${commit})`
        : `[${name}](https://github.com${gh.path})`;
  }
  const from = t.from.name ?? '';
  const ref = imageRefOf(from);
  if (!ref) return `${name} \`${from}\``;
  if (ref.id) return `${name} \`${ref.id}\``;
  if (ref.tag) return `${name} \`:${ref.tag}\``;
  return `${name} \`${ref.exact}\``;
}

/** The JSON entry of a new or rebuilt image. */
function imageInfo(t: TagReference): Record<string, unknown> {
  const out: Record<string, unknown> = { name: t.name, path: '' };
  if (!t.from) return out;
  const gh = githubOf(t);
  if (gh) {
    const commit = ann(t, ANNOTATION_COMMIT);
    if (commit !== undefined) {
      out.shortCommit = commit.slice(0, 8) || undefined;
      out.commit = commit || undefined;
    }
    out.path = `https://github.com${gh.path}`;
  }
  const from = t.from.name ?? '';
  const ref = imageRefOf(from);
  out.imageRef = (ref ? (ref.id ?? ref.tag ?? ref.exact) : from) || undefined;
  return out;
}

function addedRemoved(images: readonly ImageChange[]): { added: TagReference[]; removed: string[] } {
  return {
    added: images.filter((d) => !d.from && d.to).map((d) => d.to!),
    removed: images.filter((d) => d.from && !d.to).map((d) => d.name),
  };
}

interface ComponentLine {
  name: string;
  version: string;
  from?: string;
}

function componentLines(c: ChangelogInput): ComponentLine[] {
  const to = c.to.componentVersions;
  const from = c.from.componentVersions;
  const same = (a: ComponentVersion, b: ComponentVersion) => a.version === b.version && a.displayName === b.displayName;
  return [...to.keys()].sort().map((key) => {
    const v = to.get(key)!;
    const old = from.get(key);
    const name = componentDisplayName(key, v.displayName);
    return !old || same(old, v) ? { name, version: v.version } : { name, version: v.version, from: old.version };
  });
}

const commitShort = (c: MergeCommit) => c.commit.slice(0, 8);

/** The markdown changelog. */
export function renderChangelogMarkdown(c: ChangelogInput): string {
  const { added, removed } = addedRemoved(c.images);
  const byName = new Map(c.images.map((d) => [d.name, d]));
  let t = `# ${preferredName(c.to)}\n\nCreated: ${createdText(c.to)}\n\nImage Digest: \`${c.to.digest}\`\n\n`;
  const promoted = c.to.references.metadata.annotations?.[FROM_RELEASE];
  if (promoted !== undefined) t += `Promoted from ${promoted}\n\n`;
  t += `\n## Changes from ${preferredName(c.from)}\n\n`;
  const components = componentLines(c);
  if (components.length > 0) {
    t += '### Components\n\n';
    for (const l of components)
      t += l.from === undefined ? `* ${l.name} ${l.version}\n` : `* ${l.name} upgraded from ${l.from} to ${l.version}\n`;
    t += '\n\n';
  }
  if (added.length > 0) t += `### New images\n\n${added.map((x) => `* ${shortDescription(x)}\n`).join('')}\n\n`;
  if (removed.length > 0) t += `### Removed images\n\n${removed.map((x) => `* ${x}\n`).join('')}\n\n`;
  if (c.content.rebuilt.length > 0 || c.content.unexpected.length > 0) {
    t += '### Rebuilt images without code change\n\n';
    for (const n of c.content.rebuilt) t += `* ${shortDescription(byName.get(n)!.to!)}\n`;
    for (const n of c.content.unexpected) t += `* ${n}\n`;
    t += '\n\n';
  }
  for (const log of c.logs) {
    if (!('commits' in log) || log.commits.length === 0) continue;
    const u = log.url;
    const github = u.host === 'github.com';
    const images = log.imagesAffected.join(', ');
    t += github ? `### [${images}](https://github.com${u.path}/tree/${log.to})\n\n` : `### ${images}\n\n`;
    for (const commit of log.commits) {
      t += '*';
      commit.refs.forEach((r, i) => {
        const label = i === 0 && r.source === 'bugzilla' ? `Bug ${r.id}` : r.id;
        t += `${i === 0 ? ' ' : ', '}[${label}](${browseUrl(r)})`;
      });
      if (commit.refs.length > 0) t += ':';
      t += ` ${safe(commit.subject)}`;
      if (commit.pullRequest > 0) t += ` [#${commit.pullRequest}](https://${u.host}${u.path}/pull/${commit.pullRequest})`;
      else if (github) t += ` [${commitShort(commit)}](https://${u.host}${u.path}/commit/${commitShort(commit)})`;
      else t += ` ${commitShort(commit)}`;
      t += '\n';
    }
    t += github
      ? `* [Full changelog](https://${u.host}${u.path}/compare/${log.from}...${log.to})\n\n`
      : `* ${log.repo} from ${log.from.slice(0, 8)} to ${log.to.slice(0, 8)}\n\n`;
    t += '\n';
  }
  return t;
}

const refsOf = (refs: readonly BugRef[], source: BugRef['source']) => {
  const picked = refs.filter((r) => r.source === source);
  return picked.length > 0 ? Object.fromEntries(picked.map((r) => [r.id, browseUrl(r)]).sort(([a], [b]) => (a! < b! ? -1 : 1))) : undefined;
};

/** The `-o json` changelog, oc's ChangeLog object. */
export function renderChangelogJson(c: ChangelogInput): string {
  const { added, removed } = addedRemoved(c.images);
  const byName = new Map(c.images.map((d) => [d.name, d]));
  const side = (r: ReleaseInfo) => ({
    name: preferredName(r),
    created: createdJson(r),
    digest: r.digest,
    promotedFrom: r.references.metadata.annotations?.[FROM_RELEASE] || undefined,
  });
  const nonEmpty = <T>(list: T[]) => (list.length > 0 ? list : undefined);
  const rebuilt = [
    ...c.content.rebuilt.map((n) => imageInfo(byName.get(n)!.to!)),
    ...c.content.unexpected.map((n) => ({ name: n, path: '' })),
  ];
  const updated: Array<Record<string, unknown>> = [];
  for (const log of c.logs) {
    if (!('commits' in log) || log.commits.length === 0) continue;
    const u = log.url;
    const github = u.host === 'github.com';
    const commits = log.commits.map((commit) => {
      const entry: Record<string, unknown> = {
        bugs: refsOf(commit.refs, 'bugzilla'),
        issues: refsOf(commit.refs, 'jira'),
        subject: safe(commit.subject) || undefined,
      };
      if (commit.pullRequest > 0) {
        entry.pullID = commit.pullRequest;
        entry.pullURL = `https://${u.host}${u.path}/pull/${commit.pullRequest}`;
      } else {
        entry.commitID = commitShort(commit) || undefined;
        if (github) entry.commitURL = `https://${u.host}${u.path}/commit/${commitShort(commit)}`;
      }
      entry.commitDate = `${new Date(commit.commitDate * 1000).toISOString().slice(0, 19)}Z`;
      return entry;
    });
    updated.push({
      name: log.imagesAffected.join(', '),
      path: github ? `https://github.com${u.path}/tree/${log.to}` : '',
      commits,
      fullChangeLog: github ? `https://${u.host}${u.path}/compare/${log.from}...${log.to}` : undefined,
    });
  }
  const doc = {
    from: side(c.from),
    to: side(c.to),
    components: nonEmpty(componentLines(c).map((l) => ({ name: l.name, version: l.version, from: l.from || undefined }))),
    newImages: nonEmpty(added.map(imageInfo)),
    removedImages: nonEmpty(removed.map((name) => ({ name, path: '' }))),
    rebuiltImages: nonEmpty(rebuilt),
    updatedImages: nonEmpty(updated),
  };
  return `${goJson(doc)}\n`;
}

/**
 * `--bugs` with `--skip-bug-check`: the ids one a line (`-o name`), or oc's list of `{id, status, priority,
 * summary, source}` with only id and source known (`-o json`; source 0 is Bugzilla, 1 Jira). Nothing at all
 * when there are no bugs.
 */
export function renderBugs(bugs: readonly BugRef[], format: 'name' | 'json'): string {
  if (bugs.length === 0) return '';
  if (format === 'name') return bugs.map((b) => `${b.id}\n`).join('');
  return `${goJson(bugs.map((b) => ({ id: b.id, status: '', priority: '', summary: '', source: b.source === 'bugzilla' ? 0 : 1 })))}\n`;
}
