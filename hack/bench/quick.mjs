#!/usr/bin/env node
/**
 * A quick look at the start-up targets while working on them (not the report: `npm run bench` is).
 * Pushes the bench's `standard` image (small base layers: only the release-manifests layer on top is read) to a
 * local registry, fills a cache, then alternates `node -e 0`, `osimage --help` and `release info --image-for`
 * cold, warm by tag and warm by digest, and prints medians and their ratios to `node -e 0` from the same rounds.
 *
 *   node hack/bench/quick.mjs [--runs 21] [--bin bin/osimage] [--serve]
 *
 * `--serve` prints the image's references and the environment to use, and keeps the registry up until Ctrl-C
 * (for profiling by hand). Needs `npm run build` and docker-registry.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRegistryServer } from '../../test/infra/registry-server.mjs';
import { flagReader } from './lib/args.mjs';
import { pushBenchImage } from './lib/push-image.mjs';
import { buildBenchImages } from './lib/images.mjs';
import { alternate, median, run } from './lib/measure.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const NODE = process.execPath;
const args = process.argv.slice(2);
const flag = flagReader(args);
const runs = Number(flag('runs', '21'));
const BIN = resolve(flag('bin', join(ROOT, 'bin/osimage')));
const serve = args.includes('--serve');

const tmp = await mkdtemp(join(os.tmpdir(), 'osimage-quick-'));
let registry;
try {
  const bench = await buildBenchImages(tmp, { baseMiB: 2, topMiB: 1 });
  registry = await startRegistryServer({ dir: await mkdtemp(join(tmp, 'registry-')), logLevel: 'error' });
  const byTag = await pushBenchImage(registry.host, bench);
  const { image } = bench.images.standard;
  const byDigest = `${registry.host}/ocp/release@${image.descriptor.digest}`;
  const warmDir = join(tmp, 'cache-warm');
  const info = (ref, dir) => [BIN, 'release', 'info', '--insecure', '--image-for', 'machine-os-content', ref, '--cache-dir', dir];
  if (serve) {
    process.stdout.write(`tag: ${byTag}\ndigest: ${byDigest}\nwarm cache: ${warmDir}\n`);
    await run(NODE, info(byTag, warmDir), { rss: false });
    process.stdout.write('serving; Ctrl-C to stop\n');
    await new Promise((r) => process.once('SIGINT', r));
  } else {
    let n = 0;
    const check = (r) => {
      if (r.code !== 0 || r.stdout.trim() !== bench.mosc) throw new Error(`osimage: exit ${r.code}: ${r.stderr}${r.stdout}`);
      return r;
    };
    await check(await run(NODE, info(byTag, warmDir), { rss: false }));
    const jobs = {
      node: () => run(NODE, ['-e', '0'], { rss: false }),
      help: () => run(NODE, [BIN, '--help'], { rss: false }),
      cold: async () => {
        const dir = join(tmp, `cold-${n++}`);
        const r = check(await run(NODE, info(byTag, dir), { rss: false }));
        await rm(dir, { recursive: true, force: true });
        return r;
      },
      warmTag: async () => check(await run(NODE, info(byTag, warmDir), { rss: false })),
      warmDigest: async () => check(await run(NODE, info(byDigest, warmDir), { rss: false })),
    };
    const load0 = os.loadavg()[0];
    const samples = await alternate(jobs, { runs, warmup: 2 });
    const base = median(samples.node.map((s) => s.wallMs));
    const targets = { node: 1, help: 1.15, cold: 1.8, warmTag: 1.4, warmDigest: 1.3 };
    for (const [k, s] of Object.entries(samples)) {
      const m = median(s.map((x) => x.wallMs));
      const min = Math.min(...s.map((x) => x.wallMs));
      process.stdout.write(
        `${k.padEnd(11)} ${m.toFixed(1).padStart(7)} ms (min ${min.toFixed(1)})  ${(m / base).toFixed(2)}×  target ≤ ${targets[k]}×\n`,
      );
    }
    process.stdout.write(`load (1 min) before ${load0.toFixed(2)}, after ${os.loadavg()[0].toFixed(2)}\n`);
  }
} finally {
  await registry?.stop().catch(() => undefined);
  await rm(tmp, { recursive: true, force: true });
}
