/**
 * The only place that writes to the terminal. stdout carries the answer; stderr carries warnings,
 * errors and progress. Colour only on a TTY and never with NO_COLOR.
 */

export function useColor(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

let chalk: typeof import('chalk') | undefined;

/**
 * Load chalk when a stream may carry colour (a TTY without NO_COLOR); the CLI calls this once at start-up.
 * Piped and CI runs never load it.
 */
export async function loadColors(): Promise<void> {
  if (!chalk && (useColor(process.stderr) || useColor(process.stdout))) chalk = await import('chalk');
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
const styles = new Map<NodeJS.WriteStream, Styles>();

/** Styles for one stream: plain text unless that stream may carry colour (and chalk is loaded). */
export function colors(stream: NodeJS.WriteStream = process.stdout): Styles {
  if (!chalk || !useColor(stream)) return PLAIN;
  let c = styles.get(stream);
  if (!c) {
    c = new chalk.Chalk({ level: 1 });
    styles.set(stream, c);
  }
  return c;
}

/** Write the answer to stdout (a newline is added when missing). */
export function out(text: string): void {
  process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
}

/** Write raw bytes to stdout, unchanged. */
export function outRaw(data: string | Uint8Array): void {
  process.stdout.write(data);
}

export function info(message: string): void {
  process.stderr.write(`${message}\n`);
}

export function warn(message: string): void {
  process.stderr.write(`${colors(process.stderr).yellow('warning:')} ${message}\n`);
}

/** One line: `error: <message>`. */
export function error(message: string): void {
  const oneLine = message.replace(/\s*\n\s*/g, ' ').trim();
  process.stderr.write(`${colors(process.stderr).red('error:')} ${oneLine}\n`);
}
