/**
 * The queries of a full-size payload, osimage against `oc adm release` (when oc is on PATH) and against the
 * minimum bytes each answer needs (always): `release info` in four views, `--changes-from`, `extract --file
 * image-references` and `extract --to`, each first query (a fresh empty cache folder every osimage run; oc keeps
 * none). Timed runs go straight to the registry, in alternating pairs after one warm-up; then one run of each
 * tool goes through the counting proxy, whose GET bodies are the bytes fetched. Last, `release new --from-dir DIR
 * --to-image`: the same payload as an input folder (image-references naming its images, each operator's manifests
 * in a folder of its own), built onto the cluster-version-operator image it names, as oc does; each tool's last
 * pushed release is read back and compared with the files of the release itself.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { compare, readRelease } from './from-release.mjs';
import { alternate, median, run } from './measure.mjs';
import { payloadTargetLines } from './payload-targets.mjs';

const lastLine = (text) => text.trim().split('\n').pop()?.slice(0, 300) ?? '';

/**
 * The operations: name, the arguments after the tool's `release` verb (osimage `release`, oc `adm release`),
 * and which blobs the answer needs at least (`views`: manifest, config and the release layer of each release;
 * `file`: manifest and the release layer; `all`: manifest and every layer, since `--to` writes the merged view;
 * `base`: the base image's manifest and config, all `release new --from-dir` needs to read: its base layers are
 * mounted, not copied). FROMDIR and TO are filled in per run.
 */
function operations(ref, previous, version) {
  return [
    { key: 'info', label: '`release info`', args: ['info', ref], needs: 'views' },
    { key: 'pullspecs', label: '`release info --pullspecs`', args: ['info', '--pullspecs', ref], needs: 'views' },
    { key: 'commits', label: '`release info --commits`', args: ['info', '--commits', ref], needs: 'views' },
    { key: 'json', label: '`release info -o json`', args: ['info', '-o', 'json', ref], needs: 'views' },
    {
      key: 'changes',
      label: '`release info --changes-from OLD NEW`',
      args: ['info', '--changes-from', previous, ref],
      needs: 'views',
      releases: 2,
    },
    {
      key: 'extractFile',
      label: '`release extract --file image-references`',
      args: ['extract', '--file', 'image-references', ref],
      needs: 'file',
    },
    { key: 'extractTo', label: '`release extract --to DIR`', args: ['extract', '--to', 'DIR', ref], needs: 'all' },
    {
      key: 'fromDir',
      label: '`release new --from-dir DIR --to-image`',
      args: ['new', '--from-dir', 'FROMDIR', ...newMetadata(version), '--to-image', 'TO'],
      needs: 'base',
    },
  ];
}

/** The release-metadata flags that give the input release's own (payloadManifests: version, previous, errata URL). */
function newMetadata(version) {
  return [
    '--name',
    version,
    '--previous',
    '4.15.30,4.15.31,4.16.0',
    '--metadata',
    JSON.stringify({ url: 'https://access.redhat.com/errata/RHSA-2026:0001' }),
  ];
}

/** The minimum bytes of an operation: what its answer cannot be given without (see operations). */
function minimumOf(op, images) {
  let n = 0;
  if (op.needs === 'base') return images[0].base.bytes.length + images[0].base.config.descriptor.size;
  for (const image of images.slice(0, op.releases ?? 1).map((r) => r.image)) {
    n += image.bytes.length;
    if (op.needs === 'views') n += image.config.descriptor.size;
    const layers = op.needs === 'all' ? image.layers : image.layers.slice(-1);
    n += layers.reduce((sum, l) => sum + l.descriptor.size, 0);
  }
  return n;
}

/**
 * Run the section. `release` and `previous` are the pushed release images (fromReleasePushes); `host` the
 * registry, `proxy` the counting proxy in front of it.
 */
