import { Chalk, type ChalkInstance } from 'chalk';

/**
 * The only place that writes to the terminal. stdout carries the answer; stderr carries warnings,
 * errors and progress. Colour only on a TTY and never with NO_COLOR.
 */

export function useColor(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

const chalks = new Map<NodeJS.WriteStream, ChalkInstance>();

/** A chalk for one stream: level 0 (plain text) unless that stream may carry colour. */
export function colors(stream: NodeJS.WriteStream = process.stdout): ChalkInstance {
  let c = chalks.get(stream);
  if (!c) {
    c = new Chalk({ level: useColor(stream) ? 1 : 0 });
    chalks.set(stream, c);
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
