#!/usr/bin/env node
/**
 * `npm run bench`: speed, bytes and memory of osimage against the tools users would otherwise
 * pick, on the same images, in the same run. Needs `npm run build` first (npm run bench does it) and the
 * tools hack/bench/ensure-tools.sh installs (docker-registry, skopeo, GNU time).
 *
 *   npm run bench                                  # defaults: 256 MiB base layers, 1 GiB top layer
 *   OSIMAGE_BENCH_MIB=64 OSIMAGE_BENCH_TOP_MIB=128 npm run bench -- --results /tmp/r.md   # a quick one
 *
 * Options (flag, or environment variable):
 *   --mib N          OSIMAGE_BENCH_MIB          base layers' data in total, MiB (default 256)
 *   --top-mib N      OSIMAGE_BENCH_TOP_MIB      the deep variant's top layer, MiB (default 1024)
 *   --runs N         OSIMAGE_BENCH_RUNS         timed runs of release info per tool (default 5)
 *   --startup-runs N OSIMAGE_BENCH_STARTUP_RUNS start-up, resolve and module-cost runs (default 21)
 *   --builds N       OSIMAGE_BENCH_BUILDS       builds in builds.json (default 5000)
 *   --operator-mib N OSIMAGE_BENCH_OPERATOR_MIB each operator image's random "binary" in its top layer, MiB (default 6)
 *   --new-runs N     OSIMAGE_BENCH_NEW_RUNS     timed runs of `release new --from-release` per tool (default 3)
 *   --only SECTION   OSIMAGE_BENCH_ONLY         run one section alone: `from-release`, or `payload` (the full-size
 *                                               payload's queries: release info in four views, --changes-from,
 *                                               extract --file and --to, release new --from-dir, against oc and
 *                                               the minimum bytes); the Markdown then goes to stdout, and to
 *                                               --results only when given
 *   --results FILE   OSIMAGE_BENCH_RESULTS      where the Markdown goes (default hack/bench/RESULTS.md)
 *   --before BIN     OSIMAGE_BENCH_BEFORE       another build's bin/osimage (an older checkout, built), measured in
 *                                               the same rounds of the payload queries: what a change gained
 *
 *   node hack/bench/run.mjs --only from-release   # release new --from-release alone (npm run build first)
 *   OSIMAGE_BENCH_MIB=32 OSIMAGE_BENCH_OPERATOR_MIB=0 OSIMAGE_BENCH_RUNS=3 node hack/bench/run.mjs --only payload   # quick
 *
 * Everything lives in one temp folder (under $TMPDIR or /tmp), removed at the end, on failure and on
 * Ctrl-C / SIGTERM. Nothing here is part of `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import { mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRegistryServer } from '../../test/infra/registry-server.mjs';
import { serveBuilds } from './lib/builds.mjs';
import { fromReleasePushes, fromReleaseSection } from './lib/from-release.mjs';
import { payloadQueriesSection } from './lib/payload-queries.mjs';
import { buildBenchImages, imageReferences } from './lib/images.mjs';
import { RSS_METHOD, alternate, median, run, running } from './lib/measure.mjs';
import { startCountingProxy } from './lib/proxy.mjs';
import { renderFromReleaseOnly, renderResults } from './lib/report.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const BIN = join(ROOT, 'bin/osimage');
const NODE = process.execPath;
const MiB = 1024 * 1024;
const REPO = 'ocp/release';
/** Where the payload's component images live (one repository, by digest, as ART's ocp-v4.0-art-dev). */
const ART_REPO = 'ocp/art-dev';
/** Where `release new --to-image` pushes. */
const NEW_REPO = 'ocp/release-new';
/** Sections `--only` can pick. */
const SECTIONS = ['from-release', 'payload'];

// ---------------------------------------------------------------- options

