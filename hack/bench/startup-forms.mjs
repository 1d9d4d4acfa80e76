#!/usr/bin/env node
/**
 * Other shapes of osimage's start-up, measured beside bin/osimage (a record of what was tried, to run again on a newer
 * Node; osimage ships none of them: docs/cache-and-performance.md has the figures and why):
 *
 * - launcher: `node bin/osimage` (dist/bundle/ run with the V8 code cache, src/launcher/code-cache.ts).
 * - snapshot-cli: `node --snapshot-blob F --`, a V8 start-up snapshot holding cli.cjs evaluated; commands.cjs and the
 *   package scripts load with a code cache, as the launcher loads them (lib/snapshot-entry.cjs).
 * - snapshot-all: the same, with commands.cjs, the `release` command and undici also evaluated in the snapshot.
 * - sea-launcher: a single executable application (a copy of this node with a blob injected by postject) whose main
 *   runs bin/osimage: what a single binary costs or saves at start-up itself.
 * - sea-snapshot-cli: a single executable with `useSnapshot` built from snapshot-cli's entry.
 * - floor: lib/floor.cjs, the least a Node process does for the same answer (node:http, no checks), for scale.
 * - `node -e 0`, and oc (`oc adm release info --insecure=true --image-for`) when it is on PATH, in the same rounds.
 *
 * Each form runs `--help` and `release info --insecure --image-for machine-os-content` by tag against the bench's
 * `standard` image on a local registry: cold (an empty cache folder each run) and warm (one filled by an earlier run).
 * Rounds alternate, after two warm-up rounds; the table gives wall-time medians with their range and, where python3
 * is installed, the median CPU time (user + system of the process and its threads, from wait4: steadier than wall
 * time on a busy machine) and the per-round CPU difference to the launcher (median and quartiles).
 *
 *   node hack/bench/startup-forms.mjs [--runs 15] [--forms launcher,snapshot-cli,…] [--postject PATH]
 *
 * The single-executable forms need postject, which osimage does not depend on: install it outside the repo
 * (`npm install --prefix /tmp/postject postject`) and pass `--postject /tmp/postject/node_modules/.bin/postject`.
 * Needs `npm run build` and docker-registry. Writes only to a temporary folder.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRegistryServer } from '../../test/infra/registry-server.mjs';
import { flagReader } from './lib/args.mjs';
import { pushBenchImage } from './lib/push-image.mjs';
import { buildBenchImages } from './lib/images.mjs';
import { alternate, median, run as runPlain } from './lib/measure.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const NODE = process.execPath;
const flag = flagReader();
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(
    'usage: node hack/bench/startup-forms.mjs [--runs 15] [--forms launcher,snapshot-cli,snapshot-all,sea-launcher,sea-snapshot-cli,floor] [--postject PATH]\n' +
      '(after npm run build; the header of this file says what each form is)\n',
  );
  process.exit(0);
}
const runs = Number(flag('runs', '15'));
const postject = flag('postject', undefined);
const ALL = ['launcher', 'snapshot-cli', 'snapshot-all', 'sea-launcher', 'sea-snapshot-cli', 'floor'];
const wanted = flag('forms', ALL.filter((f) => postject || !f.startsWith('sea-')).join(',')).split(',');
for (const f of wanted) if (!ALL.includes(f)) throw new Error(`--forms: unknown form ${f} (known: ${ALL.join(', ')})`);
if (wanted.some((f) => f.startsWith('sea-')) && !postject) throw new Error('the sea-* forms need --postject PATH');
if (!existsSync(join(REPO, 'dist/bundle/bundle.json'))) throw new Error('no dist/bundle/: run `npm run build` first');

/**
 * A copy of the install (bin/, dist/bundle/'s scripts, build-info, package.json, node_modules linked) that every form
 * runs from: its code-cache folder starts empty, so each code cache is written by this bench's first run of the
 * query, not by whatever ran first since the last build (an entry holds what that run compiled and is written once:
 * one written by a `--help` or a failed run leaves a query compiling most of its code on every run).
 */
