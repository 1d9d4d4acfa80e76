import { Argument, Command } from 'commander';
import { packageVersion } from '../package-info.js';
import { commandTable } from '../output/command-table.js';
import { completionScript, SHELLS, type Shell } from '../output/completion-script.js';
import { outRaw } from '../output/terminal.js';
import { examples } from './options.js';

export function command(): Command {
  return new Command('completion')
    .description(
      "Print a completion script for bash, zsh or fish: osimage's commands, subcommands, options and the values of -o (and of every option that lists its values), written from the same command table as --help.",
    )
    .addArgument(new Argument('<shell>', 'the shell: bash, zsh or fish').choices(SHELLS))
    .addHelpText(
      'after',
      examples([
        'osimage completion bash > ~/.local/share/bash-completion/completions/osimage   # every new bash (mkdir -p the folder first)',
        'source <(osimage completion bash)   # this shell only (zsh too, after compinit)',
        'osimage completion zsh > ~/.zfunc/_osimage   # every new zsh, with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc',
        'osimage completion fish > ~/.config/fish/completions/osimage.fish',
      ]),
    )
    .action(function (this: Command, shell: Shell) {
      // The program (src/cli.ts loads every command module for `completion`), as commander built it for help.
      let root: Command = this;
      while (root.parent) root = root.parent;
      outRaw(completionScript(shell, commandTable(root), packageVersion()));
    });
}
