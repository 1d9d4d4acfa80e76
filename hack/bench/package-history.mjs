#!/usr/bin/env node
/**
 * `packages --history` over N builds (default 100) against the one-`curl`-per-build script it replaces
 * (curl + jq in a loop), cold (empty cache) and cached, in one run, over a local HTTP release browser that
 * serves generated builds from memory. Needs `npm run build`, curl and jq. Prints a Markdown table.
 *
 *   node hack/bench/package-history.mjs [--builds 100] [--runs 5] [--kib 1024]
 *
 * --kib is each commitmeta.json's size (real ones are a few MB: the pkglist plus ostree metadata).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, run } from './lib/measure.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : Number(process.argv[i + 1]);
};
const BUILDS = arg('builds', 100);
const RUNS = arg('runs', 5);
const KIB = arg('kib', 1024);
const CH = '4.18-9.4/builds';

for (const tool of ['curl', 'jq']) {
  try {
    execFileSync('which', [tool], { stdio: 'ignore' });
  } catch {
    throw new Error(`${tool} is needed (apt-get install -y ${tool})`);
  }
}

// ---- the release browser: N builds, podman changing every 10 builds, ~KIB KiB of commitmeta.json each
const ids = Array.from({ length: BUILDS }, (_, i) => `418.94.${202605000000 + (BUILDS - i) * 100}-0`);
const files = new Map();
files.set(`/${CH}/builds.json`, JSON.stringify({ 'schema-version': '1.0.0', builds: ids.map((id) => ({ id, arches: ['x86_64'] })) }));
for (const [i, id] of ids.entries()) {
  const pkglist = Array.from({ length: 480 }, (_, k) => [`pkg${k}`, '0', `1.${k}.0`, `${k % 7}.el9`, 'x86_64']);
  pkglist.push(['podman', '5', '5.2.2', `${Math.floor((BUILDS - i) / 10)}.rhaos4.18.el9`, 'x86_64']);
  const doc = { 'rpmostree.rpmdb.pkglist': pkglist, 'ostree.sizes': [] };
  let size = JSON.stringify(doc).length;
  for (let k = 0; size < KIB * 1024; k++) {
    const entry = `${(k * 2654435761 + i).toString(16).padStart(64, '0')}`;
    doc['ostree.sizes'].push(entry);
    size += entry.length + 3;
  }
  files.set(`/${CH}/${id}/x86_64/meta.json`, JSON.stringify({ buildid: id }));
  files.set(`/${CH}/${id}/x86_64/commitmeta.json`, JSON.stringify(doc));
}
const server = createServer((req, res) => {
  const body = files.get(decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (body === undefined) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

const tmp = await mkdtemp(join(os.tmpdir(), 'osimage-bench-history-'));
const script = join(tmp, 'history.sh');
await writeFile(
  script,
  `#!/usr/bin/env bash
# The script users write today: one curl per build, jq over the pkglist, newest first.
set -euo pipefail
base=$1 ch=$2 name=$3 prev= previd=
for id in $(curl -fsS "$base/$ch/builds.json" | jq -r '.builds[].id'); do
  v=$(curl -fsS "$base/$ch/$id/x86_64/commitmeta.json" | jq -r --arg n "$name" '.["rpmostree.rpmdb.pkglist"][] | select(.[0]==$n) | "\\(.[1]):\\(.[2])-\\(.[3])"')
  if [ -n "$previd" ] && [ "$v" != "$prev" ]; then echo "$previd  $name $v → $prev"; fi
  prev=$v previd=$id
done
`,
  { mode: 0o755 },
);

const osimage = (cacheDir) =>
  run(
    process.execPath,
    [
      join(ROOT, 'bin/osimage'),
      'packages',
      '--base-url',
      base,
      '--channel',
      CH,
      '--history',
      '--package',
      'podman',
      '--limit',
      String(BUILDS),
    ],
    {
      env: { ...process.env, OSIMAGE_CACHE_DIR: cacheDir, NO_COLOR: '1' },
      rss: false,
    },
  );
const times = { cold: [], cached: [], curl: [] };
let lines;
try {
  for (let r = 0; r < RUNS; r++) {
    const cache = join(tmp, `cache-${r}`);
    const cold = await osimage(cache);
    const cached = await osimage(cache);
    const curl = await run('bash', [script, base, CH, 'podman'], { rss: false });
    for (const x of [cold, cached, curl]) if (x.code !== 0) throw new Error(`a run failed: ${x.stderr}`);
    times.cold.push(cold.wallMs);
    times.cached.push(cached.wallMs);
    times.curl.push(curl.wallMs);
    lines = { osimage: cold.stdout.trim().split('\n').length, curl: curl.stdout.trim().split('\n').length };
  }
} finally {
  server.close();
  await rm(tmp, { recursive: true, force: true });
}
const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
process.stdout.write(
  `packages --history over ${BUILDS} builds (${KIB} KiB commitmeta.json each, local HTTP), median of ${RUNS} alternated runs:\n\n` +
    '| tool | wall time | vs curl script |\n|---|---|---|\n' +
    `| curl + jq, one curl per build | ${fmt(m.curl)} | 1.00× |\n` +
    `| osimage, cold cache | ${fmt(m.cold)} | ${(m.curl / m.cold).toFixed(1)}× faster |\n` +
    `| osimage, cached | ${fmt(m.cached)} | ${(m.curl / m.cached).toFixed(1)}× faster |\n\n` +
    `output lines: osimage ${lines.osimage} (changes plus the oldest build), curl script ${lines.curl} (changes)\n`,
);