export async function payloadQueriesSection({
  release,
  previous,
  host,
  proxy,
  releaseRepo,
  releaseTag,
  newRepo = 'ocp/release-new',
  tmp,
  runs,
  oc,
  node,
  bin,
  beforeBin,
  log,
}) {
  const at = (h, tag) => `${h}/${releaseRepo}:${tag}`;
  const ops = (h) => operations(at(h, releaseTag), at(h, `${releaseTag}-previous`), release.version);
  // The --from-dir inputs: one naming the registry (timed runs), one naming the proxy (the counted run).
  const fromDirs = {};
  for (const [key, h] of [
    ['direct', host],
    ['proxy', proxy.host],
  ]) {
    const dir = join(tmp, `from-dir-${key}`);
    fromDirs[h] = { dir, files: await release.writeFromDir(dir, h) };
  }
  const pushed = {};
  const leftovers = [];
  const clean = async () => {
    for (const d of leftovers.splice(0)) await rm(d, { recursive: true, force: true });
  };
  let n = 0;
  const job =
    (who, op, h = host) =>
    async () => {
      const i = n++;
      const dir = join(tmp, `q-${who}-${i}`);
      const cache = join(tmp, `q-cache-${i}`);
      const tag = `from-dir-${who}-${i}`;
      const args = op.args.map((a) => (a === 'DIR' ? dir : a === 'FROMDIR' ? fromDirs[h].dir : a === 'TO' ? `${h}/${newRepo}:${tag}` : a));
      if (op.key === 'extractTo') await mkdir(dir, { recursive: true });
      const r =
        who !== 'oc'
          ? await run(node, [who === 'before' ? beforeBin : bin, 'release', ...args.slice(0, 1), '--insecure', ...args.slice(1)], {
              tmp,
              env: { ...process.env, OSIMAGE_CACHE_DIR: cache },
              keepStdout: false,
            })
          : await run('oc', ['adm', 'release', ...args.slice(0, 1), '--insecure=true', ...args.slice(1)], { tmp, keepStdout: false });
      // Output folders are removed once the operation's rounds are over, not between them: on ext4 a file created
      // minutes after others were deleted costs the kernel a walk over the freed inodes (from ~40 ms to over 1 s for
      // 840 files as rounds went on), so each round made the next tool's extraction slower.
      leftovers.push(dir, cache);
      if (r.code !== 0) return { wallMs: r.wallMs, rssKiB: r.rssKiB, failed: `exit ${r.code}: ${lastLine(r.stderr)}` };
      if (op.key === 'fromDir') pushed[who] = { host: h, tag };
      return { wallMs: r.wallMs, rssKiB: r.rssKiB, cpuMs: r.cpuMs };
    };
  const images = [release, previous];
  const results = [];
  for (const [i, op] of ops(host).entries()) {
    const jobs = { osimage: job('osimage', op) };
    if (oc) jobs.oc = job('oc', op);
    if (beforeBin) jobs.before = job('before', op);
    log(`payload queries: ${op.label}: 1 warm-up + ${runs} alternating runs`);
    const samples = await alternate(jobs, { runs, warmup: 1 });
    await clean();
    const counted = ops(proxy.host)[i];
    const bytes = {};
    for (const who of Object.keys(jobs)) {
      proxy.reset();
      const r = await job(who, counted, proxy.host)();
      bytes[who] = r.failed ? undefined : proxy.totals();
    }
    proxy.reset();
    await clean();
    const checks = {};
    // What each tool pushed last (the counted run, through the proxy) against the release's own files and base.
    if (op.key === 'fromDir') {
      const want = {
        baseLayers: release.base.layers.map((l) => l.descriptor.digest),
        baseDigest: release.base.descriptor.digest,
      };
      for (const who of Object.keys(jobs)) {
        if (!pushed[who]) continue;
        // The counted run names the proxy: its pullspecs are the proxy's, so compare with that input's files.
        const expected = { ...want, files: fromDirs[pushed[who].host].files };
        try {
          checks[who] = compare(await readRelease(host, newRepo, pushed[who].tag), expected);
        } catch (err) {
          checks[who] = [`could not read the pushed release: ${err.message}`];
        }
      }
    }
    results.push({ key: op.key, label: op.label, samples, bytes, checks, minimum: minimumOf(op, images) });
  }
  const layer = release.layer.descriptor.size;
  return {
    runs,
    results,
    notes: oc ? {} : { oc: 'oc: not on PATH, not measured' },
    before: beforeBin,
    sizes: {
      releaseLayer: layer,
      releaseFiles: release.files.length,
      releaseTarBytes: release.tarBytes,
      imageBytes: release.image.layers.reduce((s, l) => s + l.descriptor.size, 0),
      layers: release.image.layers.length,
      tags: Object.keys(release.pullspecs).length,
    },
  };
}

