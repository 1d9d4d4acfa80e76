/**
 * The command table as `--help` shows it, read from the commander tree: every visible command, argument and option,
 * in commander's own help order and words (its Help class decides what is visible). The shell completions and the
 * man page (src/output/completion-script.ts, man-page.ts) are written from this one reading, so they cannot say
 * anything help does not.
 */
import type { EventEmitter } from 'node:events';
import type { Command, Option } from 'commander';

export interface OptionEntry {
  /** As help prints it: `-o, --output <format>`. */
  flags: string;
  short?: string;
  long?: string;
  /** The option takes a value (`<format>` or `[format]`). */
  takesValue: boolean;
  /** The values to offer: commander's choices, else those given to offerValues. */
  values: readonly string[];
  /** Help's description, with its `(choices: …)` and `(default: …)`. */
  description: string;
}

export interface ArgumentEntry {
  term: string;
  description: string;
  /** The values to offer: commander's choices (`completion <shell>`), else none. */
  values: readonly string[];
}

export interface CommandEntry {
  /** From the program down: `['osimage', 'release', 'info']`. */
  path: string[];
  aliases: string[];
  /** As the parent's help lists it, with aliases and arguments: `info [options] <image...>`. */
  term: string;
  /** `osimage release info [options] <image...>`. */
  usage: string;
  /** The one line the parent's command list shows. */
  summary: string;
  description: string;
  arguments: ArgumentEntry[];
  options: OptionEntry[];
  /** The options of the commands above it that it accepts too (the program's `-v`, `--version` …). */
  globalOptions: OptionEntry[];
  commands: CommandEntry[];
  /** Text help prints after the tables (`addHelpText('after', …)`: the examples), without its final newline. */
  after: string;
}

const OFFERED = Symbol.for('osimage.offeredValues');

type Tagged = Option & { [OFFERED]?: readonly string[] };

/**
 * Values to offer for an option whose value commander does not check as a choice (`release info -o`, which also
 * takes `jsonpath=…`): the completions read them from the option itself, so the list stays where the option is.
 */
export function offerValues<T extends Option>(option: T, values: readonly string[]): T {
  (option as Tagged)[OFFERED] = values;
  return option;
}

function optionEntry(option: Option, help: ReturnType<Command['createHelp']>): OptionEntry {
  const entry: OptionEntry = {
    flags: help.optionTerm(option),
    takesValue: option.required || option.optional,
    values: option.argChoices ?? (option as Tagged)[OFFERED] ?? [],
    description: help.optionDescription(option),
  };
  if (option.short) entry.short = option.short;
  if (option.long) entry.long = option.long;
  return entry;
}

/** What `addHelpText('after', …)` gives this command's help, as help would print it. */
function afterText(cmd: Command): string {
  let text = '';
  // commander's Command is an EventEmitter (its typings do not say so); help text is added as a listener.
  (cmd as unknown as EventEmitter).emit('afterHelp', { error: false, command: cmd, write: (s: string) => void (text += s) });
  return text.replace(/^\n+/, '').replace(/\n+$/, '');
}

/** Read `cmd` and every visible command below it. */
export function commandTable(cmd: Command, parents: string[] = []): CommandEntry {
  const help = cmd.createHelp();
  const path = [...parents, cmd.name()];
  return {
    path,
    aliases: cmd.aliases(),
    term: help.subcommandTerm(cmd),
    usage: help.commandUsage(cmd),
    summary: help.subcommandDescription(cmd),
    description: help.commandDescription(cmd),
    arguments: help
      .visibleArguments(cmd)
      .map((a) => ({ term: help.argumentTerm(a), description: help.argumentDescription(a), values: a.argChoices ?? [] })),
    options: help.visibleOptions(cmd).map((o) => optionEntry(o, help)),
    // Listed whether or not this command's help shows them: commander accepts them after the command.
    globalOptions: Object.assign(cmd.createHelp(), { showGlobalOptions: true })
      .visibleGlobalOptions(cmd)
      .map((o) => optionEntry(o, help)),
    commands: help.visibleCommands(cmd).map((c) => commandTable(c, path)),
    after: afterText(cmd),
  };
}

/** Every command of the table, the root first, each before its subcommands. */
export function flatTable(root: CommandEntry): CommandEntry[] {
  return [root, ...root.commands.flatMap(flatTable)];
}