function options(argv) {
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      process.stdout.write(
        'usage: npm run bench [-- --mib N --top-mib N --runs N --startup-runs N --builds N --operator-mib N --new-runs N\n' +
          '                        --only from-release|payload --results FILE --before BIN]\n' +
          'environment: OSIMAGE_BENCH_MIB, OSIMAGE_BENCH_TOP_MIB, OSIMAGE_BENCH_RUNS, OSIMAGE_BENCH_STARTUP_RUNS,\n' +
          '             OSIMAGE_BENCH_BUILDS, OSIMAGE_BENCH_OPERATOR_MIB, OSIMAGE_BENCH_NEW_RUNS, OSIMAGE_BENCH_ONLY,\n' +
          '             OSIMAGE_BENCH_RESULTS, OSIMAGE_BENCH_BEFORE\n',
      );
      process.exit(0);
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unknown argument ${a} (try --help)`);
    flags[m[1]] = m[2] ?? argv[++i];
  }
  const num = (flag, env, def, min) => {
    const raw = flags[flag] ?? (process.env[env] || undefined);
    if (raw === undefined) return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} / ${env} must be an integer ≥ ${min}, got ${raw}`);
    return n;
  };
  const only = flags.only ?? (process.env.OSIMAGE_BENCH_ONLY || undefined);
  if (only !== undefined && !SECTIONS.includes(only)) throw new Error(`--only must be one of ${SECTIONS.join(', ')}, got ${only}`);
  // A section run alone does not overwrite the full report unless asked to.
  const resultsFile = flags.results ?? (process.env.OSIMAGE_BENCH_RESULTS || (only ? undefined : join(HERE, 'RESULTS.md')));
  const known = new Set(['mib', 'top-mib', 'runs', 'startup-runs', 'builds', 'operator-mib', 'new-runs', 'only', 'results', 'before']);
  const before = flags.before ?? (process.env.OSIMAGE_BENCH_BEFORE || undefined);
  for (const k of Object.keys(flags)) if (!known.has(k)) throw new Error(`unknown option --${k} (try --help)`);
  return {
    baseMiB: num('mib', 'OSIMAGE_BENCH_MIB', 256, 2),
    topMiB: num('top-mib', 'OSIMAGE_BENCH_TOP_MIB', 1024, 1),
    runs: num('runs', 'OSIMAGE_BENCH_RUNS', 5, 1),
    startupRuns: num('startup-runs', 'OSIMAGE_BENCH_STARTUP_RUNS', 21, 1),
    builds: num('builds', 'OSIMAGE_BENCH_BUILDS', 5000, 1),
    operatorMiB: num('operator-mib', 'OSIMAGE_BENCH_OPERATOR_MIB', 6, 0),
    newRuns: num('new-runs', 'OSIMAGE_BENCH_NEW_RUNS', 3, 1),
    only,
    results: resultsFile ? resolve(resultsFile) : undefined,
    before: before ? resolve(before) : undefined,
  };
}

// ---------------------------------------------------------------- helpers

const log = (m) => process.stderr.write(`bench: ${m}\n`);
const sh = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return undefined;
  }
};
const onPath = (cmd) => sh('sh', ['-c', `command -v ${cmd}`]);

function machine() {
  const cpus = os.cpus();
  const osRelease = sh('sh', ['-c', '. /etc/os-release && echo "$PRETTY_NAME"']) ?? `${os.type()} ${os.release()}`;
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    memGiB: os.totalmem() / 1024 ** 3,
    node: process.version,
    os: `${osRelease}, kernel ${os.release()} (${os.arch()})`,
    commit: sh('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']) ?? 'unknown',
    dirty: (sh('git', ['-C', ROOT, 'status', '--porcelain', '--untracked-files=no']) ?? '') !== '',
  };
}

function load(label) {
  const up = sh('uptime', []) ?? '';
  const [l1, l5, l15] = os.loadavg();
  return { label, uptime: up, l1, l5, l15 };
}

function tools() {
  const skopeo = sh('skopeo', ['--version']);
  const registry = sh('/usr/bin/docker-registry', ['--version']);
  const oc = onPath('oc');
  return {
    skopeo: skopeo?.replace(/^skopeo version /, '') ?? undefined,
    registry: registry?.split(/\s+/).slice(-2).join(' ') ?? 'unknown',
    tar: sh('tar', ['--version'])?.split('\n')[0] ?? 'unknown',
    jq: onPath('jq') ? sh('jq', ['--version']) : undefined,
    oc: oc ? (sh('oc', ['version', '--client'])?.split('\n')[0] ?? oc) : undefined,
  };
}

