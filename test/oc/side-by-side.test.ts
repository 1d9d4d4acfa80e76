/**
 * osimage side by side with oc 4.13: every pair of hack/oc-compare/pairs.yaml runs in-process against
 * the deterministic image set (hack/oc-compare/images.mjs) in one local registry (or, for a pair that names one,
 * one asking for a password or behind TLS, with the pair's own credentials and files: hack/oc-compare/access.mjs),
 * and is compared with oc's output recorded in test/fixtures/oc/ (hack/oc-compare/record.mjs), after templating the
 * registry host:port and folders.
 *
 * - `expect: identical`: stdout, stderr, exit code (and the files under `snapshot:`) equal oc's.
 * - `expect: documented` / `oc-quirk`: what the difference leaves equal (`same:`) equals oc's.
 * - KNOWN_WRONG: pairs that still differ from oc today, each with the area being fixed; they run as `it.fails`,
 *   so one that starts to match fails here until it is taken off the list.
 *
 * `node hack/oc-compare/compare.mjs` prints the same classes for the built binary, with the count.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addsDetailOnly,
  differences,
  type Environment,
  fixtureFile,
  jsonSubsetEqual,
  loadPairs,
  type Pair,
  type Recorded,
  type Result,
  runPair,
  startEnvironment,
} from '../../hack/oc-compare/lib.mjs';
import { accessProblem, BASIC, expandAccess, pairVariables, withVariables } from '../../hack/oc-compare/access.mjs';
import { osimageRaw } from '../helpers/cli.js';

/** Pairs that differ from oc today, and the work that fixes them (none: keep the mechanism for the next oc text). */
const KNOWN_WRONG = new Map<string, string>([]);

const pairs = await loadPairs();
const recorded = (name: string): Recorded => JSON.parse(readFileSync(fixtureFile(name), 'utf8')) as Recorded;

/** The streams a pair compares: all for identical, `same:` for documented and oc-quirk. */
const compared = (pair: Pair) => (pair.expect === 'identical' ? (['stdout', 'stderr', 'exitCode', 'files'] as const) : (pair.same ?? []));

function check(pair: Pair, oc: Recorded, ours: Result): void {
  // A documented difference that is gone should be said: the pair is identical now.
  if (pair.expect !== 'identical')
    expect(differences(oc, ours), 'the documented difference is gone: mark the pair identical').not.toEqual([]);
  for (const k of compared(pair)) {
    if (k === 'stdout' && pair.json === 'subset') {
      expect(jsonSubsetEqual(oc.stdout, ours.stdout, pair.ignore), `stdout: oc's JSON keys and values\n${ours.stdout}`).toBe(true);
    } else if (k === 'stderr' && pair.detail) {
      expect(
        addsDetailOnly(oc.stderr, ours.stderr),
        `stderr: oc's lines, detail only after them\noc:\n${oc.stderr}\nosimage:\n${ours.stderr}`,
      ).toBe(true);
    } else {
      expect({ [k]: ours[k] ?? null }).toEqual({ [k]: oc[k] ?? null });
    }
  }
}

describe('osimage release side by side with oc adm release (test/fixtures/oc)', () => {
  let env: Environment | undefined;
  beforeAll(async () => {
    env = await startEnvironment();
  });
  afterAll(async () => {
    await env?.stop();
  });

  const run = async (args: string[], _dir: string, vars: Record<string, string | undefined>) => {
    const r = await osimageRaw(['release', ...args], { env: vars });
    return { stdout: r.stdout.toString('utf8'), stderr: r.stderr, exitCode: r.exitCode };
  };

  it('has a recording for every pair and every KNOWN_WRONG name is a pair', () => {
    const names = new Set(pairs.map((p) => p.name));
    expect([...KNOWN_WRONG.keys()].filter((n) => !names.has(n))).toEqual([]);
    for (const p of pairs) expect(recorded(p.name).command.slice(3)).toEqual(p.args);
  });

  for (const pair of pairs) {
    const what = pair.expect === 'identical' ? 'identical' : `${pair.expect}, same ${(pair.same ?? []).join(', ') || 'nothing'}`;
    const known = KNOWN_WRONG.get(pair.name);
    const test = known ? it.fails : it;
    test(`${pair.name} (${what})${known ? ` — KNOWN_WRONG: ${known}` : ''}`, async () => {
      if (!env) throw new Error('no registry');
      check(pair, recorded(pair.name), await runPair(pair, env, run));
    });
  }
});

describe("a pair's registry, credentials and files (hack/oc-compare/access.mjs)", () => {
  it('checks registry:, env: and files:', () => {
    expect(accessProblem({ registry: 'htpasswd', env: { HOME: 'x', SSL_CERT_FILE: null }, files: { 'run/a.json': '{}' } })).toBeUndefined();
    expect(accessProblem({ registry: 'token' as Pair['registry'] })).toMatch(/^registry: token\?/);
    expect(accessProblem({ files: { '../escape': '' } })).toMatch(/not a path under/);
    expect(accessProblem({ env: { X: 1 as unknown as string } })).toMatch(/env: X/);
  });

  it('an isolated pair gets a HOME and XDG_RUNTIME_DIR of its own, its variables and its files; others get nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'oc-compare-access-'));
    try {
      const x = (t: string) => expandAccess(t, { ca: '/ca.crt' }).replaceAll('{{DIR}}', dir);
      const vars = await pairVariables(
        { registry: 'tls', env: { SSL_CERT_FILE: '{{CA}}', HTTPS_PROXY: null }, files: { 'run/containers/auth.json': '{{BASIC}}' } },
        dir,
        x,
      );
      expect(vars).toMatchObject({ HOME: join(dir, 'home'), XDG_RUNTIME_DIR: join(dir, 'run'), SSL_CERT_FILE: '/ca.crt' });
      expect('REGISTRY_AUTH_FILE' in vars && vars.REGISTRY_AUTH_FILE === undefined).toBe(true);
      expect(await readFile(join(dir, 'run', 'containers', 'auth.json'), 'utf8')).toBe(BASIC);
      expect(Buffer.from(BASIC, 'base64').toString()).toBe('alice:wonderland');
      const base = { PATH: '/bin', REGISTRY_AUTH_FILE: '/host/auth.json', HTTPS_PROXY: 'http://p' };
      expect(withVariables(base, vars)).toEqual({
        PATH: '/bin',
        HOME: join(dir, 'home'),
        XDG_RUNTIME_DIR: join(dir, 'run'),
        SSL_CERT_FILE: '/ca.crt',
      });
      expect(await pairVariables({ args: [] }, dir, x)).toEqual({});
      expect(() => expandAccess('{{CA}}', {})).toThrow(/registry: tls/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