function privateInstall(tmp) {
  const root = join(tmp, 'install');
  mkdirSync(join(root, 'dist/bundle'), { recursive: true });
  cpSync(join(REPO, 'bin'), join(root, 'bin'), { recursive: true });
  cpSync(join(REPO, 'package.json'), join(root, 'package.json'));
  cpSync(join(REPO, 'dist/build-info.json'), join(root, 'dist/build-info.json'));
  for (const f of readdirSync(join(REPO, 'dist/bundle'))) {
    if (f.endsWith('.cjs') || f === 'bundle.json') cpSync(join(REPO, 'dist/bundle', f), join(root, 'dist/bundle', f));
  }
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  return root;
}

// CPU time of a child: python3's os.wait4 gives the kernel's rusage in microseconds (GNU time prints 10 ms steps).
const CPU_WRAPPER = `import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
sys.stderr.write("\\nCPU-MS %.3f\\n" % ((ru.ru_utime + ru.ru_stime) * 1000))
sys.exit(os.waitstatus_to_exitcode(status))
`;
const havePython = spawnSync('python3', ['-c', 'import os; os.waitstatus_to_exitcode'], { stdio: 'ignore' }).status === 0;

/** Wall time unwrapped; CPU time from a second, wrapped run of the same command (`argv()` is asked for each run). */
async function measure(cmd, argv, opts) {
  const r = await runPlain(cmd, argv(), { ...opts, rss: false });
  if (!havePython) return r;
  const c = await runPlain('python3', ['-c', CPU_WRAPPER, cmd, ...argv()], { ...opts, rss: false });
  const m = /\nCPU-MS ([\d.]+)\n$/.exec(c.stderr);
  return { ...r, cpuMs: m ? Number(m[1]) : Number.NaN };
}

function sh(cmd, cmdArgs, env = {}) {
  const r = spawnSync(cmd, cmdArgs, { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return r;
}

const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** A single executable: this node with the blob of `config` injected. */
function buildSea(tmp, name, config, env = {}) {
  const cfg = join(tmp, `${name}.json`);
  const blob = join(tmp, `${name}.blob`);
  writeFileSync(cfg, JSON.stringify({ ...config, output: blob, disableExperimentalSEAWarning: true }));
  sh(NODE, ['--experimental-sea-config', cfg], env);
  const exe = join(tmp, name);
  copyFileSync(NODE, exe);
  sh(postject, [exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE]);
  return exe;
}

/** Each wanted form as [command, ...arguments before osimage's own]. */
function buildForms(tmp) {
  const ROOT = privateInstall(tmp);
  const entry = join(HERE, 'lib/snapshot-entry.cjs');
  const snapEnv = (name, preload) => ({
    OSIMAGE_SNAPSHOT_BUNDLE: join(ROOT, 'dist/bundle'),
    OSIMAGE_SNAPSHOT_CACHE: join(tmp, `code-cache-${name}`),
    OSIMAGE_SNAPSHOT_PRELOAD: preload,
  });
  const blob = (name, preload) => {
    const file = join(tmp, `${name}.blob`);
    sh(NODE, ['--snapshot-blob', file, '--build-snapshot', entry], snapEnv(name, preload));
    return [NODE, '--snapshot-blob', file, '--'];
  };
  const forms = {};
  for (const f of wanted) {
    if (f === 'launcher') forms[f] = [NODE, join(ROOT, 'bin/osimage')];
    if (f === 'snapshot-cli') forms[f] = blob(f, '');
    if (f === 'snapshot-all') forms[f] = blob(f, 'all');
    if (f === 'floor') forms[f] = [NODE, join(HERE, 'lib/floor.cjs')];
    if (f === 'sea-launcher') {
      // The main may require only built-ins; bin/osimage is loaded through a require of its own (argv is already
      // [exe, exe, ...args], as bin/osimage expects).
      const main = join(tmp, 'sea-launcher-main.cjs');
      const bin = join(ROOT, 'bin/osimage');
      writeFileSync(main, `require('node:module').createRequire(${JSON.stringify(bin)})(${JSON.stringify(bin)});\n`);
      forms[f] = [buildSea(tmp, f, { main, useCodeCache: true })];
    }
    if (f === 'sea-snapshot-cli') forms[f] = [buildSea(tmp, f, { main: entry, useSnapshot: true }, snapEnv(f, ''))];
  }
  return forms;
}

const q = (values, p) => {
  const v = [...values].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.round(p * (v.length - 1)))];
};

