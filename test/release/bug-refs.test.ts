/** Bug references at the start of commit messages, as oc's changelog reads them. */
import { describe, expect, test } from 'vitest';
import { browseUrl, extractRefs, isBug } from '../../src/release/bug-refs.js';

const bz = (id: string) => ({ id, source: 'bugzilla' as const });
const jira = (id: string) => ({ id, source: 'jira' as const });

describe('extractRefs', () => {
  test.each([
    ['Bug 1743564: test', [bz('1743564')], 'test'],
    ['bug 1743564: test [trailing]', [bz('1743564')], 'test [trailing]'],
    ['[release-4.1] Bug 1743564: test', [bz('1743564')], 'test'],
    ['[release-4.1] [WIP] Bug 1743564 - test', [bz('1743564')], 'test'],
    ['Bugs 2000003,2000002 1999999: three', [bz('1999999'), bz('2000002'), bz('2000003')], 'three'],
    ['OCPBUGS-12: fix', [jira('OCPBUGS-12')], 'fix'],
    ['OCPBUGS-99, OCPBUGS-100 - two issues', [jira('OCPBUGS-100'), jira('OCPBUGS-99')], 'two issues'],
    ['MCO-5,API-7: a feature', [jira('API-7'), jira('MCO-5')], 'a feature'],
    ['  Bug 1: padded  ', [bz('1')], 'padded'],
    ['No reference here', [], 'No reference here'],
    ['Bug: no number', [], 'Bug: no number'],
    ['ocpbugs-1: lowercase is no Jira key', [], 'ocpbugs-1: lowercase is no Jira key'],
    ['', [], ''],
  ])('%j', (message, refs, rest) => {
    expect(extractRefs(message)).toEqual({ refs, message: rest });
  });

  test('only the start of the message is read; the body after the first line stays', () => {
    expect(extractRefs('Bug 5: title\n\nBug 6: in the body')).toEqual({ refs: [bz('5')], message: 'title\n\nBug 6: in the body' });
  });
});

test('bugs are every Bugzilla bug and the OCPBUGS projects of Jira', () => {
  expect([bz('1'), jira('OCPBUGS-1'), jira('OCPBUGSM-2'), jira('MCO-3')].map(isBug)).toEqual([true, true, true, false]);
  expect(browseUrl(bz('7'))).toBe('https://bugzilla.redhat.com/show_bug.cgi?id=7');
  expect(browseUrl(jira('OCPBUGS-7'))).toBe('https://issues.redhat.com/browse/OCPBUGS-7');
});
