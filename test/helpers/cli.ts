import { execa } from 'execa';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/osimage', import.meta.url));
export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const SAMPLE_RELEASES = fileURLToPath(new URL('../../hack/sample/releases', import.meta.url));

export interface RunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * Run the built bin/osimage as a subprocess. The environment is cleaned of RHCOS_* pins and
 * look-alikes so the host cannot leak into a test; `env` adds what the test wants.
 */
export async function osimage(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string; input?: string } = {},
): Promise<RunResult> {
  const base: Record<string, string | undefined> = {};
  for (const k of Object.keys(process.env)) if (!/RHCOS|BUILD_NAME|REGISTRY_AUTH_FILE|DOCKER_CONFIG/i.test(k)) base[k] = process.env[k];
  const r = await execa(BIN, args, {
    env: { ...base, NO_COLOR: '1', OSIMAGE_HTTP_RETRIES: '2', ...opts.env },
    extendEnv: false,
    cwd: opts.cwd ?? REPO,
    reject: false,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' as const }),
  });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode ?? -1 };
}
