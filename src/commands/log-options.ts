/**
 * The verbosity flags every command takes, as oc (`-v N`, `--v=N`, `--loglevel N`) and skopeo (`--debug`) spell
 * them. They are the program's options, so commander reads them anywhere on the line (before or after the
 * command, as pflag reads oc's persistent flags). What each level shows: src/verbosity.ts.
 */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { DEBUG_SWITCH_LEVEL, setVerbosity } from '../verbosity.js';

/** A level as pflag's int flag takes it; a negative level shows nothing more than 0 (as klog). */
export function parseLevel(value: string, flag: string): number {
  if (!/^[+-]?\d+$/.test(value)) {
    throw new UsageError(
      `invalid argument ${JSON.stringify(value)} for ${JSON.stringify(flag)} flag: strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`,
    );
  }
  return Number(value);
}

/** Add `-v, --v <level>`, `--loglevel <level>` and `--debug` to the program; the level takes effect as they are read. */
export function addLogOptions(program: Command): Command {
  return program
    .option('-v, --v <level>', 'log level: 6 logs each HTTP request, 8 also its headers (credentials masked)', (v) => {
      const level = parseLevel(v, '-v, --v');
      setVerbosity(level);
      return level;
    })
    .option('--loglevel <level>', 'the same as -v', (v) => {
      const level = parseLevel(v, '--loglevel');
      setVerbosity(level);
      return level;
    })
    .option('--debug', `the same as -v ${DEBUG_SWITCH_LEVEL}`, () => {
      setVerbosity(DEBUG_SWITCH_LEVEL);
      return true;
    });
}
