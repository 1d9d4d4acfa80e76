#!/usr/bin/env node
// Records oc's side of every pair of pairs.yaml into test/fixtures/oc/<name>.json: the command line, stdout,
// stderr and exit code (and the files under `snapshot:`), with the registry host:port, the closed port and the
// pair's folder templated ({{REGISTRY}}, {{CLOSED}}, {{DIR}}, {{HOME}}).
//
//   npm run build && node hack/oc-compare/record.mjs [--oc /work/oc-build/oc] [NAME...]
//
// The images are the deterministic set of images.mjs, pushed to a fresh local registry; oc runs with a HOME of
// its own (no kubeconfig, no credentials). Rerun it after changing pairs.yaml or images.mjs.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, fixtureFile, loadPairs, REPO, runPair, startEnvironment } from './lib.mjs';

const argv = process.argv.slice(2);
const ocAt = argv.indexOf('--oc');
const OC = ocAt >= 0 ? argv.splice(ocAt, 2)[1] : (process.env.OC ?? '/work/oc-build/oc');
const only = new Set(argv);

function runOc(home) {
  return (args) =>
    new Promise((resolve) => {
      execFile(
        OC,
        ['adm', 'release', ...args],
        {
          cwd: REPO,
          env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: join(home, 'no-kubeconfig') },
          timeout: 120_000,
          maxBuffer: 64 << 20,
        },
        (err, stdout, stderr) => {
          resolve({ stdout, stderr, exitCode: err ? (typeof err.code === 'number' ? err.code : -1) : 0 });
        },
      );
    });
}

const version = await new Promise((resolve) =>
  execFile(OC, ['version', '--client'], (err, stdout) => resolve(err ? `unknown (${err.message})` : stdout.trim())),
);
const pairs = (await loadPairs()).filter((p) => only.size === 0 || only.has(p.name));
const env = await startEnvironment();
const home = await mkdtemp(join(tmpdir(), 'oc-home-'));
await mkdir(FIXTURES, { recursive: true });
try {
  for (const pair of pairs) {
    const r = await runPair(pair, env, runOc(home), { HOME: home });
    const record = {
      name: pair.name,
      command: ['oc', 'adm', 'release', ...pair.args],
      ...r,
    };
    await writeFile(fixtureFile(pair.name), `${JSON.stringify(record, null, 2)}\n`);
    console.log(`${String(r.exitCode).padStart(3)}  ${pair.name}`);
  }
  await writeFile(join(FIXTURES, 'VERSION'), `${version}\n`);
} finally {
  await env.stop();
  await rm(home, { recursive: true, force: true });
}
