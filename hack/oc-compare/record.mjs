#!/usr/bin/env node
// Records oc's side of every pair of pairs.yaml into test/fixtures/oc/<name>.json: the command line, stdout,
// stderr and exit code (and the files under `snapshot:`), with the registry host:port, the closed port and the
// pair's folder templated ({{REGISTRY}}, {{CLOSED}}, {{DIR}}, {{HOME}}).
//
//   npm run build && node hack/oc-compare/record.mjs [--oc /work/oc-build/oc] [--new-releases] [NAME...]
//
// The images are the deterministic set of images.mjs, pushed to a fresh local registry; oc runs with a HOME of
// its own (no kubeconfig, no credentials; a pair's own credentials, registry and files: access.mjs). Rerun it
// after changing pairs.yaml or images.mjs. --new-releases (or a missing test/fixtures/oc/new-releases/images.json)
// first makes the `release new` outputs of oc and of the built osimage again (access.mjs), then records.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEW_RELEASES_FILE, recordNewReleases, withVariables } from './access.mjs';
import { FIXTURES, fixtureFile, loadPairs, osimageEnv, REPO, runPair, startEnvironment } from './lib.mjs';

const argv = process.argv.slice(2);
const ocAt = argv.indexOf('--oc');
const OC = ocAt >= 0 ? argv.splice(ocAt, 2)[1] : (process.env.OC ?? '/work/oc-build/oc');
const newAt = argv.indexOf('--new-releases');
if (newAt >= 0) argv.splice(newAt, 1);
const only = new Set(argv);

function runOc(home) {
  return (args, _dir, vars = {}) =>
    new Promise((resolve) => {
      execFile(
        OC,
        ['adm', 'release', ...args],
        {
          cwd: REPO,
          env: withVariables({ PATH: process.env.PATH, HOME: home, KUBECONFIG: join(home, 'no-kubeconfig') }, vars),
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
if (newAt >= 0 || !existsSync(NEW_RELEASES_FILE)) {
  // Made in an environment of their own: the stored images are pushed at the start of the one that records.
  const env = await startEnvironment();
  const home = await mkdtemp(join(tmpdir(), 'oc-home-'));
  const osimage = (args) =>
    new Promise((resolve) =>
      execFile(process.execPath, [`${REPO}bin/osimage`, 'release', ...args], { cwd: REPO, env: osimageEnv() }, (err, stdout, stderr) =>
        resolve({ stdout, stderr, exitCode: err ? (typeof err.code === 'number' ? err.code : -1) : 0 }),
      ),
    );
  try {
    await recordNewReleases(env.registry, (tool, args) => (tool === 'oc' ? runOc(home)(args) : osimage(args)));
    console.log(`wrote ${NEW_RELEASES_FILE}`);
  } finally {
    await env.stop();
    await rm(home, { recursive: true, force: true });
  }
}
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