const fmtMs = (ms) => (ms === undefined || Number.isNaN(ms) ? '–' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const fmtBytes = (b) =>
  b === undefined
    ? '–'
    : b >= 1024 * 1024
      ? `${(b / (1024 * 1024)).toFixed(2)} MiB`
      : b >= 1024
        ? `${(b / 1024).toFixed(1)} KiB`
        : `${b} B`;

/** Each round's osimage/oc ratio (a pair ran back to back), their median and range. */
function pairRatios(a, b) {
  const r = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (!a[i].failed && !b[i].failed) r.push(a[i].wallMs / b[i].wallMs);
  return r;
}

/** The section's Markdown. */
export function payloadQueriesLines(pq) {
  const s = pq.sizes;
  const L = ['## Queries of a full-size payload (first query, cold cache)', ''];
  L.push(
    `The release \`ocp/release:payload\` of the \`release new --from-release\` section: ${s.tags} tags, ${s.layers} layers ` +
      `(${fmtBytes(s.imageBytes)}: the CVO base, then a release-manifests layer of ${fmtBytes(s.releaseLayer)} gzip holding ` +
      `${s.releaseFiles} files, ${fmtBytes(s.releaseTarBytes)} of file data); \`--changes-from\` compares it with \`ocp/release:payload-previous\` ` +
      '(the same payload with the OS tags on another build). osimage `release …` with `--insecure` and a fresh empty `OSIMAGE_CACHE_DIR` each ' +
      `run; oc \`adm release …\` with \`--insecure=true\`. Median of ${pq.runs} alternating runs after 1 warm-up; "ratio" is the median of ` +
      "each round's osimage/oc (the two ran back to back), with its range; CPU is user + system time (GNU time), steadier than " +
      'wall time on a busy machine. Bytes: one more run of each tool through the counting proxy ' +
      '(GET bodies); the minimum is the manifest, the config (views that show Created) and the release layer of each release read ' +
      '(`extract --to`: every layer, since it writes the merged view, as oc does). `release new --from-dir DIR --to-image`: the ' +
      "same payload as an input folder (image-references naming its images, release-metadata, each operator's manifests " +
      'and image-references in a folder of its own), pushed as a new tag of `ocp/release-new` onto the cluster-version-operator ' +
      "image the folder names (oc's default base, `--to-image-base-tag`), with the release's `--name`, `--previous` and " +
      "`--metadata`; its minimum is that base image's manifest and config (the base layers are mounted, not copied).",
    '',
  );
  L.push(
    '| operation | osimage | oc | ratio to oc (range) | CPU osimage / oc | osimage bytes / minimum | oc bytes / minimum | minimum | osimage peak RSS | oc peak RSS |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of pq.results) {
    const o = r.samples.osimage;
    const c = r.samples.oc;
    const failedO = o.find((x) => x.failed);
    const failedC = c?.find((x) => x.failed);
    const med = (x, key = 'wallMs') => (x ? median(x.filter((v) => !v.failed && v[key] !== undefined).map((v) => v[key])) : undefined);
    const ratios = c ? pairRatios(o, c) : [];
    const ratio = ratios.length
      ? `**${median(ratios).toFixed(2)}×** (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`
      : c
        ? 'failed'
        : 'oc not measured';
    const per = (who) => (r.bytes[who] ? `${fmtBytes(r.bytes[who].bytes)} (${(r.bytes[who].bytes / r.minimum).toFixed(3)}×)` : '–');
    const kib = (v) => (v === undefined || Number.isNaN(v) ? '–' : `${(v / 1024).toFixed(0)} MiB`);
    const [cpuO, cpuC] = [med(o, 'cpuMs'), med(c, 'cpuMs')];
    const cpu =
      cpuO === undefined || Number.isNaN(cpuO)
        ? '–'
        : `${fmtMs(cpuO)} / ${cpuC === undefined || Number.isNaN(cpuC) ? '–' : `${fmtMs(cpuC)} (${(cpuO / cpuC).toFixed(2)}×)`}`;
    L.push(
      `| ${r.label} | ${failedO ? `failed: ${failedO.failed.replace(/\|/g, '\\|')}` : fmtMs(med(o))} | ${c ? (failedC ? `failed: ${failedC.failed.replace(/\|/g, '\\|')}` : fmtMs(med(c))) : (pq.notes.oc ?? '–')} | ${ratio} | ${cpu} | ${per('osimage')} | ${per('oc')} | ${fmtBytes(r.minimum)} | ${kib(med(o, 'rssKiB'))} | ${kib(med(c, 'rssKiB'))} |`,
    );
  }
  L.push('');
  for (const r of pq.results) {
    for (const [who, diffs] of Object.entries(r.checks ?? {})) {
      L.push(
        `- ${r.label}, ${who}'s last pushed release read back: ${diffs.length ? `**differs**: ${diffs.join('; ')}` : "the release's files (manifests byte for byte, image-references tag by tag, release-metadata), on the CVO image's layers, with its base-image-digest label"}`,
      );
    }
  }
  if (pq.results.some((r) => Object.keys(r.checks ?? {}).length)) L.push('');
  L.push(...payloadTargetLines(pq));
  if (pq.before) {
    L.push(
      `Before (\`${pq.before}\`, measured in the same rounds): each round's osimage/before and before/oc, medians; CPU and ` +
        'peak RSS: the medians of each.',
      '',
      '| operation | before | now / before | before / oc | CPU now / before | before bytes / minimum | before peak RSS |',
      '|---|---|---|---|---|---|---|',
    );
    for (const r of pq.results) {
      const b = r.samples.before ?? [];
      const mid = (x) => (x.length ? `${median(x).toFixed(2)}×` : '–');
      const bytes = r.bytes.before ? `${fmtBytes(r.bytes.before.bytes)} (${(r.bytes.before.bytes / r.minimum).toFixed(3)}×)` : '–';
      const ok = b.filter((v) => !v.failed).map((v) => v.wallMs);
      const of = (x, key) => median(x.filter((v) => !v.failed && v[key] !== undefined).map((v) => v[key]));
      const [cpuNow, cpuBefore, rss] = [of(r.samples.osimage, 'cpuMs'), of(b, 'cpuMs'), of(b, 'rssKiB')];
      const cpu = Number.isNaN(cpuNow) || Number.isNaN(cpuBefore) ? '–' : `${(cpuNow / cpuBefore).toFixed(2)}×`;
      L.push(
        `| ${r.label} | ${ok.length ? fmtMs(median(ok)) : 'failed'} | ${mid(pairRatios(r.samples.osimage, b))} | ${r.samples.oc ? mid(pairRatios(b, r.samples.oc)) : '–'} | ${cpu} | ${bytes} | ${Number.isNaN(rss) ? '–' : `${(rss / 1024).toFixed(0)} MiB`} |`,
      );
    }
    L.push('');
  }
  L.push('<details><summary>every run (wall ms)</summary>', '');
  for (const r of pq.results)
    for (const [who, x] of Object.entries(r.samples))
      L.push(`- ${r.label}, ${who}: ${x.map((v) => `${v.wallMs.toFixed(0)}${v.failed ? ' failed' : ''}`).join(', ')}`);
  L.push('', '</details>', '');
  return L;
}