// ---------------------------------------------------------------- state and cleanup

const state = { tmp: undefined, registry: undefined, proxy: undefined, builds: undefined };
let cleaning;
let interrupted = false;
function cleanup() {
  cleaning ??= (async () => {
    for (const c of running) c.kill('SIGTERM');
    await state.proxy?.close().catch(() => undefined);
    await state.builds?.close().catch(() => undefined);
    await state.registry?.stop().catch(() => undefined);
    if (state.tmp) await rm(state.tmp, { recursive: true, force: true }).catch(() => undefined);
  })();
  return cleaning;
}
for (const [sig, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
]) {
  process.on(sig, () => {
    interrupted = true;
    log(`${sig}: cleaning up`);
    cleanup().finally(() => process.exit(code));
  });
}

// ---------------------------------------------------------------- the bench

async function checkDisk(dir, needMiB) {
  const s = await statfs(dir);
  const freeMiB = (s.bavail * s.bsize) / MiB;
  log(`${dir}: ${Math.round(freeMiB)} MiB free, about ${needMiB} MiB needed`);
  if (freeMiB < needMiB)
    throw new Error(
      `not enough space in ${dir}: ${Math.round(freeMiB)} MiB free, ${needMiB} MiB needed (set TMPDIR elsewhere or lower OSIMAGE_BENCH_MIB / OSIMAGE_BENCH_TOP_MIB)`,
    );
  return freeMiB;
}

/**
 * Push `list` ({repo, tag, image}) to the registry: the first image alone (it brings the base layers), then
 * four at a time; a blob already pushed to another repository is mounted, not uploaded again.
 */
