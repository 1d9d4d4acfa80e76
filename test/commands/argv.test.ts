import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { normalizeArgv, parseBoolFlag } from '../../src/commands/argv.js';
import type { UsageError } from '../../src/errors.js';
import { osimage } from '../helpers/cli.js';

const SAMPLE = 'oci-archive:hack/sample/release.oci-archive:4.13.1';

/** A command tree shaped like osimage's: `release info` with booleans, a value option, a short option. */
function program(): Command {
  const p = new Command('osimage').version('1', '-V, --version');
  const release = new Command('release');
  release.addCommand(
    new Command('info')
      .argument('<image>')
      .option('--insecure')
      .option('-a, --registry-config <file>')
      .option('--pullspecs')
      .option('--no-cache')
      .option('--filter-by-os <regex>')
      .addOption(new Option('-o, --output <format>')),
  );
  return p.addCommand(release);
}

const norm = (...argv: string[]) => normalizeArgv(program(), argv);

describe('normalizeArgv: pflag flag forms for commander', () => {
  it.each(['1', 't', 'T', 'TRUE', 'true', 'True'])('--insecure=%s is the flag', (v) => {
    expect(norm('release', 'info', `--insecure=${v}`, 'IMG')).toEqual(['release', 'info', '--insecure', 'IMG']);
  });

  it.each(['0', 'f', 'F', 'FALSE', 'false', 'False'])('--insecure=%s drops the flag, also an earlier one (the last wins)', (v) => {
    expect(norm('release', 'info', '--insecure', 'IMG', `--insecure=${v}`)).toEqual(['release', 'info', 'IMG']);
    expect(norm('release', 'info', `--insecure=${v}`, '--insecure', 'IMG')).toEqual(['release', 'info', '--insecure', 'IMG']);
  });

  it("refuses another value in pflag's words", () => {
    // oc adm release info --insecure=x quay.io/x/y:1
    expect(() => norm('release', 'info', '--insecure=yes', 'IMG')).toThrow(
      'invalid argument "yes" for "--insecure" flag: strconv.ParseBool: parsing "yes": invalid syntax',
    );
    expect(() => norm('release', 'info', '--insecure=', 'IMG')).toThrow('parsing "": invalid syntax');
    expect(parseBoolFlag('1', { short: '-x', long: '--xx' })).toBe(true);
    expect(() => parseBoolFlag('2', { short: '-x', long: '--xx' })).toThrow('for "-x, --xx" flag');
  });

  it('keeps `--bool IMAGE` as the flag and an operand, and negated booleans', () => {
    expect(norm('release', 'info', '--insecure', 'true')).toEqual(['release', 'info', '--insecure', 'true']);
    expect(norm('release', 'info', '--no-cache=true', 'IMG')).toEqual(['release', 'info', '--no-cache', 'IMG']);
  });

  it('splits -X=VALUE, keeps -XVALUE, -X VALUE and --opt=VALUE', () => {
    expect(norm('release', 'info', 'IMG', '-o=json')).toEqual(['release', 'info', 'IMG', '-o', 'json']);
    expect(norm('release', 'info', 'IMG', '-ojson')).toEqual(['release', 'info', 'IMG', '-o', 'json']);
    expect(norm('release', 'info', '-o', 'json', 'IMG')).toEqual(['release', 'info', '-o', 'json', 'IMG']);
    expect(norm('release', 'info', '-a=a=b.json', 'IMG')).toEqual(['release', 'info', '-a', 'a=b.json', 'IMG']);
    expect(norm('release', 'info', '--output=json', 'IMG')).toEqual(['release', 'info', '--output=json', 'IMG']);
    // A value is a value even when it looks like a flag or a command.
    expect(norm('release', 'info', '--filter-by-os', '--bogus', 'IMG')).toEqual(['release', 'info', '--filter-by-os', '--bogus', 'IMG']);
  });

  it('leaves everything after -- alone', () => {
    expect(norm('release', 'info', '--', '--insecure=x', '-o=json')).toEqual(['release', 'info', '--', '--insecure=x', '-o=json']);
  });

  it("refuses unknown flags in pflag's words", () => {
    expect(() => norm('release', 'info', '--bogus', 'IMG')).toThrow(/^unknown flag: --bogus$/);
    expect(() => norm('release', 'info', '--bogus=1', 'IMG')).toThrow(/^unknown flag: --bogus$/);
    expect(() => norm('release', 'info', '-zx', 'IMG')).toThrow(/^unknown shorthand flag: 'z' in -zx$/);
    // Help and version stay commander's.
    expect(norm('release', 'info', '--help')).toEqual(['release', 'info', '--help']);
    expect(norm('-V')).toEqual(['-V']);
  });

  it("names the flag commander's edit distance finds, among the command's and its parents' visible options", () => {
    const meant = (...argv: string[]) => {
      try {
        norm(...argv);
      } catch (err) {
        return (err as UsageError).didYouMean;
      }
      throw new Error('no error');
    };
    expect(meant('release', 'info', '--insecur', 'IMG')).toBe('--insecure');
    expect(meant('release', 'info', '--registry-confg=a.json', 'IMG')).toBe('--registry-config');
    expect(meant('release', 'info', '--vesion')).toBe('--version');
    expect(meant('release', 'info', '--bogus', 'IMG')).toBeUndefined();
    // Short flags get none (nor does commander give any).
    expect(meant('release', 'info', '-z', 'IMG')).toBeUndefined();
  });
});

