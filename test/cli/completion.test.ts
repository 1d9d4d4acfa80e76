/**
 * `osimage completion bash|zsh|fish`. The bash script is run in a real bash: the test sets COMP_WORDS and
 * COMP_CWORD as bash's programmable completion does, calls the function `complete` registered, and reads COMPREPLY.
 * The expected lists come from the command table itself (src/cli.ts's COMMANDS, the -o lists the commands declare),
 * so a new command or value needs no change here.
 */
import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, everyCommand } from '../../src/cli.js';
import { commandTable, flatTable } from '../../src/output/command-table.js';
import { OUTPUT_FORMATS } from '../../src/output/output-format.js';
import { osimage } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'osimage-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let bashScript = '';

beforeAll(async () => {
  const r = await osimage(['completion', 'bash']);
  expect(r.exitCode).toBe(0);
  expect(r.stderr).toBe('');
  bashScript = join(dir, 'osimage.bash');
  writeFileSync(bashScript, `${r.stdout}\n`);
});

/** COMPREPLY after TAB at the end of `line` (a trailing space: completing an empty word), in a real bash. */
async function complete(line: string): Promise<string[]> {
  const words = line.split(' ');
  // What bash hands the function: the words (split at = too, as COMP_WORDBREAKS does) and the cursor's index.
  const split = words.flatMap((w) => (/^-[^=]*=/.test(w) ? [w.slice(0, w.indexOf('=')), '=', w.slice(w.indexOf('=') + 1)] : [w]));
  const program = [
    'set -u',
    `source ${JSON.stringify(bashScript)}`,
    // `complete` registered the function for osimage (with bash's file completion when it offers nothing).
    `[[ $(complete -p osimage) == 'complete -o default -F _osimage osimage' ]] || { echo "not registered: $(complete -p osimage)" >&2; exit 3; }`,
    'COMP_WORDS=("$@")',
    'COMP_CWORD=$(($# - 1))',
    '_osimage',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const r = await execa('bash', ['--norc', '--noprofile', '-c', program, 'bash', ...split], { reject: false });
  expect(r.stderr, line).toBe('');
  expect(r.exitCode, line).toBe(0);
  return r.stdout === '' ? [] : r.stdout.split('\n');
}

describe('osimage completion bash, in a real bash', () => {
  it('osimage rel<TAB> gives release', async () => {
    expect(await complete('osimage rel')).toEqual(['release']);
  });

  it('osimage release info -o <TAB> gives the -o values release info declares (oc’s formats)', async () => {
    expect(await complete('osimage release info -o ')).toEqual([...OUTPUT_FORMATS]);
    expect(await complete('osimage release info --output=json')).toEqual(['json', 'jsonpath', 'jsonpath-as-json', 'jsonpath-file']);
  });

  it('a command’s choices: osimage resolve -o <TAB>, osimage completion <TAB>', async () => {
    const resolve = (await (await COMMANDS.resolve!.load()).command()).options.find((o) => o.long === '--output');
    expect(await complete('osimage resolve -o ')).toEqual(resolve?.argChoices);
    expect(await complete('osimage version --output ')).toEqual(['text', 'json']);
    // An argument's choices, as the option's: the shells.
    expect(await complete('osimage completion ')).toEqual(['bash', 'zsh', 'fish']);
    expect(await complete('osimage completion z')).toEqual(['zsh']);
    // Only the first argument has choices: once a shell is given, nothing is offered again.
    expect(await complete('osimage completion bash ')).toEqual([]);
    expect(await complete('osimage completion --help bash ')).toEqual([]);
  });

  it('osimage <TAB> gives every command of the table, and help', async () => {
    expect(await complete('osimage ')).toEqual([...Object.keys(COMMANDS), 'help']);
  });

  it('subcommands, options, global options and help’s commands', async () => {
    expect(await complete('osimage release in')).toEqual(['info']);
    expect(await complete('osimage release info --pull')).toEqual(['--pullspecs']);
    expect(await complete('osimage cache ')).toEqual(['info', 'prune', 'clear', 'help']);
    expect(await complete('osimage help rel')).toEqual(['release']);
    // The value of -v is no command; after it the path goes on.
    expect(await complete('osimage -v 6 release in')).toEqual(['info']);
    expect(await complete('osimage release info --log')).toEqual(['--loglevel']);
    // An option's value is not read as a subcommand: `--loglevel release` does not enter `release`.
    expect(await complete('osimage --loglevel release rel')).toEqual(['release']);
    expect(await complete('osimage builds --channel info -o t')).toEqual(['text']);
  });

  it('offers nothing where bash’s own file completion should answer (an image, a file, a free value)', async () => {
    expect(await complete('osimage release info ')).toEqual([]);
    expect(await complete('osimage resolve --base-url ')).toEqual([]);
  });
});

describe('every command and option of the table is in every script', () => {
  it.each(['bash', 'zsh', 'fish'])('%s', async (shell) => {
    const r = await osimage(['completion', shell]);
    expect(r.exitCode).toBe(0);
    for (const c of flatTable(commandTable(await everyCommand()))) {
      // A command's name as a word of its own (zsh: `name:summary`, as _describe takes it).
      const name = c.path.at(-1)!;
      if (c.path.length > 1) expect(r.stdout, c.path.join(' ')).toMatch(new RegExp(`['\\n]${name}[':]`));
      for (const o of c.options) {
        const flag = shell === 'fish' ? `-l '${o.long?.slice(2)}'` : `${o.long}`;
        if (o.long) expect(r.stdout, `${c.path.join(' ')} ${o.long}`).toContain(flag);
      }
    }
  });
});

/** Whether a shell is installed (zsh and fish are not on every machine: their tests say so and pass). */
async function installed(shell: string): Promise<boolean> {
  const has = await execa('sh', ['-c', `command -v ${shell}`], { reject: false });
  if (has.exitCode !== 0) console.warn(`skipped: ${shell} is not installed`);
  return has.exitCode === 0;
}

describe('osimage completion fish, in a real fish (complete -C)', () => {
  it('subcommands, -o values, options, global options', async () => {
    if (!(await installed('fish'))) return;
    const file = join(dir, 'osimage.fish');
    writeFileSync(file, (await osimage(['completion', 'fish'])).stdout);
    const fish = async (line: string) => {
      const r = await execa('fish', ['--no-config', '-c', `source ${file}; complete -C ${JSON.stringify(line)}`], { reject: false });
      expect(r.stderr, line).toBe('');
      return r.stdout.split('\n').map((l) => l.split('\t')[0]);
    };
    expect(await fish('osimage rel')).toEqual(['release']);
    expect((await fish('osimage release info -o ')).sort()).toEqual([...OUTPUT_FORMATS].sort());
    expect(await fish('osimage release info --pull')).toEqual(['--pullspecs']);
    expect(await fish('osimage -v 6 release in')).toEqual(['info']);
    expect((await fish('osimage completion ')).sort()).toEqual(['bash', 'fish', 'zsh']);
    expect(await fish('osimage completion bash ')).not.toContain('zsh');
  });
});

describe('osimage completion zsh, its function in a real zsh', () => {
  it('the words before the cursor give the path; values, options, commands', async () => {
    if (!(await installed('zsh'))) return;
    const file = join(dir, '_osimage');
    writeFileSync(file, (await osimage(['completion', 'zsh'])).stdout);
    // The completion system's builtins stood in by functions that print what they were given.
    const harness = [
      'compdef() { : }',
      'compadd() { [[ $1 == -a ]] && print -l -- ${(P)2} }',
      '_describe() { print -l -- ${(P)4} | cut -d: -f1 }',
      '_files() { print FILES }',
      'compset() { PREFIX=${PREFIX#*=} }',
      `source ${file}`,
      'words=("$@"); CURRENT=$#; PREFIX=${words[-1]}',
      '_osimage',
    ].join('\n');
    const zsh = async (line: string) => {
      const r = await execa('zsh', ['-f', '-c', harness, 'zsh', ...line.split(' ')], { reject: false });
      expect(r.stderr, line).toBe('');
      return r.stdout.split('\n');
    };
    // zsh filters by the word typed itself: the function offers the path's whole list.
    expect(await zsh('osimage rel')).toEqual([...Object.keys(COMMANDS), 'help']);
    expect(await zsh('osimage release info -o ')).toEqual([...OUTPUT_FORMATS]);
    expect(await zsh('osimage release info --output=js')).toEqual([...OUTPUT_FORMATS]);
    expect(await zsh('osimage -v 6 release in')).toContain('verify-signatures');
    expect(await zsh('osimage release info ')).toEqual(['FILES']);
    expect(await zsh('osimage completion ')).toEqual(['bash', 'zsh', 'fish']);
    expect(await zsh('osimage completion bash ')).toEqual(['FILES']);
  });
});

describe('zsh and fish read their scripts', () => {
  it.each(['zsh', 'fish'])('%s -n accepts the script (skipped when the shell is not installed)', async (shell) => {
    if (!(await installed(shell))) return;
    const file = join(dir, `osimage.${shell}`);
    writeFileSync(file, (await osimage(['completion', shell])).stdout);
    const r = await execa(shell, ['-n', file], { reject: false });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
  });
});

describe('osimage completion (usage)', () => {
  it('an unknown shell is a usage error naming the shells', async () => {
    const r = await osimage(['completion', 'tcsh']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^error: command-argument value 'tcsh' is invalid for argument 'shell'\. Allowed choices are bash, zsh, fish\./,
    );
  });
});
