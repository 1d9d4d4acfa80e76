/**
 * The Markdown report of a bench run: machine, load, sizes, the measured tables, and each target met or
 * missed with the measured reason.
 */

import { payloadQueriesLines } from './payload-queries.mjs';

const MiB = 1024 * 1024;
const fmtMs = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const fmtMiB = (bytes) =>
  bytes >= 100 * MiB
    ? `${(bytes / MiB).toFixed(0)} MiB`
    : bytes >= MiB
      ? `${(bytes / MiB).toFixed(1)} MiB`
      : `${(bytes / 1024).toFixed(1)} KiB`;
const fmtKiB = (kib) => (kib === undefined ? 'n/a' : `${(kib / 1024).toFixed(0)} MiB`);
const fmtBytes = (b) => `${b.toLocaleString('en-US')} B (${fmtMiB(b)})`;
const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');
const met = (ok) => (ok ? '**met**' : '**missed**');

export function renderResults(r, { median }) {
  const med = (samples, key = 'wallMs') => median(samples.map((s) => s[key]).filter((v) => v !== undefined));
  const L = [];
  const { machine: m, opts, gen } = r;
  L.push('# osimage benchmarks', '');
  L.push(
    `Produced by \`npm run bench\` (hack/bench/run.mjs) on ${r.started.toISOString().replace('T', ' ').slice(0, 16)} UTC ` +
      `(took ${((r.finished - r.started) / 1000).toFixed(0)} s), commit ${m.commit}${m.dirty ? ' (with uncommitted changes in the checkout)' : ''}. ` +
      'Every ratio compares tools measured in the same run, on the same images, alternating runs so load drift hits both.',
    '',
  );
  L.push('## Machine', '');
  L.push(`- ${m.cores} cores (${m.cpuModel}), ${m.memGiB.toFixed(1)} GiB memory, ${m.os}, Node.js ${m.node}`);
  L.push(
    `- tools: skopeo ${r.tools.skopeo}, docker-registry ${r.tools.registry}, ${r.tools.tar}${r.tools.jq ? `, ${r.tools.jq}` : ', no jq'}; oc: ${r.tools.oc ?? '**not on PATH, not measured**'}`,
  );
  L.push(`- peak RSS by ${r.rssMethod}; wall time from spawn to exit in the bench process`);
  L.push(
    `- temp space: ${r.disk.tmpRoot} (${(r.disk.freeMiB / 1024).toFixed(1)} GiB free before, about ${(r.disk.needMiB / 1024).toFixed(1)} GiB used at the peak; removed afterwards)`,
  );
  for (const l of r.load) L.push(`- load ${l.label}: \`${l.uptime}\``);
  if (Math.max(...r.load.map((l) => l.l1)) > m.cores * 0.5) {
    L.push(
      `- **the machine was busy** (1-minute load above ${(m.cores * 0.5).toFixed(1)} on ${m.cores} cores: other jobs were running), so absolute times are inflated and noisy; the ratios are what to read`,
    );
  }
  L.push('');

  L.push('## Sizes', '');
  L.push(
    `- base layers: ${opts.baseMiB} MiB of random (incompressible) file data in total, as two gzip layers of ${fmtMiB(gen.sizes.base1)} and ${fmtMiB(gen.sizes.base2)} ` +
      `(${gen.files.base1} and ${gen.files.base2} files)`,
  );
  L.push(
    `- release-manifests layer: ${fmtMiB(gen.sizes.release)} gzip, ${gen.releaseFiles} files (image-references with 110 tags, release-metadata, 400 manifests)`,
  );
  L.push(`- \`standard\` image: base, base, release-manifests (top): ${fmtMiB(r.releaseInfo.standard.imageBytes)}`);
  L.push(
    `- \`deep\` image: base, base, release-manifests, then a ${opts.topMiB} MiB top layer (${fmtMiB(gen.sizes.top)} gzip, ${gen.files.top} files): ${fmtMiB(r.releaseInfo.deep.imageBytes)}`,
  );
  L.push(
    `- generated (streamed to disk) in ${gen.seconds.toFixed(1)} s, pushed with src/registry/push.ts in ${gen.pushSeconds.toFixed(1)} s`,
  );
  L.push(`- builds.json: ${r.resolve.builds.toLocaleString('en-US')} builds (schema 1.0.0, ${fmtMiB(r.resolve.buildsBytes)})`);
  L.push(
    `- runs: median of ${opts.runs} alternating runs for release info (after 1 warm-up each); ${opts.startupRuns} for start-up and resolve (after 2 warm-ups)`,
  );
  L.push('');

  // ---- release info
  L.push('## `release info --image-for machine-os-content`', '');
  L.push(
    'osimage: `osimage release info --insecure --image-for machine-os-content 127.0.0.1:PORT/ocp/release:TAG`. ' +
      'Baseline: `skopeo copy --src-tls-verify=false docker://… oci:DIR` (a fresh folder each run), then ' +
      '`tar -xzf DIR/blobs/sha256/<release-manifests layer> -O release-manifests/image-references | jq -r …` ' +
      '(the baseline is told which layer holds release-manifests/; osimage finds it). Both print the same pull spec, checked every run.',
    '',
  );
  L.push(
    '| image | osimage wall | baseline wall (skopeo + tar) | ratio | osimage peak RSS | baseline peak RSS |',
    '|---|---|---|---|---|---|',
  );
  const ri = {};
  for (const tag of ['standard', 'deep']) {
    const x = r.releaseInfo[tag];
    const o = med(x.samples.osimage);
    const b = med(x.samples.baseline);
    const sk = med(x.samples.baseline, 'skopeoMs');
    const tr = med(x.samples.baseline, 'tarMs');
    const orss = med(x.samples.osimage, 'rssKiB');
    const brss = med(x.samples.baseline, 'rssKiB');
    const node = x.samples.node ? med(x.samples.node) : undefined;
    const tail = med(x.samples.osimage, 'tailMs');
    const ocFailed = x.samples.oc?.find((s) => s.failed);
    const oc = x.samples.oc && !ocFailed ? med(x.samples.oc) : undefined;
    const warmTag = x.samples.warmTag ? med(x.samples.warmTag) : undefined;
    const warmDigest = x.samples.warmDigest ? med(x.samples.warmDigest) : undefined;
    ri[tag] = { o, b, orss, brss, node, tail, oc, ocFailed, warmTag, warmDigest };
    L.push(`| ${tag} | ${fmtMs(o)} | ${fmtMs(b)} (${fmtMs(sk)} + ${fmtMs(tr)}) | ${ratio(o, b)} | ${fmtKiB(orss)} | ${fmtKiB(brss)} |`);
    if (x.samples.oc) {
      if (ocFailed) L.push(`| ${tag}, oc adm release info | oc: cannot answer (${ocFailed.failed.replace(/\|/g, '\\|')}) | | | | |`);
      else
        L.push(`| ${tag}, oc adm release info | ${fmtMs(oc)} | | osimage/oc ${ratio(o, oc)} | | ${fmtKiB(med(x.samples.oc, 'rssKiB'))} |`);
    }
  }
  if (!r.tools.oc) L.push('| `oc adm release info --image-for` | not measured: no `oc` on PATH | | | | |');
  L.push('');
  L.push(
    'Against `node -e 0` (run in the same rounds), the tail (last output to exit) and the warm cache (`standard` only; a cache folder ' +
      'filled by one earlier run; cold runs get a fresh empty `OSIMAGE_CACHE_DIR` each):',
    '',
  );
  L.push(
    '| image | `node -e 0` | osimage cold | cold / node | tail after the answer | warm, by tag | warm, by digest |',
    '|---|---|---|---|---|---|---|',
  );
  for (const tag of ['standard', 'deep']) {
    const x = ri[tag];
    const warm = (v) =>
      v === undefined ? (tag === 'standard' && !r.cache ? 'not measured: no cache yet' : '') : `${fmtMs(v)} (${ratio(v, x.node)})`;
    L.push(
      `| ${tag} | ${x.node === undefined ? 'n/a' : fmtMs(x.node)} | ${fmtMs(x.o)} | ${x.node === undefined ? 'n/a' : ratio(x.o, x.node)} | ${x.tail === undefined ? '' : `${x.tail.toFixed(1)} ms`} | ${warm(x.warmTag)} | ${warm(x.warmDigest)} |`,
    );
  }
  L.push('');
  L.push('<details><summary>every run (wall ms)</summary>', '');
  for (const tag of ['standard', 'deep']) {
    for (const [who, s] of Object.entries(r.releaseInfo[tag].samples))
      L.push(`- ${tag}, ${who}: ${s.map((v) => v.wallMs.toFixed(0)).join(', ')}${s.some((v) => v.failed) ? ' (failed)' : ''}`);
  }
  L.push('', '</details>', '');

  // ---- bytes
  L.push('## Bytes fetched from the registry', '');
  L.push(
    'Counted by a proxy in front of the registry (response bodies of GET requests), one run each. The minimum is what the answer ' +
      'needs: the manifest, the config, and every layer from the top down to the one holding release-manifests/ (a layer above it ' +
      'must be read whole: it could delete the file with a whiteout, and a layer is verified against its digest only at its end).',
    '',
  );
  L.push('| image | minimum | osimage | osimage / minimum | skopeo copy | skopeo / minimum |', '|---|---|---|---|---|---|');
  const by = {};
  for (const tag of ['standard', 'deep']) {
    const x = r.releaseInfo[tag];
    const mp = x.minimumParts;
    by[tag] = { min: x.minimum, o: x.bytes.osimage.bytes, s: x.bytes.skopeo.bytes, mp };
    L.push(
      `| ${tag} | ${fmtBytes(x.minimum)} | ${fmtBytes(x.bytes.osimage.bytes)} in ${x.bytes.osimage.gets} GETs | ${ratio(x.bytes.osimage.bytes, x.minimum)} | ` +
        `${fmtBytes(x.bytes.skopeo.bytes)} in ${x.bytes.skopeo.gets} GETs | ${ratio(x.bytes.skopeo.bytes, x.minimum)} |`,
    );
  }
  L.push('');
  L.push(
    `Minimum, by part: manifest ${by.standard.mp.manifest} B, config ${by.standard.mp.config} B, layers ${by.standard.mp.layers.map(fmtMiB).join(' + ')} (standard); ` +
      `manifest ${by.deep.mp.manifest} B, config ${by.deep.mp.config} B, layers ${by.deep.mp.layers.map(fmtMiB).join(' + ')} (deep).`,
    '',
  );

  // ---- release new --from-release
  if (r.fromRelease) L.push(...fromReleaseLines(r.fromRelease, { median }));
  if (r.payloadQueries) L.push(...payloadQueriesLines(r.payloadQueries));

  // ---- start-up
  const sn = med(r.startup.node);
  const so = med(r.startup.osimage);
  L.push('## Start-up', '');
  L.push('| command | median wall | min | ratio to `node -e 0` |', '|---|---|---|---|');
  L.push(`| \`node -e 0\` | ${fmtMs(sn)} | ${fmtMs(Math.min(...r.startup.node.map((s) => s.wallMs)))} | 1.00× |`);
  const sc = med(r.startup.commander);
  L.push(
    `| \`node -e "require('commander')"\` (the CLI framework alone, required as the CLI requires it) | ${fmtMs(sc)} | ${fmtMs(Math.min(...r.startup.commander.map((s) => s.wallMs)))} | ${ratio(sc, sn)} |`,
  );
  L.push(`| \`osimage --help\` | ${fmtMs(so)} | ${fmtMs(Math.min(...r.startup.osimage.map((s) => s.wallMs)))} | ${ratio(so, sn)} |`);
  L.push('');

  // ---- resolve
  const rs = r.resolve.samples;
  const rf = med(rs.fetch);
  const rn = med(rs.newest);
  const rfo = med(rs.fetchOldest);
  const rp = med(rs.pinnedOldest);
  L.push('## `resolve` over a big builds.json', '');
  L.push(
    `A local HTTP server serves builds.json (${r.resolve.builds.toLocaleString('en-US')} builds) and meta.json. The baseline is a tiny node script ` +
      "(hack/bench/lib/fetch-only.mjs) that `fetch`es the same two URLs resolve fetches (builds.json, then the build's meta.json) and reads the bodies; " +
      'the difference is what osimage costs beyond the fetch: loading the CLI, parsing, validating, printing.',
    '',
  );
  L.push('| command | median wall | beyond the fetch |', '|---|---|---|');
  L.push(`| fetch builds.json + newest meta.json | ${fmtMs(rf)} | |`);
  L.push(`| \`osimage resolve\` (newest build) | ${fmtMs(rn)} | ${fmtMs(rn - rf)} |`);
  L.push(`| fetch builds.json + oldest meta.json | ${fmtMs(rfo)} | |`);
  L.push(`| \`osimage resolve --build <oldest of ${r.resolve.builds}>\` | ${fmtMs(rp)} | ${fmtMs(rp - rfo)} |`);
  L.push(`| for scale: \`osimage --help\` − \`node -e 0\` (this run) | | ${fmtMs(so - sn)} |`);
  L.push('');

  // ---- costs
  const ci = r.costs.imports;
  const esm = med(ci.esm);
  const cost = Object.fromEntries(
    Object.keys(ci)
      .filter((k) => k !== 'esm')
      .map((k) => [k, med(ci[k]) - esm]),
  );
  const parseMs = median(r.costs.parse.map((p) => p.osimageMs));
  const jsonParse = median(r.costs.parse.map((p) => p.jsonParseMs));
  L.push("## Where osimage's own time goes", '');
  L.push(
    'Wall time to import, from an ES module, the modules each measured command loads (the same files, so this follows the code), ' +
      "minus an empty ES module; the bare dependencies for reference; and one cold parse of the benchmark's image-references " +
      `(${fmtMiB(r.costs.refsBytes)}, JSON as oc writes it) by osimage's \`parseImageReferences\` against \`JSON.parse\`.`,
    '',
  );
  L.push('| what | median cost |', '|---|---|');
  const what = {
    commander: '`commander` (every command, `--help` too)',
    'resolve command':
      'the `resolve` command: dist/cli.js, commands/resolve.js, rhcos/resolve.js, output/resolve-view.js, output/terminal.js',
    'http client': "osimage's HTTP client alone: dist/http/request.js",
    'terminal output': "osimage's terminal output alone (warnings, errors, colour): dist/output/terminal.js",
    'release info --image-for':
      'the `release info --image-for` path: cli.js, commands/release.js, registry/open.js, registry/remote.js, release/info.js, output/release-view.js, output/terminal.js, output/progress.js, release/references.js',
  };
  for (const [k, v] of Object.entries(cost))
    L.push(
      `| ${what[k] ?? `bare \`${k.replace(/ \(.*/, '')}\`${k.includes('whole') ? ' (the whole package index)' : ''}`} | ${fmtMs(v)} |`,
    );
  L.push(`| \`parseImageReferences\` on ${fmtMiB(r.costs.refsBytes)} | ${parseMs.toFixed(1)} ms |`);
  L.push(`| \`JSON.parse\` of the same bytes | ${jsonParse.toFixed(1)} ms |`);
  L.push('');
  r.resolveWhy ??=
    `loading the resolve command's modules costs ${fmtMs(cost['resolve command'])} (alone: commander ${fmtMs(cost.commander)}, the HTTP client ${fmtMs(cost['http client'])}, ` +
    `terminal output ${fmtMs(cost['terminal output'])}), ` +
    'where the fetch script uses the fetch built into node';
  r.releaseWhy ??=
    `osimage's fixed costs weigh against skopeo's whole job here: loading the release info path costs ${fmtMs(cost['release info --image-for'])} ` +
    `(commander ${fmtMs(cost.commander)}, the HTTP client ${fmtMs(cost['http client'])}) and parsing image-references ${parseMs.toFixed(1)} ms`;

  // ---- targets
  L.push('## Targets: release info against skopeo, bytes fetched', '');
  L.push('| target | measured | result | reason |', '|---|---|---|---|');
  for (const tag of ['standard', 'deep']) {
    const { o, b } = ri[tag];
    const ok = o <= 0.5 * b;
    const floor = by[tag].o / by[tag].s;
    const why =
      tag === 'standard'
        ? `osimage fetched ${fmtMiB(by.standard.o)} (the manifest and the top layer) where skopeo fetched and wrote ${fmtMiB(by.standard.s)}${ok ? '' : `; ${r.releaseWhy}`}`
        : `osimage must fetch and read the whole ${opts.topMiB} MiB top layer (gunzip + tar headers) to know it does not delete release-manifests/; ` +
          `that is ${(floor * 100).toFixed(0)}% of the bytes skopeo copies, so ≤ 0.5× is out of reach at the same transfer speed${ok ? ', yet it was met' : '; the fixed costs of the standard row come on top'}`;
    L.push(`| release info ≤ 0.5× the skopeo baseline (${tag}) | ${ratio(o, b)} (${fmtMs(o)} vs ${fmtMs(b)}) | ${met(ok)} | ${why} |`);
  }
  for (const tag of ['standard', 'deep']) {
    const x = by[tag];
    const ok = x.o <= 1.05 * x.min;
    const why =
      x.o < x.min
        ? `below the minimum: \`--image-for\` does not fetch the config (${x.mp.config} B); everything else fetched is needed`
        : ok
          ? 'only the manifest, config and the layers down to release-manifests/ were fetched'
          : `${fmtBytes(x.o - x.min)} more than needed`;
    L.push(`| bytes fetched ≤ 1.05× the minimum (${tag}) | ${ratio(x.o, x.min)} | ${met(ok)} | ${why} |`);
  }
  L.push('');

  // ---- start-up: ratios to node -e 0 in the same run decide; oc's ratio is reported when oc is present
  L.push('## Targets: start-up and the warm cache', '');
  L.push(
    'Bench image `standard`, medians, same run; the ratio to `node -e 0` decides. A verdict whose fastest runs disagree with the ' +
      'medians is marked as within the noise.',
    '',
  );
  L.push('| target | measured | result | reason |', '|---|---|---|---|');
  const st = ri.standard;
  const minOf = (samples) => Math.min(...samples.map((s) => s.wallMs));
  const noise = (ok, minRatio, bound) =>
    ok !== minRatio <= bound ? `; the fastest runs give ${minRatio.toFixed(2)}×, so this verdict is within the machine's noise` : '';
  {
    const x = r.releaseInfo.standard.samples;
    const q = st.o / st.node;
    const ok = q <= 1.8;
    const ocPart = st.ocFailed
      ? '; oc: cannot answer'
      : st.oc !== undefined
        ? `; ${ratio(st.o, st.oc)} oc (${fmtMs(st.oc)})`
        : '; oc not on PATH';
    L.push(
      `| \`release info --image-for\`, cold (empty cache) ≤ 1.8× \`node -e 0\` | ${q.toFixed(2)}× (${fmtMs(st.o)} vs ${fmtMs(st.node)})${ocPart} | ${met(ok)} | ` +
        `${fmtMs(st.o - st.node)} over node itself; the tail after the answer is ${st.tail?.toFixed(1) ?? 'n/a'} ms (bin/osimage keeps wasm on Liftoff). ` +
        "By stage, timed in one quiet run with Node's module list and undici's diagnostics channels (hack/bench/quick.mjs --serve): the launcher, node:v8 and cli.cjs ~7 ms; " +
        'commands.cjs from its code cache ~4 ms; node:crypto (digests, cache checksums) ~3–6 ms and node:fs/promises ~1–2.5 ms; undici from its own code-cached script, with assert and net, ~5 ms; ' +
        '`--insecure` tries https first, as oc does: node:tls, a TLS context and the failed handshake, ~5 ms of the main thread even with plain http now sent alongside; ' +
        'the registry answering /v2/ (4–8 ms here), the manifest and the blob (~9 ms to its first byte, ~10 ms of body); then inflating, hashing and reading the 550 KiB layer, writing the cache and printing, ~10 ms. ' +
        `None of these is large; each is one of Node's modules or a round trip that oc (one static Go binary, no runtime to start) pays far less for${noise(ok, minOf(x.osimage) / minOf(x.node), 1.8)} |`,
    );
    for (const [key, label, bound] of [
      ['warmTag', 'warm cache, by tag', 1.4],
      ['warmDigest', 'warm cache, by digest', 1.3],
    ]) {
      const v = st[key];
      if (v === undefined) {
        L.push(
          `| the same, ${label} ≤ ${bound}× \`node -e 0\` | not measured: no cache yet | **not measured** | the digest-keyed cache is not in this build |`,
        );
        continue;
      }
      const q2 = v / st.node;
      const ok2 = q2 <= bound;
      L.push(
        `| the same, ${label} ≤ ${bound}× \`node -e 0\` | ${q2.toFixed(2)}× (${fmtMs(v)}) | ${met(ok2)} | ${ok2 ? 'no blob requests' : `${fmtMs(v - st.node)} over node itself: ${key === 'warmTag' ? "what the query by digest costs, plus undici (~5 ms from its code cache), node:tls and the https attempt `--insecure` makes first (~5 ms), and the /v2/ and HEAD round trips (~8 ms with the registry's answers)" : "no request, no HTTP code (undici is a script of its own, never read); the launcher, node:v8 and cli.cjs (~7 ms), commands.cjs from its code cache (~4 ms), node:crypto for the entries' checksums and the manifest's digest (~3–6 ms; kept: a corrupted entry must be found), node:fs/promises (~1–2.5 ms), the stdout pipe, reading and checking the three entries and printing"}`}${noise(ok2, minOf(x[key]) / minOf(x.node), bound)} |`,
      );
    }
  }
  // Against oc 4.13 in the same rounds: the cold query, and the warm one by tag (a cache filled by an earlier run).
  if (st.oc !== undefined && !st.ocFailed) {
    const floor = `\`node -e 0\` alone took ${ratio(st.node, st.oc)} oc's time in these rounds`;
    for (const [key, label, bound] of [
      ['o', 'cold (empty cache)', 0.8],
      ['warmTag', 'warm cache, by tag', 0.65],
    ]) {
      const v = st[key];
      if (v === undefined) continue;
      const ok = v <= bound * st.oc;
      L.push(
        `| \`release info --image-for\`, ${label} ≤ ${bound}× oc | ${ratio(v, st.oc)} (${fmtMs(v)} vs ${fmtMs(st.oc)}) | ${met(ok)} | ${floor}, before any module, request or check: ` +
          "osimage's own share is what lies above it (hack/bench/startup-forms.mjs measures a floor that makes the same requests with node:http and checks nothing, and the start-up forms tried) |",
      );
    }
  }
  {
    const ok = so <= 1.15 * sn;
    L.push(
      `| \`osimage --help\` ≤ 1.15× \`node -e 0\` | ${ratio(so, sn)} (${fmtMs(so)} vs ${fmtMs(sn)}) | ${met(ok)} | ${fmtMs(so - sn)} on top of node itself. The bench's runs write into a pipe, where bin/osimage prints the help build/help.mjs rendered from the CLI at build time (dist/bundle/help.txt, checked against the CLI byte for byte by the tests) without loading any of the CLI: what remains is the launcher reading that file and the stdout pipe's stream and net modules and its net.Socket (~2.5 ms). In a terminal the CLI renders it (its width): cli.cjs (commander and the command table) from a V8 code cache, no V8 flag set, commander building and printing the help (~5 ms more); \`require('commander')\` alone costs ${fmtMs(sc - sn)} (it requires child_process, which pulls in net and dgram; the bundle requires it only if used)${noise(ok, minOf(r.startup.osimage) / minOf(r.startup.node), 1.15)} |`,
    );
  }
  for (const tag of ['standard', 'deep']) {
    const bound = tag === 'standard' ? 80 : 150;
    const rss = ri[tag].orss;
    const ok = rss !== undefined && (tag === 'standard' ? rss <= bound * 1024 : rss < bound * 1024);
    const why =
      tag === 'standard'
        ? `node itself, undici, commander and the 550 KiB layer's files (llhttp stays on V8's baseline compiler, which saved ~35 MiB); ${ok ? '' : `${fmtKiB(rss - bound * 1024)} over; `}skopeo peaked at ${fmtKiB(ri.standard.brss)}`
        : `layers are streamed (digest → gunzip → tar) and the next layer is prefetched only as far as stream buffers go; skopeo peaked at ${fmtKiB(ri.deep.brss)}`;
    L.push(
      `| peak RSS ${tag === 'standard' ? '≤ 80 MiB on `standard`' : `< 150 MiB on the ${opts.topMiB} MiB variant`} | ${fmtKiB(rss)} | ${met(ok)} | ${why} |`,
    );
  }
  {
    const worst = Math.max(rn - rf, rp - rfo);
    const ok = worst <= 30;
    L.push(
      `| \`resolve\` over ${r.resolve.builds.toLocaleString('en-US')} builds ≤ 30 ms beyond the fetch | ${fmtMs(rn - rf)} (newest), ${fmtMs(rp - rfo)} (pinned oldest) | ${met(ok)} | ` +
        (ok
          ? "the fetch script pays node's start-up and loads the fetch built into node too, so what remains is commander, osimage's HTTP client, parsing and validating the builds and printing |"
          : `start-up (osimage --help − node -e 0) is ${fmtMs(so - sn)} of it; ${r.resolveWhy} |`),
    );
  }
  {
    const { o, b } = ri.deep;
    L.push(
      `| the ${opts.topMiB} MiB-top-layer variant against skopeo (report) | ${ratio(o, b)} (${fmtMs(o)} vs ${fmtMs(b)}) | reported | ` +
        `the whole top layer must be fetched, inflated and hashed before release-manifests/ below it can be trusted${ri.deep.ocFailed ? '; oc: cannot answer on this image' : ''} |`,
    );
  }
  L.push('');
  if (r.notes?.length) {
    L.push('## Notes', '');
    for (const n of r.notes) L.push(`- ${n}`);
    L.push('');
  }
  return L.join('\n');
}

