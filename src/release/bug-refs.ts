/**
 * Bug references at the start of a commit message, read as `oc adm release info --changelog / --bugs` reads
 * them: Bugzilla (`Bug 123: …`, `Bugs 123, 456 - …`) or Jira (`OCPBUGS-12: …`, `ABC-1,DEF-2 - …`), after any
 * `[release-4.13]`-style prefixes. The references are taken off the message; the rest is the subject.
 */

export type RefSource = 'bugzilla' | 'jira';

export interface BugRef {
  id: string;
  source: RefSource;
}

/** Go RE2's `\s`: ASCII whitespace only. */
const S = '[\\t\\n\\f\\r ]';
const BUGZILLA = new RegExp(`^[B|b]ug(?:s)?${S}([\\d\\t\\n\\f\\r ,]+)(?:-|:)${S}*`);
const JIRA = new RegExp(`^([A-Z]+-\\d+[\\t\\n\\f\\r ,]*)+(?:-|:)${S}*`);
const PREFIX = new RegExp(`^(\\[[\\w.\\-]+\\]${S}*)+`);

export const BUGZILLA_BROWSE = 'https://bugzilla.redhat.com/show_bug.cgi?id=';
export const JIRA_BROWSE = 'https://issues.redhat.com/browse/';

/** Where a person reads the bug. */
export function browseUrl(ref: BugRef): string {
  return `${ref.source === 'bugzilla' ? BUGZILLA_BROWSE : JIRA_BROWSE}${ref.id}`;
}

/** Go's strings.TrimSpace for the ASCII whitespace commit messages hold. */
const trimSpace = (s: string) => s.replace(/^[\t\n\v\f\r \u0085\u00a0]+|[\t\n\v\f\r \u0085\u00a0]+$/g, '');

/** The references at the start of `message` (sorted by id) and the message without them. */
export function extractRefs(message: string): { refs: BugRef[]; message: string } {
  if (message === '') return { refs: [], message: '' };
  let msg = trimSpace(message).replace(PREFIX, '');
  let source: RefSource = 'bugzilla';
  let m = BUGZILLA.exec(msg);
  if (!m) {
    m = JIRA.exec(msg);
    if (!m) return { refs: [], message: msg };
    source = 'jira';
  }
  let list = m[1]!;
  if (source === 'jira') {
    list = trimSpace(m[0]);
    if (list.endsWith(':')) list = list.slice(0, -1);
    if (list.endsWith('-')) list = list.slice(0, -1);
  }
  msg = msg.slice(m[0].length);
  const refs: BugRef[] = [];
  for (const part of list.split(',')) {
    for (const sub of part.split(' ')) {
      const id = trimSpace(sub);
      if (id !== '') refs.push({ id, source });
    }
  }
  refs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { refs, message: msg };
}

/** Whether `--bugs` lists a reference: every Bugzilla bug; of Jira, only the OCPBUGS projects' issues. */
export function isBug(ref: BugRef): boolean {
  return ref.source === 'bugzilla' || ref.id.startsWith('OCPBUGS-') || ref.id.startsWith('OCPBUGSM-');
}
