/**
 * The built bin/osimage exits as soon as the answer is written. Reading a release layer through undici used to
 * make V8 tier up undici's WebAssembly HTTP parser (llhttp) on a worker thread, and Node waited for that
 * compile job before exiting: 80–275 ms after the answer on a ~550 KiB layer. The launcher keeps WebAssembly
 * on V8's baseline compiler (`--liftoff-only`), set before llhttp is compiled: that order is what this test
 * checks, with a probe preloaded into the process. The tail itself is a time, so it is measured by the bench
 * (`npm run bench`: hack/bench/run.mjs, "tail after the answer"), never asserted here.
 */
import { execa } from 'execa';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, REPO, testEnv } from '../helpers/cli.js';
import { MOC_PULLSPEC, baseEntries, image, pushBuilt, releaseEntries } from '../helpers/oci-builder.js';
import { useRegistry } from '../helpers/registry.js';

const PROBE = fileURLToPath(new URL('../helpers/wasm-probe.cjs', import.meta.url));

describe('the process ends with its answer', () => {
  const registry = useRegistry({ mode: 'open' });
  let ref: string;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'osimage-probe-'));
    const img = await image([{ entries: baseEntries() }, { entries: releaseEntries() }]);
    ref = `${registry().host}/ocp/release:4.13.1`;
    await pushBuilt(ref, img);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  /** `release info --image-for` with the probe loaded; the events it logged. */
  async function probedQuery(logName: string): Promise<string[]> {
    const log = join(dir, logName);
    const r = await execa(BIN, ['release', 'info', '--insecure', '--image-for', 'machine-os-content', ref], {
      env: testEnv({ NODE_OPTIONS: `--require=${PROBE}`, OSIMAGE_TEST_PROBE_LOG: log }),
      extendEnv: false,
      cwd: REPO,
      reject: false,
    });
    expect({ stdout: r.stdout, stderr: r.stderr, code: r.exitCode }).toEqual({ stdout: MOC_PULLSPEC, stderr: '', code: 0 });
    return (await readFile(log, 'utf8')).trim().split('\n');
  }

  test('release info --image-for compiles undici’s HTTP parser with WebAssembly on Liftoff only', async () => {
    const events = await probedQuery('probe.log');
    // The parser was compiled (the run did talk HTTP through undici), and only after the flag was set.
    expect(events).toContain('wasm compile');
    expect(events.indexOf('flags --liftoff-only')).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('flags --liftoff-only')).toBeLessThan(events.indexOf('wasm compile'));
  });

  test('the built-ins a registry query loads are loaded before the flag, keeping Node’s code cache', async () => {
    const events = await probedQuery('probe-builtins.log');
    // A built-in loaded after any V8 flag is set compiles from source (node:tls ~6 ms more).
    const atFlag = events[events.indexOf('flags --liftoff-only') - 1] ?? '';
    expect(atFlag.split(' ')).toEqual(expect.arrayContaining(['loaded', 'os', 'fs/promises', 'module', 'tls', 'assert']));
  });
});
