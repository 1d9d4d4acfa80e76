/**
 * The `release new --from-release` section: an OS swap (every OS tag of the payload to one new RHCOS build)
 * of the bench's full-size payload, pushed with `--to-image` into the same local registry, by osimage (its
 * default fast path, and `--full-rebuild`) and by `oc adm release new --from-release` when oc is on PATH.
 * Every run goes through the counting proxy (the payload's pullspecs name the proxy), so each run's bytes
 * and requests are known; after the runs each tool's last pushed release is read back and compared with
 * what the generator says oc would write.
 */
import { createGunzip } from 'node:zlib';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import tarStream from 'tar-stream';
import { OS_TAGS, payloadManifests } from './images.mjs';
import { alternate, run } from './measure.mjs';

const lastLine = (text) => text.trim().split('\n').pop()?.slice(0, 300) ?? '';

/** Does this osimage have `release new --from-release` (and `--full-rebuild`)? */
export async function osimageFromRelease(node, bin) {
  const r = await run(node, [bin, 'release', 'new', '--help'], { rss: false });
  const help = r.code === 0 ? r.stdout : '';
  return { fromRelease: /--from-release\b/.test(help), fullRebuild: /--full-rebuild\b/.test(help) };
}

/** The images pushed before the sections run: components and the OS build to swap in, then the release and the one before it. */
export async function fromReleasePushes(bench, { proxyHost, artRepo, releaseRepo, releaseTag }) {
  const p = bench.payload;
  const list = [];
  for (const [name, image] of Object.entries(p.images)) list.push({ repo: artRepo, tag: name, image });
  for (const [name, { image }] of Object.entries(p.next)) list.push({ repo: artRepo, tag: `${name}-next`, image });
  const release = await p.release(proxyHost, artRepo);
  list.push({ repo: releaseRepo, tag: releaseTag, image: release.image });
  // The release before it (the OS tags on another build, another version): what `--changes-from` compares.
  const previous = await p.release(proxyHost, artRepo, { version: `${bench.version}-previous`, swapOs: true });
  list.push({ repo: releaseRepo, tag: `${releaseTag}-previous`, image: previous.image });
  return { list, release, previous };
}

