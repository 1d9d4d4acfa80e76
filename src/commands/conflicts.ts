import { UsageError } from '../errors.js';

/**
 * Flags that cannot go together, declared once per command as a table that carries the message.
 * Flags are commander's option keys (`commitUrls` for --commit-urls). A flag counts as given when its
 * value is neither undefined nor false, nor one of its `allowed` values.
 */
export interface FlagRule {
  /**
   * `at-most-one`: no two of `flags` together. `exactly-one`: one of them, and only one.
   * `excludes`: the first flag given with any of the others.
   */
  rule: 'at-most-one' | 'exactly-one' | 'excludes';
  flags: readonly string[];
  /** Values that do not count as given (`{ output: ['json'] }`); such a flag is named with its value. */
  allowed?: Readonly<Record<string, readonly unknown[]>>;
  /** The usage error; a function gets the names of the offending flags (`--pullspecs`, `--output name`). */
  message: string | ((given: string[]) => string);
}

/** `commitUrls` -> `--commit-urls`. */
export function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Throw the first rule's UsageError (exit 2) that the options break. */
export function checkConflicts(opts: object, rules: readonly FlagRule[]): void {
  const values = opts as Record<string, unknown>;
  for (const r of rules) {
    const given = r.flags.filter((f) => {
      const v = values[f];
      return v !== undefined && v !== false && !(r.allowed?.[f]?.includes(v) ?? false);
    });
    const others = r.rule === 'excludes' ? (given.includes(r.flags[0]!) ? given.filter((f) => f !== r.flags[0]) : []) : given;
    const broken = r.rule === 'exactly-one' ? given.length !== 1 : r.rule === 'excludes' ? others.length > 0 : given.length > 1;
    if (!broken) continue;
    const names = others.map((f) => (r.allowed?.[f] ? `${flagName(f)} ${String(values[f])}` : flagName(f)));
    throw new UsageError(typeof r.message === 'string' ? r.message : r.message(names));
  }
}

/** `--pins FILE`, or its old name `--write FILE` (a hidden alias on `verify` and `pin --check`); both at once is an error. */
export function pinsFile(o: { pins?: string | undefined; write?: string | undefined }): string | undefined {
  if (o.pins !== undefined && o.write !== undefined && o.pins !== o.write)
    throw new UsageError('--write is the old name of --pins: give one of them');
  return o.pins ?? o.write;
}
