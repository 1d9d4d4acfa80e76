import { describe, expect, test } from 'vitest';
import { checkConflicts, flagName, pinsFile, type FlagRule } from '../../src/commands/conflicts.js';
import { UsageError } from '../../src/errors.js';

const thrown = (fn: () => void): UsageError | undefined => {
  try {
    fn();
  } catch (err) {
    return err as UsageError;
  }
  return undefined;
};

describe('checkConflicts: one table per command, the table carries the message', () => {
  const views: FlagRule[] = [{ rule: 'at-most-one', flags: ['commits', 'commitUrls', 'pullspecs'], message: 'only one view' }];

  test('at-most-one: two given flags are a usage error (exit 2) with the table message; false and undefined are not given', () => {
    expect(thrown(() => checkConflicts({ commits: true, pullspecs: false }, views))).toBeUndefined();
    const err = thrown(() => checkConflicts({ commits: true, commitUrls: true }, views));
    expect(err).toBeInstanceOf(UsageError);
    expect(err?.message).toBe('only one view');
    expect(err?.exitCode).toBe(2);
    expect(err?.code).toBe('usage');
  });

  test('exactly-one: none or two are errors, one is fine', () => {
    const targets: FlagRule[] = [{ rule: 'exactly-one', flags: ['toFile', 'toDir'], message: 'give exactly one' }];
    expect(thrown(() => checkConflicts({}, targets))?.message).toBe('give exactly one');
    expect(thrown(() => checkConflicts({ toFile: 'a', toDir: 'b' }, targets))?.message).toBe('give exactly one');
    expect(thrown(() => checkConflicts({ toDir: '' }, targets))).toBeUndefined();
  });

  test('excludes: only the first flag with any of the others; allowed values do not count and are named with their value', () => {
    const rules: FlagRule[] = [
      {
        rule: 'excludes',
        flags: ['changesFrom', 'imageFor', 'output'],
        allowed: { output: ['json'] },
        message: (given) => `--changes-from may not be combined with ${given.join(', ')}`,
      },
    ];
    expect(thrown(() => checkConflicts({ imageFor: 'x', output: 'name' }, rules))).toBeUndefined();
    expect(thrown(() => checkConflicts({ changesFrom: 'a', output: 'json' }, rules))).toBeUndefined();
    expect(thrown(() => checkConflicts({ changesFrom: 'a', imageFor: 'x', output: 'name' }, rules))?.message).toBe(
      '--changes-from may not be combined with --image-for, --output name',
    );
  });

  test('the first broken rule wins', () => {
    const rules: FlagRule[] = [
      { rule: 'at-most-one', flags: ['a', 'b'], message: 'first' },
      { rule: 'at-most-one', flags: ['a', 'c'], message: 'second' },
    ];
    expect(thrown(() => checkConflicts({ a: 1, b: 1, c: 1 }, rules))?.message).toBe('first');
    expect(thrown(() => checkConflicts({ a: 1, c: 1 }, rules))?.message).toBe('second');
  });

  test('flag names and the --pins/--write alias', () => {
    expect(flagName('commitUrls')).toBe('--commit-urls');
    expect(pinsFile({ write: 'f' })).toBe('f');
    expect(pinsFile({ pins: 'f', write: 'f' })).toBe('f');
    expect(thrown(() => pinsFile({ pins: 'f', write: 'g' }))?.exitCode).toBe(2);
  });
});