/** A registry GET (through the proxy is fine: the counts are reset before each run). */
async function get(url, accept) {
  const res = await fetch(url, { headers: accept ? { accept } : {} });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/** The files under release-manifests/ in the top layer of `repo:tag`, plus the config's labels and the layers. */
export async function readRelease(host, repo, tag) {
  const accept = 'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json';
  const manifest = JSON.parse((await get(`http://${host}/v2/${repo}/manifests/${tag}`, accept)).toString());
  const config = JSON.parse((await get(`http://${host}/v2/${repo}/blobs/${manifest.config.digest}`)).toString());
  const top = manifest.layers[manifest.layers.length - 1];
  const blob = await get(`http://${host}/v2/${repo}/blobs/${top.digest}`);
  const files = new Map();
  const extract = tarStream.extract();
  const done = new Promise((resolve, reject) => {
    extract.on('entry', (hdr, stream, next) => {
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      stream.on('end', () => {
        if (hdr.type === 'file' && hdr.name.startsWith('release-manifests/'))
          files.set(hdr.name.slice('release-manifests/'.length), Buffer.concat(chunks).toString('utf8'));
        next();
      });
      stream.resume();
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  const gunzip = createGunzip();
  gunzip.on('error', (e) => extract.destroy(e));
  gunzip.pipe(extract);
  gunzip.end(blob);
  await done;
  return { manifest, labels: config.config?.Labels ?? {}, files };
}

/**
 * Differences between a pushed release and the expected one: the file list, every manifest byte for byte,
 * image-references by tag (pullspec and annotations; its metadata and creationTimestamp are the tool's),
 * the base layers and the base-image-digest label.
 */
export function compare(got, want) {
  const diffs = [];
  const names = (m) => [...m.keys()].sort();
  const g = names(got.files);
  const w = want.files.map((f) => f.name).sort();
  const missing = w.filter((n) => !got.files.has(n));
  const extra = g.filter((n) => !want.files.some((f) => f.name === n));
  if (missing.length) diffs.push(`${missing.length} files missing (${missing.slice(0, 3).join(', ')})`);
  if (extra.length) diffs.push(`${extra.length} files not expected (${extra.slice(0, 3).join(', ')})`);
  let differing = [];
  for (const f of want.files) {
    const have = got.files.get(f.name);
    if (have === undefined || f.name === 'image-references') continue;
    if (f.name === 'release-metadata') {
      if (JSON.stringify(JSON.parse(have)) !== JSON.stringify(JSON.parse(f.data))) differing.push(f.name);
    } else if (have !== f.data) differing.push(f.name);
  }
  if (differing.length) diffs.push(`${differing.length} manifests differ (${differing.slice(0, 3).join(', ')})`);
  const refs = got.files.get('image-references');
  if (refs) {
    const tags = (text) => Object.fromEntries(JSON.parse(text).spec.tags.map((t) => [t.name, JSON.stringify([t.from, t.annotations])]));
    const gt = tags(refs);
    const wt = tags(want.files.find((f) => f.name === 'image-references').data);
    differing = Object.keys({ ...gt, ...wt }).filter((k) => gt[k] !== wt[k]);
    if (differing.length) diffs.push(`image-references: ${differing.length} tags differ (${differing.slice(0, 3).join(', ')})`);
  }
  const base = got.manifest.layers.slice(0, -1).map((l) => l.digest);
  if (JSON.stringify(base) !== JSON.stringify(want.baseLayers)) diffs.push('the base layers are not the CVO image layers');
  if (got.labels['io.openshift.release.base-image-digest'] !== want.baseDigest)
    diffs.push(`base-image-digest label is ${got.labels['io.openshift.release.base-image-digest']}`);
  return diffs;
}

/**
 * Run the section. `proxy` is the counting proxy in front of the registry (the payload names it), `release`
 * what fromReleasePushes built. Returns samples per tool (wall, RSS, bytes and requests of each run), what
 * was swapped, and each tool's output checked against the expected payload.
 */
export async function fromReleaseSection({
  bench,
  release,
  proxy,
  registryHost,
  artRepo,
  releaseRepo,
  releaseTag,
  newRepo,
  tmp,
  runs,
  oc,
  node,
  bin,
  log,
}) {
  const p = bench.payload;
  const from = `${proxy.host}/${releaseRepo}:${releaseTag}`;
  const swap = OS_TAGS.map((t) => `${t}=${proxy.host}/${artRepo}@${p.next[t].image.descriptor.digest}`);
  const available = await osimageFromRelease(node, bin);
  // What each fetched blob is, to say where a tool's bytes went.
  const kinds = new Map();
  const cvo = p.images['cluster-version-operator'];
  for (const l of cvo.layers) kinds.set(l.descriptor.digest, 'base layers');
  for (const op of p.plan.operators)
    kinds.set(p.images[op].layers[1].descriptor.digest, op === 'machine-config-operator' ? 'MCO top layer' : 'other operator top layers');
  kinds.set(release.layer.descriptor.digest, 'release-manifests layer');
  const operatorOf = new Map(p.plan.operators.map((op) => [p.images[op].layers[1].descriptor.digest, op]));
  const byKind = () => {
    const out = {};
    for (const r of proxy.requests) {
      if (r.method !== 'GET' || !r.bytes) continue;
      const m = /\/(manifests|blobs)\/(sha256:[0-9a-f]{64})?/.exec(r.url);
      const kind =
        r.url.split('?')[0] === '/v2/'
          ? 'pings (/v2/)'
          : !m
            ? 'other'
            : m[1] === 'manifests'
              ? 'manifests'
              : (kinds.get(m[2]) ?? 'configs and small layers');
      out[kind] ??= { bytes: 0, count: 0 };
      out[kind].bytes += r.bytes;
      out[kind].count++;
      const op = m?.[2] && operatorOf.get(m[2]);
      if (op && out[kind].count <= 3) (out[kind].which ??= []).push(op);
    }
    return out;
  };
  let n = 0;
  const last = {};
  // `keep`: one cache folder for every run of the job (its warm-up fills it): a repeated swap of one release.
  const job =
    (who, cmd, argv, { keep = false } = {}) =>
    async () => {
      const tag = `${who}-${n++}`;
      const to = `${proxy.host}/${newRepo}:${tag}`;
      const cache = join(tmp, keep ? `cache-new-${who}` : `cache-new-${tag}`);
      proxy.reset();
      const r = await run(cmd, argv(to), { tmp, env: { ...process.env, OSIMAGE_CACHE_DIR: cache }, keepStdout: true });
      const counted = { ...proxy.totals(), byKind: byKind() };
      if (!keep) await rm(cache, { recursive: true, force: true });
      if (r.code !== 0) return { wallMs: r.wallMs, rssKiB: r.rssKiB, ...counted, failed: `exit ${r.code}: ${lastLine(r.stderr)}` };
      last[who] = tag;
      return { wallMs: r.wallMs, rssKiB: r.rssKiB, cpuMs: r.cpuMs, ...counted };
    };
  const common = (to) => ['--from-release', from, ...swap, '--to-image', to];
  const jobs = {};
  const notes = {};
  if (available.fromRelease) {
    jobs.osimage = job('osimage', node, (to) => [bin, 'release', 'new', '--insecure', ...common(to)]);
    jobs.osimageWarm = job('osimage-warm', node, (to) => [bin, 'release', 'new', '--insecure', ...common(to)], { keep: true });
    if (available.fullRebuild)
      jobs.osimageFull = job('osimage-full', node, (to) => [bin, 'release', 'new', '--insecure', '--full-rebuild', ...common(to)]);
    else notes.osimageFull = 'osimage: `--full-rebuild` not available';
  } else {
    notes.osimage = 'osimage: not available (`osimage release new --help` has no `--from-release`)';
    notes.osimageFull = notes.osimage;
  }
  if (oc) jobs.oc = job('oc', 'oc', (to) => ['adm', 'release', 'new', '--insecure=true', ...common(to)]);
  else notes.oc = 'oc: not on PATH, not measured';
  const samples = Object.keys(jobs).length
    ? await alternate(jobs, { runs, warmup: 1, onRound: (r) => log(`  release new --from-release: round ${r}/${runs}`) })
    : {};

  // What every tool should have pushed: the payload with the OS tags swapped, as oc writes it.
  const pullspecs = { ...release.pullspecs };
  const labels = { ...p.labels };
  for (const t of OS_TAGS) {
    pullspecs[t] = `${proxy.host}/${artRepo}@${p.next[t].image.descriptor.digest}`;
    labels[t] = p.next[t].labels;
  }
  const want = {
    files: payloadManifests({ version: bench.version, plan: p.plan, manifests: p.manifests, pullspecs, labels, overrides: OS_TAGS }),
    baseLayers: p.images['cluster-version-operator'].layers.map((l) => l.descriptor.digest),
    baseDigest: p.images['cluster-version-operator'].descriptor.digest,
  };
  const checks = {};
  for (const [who, tag] of Object.entries(last)) {
    try {
      checks[who] = compare(await readRelease(registryHost, newRepo, tag), want);
    } catch (err) {
      checks[who] = [`could not read the pushed release: ${err.message}`];
    }
  }
  const operatorLayers = p.plan.operators.map((op) => p.images[op].layers[1].descriptor.size);
  const mco = p.images['machine-config-operator'];
  return {
    samples,
    notes,
    checks,
    swap: OS_TAGS.map((t) => `${t} → ${p.nextBuild}`),
    from: `${releaseRepo}:${releaseTag}`,
    sizes: {
      ...p.sizes,
      releaseLayer: release.layer.descriptor.size,
      releaseFiles: release.files.length,
      releaseTarBytes: release.tarBytes,
      operatorLayers: operatorLayers.reduce((a, b) => a + b, 0),
      mcoLayer: mco.layers[1].descriptor.size,
      cvoBytes: p.images['cluster-version-operator'].layers.reduce((a, l) => a + l.descriptor.size, 0),
      releaseManifest: release.image.bytes.length,
      releaseConfig: release.image.config.descriptor.size,
    },
    runs,
  };
}
