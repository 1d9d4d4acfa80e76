import { execa } from 'execa';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli.js';

export const BIN = fileURLToPath(new URL('../../bin/osimage', import.meta.url));
export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const SAMPLE_RELEASES = fileURLToPath(new URL('../../hack/sample/releases', import.meta.url));

export interface RunResult {
  /** stdout as text, without its final newline (as execa gives it). */
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface RunOptions {
  /** Added to the cleaned environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
}

/**
 * The environment a test run sees: the host's, cleaned of RHCOS_* pins and look-alikes and of registry
 * credentials (and what `drop` matches) so the host cannot leak into a test, no colour, two HTTP retries,
 * no cache (OSIMAGE_NO_CACHE); then what the test wants.
 */
export function testEnv(extra: Record<string, string | undefined> = {}, drop?: RegExp): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of Object.keys(process.env)) {
    if (!/RHCOS|BUILD_NAME|REGISTRY_AUTH_FILE|DOCKER_CONFIG/i.test(k) && !drop?.test(k)) env[k] = process.env[k];
  }
  // No cache unless a test asks for one (with its own OSIMAGE_CACHE_DIR): runs stay independent, ~/.cache untouched.
  Object.assign(env, { NO_COLOR: '1', OSIMAGE_HTTP_RETRIES: '2', OSIMAGE_NO_CACHE: '1' }, extra);
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env;
}

/** A stream that keeps what is written to it (not a TTY). */
class Capture extends Writable {
  readonly chunks: Buffer[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.chunks.push(Buffer.from(chunk));
    done();
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

const stripFinalNewline = (s: string) => s.replace(/\r?\n$/, '');

/** Run `main(args)` from src/cli.ts in-process with captured streams and the test environment. */
async function run(args: string[], opts: RunOptions): Promise<{ stdout: Buffer; stderr: Buffer; exitCode: number }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const exitCode = await main(args, { stdout, stderr, env: testEnv(opts.env), cwd: process.cwd() });
  return { stdout: stdout.bytes(), stderr: stderr.bytes(), exitCode };
}

/**
 * Run the source in-process (see testEnv for the environment), in the test's working folder (the
 * repository): relative paths on the command line resolve against it, as fs resolves them.
 */
export async function osimage(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const r = await run(args, opts);
  return { stdout: stripFinalNewline(r.stdout.toString()), stderr: stripFinalNewline(r.stderr.toString()), exitCode: r.exitCode };
}

/** As `osimage`, with stdout as the exact bytes written (no newline stripped, no decoding). */
export async function osimageRaw(args: string[], opts: RunOptions = {}): Promise<{ stdout: Buffer; stderr: string; exitCode: number }> {
  const r = await run(args, opts);
  return { stdout: r.stdout, stderr: r.stderr.toString(), exitCode: r.exitCode };
}

/**
 * Run the built bin/osimage (dist/, built by test/global-setup.ts) as a subprocess, for what only a
 * process shows: start-up, a closed pipe, signals, a working folder of its own, stdin.
 */
export async function osimageBin(args: string[], opts: RunOptions & { cwd?: string; input?: string } = {}): Promise<RunResult> {
  const r = await execa(BIN, args, {
    env: testEnv(opts.env),
    extendEnv: false,
    cwd: opts.cwd ?? REPO,
    reject: false,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' as const }),
  });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode ?? -1 };
}
