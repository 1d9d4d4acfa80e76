import { Option, type Command } from 'commander';
import { resolveSettings, misspeltEnvWarnings, pinNames, validateOsStream, type Settings } from '../rhcos/settings.js';
import { DEFAULT_BASE_URL, EXAMPLE_CHANNEL } from '../rhcos/defaults.js';
import { env } from '../context.js';
import { info, warn } from '../output/terminal.js';

/** The release-browser settings every such command takes: flag beats env beats default. */
export function addSettingsOptions(cmd: Command, which: { build?: boolean; arch?: boolean } = {}): Command {
  cmd
    .option('--base-url <url>', `release browser base URL, or a folder on disk (env RHCOS_BASE_URL; default ${DEFAULT_BASE_URL})`)
    .option(
      '--channel <channel>',
      `channel or stream, e.g. ${EXAMPLE_CHANNEL}, rhel-10.2/builds, rhcos-4.12 (env RHCOS_DEFAULT_CHANNEL; no default)`,
    );
  // Commands that name their builds otherwise (diff FROM TO) take no --build.
  if (which.build !== false) cmd.option('--build <name>', 'build name; empty means the newest build (env RHCOS_BUILD_NAME)');
  // `osimage stream` and `payload bootimages` take --arch repeatedly (A or A=CHANNEL) and declare their own.
  return which.arch === false ? cmd : cmd.option('--arch <arch>', 'architecture (default x86_64)');
}

export interface SettingsOptionValues {
  baseUrl?: string;
  channel?: string;
  build?: string;
  arch?: string;
}

/**
 * Settings from flags and the environment; warns about misspelt pin variables on stderr. A missing channel is
 * a usage error unless `channelOptional` (the command's operands may name it: the caller then requires it).
 */
export function settingsFrom(
  opts: SettingsOptionValues,
  environment: NodeJS.ProcessEnv = env(),
  how: { channelOptional?: boolean } = {},
): Settings {
  for (const w of misspeltEnvWarnings(environment)) warn(w);
  return resolveSettings(opts, environment, how);
}

/** `-o, --output <format>` limited to the given formats. */
export function outputOption(formats: string[], dflt: string): Option {
  return new Option('-o, --output <format>', `output format: ${formats.join(', ')}`).choices(formats).default(dflt);
}

/** An `Examples:` block for --help. */
export function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

/**
 * `--os-stream NAME` for the commands that pin (pin, pin --check, promote, verify --pins): that OS stream's pin
 * variables (`rhel-10` → `RHCOS_RHEL_10_BUILD_NAME`, …) instead of `RHCOS_*`.
 */
export function osStreamOption(
  description = 'pin a second OS stream in its own variables (rhel-10 → RHCOS_RHEL_10_BUILD_NAME, …_DEFAULT_CHANNEL, …_BASE_URL)',
): Option {
  return new Option('--os-stream <name>', description).argParser((v) => validateOsStream(v));
}

/** Commands that read the pins from a file ignore the pin variables (of the stream) in the environment: say so when some are set. */
export function noteIgnoredEnvPins(flag: string, file: string, stream?: string): void {
  const ignored = Object.values(pinNames(stream)).filter((v) => env()[v]);
  if (ignored.length > 0) info(`info: ${flag} reads the pins from ${file}; ignoring ${ignored.join(', ')} from the environment`);
}
