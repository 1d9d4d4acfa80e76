/**
 * The flag forms oc (spf13/pflag) accepts, rewritten into the forms commander parses, before commander sees
 * the arguments: `--bool=VALUE` with pflag's boolean values (`--insecure=true`, `--insecure=0`), `-X=VALUE`
 * (`-o=json`), and unknown flags refused in pflag's words (`unknown flag: --bogus`). Which options are
 * booleans is read from the loaded commands' Option objects, never from a list here.
 *
 * Kept as commander has them: `--bool IMAGE` (the flag, then an operand: neither pflag nor commander reads
 * `--insecure true` as a value), `--opt VALUE`, `--opt=VALUE`, `-oVALUE`, options after operands, and
 * everything after `--`.
 */
import type { Command, Option } from 'commander';
import { UsageError } from '../errors.js';

/** strconv.ParseBool's spellings, which pflag's boolean flags take after `=`. */
const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's %q of a string, for the ASCII text flags are: a double-quoted JSON string is the same. */
const quote = (s: string) => JSON.stringify(s);

/** A boolean flag's `=VALUE`: true, false, or pflag's usage error naming the flag as pflag does. */
export function parseBoolFlag(value: string, option: Pick<Option, 'short' | 'long'>): boolean {
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  const name = option.short && option.long ? `${option.short}, ${option.long}` : (option.long ?? option.short ?? '');
  throw new UsageError(
    `invalid argument ${quote(value)} for ${quote(name)} flag: strconv.ParseBool: parsing ${quote(value)}: invalid syntax`,
  );
}

/** What an option does with the words after it. */
const takesValue = (o: Option) => o.required || o.optional;

/** The option `flag` (`--insecure`, `-o`) names among the commands in effect, innermost first; help is always known. */
function findOption(chain: readonly Command[], flag: string): Option | 'help' | undefined {
  for (let i = chain.length - 1; i >= 0; i--) {
    const hit = chain[i]!.options.find((o) => o.long === flag || o.short === flag);
    if (hit) return hit;
  }
  return flag === '--help' || flag === '-h' ? 'help' : undefined;
}

/**
 * pflag's error for an unknown long flag, with the flag commander would suggest (its own edit-distance rule over
 * the options `cmd` and its parents show in help). commander offers that rule only inside its option parsing,
 * so it is run on a view of `cmd` whose `error` keeps the message instead of printing it and exiting.
 */
export function unknownFlag(flag: string, cmd: Command): UsageError {
  const err = new UsageError(`unknown flag: ${flag}`);
  let said = '';
  const view = Object.create(cmd, {
    _allowUnknownOption: { value: false },
    error: { value: (message: string) => void (said = message) },
  }) as Command & { unknownOption?: (flag: string) => void };
  try {
    view.unknownOption?.(flag);
  } catch {}
  const meant = /\(Did you mean (--[^?\s]+)\?\)/.exec(said)?.[1];
  if (meant !== undefined) err.didYouMean = meant;
  return err;
}

/** The subcommand of `cmd` that `word` names, if any. */
function subcommand(cmd: Command, word: string): Command | undefined {
  return cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
}

/**
 * `argv` (without node and the script) rewritten for commander: the arguments the commands under `program`
 * accept in pflag's forms become commander's forms. Throws a UsageError (exit 2) with pflag's text for an
 * unknown flag or a boolean value pflag would refuse.
 */
export function normalizeArgv(program: Command, argv: readonly string[]): string[] {
  const chain: Command[] = [program];
  try {
    return rewrite(argv, chain);
  } catch (err) {
    // pflag's second line after a flag error names the command's help: `See 'osimage release info --help' for usage.`
    if (err instanceof UsageError) err.seeHelpOf = chain.map((c) => c.name()).join(' ');
    throw err;
  }
}

/** The rewriting of normalizeArgv; `chain` is the commands in effect, outermost first, as far as it has read. */
function rewrite(argv: readonly string[], chain: Command[]): string[] {
  // Output words; a boolean flag that a later `--flag=false` turns off is blanked (undefined), as pflag's last value wins.
  const out: (string | undefined)[] = [];
  const booleans = new Map<Option, number[]>();
  const setBool = (option: Option, word: string, on: boolean) => {
    const seen = booleans.get(option) ?? booleans.set(option, []).get(option)!;
    if (on) {
      seen.push(out.length);
      out.push(word);
    } else {
      for (const i of seen) out[i] = undefined;
      seen.length = 0;
    }
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const cmd = chain[chain.length - 1]!;
    const rest = () => {
      out.push(...argv.slice(i));
      i = argv.length;
    };
    if (arg === '--') {
      rest();
    } else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const flag = eq < 0 ? arg : arg.slice(0, eq);
      const option = findOption(chain, flag);
      if (option === undefined) throw unknownFlag(flag, cmd);
      if (option === 'help' || takesValue(option)) {
        out.push(arg);
        // The value of `--opt VALUE`, even when it starts with `-` (commander takes it too; an optional one only when it does not).
        if (option !== 'help' && eq < 0 && i + 1 < argv.length && (option.required || !argv[i + 1]!.startsWith('-'))) out.push(argv[++i]!);
      } else {
        const on = eq < 0 || parseBoolFlag(arg.slice(eq + 1), option);
        setBool(option, flag, on);
        // A flag that is on by default (`--allow-missing-template-keys`) is turned off by its commander negation.
        const negation = on ? undefined : findOption(chain, `--no-${flag.slice(2)}`);
        if (negation !== undefined && negation !== 'help') out.push(negation.long);
      }
    } else if (arg.startsWith('-') && arg.length > 1) {
      // Short flags, possibly several in one word (`-ab`), the last of them perhaps with its value (`-ojson`, `-o=json`).
      for (let j = 1; j < arg.length; j++) {
        const flag = `-${arg[j]}`;
        const option = findOption(chain, flag);
        if (option === undefined) throw new UsageError(`unknown shorthand flag: '${arg[j]}' in -${arg.slice(j)}`);
        // pflag: `-X=VALUE` when something follows the `=`; `-X=` is `-X` with the value `=`.
        const withEquals = arg[j + 1] === '=' && arg.length > j + 2;
        if (option === 'help') {
          out.push(flag);
        } else if (!takesValue(option)) {
          if (withEquals) {
            setBool(option, flag, parseBoolFlag(arg.slice(j + 2), option));
            break;
          }
          setBool(option, flag, true);
        } else {
          out.push(flag);
          if (j + 1 < arg.length) out.push(arg.slice(withEquals ? j + 2 : j + 1));
          else if (i + 1 < argv.length && (option.required || !argv[i + 1]!.startsWith('-'))) out.push(argv[++i]!);
          break;
        }
      }
    } else {
      const sub = cmd.commands.length > 0 ? subcommand(cmd, arg) : undefined;
      if (sub) {
        chain.push(sub);
        out.push(arg);
      } else if (cmd.commands.length > 0) {
        // Not a command this level has (`help`, or a typo commander reports): leave the rest to commander.
        rest();
      } else {
        out.push(arg);
      }
    }
  }
  return out.filter((w): w is string => w !== undefined);
}
