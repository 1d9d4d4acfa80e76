/**
 * How --help words an option's extras, for every command (src/cli.ts configures it): commander's
 * `(choices: …)` and `(default: …)`, but never a default said twice or one that says nothing.
 */
import type { Help, Option } from 'commander';

/**
 * commander would add a default that is noise: an empty list (a repeatable option given no times), a flag
 * that is off unless given, or a default the description already states in its own words (`(default: every
 * arch in builds.json)`).
 */
function defaultIsNoise(option: Option): boolean {
  const value: unknown = option.defaultValue;
  return (Array.isArray(value) && value.length === 0) || value === false || /\bdefault\b/.test(option.description);
}

/** The `optionDescription` of commander's Help (`base`, its prototype's), without the defaults above. */
export function optionDescription(base: Help['optionDescription']): Help['optionDescription'] {
  return function (this: Help, option: Option): string {
    return base.call(this, defaultIsNoise(option) ? Object.assign(Object.create(option) as Option, { defaultValue: undefined }) : option);
  };
}
