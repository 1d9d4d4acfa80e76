/**
 * The man page `osimage.1`, written in roff (the man macros) from the command table (src/output/command-table.ts):
 * every command with its usage, description, arguments, options and examples, as --help shows them. build/man.mjs
 * writes it at build time; package.json's `man` field installs it.
 */
import { type CommandEntry, flatTable, type OptionEntry } from './command-table.js';

export interface ManPageOptions {
  version: string;
  /** Where the full documentation is (a URL). */
  docs: string;
}

/**
 * Text for roff: backslashes and hyphens escaped (a bare `-` may print as a typographic hyphen, which a copied
 * option would not survive), characters beyond ASCII as `\[uXXXX]` (groff reads them whatever the locale), and a
 * line that would start with a control character (`.`, `'`) protected.
 */
export function roffText(text: string): string {
  const escaped = text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[^\n\x20-\x7e]/gu, (c) => {
      const cp = c.codePointAt(0)!;
      return cp === 9 ? ' ' : cp < 0x20 || cp === 0x7f ? '' : `\\[u${cp.toString(16).toUpperCase().padStart(4, '0')}]`;
    });
  return escaped
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

/** A paragraph: blank lines in the text become paragraph breaks (a blank line in roff is one too, but warned of). */
function paragraphs(text: string): string[] {
  return text
    .trim()
    .split(/\n\s*\n/)
    .flatMap((p, i) => (i === 0 ? [roffText(p.trim())] : ['.PP', roffText(p.trim())]));
}

function optionItems(options: OptionEntry[]): string[] {
  return options.flatMap((o) => ['.TP', `.B ${roffText(o.flags)}`, roffText(o.description)]);
}

/** Lines shown as they are (the examples), in no-fill mode so roff neither joins nor wraps them. */
function literal(text: string): string[] {
  return ['.RS 4', '.nf', ...text.split('\n').map((l) => roffText(l) || '\\&'), '.fi', '.RE'];
}

function commandSection(c: CommandEntry): string[] {
  const lines = [`.SS ${roffText(c.path.join(' '))}`, `.B ${roffText(c.usage)}`, '.PP', ...paragraphs(c.description || c.summary)];
  if (c.commands.length > 0) {
    lines.push('.PP', 'Subcommands:');
    for (const s of c.commands) lines.push('.TP', `.B ${roffText(s.term)}`, roffText(s.summary));
  }
  if (c.arguments.length > 0) {
    lines.push('.PP', 'Arguments:');
    for (const a of c.arguments) lines.push('.TP', `.I ${roffText(a.term)}`, roffText(a.description || a.term));
  }
  if (c.options.length > 0) lines.push('.PP', 'Options:', ...optionItems(c.options));
  if (c.after !== '') lines.push('.PP', ...literal(c.after));
  return lines;
}

export function manPage(root: CommandEntry, opts: ManPageOptions): string {
  const name = root.path[0]!;
  const commands = flatTable(root).filter((c) => c !== root && c.path.at(-1) !== 'help');
  const lines = [
    `.\\" The man page of ${name} ${opts.version}, written by its build from the command table (as --help shows it).`,
    `.TH ${name.toUpperCase()} 1 "" "${name} ${roffText(opts.version)}" "User Commands"`,
    '.SH NAME',
    `${name} \\- ${roffText(root.description.replace(/\.$/, ''))}`,
    '.SH SYNOPSIS',
    `.B ${name}`,
    '.RI [ options ]',
    '.I command',
    '.RI [ arguments ]',
    '.SH DESCRIPTION',
    ...paragraphs(root.description),
    '.PP',
    `Every command prints its own help with \\fB${name} \\fIcommand\\fB \\-\\-help\\fR.`,
    '.SH COMMANDS',
    ...root.commands.filter((c) => c.path.at(-1) !== 'help').flatMap((c) => ['.TP', `.B ${roffText(c.path.at(-1)!)}`, roffText(c.summary)]),
    '.SH OPTIONS',
    `These options of \\fB${name}\\fR are accepted by every command too.`,
    ...optionItems(root.options),
    ...(root.after === '' ? [] : ['.SH EXAMPLES', ...literal(root.after.replace(/^Examples:\n/, ''))]),
    '.SH "COMMAND REFERENCE"',
    ...commands.flatMap(commandSection),
    '.SH "EXIT STATUS"',
    '.TP',
    '.B 0',
    'success',
    '.TP',
    '.B 1',
    'failure (the error is printed on one line), or a check that did not pass',
    '.TP',
    '.B 2',
    'usage error: an unknown command or option, a missing or invalid value',
    '.SH "SEE ALSO"',
    `The full documentation: ${roffText(opts.docs)}`,
    '',
  ];
  return lines.join('\n');
}
