/**
 * The model and views of `release info --changelog / --bugs`: which changed images are code changes (grouped by
 * repository and commit range), rebuilds or unreadable, and the markdown and JSON oc writes from them. The
 * git side is git-log.test.ts; byte-for-byte agreement with oc 4.13 is the infoflag-changelog / -bugs pairs
 * of test/oc/side-by-side.test.ts.
 */
import { describe, expect, test } from 'vitest';
import type { TagReference } from '../../src/oci/image-stream.js';
import { componentDisplayName, renderBugs, renderChangelogJson, renderChangelogMarkdown } from '../../src/output/info-changelog-view.js';
import { bugsOf, contentChanges, type CodeChangeLog } from '../../src/release/changelog.js';
import { calculateChanges } from '../../src/release/changes.js';
import type { ReleaseInfo } from '../../src/release/info.js';

const at = (c: string, repo = 'quay.io/ocp/art') => `${repo}@sha256:${c.repeat(64).slice(0, 64)}`;
const tag = (name: string, pullspec: string, location?: string, commit?: string): TagReference => ({
  name,
  annotations: {
    ...(location !== undefined ? { 'io.openshift.build.source-location': location } : {}),
    ...(commit !== undefined ? { 'io.openshift.build.commit.id': commit } : {}),
  },
  from: { kind: 'DockerImage', name: pullspec },
});

function release(name: string, digest: string, tags: TagReference[], versions: Record<string, [string, string]> = {}): ReleaseInfo {
  return {
    image: `quay.io/ocp/release:${name}`,
    digest,
    references: {
      kind: 'ImageStream',
      apiVersion: 'image.openshift.io/v1',
      metadata: { name, creationTimestamp: '2023-05-25T08:25:20Z', annotations: {} },
      spec: { tags },
    },
    componentVersions: new Map(Object.entries(versions).map(([k, [version, displayName]]) => [k, { version, displayName }])),
  } as unknown as ReleaseInfo;
}

const GH = 'https://github.com/openshift/';
const OLD = release(
  '4.13.0',
  at('0', ''),
  [
    tag('a', at('1'), `${GH}x`, '1'.repeat(40)),
    tag('a-tests', at('2'), `${GH}x`, '1'.repeat(40)),
    tag('moved', at('3'), `${GH}old`, '3'.repeat(40)),
    tag('rebuilt', at('4'), `${GH}r`, '4'.repeat(40)),
    tag('relocated', at('5'), `${GH}l`, '5'.repeat(40)),
    tag('no-commit', at('6'), `${GH}n`),
    tag('bad', 'not a pullspec!'),
    tag('gone', at('7')),
    tag('no-repo', at('8'), '', '8'.repeat(40)),
  ],
  { kubectl: ['1.26.1', ''], 'machine-os': ['1.0', 'RHCOS'] },
);
const NEW = release(
  '4.13.1',
  at('f', ''),
  [
    tag('a', at('a1'), `${GH}x`, '2'.repeat(40)),
    tag('a-tests', at('a2'), `${GH}x`, '2'.repeat(40)),
    tag('moved', at('a3'), `${GH}new`, '4'.repeat(40)),
    tag('rebuilt', at('a4'), `${GH}r`, '4'.repeat(40)),
    tag('relocated', at('5', 'mirror.example.com/ocp/art'), `${GH}l`, '5'.repeat(40)),
    tag('no-commit', at('a6'), `${GH}n`),
    tag('bad', 'still not a pullspec!'),
    tag('added', 'quay.io/ocp/art:latest', `${GH}added`, 'abc'),
    tag('no-repo', at('a8'), '', '9'.repeat(40)),
  ],
  { kubectl: ['1.26.3', ''], 'machine-os': ['1.0', 'RHCOS'], 'new-thing': ['2.0', ''] },
);

describe('contentChanges', () => {
  const content = contentChanges(calculateChanges(OLD, NEW).images);
  test('one code change per repository and range, naming every image built from it; a moved repository is an alternate', () => {
    expect(content.codeChanges).toEqual([
      { repo: `${GH}x`, from: '1'.repeat(40), to: '2'.repeat(40), alternateRepos: [], imagesAffected: ['a', 'a-tests'] },
      { repo: `${GH}new`, from: '3'.repeat(40), to: '4'.repeat(40), alternateRepos: [`${GH}old`], imagesAffected: ['moved'] },
    ]);
  });
  test('the same commit (or none) with another digest is a rebuild; the same digest elsewhere is no change; an unreadable pullspec is listed apart', () => {
    expect(content.rebuilt).toEqual(['no-commit', 'rebuilt']);
    expect(content.unexpected).toEqual(['bad']);
  });
});

const LOGS: CodeChangeLog[] = [
  {
    repo: `${GH}x`,
    from: '1'.repeat(40),
    to: '2'.repeat(40),
    alternateRepos: [],
    imagesAffected: ['a', 'a-tests'],
    url: { scheme: 'https', host: 'github.com', path: '/openshift/x' },
    commits: [
      {
        commitDate: 1_685_000_000,
        commit: 'abcdef0123456789',
        parents: [],
        pullRequest: 12,
        refs: [
          { id: '1', source: 'bugzilla' },
          { id: 'OCPBUGS-2', source: 'jira' },
        ],
        subject: 'Fix <html> & more',
      },
    ],
  },
  {
    repo: 'file:///srv/git/y.git',
    from: '3'.repeat(40),
    to: '4'.repeat(40),
    alternateRepos: [],
    imagesAffected: ['y'],
    url: { scheme: 'file', host: '', path: '/srv/git/y.git' },
    commits: [
      { commitDate: 0, commit: '0123456789', parents: [], pullRequest: 3, refs: [{ id: 'MCO-1', source: 'jira' }], subject: 'Feature' },
    ],
  },
  { repo: `${GH}z`, from: '5', to: '6', alternateRepos: [], imagesAffected: ['z'], error: 'exit status 128' },
];