describe('osimage with pflag flag forms (offline sample)', () => {
  it('release info --pullspecs=true and -o=name work as oc takes them', async () => {
    const plain = await osimage(['release', 'info', SAMPLE, '--pullspecs']);
    const eq = await osimage(['release', 'info', '--pullspecs=true', SAMPLE]);
    expect(eq.exitCode).toBe(0);
    expect(eq.stdout).toBe(plain.stdout);
    const off = await osimage(['release', 'info', '--pullspecs=false', SAMPLE]);
    expect(off.stdout).toBe((await osimage(['release', 'info', SAMPLE])).stdout);
    const name = await osimage(['release', 'info', '-o=name', SAMPLE]);
    expect(name.exitCode).toBe(0);
    expect(name.stdout).toBe((await osimage(['release', 'info', '-o', 'name', SAMPLE])).stdout);
  });

  it('an unknown flag is `error: unknown flag: --bogus`, exit 2', async () => {
    // oc adm release info --bogus quay.io/x/y:1  →  error: unknown flag: --bogus
    //                                             See 'oc adm release info --help' for usage.
    // (A flag no option is near: `--bogus` would be taken for release info's `--bugs`.)
    const r = await osimage(['release', 'info', '--xyzzy', SAMPLE]);
    expect(r).toEqual({ stdout: '', stderr: "error: unknown flag: --xyzzy\nSee 'osimage release info --help' for usage.", exitCode: 2 });
    // A misspelt flag: pflag's line, then the flag meant, as commander suggests a command.
    expect(await osimage(['resolve', '--chanel', 'x'])).toEqual({
      stdout: '',
      stderr: "error: unknown flag: --chanel\n(Did you mean --channel?)\nSee 'osimage resolve --help' for usage.",
      exitCode: 2,
    });
    // The global flags are among those meant, wherever the typo is.
    expect((await osimage(['release', 'info', SAMPLE, '--logleve', '6'])).stderr.split('\n')[1]).toBe('(Did you mean --loglevel?)');
    const b = await osimage(['release', 'info', '--insecure=maybe', SAMPLE]);
    expect(b).toEqual({
      stdout: '',
      stderr:
        'error: invalid argument "maybe" for "--insecure" flag: strconv.ParseBool: parsing "maybe": invalid syntax\n' +
        "See 'osimage release info --help' for usage.",
      exitCode: 2,
    });
  });
});
