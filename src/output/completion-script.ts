/**
 * `osimage completion bash|zsh|fish`: a completion script written from the command table (src/output/command-table.ts).
 * The script holds the table itself (commands, options, the values of each option that lists them), so a TAB runs
 * no osimage process. Each shell gets the same walk: the words before the cursor that name a subcommand extend the
 * command path; an option that takes a value skips that value; then the cursor's word is completed as the value of
 * the option before it, an option of the path's command, or a subcommand. Anything else (an image, a file) is left
 * to the shell's own file completion.
 */
import { type CommandEntry, flatTable, type OptionEntry } from './command-table.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** One command path of the table as the scripts use it: the path without the program's name (`release info`). */
interface Node {
  key: string;
  commands: { name: string; summary: string }[];
  options: OptionEntry[];
  valued: string[];
  /** The choices of its arguments (`completion <shell>`: bash, zsh, fish), offered where a subcommand would be. */
  args: string[];
}

/** The commands `help` can explain are its parent's (commander's implicit `help [command]`). */
function nodes(root: CommandEntry): Node[] {
  const parentOf = new Map<CommandEntry, CommandEntry>();
  for (const c of flatTable(root)) for (const s of c.commands) parentOf.set(s, c);
  return flatTable(root).map((c) => {
    const parent = parentOf.get(c);
    const isHelp = parent !== undefined && c.path.at(-1) === 'help' && c.commands.length === 0;
    const subs = isHelp ? parent.commands.filter((s) => s !== c) : c.commands;
    const options = [...c.options, ...c.globalOptions];
    return {
      key: c.path.slice(1).join(' '),
      commands: subs.flatMap((s) => [s.path.at(-1)!, ...s.aliases].map((name) => ({ name, summary: firstLine(s.summary) }))),
      options,
      valued: options.filter((o) => o.takesValue).flatMap(flagsOf),
      args: c.arguments.flatMap((a) => a.values),
    };
  });
}

const flagsOf = (o: OptionEntry): string[] => [o.short, o.long].filter((f): f is string => f !== undefined);
const firstLine = (s: string): string => s.split('\n')[0]!.trim();

/** A word in single quotes for bash and zsh. */
const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
/** A word in single quotes for fish (where `\\` and `\'` are escapes inside them). */
const fq = (s: string): string => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;

export function completionScript(shell: Shell, root: CommandEntry, version: string): string {
  const header = `# ${shell} completion for osimage ${version}, written by \`osimage completion ${shell}\` from its command table.\n`;
  const table = nodes(root);
  if (shell === 'bash') return header + bash(table);
  if (shell === 'zsh') return zsh(header, table);
  return header + fish(table);
}

/** A `case` over the command path setting REPLY to an array per path. */
function bashCase(fn: string, table: Node[], words: (n: Node) => string[]): string {
  const arms = table
    .map((n) => ({ n, w: words(n) }))
    .filter(({ w }) => w.length > 0)
    .map(({ n, w }) => `    ${sq(n.key)}) REPLY=(${w.map(sq).join(' ')}) ;;`);
  return `${fn}() {\n  case $1 in\n${arms.join('\n')}\n    *) REPLY=() ;;\n  esac\n}\n`;
}