const tmp = await mkdtemp(join(os.tmpdir(), 'osimage-forms-'));
let registry;
try {
  const forms = buildForms(tmp);
  const bench = await buildBenchImages(tmp, { baseMiB: 2, topMiB: 1 });
  registry = await startRegistryServer({ dir: await mkdtemp(join(tmp, 'registry-')), logLevel: 'error' });
  const byTag = await pushBenchImage(registry.host, bench);
  const env = { ...process.env, OSIMAGE_FLOOR_ANSWER: bench.mosc };
  const info = (dir) => ['release', 'info', '--insecure', '--image-for', 'machine-os-content', byTag, '--cache-dir', dir];
  const answer = (name) => (r) => {
    if (r.code !== 0 || r.stdout.trim() !== bench.mosc) throw new Error(`${name}: exit ${r.code}: ${r.stderr}${r.stdout}`);
    return r;
  };
  let n = 0;
  // A fresh cache folder each run (left for the temporary folder's removal).
  const cold = () => join(tmp, `cold-${n++}`);
  const jobs = { node: () => measure(NODE, () => ['-e', '0'], { env }) };
  const oc = spawnSync('oc', ['version', '--client'], { stdio: 'ignore' }).status === 0;
  if (oc) {
    const ocArgs = ['adm', 'release', 'info', '--insecure=true', '--image-for', 'machine-os-content', byTag];
    jobs.oc = async () => answer('oc')(await measure('oc', () => ocArgs, { env }));
  }
  for (const [name, [cmd, ...pre]] of Object.entries(forms)) {
    const warmDir = join(tmp, `warm-${name}`);
    // The first run fills the warm cache and each form's code cache.
    for (let i = 0; i < 2; i++) answer(name)(await runPlain(cmd, [...pre, ...info(warmDir)], { env, rss: false }));
    jobs[`${name} --help`] = async () => {
      const r = await measure(cmd, () => [...pre, '--help'], { env });
      if (r.code !== 0 || !r.stdout.startsWith('Usage')) throw new Error(`${name} --help: exit ${r.code}: ${r.stderr}`);
      return r;
    };
    jobs[`${name} cold`] = async () => answer(name)(await measure(cmd, () => [...pre, ...info(cold())], { env }));
    jobs[`${name} warm`] = async () => answer(name)(await measure(cmd, () => [...pre, ...info(warmDir)], { env }));
  }
  const load0 = os.loadavg()[0];
  const samples = await alternate(jobs, { runs, warmup: 2 });
  const wall = (k) => median(samples[k].map((s) => s.wallMs));
  const cpu = (k) => median(samples[k].map((s) => s.cpuMs));
  const out = [
    `Node ${process.version}, ${runs} alternating rounds; load (1 min) ${load0.toFixed(2)} before, ${os.loadavg()[0].toFixed(2)} after`,
    '',
    '| run | wall median [min–max] | / node -e 0 | / oc | CPU median | Δ CPU to the launcher, per round: median [p25, p75] |',
    '|---|---|---|---|---|---|',
  ];
  const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : '');
  for (const [k, s] of Object.entries(samples)) {
    const w = s.map((x) => x.wallMs);
    const [form, what] = k.split(' ');
    const ref = samples[`launcher ${what}`];
    let delta = '';
    if (havePython && what && form !== 'launcher' && ref) {
      const d = s.map((x, i) => x.cpuMs - ref[i].cpuMs);
      delta = `${q(d, 0.5).toFixed(1)} [${q(d, 0.25).toFixed(1)}, ${q(d, 0.75).toFixed(1)}] ms`;
    }
    const vsOc = oc ? `${(wall(k) / wall('oc')).toFixed(2)}×` : '';
    const range = `[${Math.min(...w).toFixed(0)}–${Math.max(...w).toFixed(0)}]`;
    out.push(`| ${k} | ${ms(wall(k))} ${range} | ${(wall(k) / wall('node')).toFixed(2)}× | ${vsOc} | ${ms(cpu(k))} | ${delta} |`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  await registry?.stop().catch(() => undefined);
  await rm(tmp, { recursive: true, force: true });
}
