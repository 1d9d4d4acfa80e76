import { Writable } from 'node:stream';
import type { TestRunner } from './promote.js';
import { env } from '../context.js';

/**
 * A TestRunner that runs the command through the shell (execa, shell: true) with our environment plus
 * the candidate's RHCOS_* values. Its output goes to the given streams as it comes (the
 * promote command sends both to stderr so that stdout carries only osimage's answer).
 */
export function shellTestRunner(io: { stdout: Writable; stderr: Writable; env?: NodeJS.ProcessEnv }): TestRunner {
  return async (command, candidate) => {
    const { execa } = await import('execa');
    const r = await execa(command, {
      shell: true,
      env: { ...(io.env ?? env()), ...candidate },
      extendEnv: false,
      stdin: 'ignore',
      // Piped, not handed over: the run's streams may be a test's captures, which have no file descriptor.
      stdout: ['pipe', forward(io.stdout)],
      stderr: ['pipe', forward(io.stderr)],
      buffer: false,
      reject: false,
    });
    return { exitCode: r.exitCode, signal: r.signal };
  };
}

/** A stream that passes what the command writes on to `stream`, and leaves `stream` open when the command ends. */
function forward(stream: Writable): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      if (stream.write(chunk)) done();
      else stream.once('drain', () => done());
    },
  });
}