describe('views', () => {
  const input = {
    from: OLD,
    to: NEW,
    images: calculateChanges(OLD, NEW).images,
    content: contentChanges(calculateChanges(OLD, NEW).images),
    logs: LOGS,
  };

  test('markdown: components, new, removed and rebuilt images, then each repository with links where it is on GitHub', () => {
    const md = renderChangelogMarkdown(input);
    expect(
      md.startsWith(
        `# 4.13.1\n\nCreated: 2023-05-25 08:25:20 +0000 UTC\n\nImage Digest: \`${at('f', '')}\`\n\n\n## Changes from 4.13.0\n\n`,
      ),
    ).toBe(true);
    expect(md).toContain('### Components\n\n* Kubectl upgraded from 1.26.1 to 1.26.3\n* RHCOS 1.0\n* New Thing 2.0\n\n\n');
    expect(md).toContain(
      '### New images\n\n* [added](https://github.com/openshift/added) git [abc](https://github.com/openshift/added/commit/abc) `:latest`\n\n\n',
    );
    expect(md).toContain('### Removed images\n\n* gone\n\n\n');
    expect(md).toContain(
      '### Rebuilt images without code change\n\n* [no-commit](https://github.com/openshift/n) `sha256:a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6a6`\n',
    );
    expect(md).toContain('* bad\n\n\n');
    expect(md).toContain(
      `### [a, a-tests](https://github.com/openshift/x/tree/${'2'.repeat(40)})\n\n* [Bug 1](https://bugzilla.redhat.com/show_bug.cgi?id=1), [OCPBUGS-2](https://issues.redhat.com/browse/OCPBUGS-2): Fix &lt;html&gt; & more [#12](https://github.com/openshift/x/pull/12)\n* [Full changelog](https://github.com/openshift/x/compare/${'1'.repeat(40)}...${'2'.repeat(40)})\n\n\n`,
    );
    expect(md).toContain(
      '### y\n\n* [MCO-1](https://issues.redhat.com/browse/MCO-1): Feature [#3](https:///srv/git/y.git/pull/3)\n* file:///srv/git/y.git from 33333333 to 44444444\n\n\n',
    );
    expect(md).not.toContain('### z');
  });

  test("JSON: oc's ChangeLog object, empty lists and fields left out", () => {
    const doc = JSON.parse(renderChangelogJson(input));
    expect(doc.from).toEqual({ name: '4.13.0', created: '2023-05-25T08:25:20Z', digest: at('0', '') });
    expect(doc.components).toEqual([
      { name: 'Kubectl', version: '1.26.3', from: '1.26.1' },
      { name: 'RHCOS', version: '1.0' },
      { name: 'New Thing', version: '2.0' },
    ]);
    expect(doc.newImages).toEqual([
      { name: 'added', path: 'https://github.com/openshift/added', shortCommit: 'abc', commit: 'abc', imageRef: 'latest' },
    ]);
    expect(doc.removedImages).toEqual([{ name: 'gone', path: '' }]);
    expect(doc.rebuiltImages.map((i: { name: string }) => i.name)).toEqual(['no-commit', 'rebuilt', 'bad']);
    expect(doc.updatedImages[0]).toEqual({
      name: 'a, a-tests',
      path: `https://github.com/openshift/x/tree/${'2'.repeat(40)}`,
      commits: [
        {
          bugs: { '1': 'https://bugzilla.redhat.com/show_bug.cgi?id=1' },
          issues: { 'OCPBUGS-2': 'https://issues.redhat.com/browse/OCPBUGS-2' },
          subject: 'Fix &lt;html&gt; & more',
          pullID: 12,
          pullURL: 'https://github.com/openshift/x/pull/12',
          commitDate: '2023-05-25T07:33:20Z',
        },
      ],
      fullChangeLog: `https://github.com/openshift/x/compare/${'1'.repeat(40)}...${'2'.repeat(40)}`,
    });
    expect(doc.updatedImages[1]).toEqual(expect.objectContaining({ name: 'y', path: '' }));
    // Go's encoder escapes what HTML would read.
    expect(renderChangelogJson(input)).toContain('"Fix \\u0026lt;html\\u0026gt; \\u0026 more"');
  });

  test('--bugs: each bug once, sorted; Jira issues of other projects are not bugs', () => {
    const bugs = bugsOf(LOGS);
    expect(bugs.map((b) => b.id)).toEqual(['1', 'OCPBUGS-2']);
    expect(renderBugs(bugs, 'name')).toBe('1\nOCPBUGS-2\n');
    expect(JSON.parse(renderBugs(bugs, 'json'))).toEqual([
      { id: '1', status: '', priority: '', summary: '', source: 0 },
      { id: 'OCPBUGS-2', status: '', priority: '', summary: '', source: 1 },
    ]);
    expect(renderBugs([], 'json')).toBe('');
  });

  test("a component without a display name is its key's words, capitalised", () => {
    expect(componentDisplayName('machine-os', '')).toBe('Machine Os');
    expect(componentDisplayName('kubectl', 'Kubernetes CLI')).toBe('Kubernetes CLI');
    expect(componentDisplayName('a--b', '')).toBe('A  B');
  });
});
