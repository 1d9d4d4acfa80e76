/**
 * The only place that writes to the terminal. stdout carries the answer; stderr carries warnings,
 * errors and progress. Colour only on a TTY and never with NO_COLOR. The streams and environment are the
 * current run's (`io()`, `env()`), so an in-process run writes to its own streams.
 */
import { type OutputStream, env, io } from '../context.js';
import { envFlag } from '../env-flag.js';
import type { Warning } from '../errors.js';
import { escapeControls, escapeText } from './escape.js';

export function useColor(stream: OutputStream = io().stderr, vars: NodeJS.ProcessEnv = env()): boolean {
  if (envFlag(vars.NO_COLOR)) return false;
  if (envFlag(vars.FORCE_COLOR)) return true;
  return Boolean(stream.isTTY) && vars.TERM !== 'dumb';
}

let chalk: typeof import('chalk') | undefined;

/**
 * Load chalk when a stream may carry colour (a TTY without NO_COLOR); the CLI calls this at the start of
 * each run. Piped and CI runs never load it. Once loaded it stays loaded: `colors()` still asks, for each
 * stream of each run, whether that stream may carry colour.
 */
export async function loadColors(): Promise<void> {
  const { stdout, stderr } = io();
  if (!chalk && (useColor(stderr) || useColor(stdout))) chalk = await import('chalk');
}

/** The few styles osimage uses. */
export interface Styles {
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

const same = (text: string) => text;
const PLAIN: Styles = { bold: same, red: same, green: same, yellow: same };
let styled: Styles | undefined;

/** Styles for one stream: plain text unless that stream may carry colour (and chalk is loaded). */
export function colors(stream: OutputStream = io().stdout): Styles {
  if (!chalk || !useColor(stream)) return PLAIN;
  styled ??= new chalk.Chalk({ level: 1 });
  return styled;
}

/** Write the answer to stdout (a newline is added when missing). */
export function out(text: string): void {
  io().stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
}

/** Write raw bytes to stdout, unchanged. */
export function outRaw(data: string | Uint8Array): void {
  io().stdout.write(data);
}

/**
 * Messages quote values from outside (build ids, tags, URLs, server texts): their control characters are
 * escaped (escape.ts), so a message can neither drive the terminal nor forge a line of its own.
 */
function oneLine(message: string): string {
  return escapeControls(message.replace(/\s*\n\s*/g, ' ').trim());
}

/**
 * Text for stderr exactly as given, control characters escaped but line ends kept (oc's messages that must match
 * byte for byte, one of which ends without a newline).
 */
export function errRaw(text: string): void {
  io().stderr.write(escapeText(text));
}

/** A note on stderr; it may span lines (a dry run's summary). */
export function info(message: string): void {
  io().stderr.write(`${escapeText(message)}\n`);
}

/** One line: `warning: <message>` (a core module's Warning prints its message; its code is for callers). */
export function warn(warning: string | Warning): void {
  const { stderr } = io();
  const message = typeof warning === 'string' ? warning : warning.message;
  stderr.write(`${colors(stderr).yellow('warning:')} ${oneLine(message)}\n`);
}

/** One line: `error: <message>`. */
export function error(message: string): void {
  const { stderr } = io();
  stderr.write(`${colors(stderr).red('error:')} ${oneLine(message)}\n`);
}
