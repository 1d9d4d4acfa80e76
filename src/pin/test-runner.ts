import type { Writable } from 'node:stream';
import type { TestRunner } from './promote.js';

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
      env: { ...(io.env ?? process.env), ...candidate },
      extendEnv: false,
      stdin: 'ignore',
      stdout: io.stdout,
      stderr: io.stderr,
      reject: false,
    });
    return { exitCode: r.exitCode, signal: r.signal };
  };
}