function bash(table: Node[]): string {
  const valueArms = table.flatMap((n) =>
    n.options
      .filter((o) => o.values.length > 0)
      .map(
        (o) =>
          `    ${flagsOf(o)
            .map((f) => sq(`${n.key}|${f}`))
            .join('|')}) REPLY=(${o.values.map(sq).join(' ')}) ;;`,
      ),
  );
  return `# Load it with: source <(osimage completion bash)
${bashCase('_osimage_commands', table, (n) => n.commands.map((c) => c.name))}${bashCase('_osimage_options', table, (n) => n.options.flatMap(flagsOf))}${bashCase('_osimage_valued', table, (n) => n.valued)}${bashCase('_osimage_args', table, (n) => n.args)}_osimage_values() {
  case "$1|$2" in
${valueArms.join('\n')}
    *) REPLY=() ;;
  esac
}
_osimage_has() {
  local w=$1; shift
  local x; for x in "$@"; do [[ $x == "$w" ]] && return 0; done
  return 1
}
_osimage() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmdpath='' i=1 w opt='' prefix='' npos=0
  local -a REPLY
  # The words before the cursor: a subcommand extends the path; an option that takes a value skips it; any other
  # word is an argument (an argument's choices are offered only for the first).
  while ((i < COMP_CWORD)); do
    w=\${COMP_WORDS[i]}
    if [[ $w == -* ]]; then
      if [[ \${COMP_WORDS[i+1]-} == = ]]; then
        ((i += 2))
      elif [[ $w != *=* ]]; then
        _osimage_valued "$cmdpath"
        _osimage_has "$w" "\${REPLY[@]}" && ((i++))
      fi
    else
      _osimage_commands "$cmdpath"
      if _osimage_has "$w" "\${REPLY[@]}"; then cmdpath=\${cmdpath:+$cmdpath }$w; else npos=$((npos + 1)); fi
    fi
    ((i++))
  done
  # The value of an option: \`-o <TAB>\`, \`--output=<TAB>\` (bash splits words at =), \`--output=j<TAB>\`.
  if [[ $cur == = ]]; then
    opt=\${COMP_WORDS[COMP_CWORD-1]} cur=''
  elif ((COMP_CWORD > 1)) && [[ \${COMP_WORDS[COMP_CWORD-1]} == = ]]; then
    opt=\${COMP_WORDS[COMP_CWORD-2]}
  elif [[ $cur == -*=* ]]; then
    opt=\${cur%%=*} prefix=\${cur%%=*}= cur=\${cur#*=}
  elif ((COMP_CWORD > 1)); then
    _osimage_valued "$cmdpath"
    _osimage_has "\${COMP_WORDS[COMP_CWORD-1]}" "\${REPLY[@]}" && opt=\${COMP_WORDS[COMP_CWORD-1]}
  fi
  COMPREPLY=()
  if [[ -n $opt ]]; then
    _osimage_values "$cmdpath" "$opt"
  elif [[ $cur == -* ]]; then
    _osimage_options "$cmdpath"
  else
    _osimage_commands "$cmdpath"
    ((\${#REPLY[@]} || npos)) || _osimage_args "$cmdpath"
  fi
  # Nothing to offer (an image, a file, a free value): bash's own completion (complete -o default).
  ((\${#REPLY[@]})) || return 0
  local IFS=$'\\n'
  COMPREPLY=($(compgen -P "$prefix" -W "\${REPLY[*]}" -- "$cur"))
}
complete -o default -F _osimage osimage
`;
}

function zsh(header: string, table: Node[]): string {
  const assoc = (name: string, entries: [string, string[]][]) =>
    `typeset -gA ${name}\n${name}=(\n${entries
      .filter(([, v]) => v.length > 0)
      .map(([k, v]) => `  ${sq(k)} ${sq(v.join('\n'))}`)
      .join('\n')}\n)\n`;
  // _describe's NAME:DESCRIPTION (a colon in the name is escaped).
  const described = (name: string, text: string) => `${name.replace(/:/g, '\\:')}:${firstLine(text)}`;
  return `#compdef osimage
${header}# Load it with: source <(osimage completion zsh), or save it as _osimage in a folder of $fpath.
${assoc(
  '_osimage_cmds',
  table.map((n) => [n.key, n.commands.map((c) => described(c.name, c.summary))]),
)}${assoc(
  '_osimage_opts',
  table.map((n) => [n.key, n.options.flatMap((o) => flagsOf(o).map((f) => described(f, o.description)))]),
)}${assoc(
  '_osimage_valued',
  table.map((n) => [n.key, n.valued]),
)}${assoc(
  '_osimage_args',
  table.map((n) => [n.key, n.args]),
)}${assoc(
  '_osimage_vals',
  table.flatMap((n) => n.options.flatMap((o) => flagsOf(o).map((f): [string, string[]] => [`${n.key}|${f}`, [...o.values]]))),
)}
_osimage() {
  local cmdpath='' w opt='' i=2 npos=0
  local -a cmds opts valued vals args
  # The words before the cursor: a subcommand extends the path; an option that takes a value skips it.
  while (( i < CURRENT )); do
    w=\${words[i]}
    if [[ $w == -* ]]; then
      valued=(\${(f)_osimage_valued[$cmdpath]})
      [[ $w != *=* ]] && (( \${valued[(Ie)$w]} )) && (( i++ ))
    else
      cmds=(\${(f)_osimage_cmds[$cmdpath]})
      if (( \${cmds[(I)$w:*]} )); then cmdpath=\${cmdpath:+$cmdpath }$w; else npos=$((npos + 1)); fi
    fi
    (( i++ ))
  done
  valued=(\${(f)_osimage_valued[$cmdpath]})
  if [[ $PREFIX == -*=* ]]; then
    opt=\${PREFIX%%=*}
    compset -P '*='
  elif (( CURRENT > 2 )) && (( \${valued[(Ie)\${words[CURRENT-1]}]} )); then
    opt=\${words[CURRENT-1]}
  fi
  if [[ -n $opt ]]; then
    vals=(\${(f)_osimage_vals[$cmdpath|$opt]})
    if (( \${#vals} )); then compadd -a vals; else _files; fi
  elif [[ $PREFIX == -* ]]; then
    opts=(\${(f)_osimage_opts[$cmdpath]})
    _describe -t options option opts
  else
    cmds=(\${(f)_osimage_cmds[$cmdpath]})
    args=(\${(f)_osimage_args[$cmdpath]})
    if (( \${#cmds} )); then _describe -t commands command cmds
    elif (( \${#args} && ! npos )); then compadd -a args
    else _files; fi
  fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _osimage "$@"
else
  compdef _osimage osimage
fi
`;
}