/** The `release new --from-release` section (hack/bench/lib/from-release.mjs), as Markdown lines. */
export function fromReleaseLines(fr, { median }) {
  const L = [];
  const s = fr.sizes;
  const med = (samples, key = 'wallMs') => median(samples.map((x) => x[key]).filter((v) => v !== undefined));
  L.push('## `release new --from-release` (OS swap of a full-size payload)', '');
  L.push(
    `The payload: ${s.tags} image tags in one repository (\`ocp/art-dev\`, by digest), every component on the shared base layer 1 ` +
      `(one blob, pushed once): ${s.operators} operator images (label \`io.openshift.release.operator=true\`; a top layer with ` +
      `${s.manifestsPerOperator}–${s.manifestsPerOperator + 1} manifests of a few KiB, \`manifests/image-references\` and a random ${s.operatorMiB} MiB binary: ` +
      `${fmtMiB(s.operatorLayers)} of operator top layers, ${s.manifestFiles} manifests), plain components with a tiny layer of their own, the OS images ` +
      '(`machine-os-content`, `rhel-coreos`, `rhel-coreos-extensions`, labelled `io.openshift.build.versions=machine-os=…`) and the ' +
      `\`cluster-version-operator\` image, which is the two base layers (${fmtMiB(s.cvoBytes)}). The release \`${fr.from}\` is the CVO plus a ` +
      `release-manifests layer (${fmtMiB(s.releaseLayer)} gzip, ${s.releaseFiles} files, ${fmtMiB(s.releaseTarBytes)} of file data) written as ` +
      "`oc adm release new` writes it (operators' manifests with their image-references substituted, the machine-config-operator's " +
      'osimageurl ConfigMap pointing at the OS tags), config label `io.openshift.release.base-image-digest` = the CVO manifest digest.',
    '',
  );
  L.push(
    `The swap: ${fr.swap.join(', ')} (one new RHCOS build: every tag carrying \`machine-os\`, since oc 4.13 fails an operator whose ` +
      'referenced tags carry different versions of one component (image_mapper.go loadImageStreamTransforms), so swapping rhel-coreos alone to a new build fails there). Command: `release new --insecure --from-release 127.0.0.1:PROXY/' +
      `${fr.from} ${fr.swap.length} × TAG=127.0.0.1:PROXY/ocp/art-dev@sha256:… --to-image 127.0.0.1:PROXY/ocp/release-new:TOOL-N\` ` +
      "(osimage, osimage `--full-rebuild`, `oc adm release new`). Every run goes through the counting proxy (the payload's pullspecs name it), " +
      `so each run's bytes are counted: response bodies of GETs, and all requests. Median of ${fr.runs} alternating runs after 1 warm-up; ` +
      'each osimage run gets a fresh empty `OSIMAGE_CACHE_DIR`, except the warm row, whose runs share one (its warm-up fills it: ' +
      'the same swap again, as a release engineer repeats it; oc keeps no cache).',
    '',
  );
  L.push(
    '| tool | median wall | min | ratio to oc | bytes fetched | requests (GETs) | peak RSS | pushed release checked |',
    '|---|---|---|---|---|---|---|---|',
  );
  const oc = fr.samples.oc && !fr.samples.oc.some((x) => x.failed) ? med(fr.samples.oc) : undefined;
  const rows = [
    ['osimage', 'osimage (default)'],
    ['osimageWarm', 'osimage, warm cache'],
    ['osimageFull', 'osimage `--full-rebuild`'],
    ['oc', '`oc adm release new`'],
  ];
  const out = {};
  for (const [key, label] of rows) {
    const x = fr.samples[key];
    if (!x) {
      L.push(`| ${label} | ${fr.notes[key] ?? 'not measured'} | | | | | | |`);
      continue;
    }
    const failed = x.find((v) => v.failed);
    if (failed) {
      L.push(`| ${label} | failed: ${failed.failed.replace(/\|/g, '\\|')} | | | | | | |`);
      continue;
    }
    const w = med(x);
    const b = med(x, 'bytes');
    out[key] = w;
    const checkKey = { osimage: 'osimage', osimageWarm: 'osimage-warm', osimageFull: 'osimage-full', oc: 'oc' }[key];
    const check = fr.checks[checkKey];
    const checked = !check ? 'not read' : check.length === 0 ? 'as expected' : check.join('; ').replace(/\|/g, '\\|');
    L.push(
      `| ${label} | ${fmtMs(w)} | ${fmtMs(Math.min(...x.map((v) => v.wallMs)))} | ${key === 'oc' || oc === undefined ? '' : ratio(w, oc)} | ${fmtBytes(b)} | ` +
        `${med(x, 'requests')} (${med(x, 'gets')}) | ${fmtKiB(med(x, 'rssKiB'))} | ${checked} |`,
    );
  }
  L.push('');
  L.push(
    `"Pushed release checked": each tool's last pushed release read back and compared with what the generator says oc writes for this ` +
      'swap: the same files, every manifest byte for byte, image-references tag by tag (pullspec and annotations; the metadata is the ' +
      "tool's), the CVO's layers below and the base-image-digest label. For scale: the release's manifest and config are " +
      `${s.releaseManifest} B and ${s.releaseConfig} B, its release-manifests layer ${fmtMiB(s.releaseLayer)}, the machine-config-operator's top layer ` +
      `${fmtMiB(s.mcoLayer)}, all ${s.operators} operator top layers ${fmtMiB(s.operatorLayers)}.`,
    '',
  );
  L.push('| target | measured | result |', '|---|---|---|');
  for (const [key, what] of [
    ['osimage', 'cold cache'],
    ['osimageWarm', 'warm cache'],
  ]) {
    const target = out[key] !== undefined && oc !== undefined ? out[key] / oc : undefined;
    L.push(
      `| osimage \`release new --from-release\` (OS swap, ${what}) ≤ 0.25× oc | ${target === undefined ? (fr.samples[key] ? 'oc not measured' : 'osimage not available') : `${target.toFixed(2)}× (${fmtMs(out[key])} vs ${fmtMs(oc)})`} | ${target === undefined ? '**not measured**' : met(target <= 0.25)} |`,
    );
  }
  L.push('');
  const measured = Object.entries(fr.samples).filter(([, x]) => x.length && !x.some((v) => v.failed));
  if (measured.length) {
    const kinds = [...new Set(measured.flatMap(([, x]) => Object.keys(x[x.length - 1].byKind ?? {})))].sort();
    const names = { osimage: 'osimage', osimageWarm: 'osimage, warm cache', osimageFull: 'osimage `--full-rebuild`', oc: 'oc' };
    L.push("Where each tool's bytes went (its last run; blobs named by digest; in brackets, the number of GETs):", '');
    L.push(`| tool | ${kinds.join(' | ')} |`, `|---|${kinds.map(() => '---|').join('')}`);
    for (const [who, x] of measured) {
      const k = x[x.length - 1].byKind ?? {};
      L.push(
        `| ${names[who] ?? who} | ${kinds.map((kind) => (k[kind] ? `${fmtMiB(k[kind].bytes)} (${k[kind].count}${k[kind].count < 3 && k[kind].which ? `: ${k[kind].which.join(', ')}` : ''})` : '0')).join(' | ')} |`,
      );
    }
    L.push('');
  }
  L.push('<details><summary>every run (wall ms, bytes fetched)</summary>', '');
  for (const [who, x] of Object.entries(fr.samples))
    L.push(
      `- ${who}: ${x.map((v) => `${v.wallMs.toFixed(0)} (${fmtMiB(v.bytes)}, ${v.requests} req)${v.failed ? ' failed' : ''}`).join(', ')}`,
    );
  L.push('', '</details>', '');
  return L;
}