async function push(registryHost, content, list) {
  const { openPushTarget } = await import('../../dist/registry/push.js');
  const { closeDispatchers } = await import('../../dist/http/dispatcher.js');
  const where = new Map();
  const one = async ({ repo, tag, image }) => {
    const dest = await openPushTarget(`${registryHost}/${repo}:${tag}`, { insecure: true });
    for (const blob of image.blobs) {
      const c = content.get(blob.descriptor.digest);
      const bytes = c.bytes ?? (() => createReadStream(c.path, { highWaterMark: MiB }));
      await dest.pushBlob(blob.descriptor, bytes, { mountFrom: where.get(blob.descriptor.digest) });
      if (!where.has(blob.descriptor.digest)) where.set(blob.descriptor.digest, repo);
    }
    await dest.pushManifest(image.bytes, image.descriptor.mediaType, tag);
  };
  try {
    await one(list[0]);
    let next = 1;
    const worker = async () => {
      while (next < list.length) await one(list[next++]);
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  } finally {
    await closeDispatchers();
  }
}

const MOSC_JQ = `.spec.tags[] | select(.name == "machine-os-content") | .from.name`;

/** The two ways to answer `--image-for machine-os-content`: osimage, and skopeo copy + tar (+ jq). */
function releaseInfoJobs({ host, tag, digest, layer, mosc, tmp, policy }) {
  const ref = `${host}/${REPO}:${tag}`;
  const ociDir = join(tmp, `skopeo-${tag}`);
  const check = (who, r, out) => {
    if (r.code !== 0) throw new Error(`${who} exited ${r.code}: ${r.stderr.trim().slice(-2000)}`);
    if (out !== undefined && out !== mosc) throw new Error(`${who} answered ${JSON.stringify(out)}, expected ${mosc}`);
  };
  // Cold: a fresh, empty cache folder every run (OSIMAGE_CACHE_DIR; harmless where the cache does not exist).
  // Warm: `cacheDir` is one folder a first run has filled; `byDigest` names the image by its digest.
  let cold = 0;
  const osimage =
    (h = host, { cacheDir, byDigest = false } = {}) =>
    async () => {
      const dir = cacheDir ?? join(tmp, `cache-cold-${tag}-${cold++}`);
      const at = byDigest ? `${h}/${REPO}@${digest}` : `${h}/${REPO}:${tag}`;
      const r = await run(NODE, [BIN, 'release', 'info', '--insecure', '--image-for', 'machine-os-content', at], {
        tmp,
        env: { ...process.env, OSIMAGE_CACHE_DIR: dir },
      });
      check('osimage', r, r.stdout.trim());
      if (!cacheDir) await rm(dir, { recursive: true, force: true });
      return { wallMs: r.wallMs, rssKiB: r.rssKiB, tailMs: r.tailMs };
    };
  const skopeoCopy = async (h = host) => {
    await rm(ociDir, { recursive: true, force: true });
    const r = await run(
      'skopeo',
      ['copy', '--quiet', '--policy', policy, '--src-tls-verify=false', `docker://${h}/${REPO}:${tag}`, `oci:${ociDir}:${tag}`],
      { tmp },
    );
    check('skopeo copy', r);
    return r;
  };
  const baseline = async () => {
    const a = await skopeoCopy();
    const blob = join(ociDir, 'blobs', layer.digest.replace(':', '/'));
    // tar reads the one layer that holds release-manifests/ (the bench knows which); jq picks the tag.
    const script = HAVE_JQ
      ? `set -o pipefail; tar -xzf "$1" -O release-manifests/image-references | jq -r '${MOSC_JQ}'`
      : `set -o pipefail; tar -xzf "$1" -O release-manifests/image-references | grep -A3 '"name": "machine-os-content"' >/dev/null && echo "$2"`;
    const b = await run('bash', ['-c', script, 'bash', blob, mosc], { tmp });
    check('tar', b, b.stdout.trim());
    await rm(ociDir, { recursive: true, force: true });
    return {
      wallMs: a.wallMs + b.wallMs,
      rssKiB: Math.max(a.rssKiB ?? 0, b.rssKiB ?? 0) || undefined,
      skopeoMs: a.wallMs,
      tarMs: b.wallMs,
    };
  };
  // oc cannot answer on some images (the deep one: release-manifests/ below a 1 GiB top layer): that is a
  // result to record ("oc: cannot answer"), not a reason to abort the bench.
  const oc = async () => {
    const r = await run('oc', ['adm', 'release', 'info', '--insecure=true', '--image-for', 'machine-os-content', ref], { tmp });
    const out = r.stdout.trim();
    if (r.code !== 0 || out !== mosc)
      return {
        wallMs: r.wallMs,
        rssKiB: r.rssKiB,
        failed: r.code !== 0 ? `exit ${r.code}: ${lastLine(r.stderr)}` : `answered ${JSON.stringify(out.slice(0, 200))}`,
      };
    return { wallMs: r.wallMs, rssKiB: r.rssKiB };
  };
  return { osimage, baseline, oc, skopeoCopy, ociDir };
}

let HAVE_JQ = false;
const lastLine = (text) => text.trim().split('\n').pop()?.slice(0, 300) ?? '';

/** Does this osimage have the digest-keyed cache? `osimage --help` lists a `cache` command. */
async function hasCache() {
  const r = await run(NODE, [BIN, '--help'], { rss: false });
  return r.code === 0 && /^\s+cache\b/m.test(r.stdout);
}

/** `node -e 0`, measured like osimage (wall and peak RSS). */
const nodeJob = (tmp) => async () => run(NODE, ['-e', '0'], { keepStdout: false, tmp });

async function main() {
  const opts = options(process.argv.slice(2));
  const started = new Date();
  const before = load('before');
  log(`load before: ${before.uptime}`);
  const mach = machine();
  const tl = tools();
  HAVE_JQ = !!tl.jq;
  if (!tl.skopeo && !opts.only) throw new Error('skopeo is not installed: run bash hack/bench/ensure-tools.sh');
  if (!existsSync('/usr/bin/docker-registry')) throw new Error('docker-registry is not installed: run bash hack/bench/ensure-tools.sh');
  if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: npm run build (npm run bench does it)');
  if (opts.runs < 5) log(`warning: --runs ${opts.runs} is below the 5 runs the report is meant for`);
  if (opts.startupRuns < 10) log(`warning: --startup-runs ${opts.startupRuns} is below the 10 runs the report is meant for`);

  const all = !opts.only;
  const topMiB = all ? opts.topMiB : 0; // the deep image only serves release info
  // Generated layers, then the registry's copy, then skopeo's copy of the deep image (the generated files
  // are removed once pushed), plus room for page-cache-free slack; the payload's operator layers twice.
  const needMiB = Math.ceil(2.1 * (opts.baseMiB + topMiB) + 2.1 * 60 * (opts.operatorMiB + 0.1) + 256);
  const tmpRoot = os.tmpdir();
  const freeMiB = await checkDisk(tmpRoot, needMiB);
  state.tmp = await mkdtemp(join(tmpRoot, 'osimage-bench-'));
  const tmp = state.tmp;
  const policy = join(tmp, 'policy.json');
  await writeFile(policy, JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }] }));

  // 1. Images: the release images and, on the same base layers, the full-size payload's components
  let t = Date.now();
  const bench = await buildBenchImages(tmp, {
    baseMiB: opts.baseMiB,
    topMiB,
    payload: { operatorMiB: opts.operatorMiB },
    onStep: (s) => log(`generating ${s}`),
  });
  const genSec = (Date.now() - t) / 1000;
  log(`generated in ${genSec.toFixed(1)} s: ${JSON.stringify(bench.sizes)}, payload ${JSON.stringify(bench.payload.sizes)}`);

  // 2. Registry, the counting proxy (the payload's pullspecs name it) and push
  state.registry = await startRegistryServer({ dir: await mkdtemp(join(tmp, 'registry-')), logLevel: 'error' });
  const host = state.registry.host;
  state.proxy = await startCountingProxy(state.registry.url);
  const payloadRepos = { artRepo: ART_REPO, releaseRepo: REPO, releaseTag: 'payload', newRepo: NEW_REPO };
  const payload = await fromReleasePushes(bench, { proxyHost: state.proxy.host, ...payloadRepos });
  t = Date.now();
  await push(host, bench.content, [
    ...Object.entries(bench.images).map(([tag, { image }]) => ({ repo: REPO, tag, image })),
    ...payload.list,
  ]);
  const pushSec = (Date.now() - t) / 1000;
  log(
    `pushed ${Object.keys(bench.images).length} release images and the payload (${payload.list.length} images) to ${host} in ${pushSec.toFixed(1)} s`,
  );
  for (const f of bench.layerFiles) await rm(f, { force: true });

  const fromRelease = async () => {
    log(`release new --from-release: 1 warm-up + ${opts.newRuns} alternating runs`);
    const t0 = Date.now();
    const r = await fromReleaseSection({
      bench,
      release: payload.release,
      proxy: state.proxy,
      registryHost: host,
      ...payloadRepos,
      tmp,
      runs: opts.newRuns,
      oc: !!tl.oc,
      node: NODE,
      bin: BIN,
      log,
    });
    log(`release new --from-release took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    return r;
  };
  /** What every report starts with: when, where, with what, and the images generated. */
  const header = (after) => ({
    started,
    finished: new Date(),
    opts,
    machine: mach,
    tools: tl,
    rssMethod: RSS_METHOD,
    load: [before, after],
    gen: { seconds: genSec, pushSeconds: pushSec, sizes: bench.sizes },
  });
  const payloadQueries = async () => {
    const t0 = Date.now();
    const r = await payloadQueriesSection({
      release: payload.release,
      previous: payload.previous,
      host,
      proxy: state.proxy,
      releaseRepo: REPO,
      releaseTag: payloadRepos.releaseTag,
      tmp,
      runs: opts.runs,
      oc: !!tl.oc,
      node: NODE,
      bin: BIN,
      beforeBin: opts.before,
      log,
    });
    log(`payload queries took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    return r;
  };
  if (opts.only === 'payload') {
    const section = await payloadQueries();
    const md = renderFromReleaseOnly({ ...header(load('after')), payloadQueries: section }, { median });
    process.stdout.write(`\n${md}\n`);
    if (opts.results) {
      await writeFile(opts.results, md);
      log(`wrote ${relative(process.cwd(), opts.results) || opts.results}`);
    }
    return;
  }
  if (!all) {
    const section = await fromRelease();
    const md = renderFromReleaseOnly({ ...header(load('after')), fromRelease: section }, { median });
    process.stdout.write(`\n${md}\n`);
    if (opts.results) {
      await writeFile(opts.results, md);
      log(`wrote ${relative(process.cwd(), opts.results) || opts.results}`);
    }
    return;
  }

  // 3. release info: timed runs direct to the registry, then one counted run each through the proxy
  const releaseInfo = {};
  const cache = await hasCache();
  log(cache ? 'the cache exists: measuring warm runs too' : 'no cache in this osimage: warm runs not measured');
  for (const tag of ['standard', 'deep']) {
    const { image, releaseLayer, mustRead } = bench.images[tag];
    const jobs = releaseInfoJobs({ host, tag, digest: image.descriptor.digest, layer: releaseLayer, mosc: bench.mosc, tmp, policy });
    // node -e 0 in the same rounds: the start-up targets are ratios to it.
    const timed = { node: nodeJob(tmp), osimage: jobs.osimage(), baseline: jobs.baseline };
    if (cache && tag === 'standard') {
      const warmDir = join(tmp, 'cache-warm');
      await jobs.osimage(host, { cacheDir: warmDir })(); // fills the cache
      timed.warmTag = jobs.osimage(host, { cacheDir: warmDir });
      timed.warmDigest = jobs.osimage(host, { cacheDir: warmDir, byDigest: true });
    }
    if (tl.oc) timed.oc = jobs.oc;
    log(`release info, ${tag} image: 1 warm-up + ${opts.runs} alternating runs of ${Object.keys(timed).join(', ')}`);
    const samples = await alternate(timed, { runs: opts.runs, warmup: 1, onRound: (r) => log(`  ${tag}: round ${r}/${opts.runs}`) });

    const minimum = image.bytes.length + image.config.descriptor.size + mustRead.reduce((n, d) => n + d.size, 0);
    state.proxy.reset();
    await jobs.osimage(state.proxy.host)();
    const osimageBytes = state.proxy.totals();
    state.proxy.reset();
    await jobs.skopeoCopy(state.proxy.host);
    const skopeoBytes = state.proxy.totals();
    state.proxy.reset();
    await rm(jobs.ociDir, { recursive: true, force: true });
    releaseInfo[tag] = {
      layers: image.layers.map((l) => l.descriptor.size),
      imageBytes: image.bytes.length + image.config.descriptor.size + image.layers.reduce((n, l) => n + l.descriptor.size, 0),
      minimum,
      minimumParts: { manifest: image.bytes.length, config: image.config.descriptor.size, layers: mustRead.map((d) => d.size) },
      samples,
      bytes: { osimage: osimageBytes, skopeo: skopeoBytes },
    };
  }

  // 3b. release new --from-release on the full-size payload, then its queries
  const fromReleaseResult = await fromRelease();
  const payloadQueriesResult = await payloadQueries();

  // 4. Start-up
  log(`start-up: 2 warm-ups + ${opts.startupRuns} alternating runs of node -e 0, require('commander') and osimage --help`);
  const startup = await alternate(
    {
      node: async () => run(NODE, ['-e', '0'], { rss: false, keepStdout: false }),
      // What the CLI framework alone costs: require('commander'), as dist/cli.js loads it.
      commander: async () => run(NODE, ['-e', "require('commander')"], { rss: false, keepStdout: false, cwd: ROOT }),
      osimage: async () => {
        const r = await run(NODE, [BIN, '--help'], { rss: false, keepStdout: false });
        if (r.code !== 0) throw new Error(`osimage --help exited ${r.code}: ${r.stderr}`);
        return r;
      },
    },
    { runs: opts.startupRuns, warmup: 2 },
  );

  // 5. resolve over a big builds.json
  state.builds = await serveBuilds({ channel: 'bench', count: opts.builds });
  const { url, ids } = state.builds;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(RHCOS_|OPENSHIFT_INSTALL_)/.test(k)));
  const newest = ids[0];
  const oldest = ids[ids.length - 1];
  const resolveJob = (build) => async () => {
    const args = [BIN, 'resolve', '--base-url', url, '--channel', 'bench', ...(build ? ['--build', build] : [])];
    const r = await run(NODE, args, { env, tmp });
    const want = build ?? newest;
    if (r.code !== 0 || !r.stdout.includes(want))
      throw new Error(`osimage resolve ${build ?? ''} exited ${r.code}: ${r.stderr}${r.stdout.slice(0, 500)}`);
    return r;
  };
  const fetchJob = (build) => async () => {
    const r = await run(NODE, [join(HERE, 'lib/fetch-only.mjs'), `${url}/bench/builds.json`, `${url}/bench/${build}/x86_64/meta.json`], {
      env,
      tmp,
    });
    if (r.code !== 0) throw new Error(`fetch-only exited ${r.code}: ${r.stderr}`);
    return r;
  };
  log(`resolve: 2 warm-ups + ${opts.startupRuns} alternating runs over ${opts.builds} builds`);
  const resolveSamples = await alternate(
    { fetch: fetchJob(newest), newest: resolveJob(undefined), fetchOldest: fetchJob(oldest), pinnedOldest: resolveJob(oldest) },
    { runs: opts.startupRuns, warmup: 2 },
  );

  // 6. Where osimage's own time goes: importing the modules each measured command loads (as the command
  // itself does, from an ES module), the bare dependencies for reference, and one cold parse of the
  // image-references file.
  const graphs = {
    commander: ['commander'],
    'resolve command': [
      './dist/cli.js',
      './dist/commands/resolve.js',
      './dist/rhcos/resolve.js',
      './dist/output/resolve-view.js',
      './dist/output/terminal.js',
    ],
    'http client': ['./dist/http/request.js'],
    'terminal output': ['./dist/output/terminal.js'],
    'release info --image-for': [
      './dist/cli.js',
      './dist/commands/release.js',
      './dist/registry/open.js',
      './dist/registry/remote.js',
      './dist/release/info.js',
      './dist/output/release-view.js',
      './dist/output/terminal.js',
      './dist/output/progress.js',
      './dist/release/references.js',
    ],
    'undici (whole package)': ['undici'],
    yaml: ['yaml'],
    'tar-stream': ['tar-stream'],
  };
  log(`module costs: 1 warm-up + ${opts.startupRuns} alternating runs importing ${Object.keys(graphs).join(', ')}`);
  const importJob = (mods) => async () => {
    const code = mods.length ? `for (const m of ${JSON.stringify(mods)}) await import(m);` : '0';
    const r = await run(NODE, ['--input-type=module', '-e', code], { rss: false, keepStdout: false, cwd: ROOT });
    if (r.code !== 0) throw new Error(`importing ${mods.join(', ')} exited ${r.code}: ${r.stderr}`);
    return r;
  };
  const imports = await alternate(
    Object.fromEntries([['esm', importJob([])], ...Object.entries(graphs).map(([k, mods]) => [k, importJob(mods)])]),
    {
      runs: opts.startupRuns,
      warmup: 1,
    },
  );
  const refsFile = join(tmp, 'image-references');
  await writeFile(refsFile, imageReferences(bench.version).json);
  const parse = [];
  for (let i = 0; i < opts.runs; i++) {
    const r = await run(NODE, [join(HERE, 'lib/parse-cost.mjs'), refsFile], { rss: false });
    if (r.code !== 0) throw new Error(`parse-cost exited ${r.code}: ${r.stderr}`);
    parse.push(JSON.parse(r.stdout));
  }

  const after = load('after');
  log(`load after: ${after.uptime}`);
  const head = header(after);
  const results = {
    ...head,
    disk: { tmpRoot, freeMiB, needMiB },
    gen: { ...head.gen, files: bench.files, releaseFiles: bench.releaseFiles },
    releaseInfo,
    fromRelease: fromReleaseResult,
    payloadQueries: payloadQueriesResult,
    cache,
    startup,
    resolve: { samples: resolveSamples, buildsBytes: state.builds.buildsBytes, builds: opts.builds },
    costs: { imports, parse, refsBytes: Buffer.byteLength(imageReferences(bench.version).json) },
  };
  const md = renderResults(results, { median });
  process.stdout.write(`\n${md}\n`);
  await writeFile(opts.results, md);
  log(`wrote ${relative(process.cwd(), opts.results) || opts.results}`);
}

main()
  .catch((err) => {
    if (interrupted) return; // the signal handler reports and exits
    process.stderr.write(`bench: failed: ${err?.stack ?? err}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