function fish(table: Node[]): string {
  const lines: string[] = [];
  lines.push('# Load it with: osimage completion fish | source, or save it as ~/.config/fish/completions/osimage.fish');
  // The command path of the words before the cursor, as the bash script walks them.
  const sw = (fn: string, words: (n: Node) => string[]) => {
    const arms = table
      .map((n) => ({ n, w: words(n) }))
      .filter(({ w }) => w.length > 0)
      .map(({ n, w }) => `        case ${fq(n.key)}\n            printf '%s\\n' ${w.map(fq).join(' ')}`);
    return `function ${fn}\n    switch $argv[1]\n${arms.join('\n')}\n    end\nend`;
  };
  lines.push(sw('__osimage_commands', (n) => n.commands.map((c) => c.name)));
  lines.push(sw('__osimage_valued', (n) => n.valued));
  lines.push(`function __osimage_path
    set -l words (commandline -opc)
    set -l cmdpath ''
    set -l skip 0
    # Arguments already given (an argument's choices are offered only for the first): read by __osimage_first_arg.
    set -g __osimage_npos 0
    for w in $words[2..-1]
        if test $skip = 1
            set skip 0
        else if string match -q -- '-*' $w
            if not string match -q -- '*=*' $w; and contains -- $w (__osimage_valued "$cmdpath")
                set skip 1
            end
        else if contains -- $w (__osimage_commands "$cmdpath")
            set cmdpath (string join ' ' -- $cmdpath $w | string trim)
        else
            set __osimage_npos (math $__osimage_npos + 1)
        end
    end
    printf '%s\\n' "$cmdpath"
end
function __osimage_at
    test (__osimage_path) = "$argv[1]"
end
function __osimage_first_arg
    __osimage_at $argv[1]; and test $__osimage_npos = 0
end
complete -c osimage -f`);
  for (const n of table) {
    const at = `-n ${fq(`__osimage_at ${fq(n.key)}`)}`;
    for (const c of n.commands) lines.push(`complete -c osimage ${at} -a ${fq(c.name)} -d ${fq(c.summary)}`);
    for (const o of n.options) {
      const flags = [o.short ? `-s ${fq(o.short.slice(1))}` : '', o.long ? `-l ${fq(o.long.slice(2))}` : ''].filter(Boolean).join(' ');
      lines.push(`complete -c osimage ${at} ${flags}${o.takesValue ? ' -r' : ''} -d ${fq(firstLine(o.description))}`);
      // Its values on a line of their own: the option's description is not repeated beside each value.
      if (o.takesValue)
        lines.push(`complete -c osimage ${at} ${flags} ${o.values.length > 0 ? `-x -a ${fq(o.values.join(' '))}` : '-r -F'}`);
    }
    // A command without subcommands takes its arguments' choices, else images and files.
    if (n.commands.length === 0)
      lines.push(
        n.args.length > 0
          ? `complete -c osimage -n ${fq(`__osimage_first_arg ${fq(n.key)}`)} -a ${fq(n.args.join(' '))}`
          : `complete -c osimage ${at} -F`,
      );
  }
  return `${lines.join('\n')}\n`;
}