/** The report of `run.mjs --only from-release` (or `--only payload`): the machine, then the one section. */
export function renderFromReleaseOnly(r, { median }) {
  const m = r.machine;
  const what = r.payloadQueries ? 'the queries of a full-size payload' : '`release new --from-release`';
  const L = [`# osimage benchmarks: ${what} alone`, ''];
  L.push(
    `Produced by \`node hack/bench/run.mjs --only ${r.payloadQueries ? 'payload' : 'from-release'}\` on ${r.started.toISOString().replace('T', ' ').slice(0, 16)} UTC ` +
      `(took ${((r.finished - r.started) / 1000).toFixed(0)} s), commit ${m.commit}${m.dirty ? ' (with uncommitted changes in the checkout)' : ''}.`,
    '',
  );
  L.push(`- ${m.cores} cores (${m.cpuModel}), ${m.memGiB.toFixed(1)} GiB memory, ${m.os}, Node.js ${m.node}`);
  L.push(`- tools: docker-registry ${r.tools.registry}; oc: ${r.tools.oc ?? '**not on PATH, not measured**'}; peak RSS by ${r.rssMethod}`);
  for (const l of r.load) L.push(`- load ${l.label}: \`${l.uptime}\``);
  L.push(
    `- base layers ${r.opts.baseMiB} MiB (${fmtMiB(r.gen.sizes.base1)} + ${fmtMiB(r.gen.sizes.base2)} gzip); generated in ${r.gen.seconds.toFixed(1)} s, pushed in ${r.gen.pushSeconds.toFixed(1)} s`,
  );
  L.push('');
  L.push(...(r.payloadQueries ? payloadQueriesLines(r.payloadQueries) : fromReleaseLines(r.fromRelease, { median })));
  return L.join('\n');
}
