/**
 * What record.mjs (runs oc), compare.mjs (runs osimage) and test/oc/side-by-side.test.ts share: the pair list,
 * the environment (a registry with the image set pushed, a closed port), expanding placeholders into argv,
 * templating run-specific text back out of outputs, snapshots of written files, and the classification.
 * Types: lib.d.mts.
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { freePort, startRegistryServer } from '../../test/infra/registry-server.mjs';
import { tarGzEntries, zipEntries } from '../../test/infra/archives.mjs';
import { accessProblem, accessRegistries, expandAccess, pairVariables, pushNewReleases } from './access.mjs';
import { makeGitRepos } from './git-repos.mjs';
import { buildRunSet, buildSet, pushSet } from './images.mjs';
import { buildInfoSet, makeChangelogRepos, prepareInfoPair } from './info-images.mjs';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const PAIRS_FILE = fileURLToPath(new URL('./pairs.yaml', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../../test/fixtures/oc/', import.meta.url));

/** The pairs of pairs.yaml, checked: unique names, known classes. */
export async function loadPairs(file = PAIRS_FILE) {
  const pairs = parse(await readFile(file, 'utf8'));
  const seen = new Set();
  for (const p of pairs) {
    if (!p.name || !Array.isArray(p.args)) throw new Error(`${file}: a pair needs name and args: ${JSON.stringify(p)}`);
    if (seen.has(p.name)) throw new Error(`${file}: pair ${p.name} twice`);
    seen.add(p.name);
    if (!['identical', 'documented', 'oc-quirk'].includes(p.expect)) throw new Error(`${file}: pair ${p.name}: expect ${p.expect}?`);
    if (p.expect !== 'identical' && !p.reason) throw new Error(`${file}: pair ${p.name}: ${p.expect} needs a reason`);
    for (const s of p.same ?? []) if (!STREAMS.includes(s)) throw new Error(`${file}: pair ${p.name}: same: ${s}?`);
    const access = accessProblem(p);
    if (access) throw new Error(`${file}: pair ${p.name}: ${access}`);
  }
  return pairs;
}

/** What is compared: the two streams, the exit code, the files written under `snapshot:`. */
export const STREAMS = ['stdout', 'stderr', 'exitCode', 'files'];

/**
 * Start the registry, push the image set, pick a port nothing listens on. `stop()` ends the registry and removes
 * the folders. `{ pairs: false }` pushes only the image set and the run set (the releases that name this
 * registry): not the infoflag- pairs' images nor the stored `release new` outputs, which only pairs read (and
 * which cost more than half of the start).
 */
export async function startEnvironment({ pairs = true } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'oc-compare-'));
  const set = await buildSet();
  const server = await startRegistryServer({ dir, logLevel: 'error' });
  const closed = `127.0.0.1:${await freePort()}`;
  let runSet;
  let info;
  try {
    await pushSet(server.host, set);
    // The releases that name this registry (and this run's git repositories): their digests vary with the run.
    runSet = await buildRunSet(server.host, closed, set.digests, await makeGitRepos(join(dir, 'git')));
    await pushSet(server.host, runSet);
    if (pairs) {
      // The infoflag- pairs' component images and releases (info-images.mjs), also built for the run.
      const repos = await makeChangelogRepos(join(dir, 'changelog-git'));
      const infoSet = await buildInfoSet(server.host, closed, repos);
      await pushSet(server.host, infoSet);
      runSet.digests = { ...runSet.digests, ...infoSet.digests };
      info = { set, repos };
      // Both tools' `release new` outputs, stored (access.mjs): their digests are fixed.
      Object.assign(set.digests, await pushNewReleases(server.host));
    }
  } catch (err) {
    await server.stop();
    throw err;
  }
  // The htpasswd and tls registries of `registry:` pairs (access.mjs), started when a pair first names one.
  const access = accessRegistries(dir, set);
  return {
    registry: server.host,
    closed,
    digests: set.digests,
    runDigests: runSet.digests,
    info,
    dir,
    access,
    stop: async () => {
      await access.stop();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `{{NAME}}` placeholders of an argument, from the environment and the pair's folder. */
export function expand(arg, env, pairDir) {
  return arg.replace(/\{\{(REGISTRY|CLOSED|DIR|DIGEST:([^}]+)|RUN_DIGEST:([^}]+))\}\}/g, (_, name, image, runImage) => {
    if (name === 'REGISTRY') return env.registry;
    if (name === 'CLOSED') return env.closed;
    if (name === 'DIR') return pairDir;
    if (runImage) {
      const r = env.runDigests?.[runImage];
      if (!r) throw new Error(`no image ${runImage} in the run set (images.mjs buildRunSet)`);
      return r;
    }
    const d = env.digests[image];
    if (!d) throw new Error(`no image ${image} in the set (images.mjs)`);
    return d;
  });
}

/**
 * Run-specific text back to placeholders (longest first, so one host:port is never a prefix of another); then the
 * pair's `mask:` regexps become {{MASK}} and its `strip:` regexps are removed.
 */
export function template(text, env, pairDir, { mask = [], strip = [] } = {}, extra = {}) {
  const subs = [
    [pairDir, '{{DIR}}'],
    [env.registry, '{{REGISTRY}}'],
    [env.closed, '{{CLOSED}}'],
    // The run's own folder (its git repositories) where it shows outside the pair's folder.
    [env.dir, '{{ENV}}'],
    ...Object.entries(env.runDigests ?? {}).map(([image, d]) => [d, `{{RUN_DIGEST:${image}}}`]),
    ...Object.entries(extra).map(([k, v]) => [v, `{{${k}}}`]),
  ]
    .filter(([from]) => from)
    .sort((a, b) => b[0].length - a[0].length);
  let out = text;
  for (const [from, to] of subs) out = out.split(from).join(to);
  // The one difference no script reads: the program's name in usage hints (`See 'oc adm release info --help'`).
  out = out.replace(/'(oc adm|osimage) release /g, "'{{CMD}} release ");
  for (const m of mask) out = out.replace(new RegExp(m, 'gm'), '{{MASK}}');
  for (const m of strip) out = out.replace(new RegExp(m, 'gm'), '');
  return out;
}

/** A fresh folder for one pair, with what `setup:` asks for. */
export async function preparePair(pair, env) {
  const pairDir = await mkdtemp(join(env.dir, `${pair.name}-`));
  if (pair.setup === 'existing') {
    const out = join(pairDir, 'out');
    await mkdir(out);
    await writeFile(join(out, 'image-references'), 'old\n');
    await chmod(join(out, 'image-references'), 0o600);
    await writeFile(join(out, 'keep.txt'), 'keep\n');
  } else if (pair.setup === 'icsp' || pair.setup === 'idms') {
    // Mirrors of the components tools-mirror names on the closed port, in this registry.
    const components = ['cli', 'cli-artifacts', 'installer', 'installer-artifacts', 'baremetal-installer', 'cloud-credential-operator'];
    const pairs = components.map((c) => [`${env.closed}/ocp/${c}`, `${env.registry}/ocp/${c}`]);
    const text =
      pair.setup === 'icsp'
        ? `apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: mirrors\nspec:\n  repositoryDigestMirrors:\n${pairs.map(([s, m]) => `  - source: ${s}\n    mirrors:\n    - ${m}\n`).join('')}`
        : `apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: mirrors\nspec:\n  imageDigestMirrors:\n${pairs.map(([s, m]) => `  - source: ${s}\n    mirrors:\n    - ${m}\n`).join('')}`;
    await writeFile(join(pairDir, `${pair.setup}.yaml`), text);
  } else if (pair.setup?.startsWith('info-')) {
    await prepareInfoPair(pair.setup, pairDir, env);
  } else if (pair.setup) {
    throw new Error(`pair ${pair.name}: setup ${pair.setup}?`);
  }
  return pairDir;
}

/**
 * The files under `path` (or the file itself), sorted by name: `{name, mode}` and the content, as `text` (templated
 * by `t`, so masks apply) when it is UTF-8 text of at most 16 KiB, else as `sha256`; `null` when absent.
 */
export async function snapshot(path, t = (x) => x, withDetail = [], since = Number.POSITIVE_INFINITY) {
  const st = await lstat(path).catch(() => null);
  if (!st) return null;
  const nulText = withDetail.includes('nul');
  // A time within the run (a file written with the clock's time) is {{NOW}}; an older one is kept.
  const when = (iso) => (iso !== null && Date.parse(iso) >= since ? '{{NOW}}' : iso);
  const bytesOf = (bytes) => {
    const text = bytes.toString('utf8');
    if (bytes.length <= 16 << 10 && Buffer.from(text, 'utf8').equals(bytes) && (nulText || !text.includes('\0'))) return { text: t(text) };
    return { sha256: createHash('sha256').update(bytes).digest('hex') };
  };
  // `snapshotWith: [archives]`: an archive is compared by its entries, not its bytes (compression may differ).
  const archive = async (p, bytes) => {
    if (!withDetail.includes('archives')) return undefined;
    const list = p.endsWith('.tar.gz') ? await tarGzEntries(bytes) : p.endsWith('.zip') ? zipEntries(bytes) : undefined;
    return list?.map(({ data, mtime, ...e }) => ({
      ...e,
      ...(withDetail.includes('mtime') ? { mtime: when(mtime) } : {}),
      ...bytesOf(data),
    }));
  };
  const content = async (p) => {
    const bytes = await readFile(p);
    const entries = await archive(p, bytes);
    return entries ? { entries } : bytesOf(bytes);
  };
  const entry = async (p, s) => ({
    name: relative(path, p) || '.',
    mode: (s.mode & 0o7777).toString(8).padStart(4, '0'),
    ...(s.isFile() && withDetail.includes('mtime') ? { mtime: when(s.mtime.toISOString()) } : {}),
    ...(s.isFile() ? await content(p) : { type: s.isDirectory() ? 'dir' : 'other' }),
  });
  if (!st.isDirectory()) return [await entry(path, st)];
  const out = [];
  const walk = async (d) => {
    for (const name of (await readdir(d)).sort()) {
      const p = join(d, name);
      const s = await lstat(p);
      out.push(await entry(p, s));
      if (s.isDirectory()) await walk(p);
    }
  };
  await walk(path);
  return out;
}

/** One run of a pair, templated: `{stdout, stderr, exitCode, files}` (files `undefined` without `snapshot:`). */
export async function runPair(pair, outer, run, extra = {}) {
  // The pair's registry as {{REGISTRY}}, its credentials and files (access.mjs); `run` gets the variables.
  const env = outer.access ? await outer.access.view(pair, outer) : outer;
  // Whole seconds: tar and zip keep times to the second (zip's DOS time to two).
  const since = Math.floor(Date.now() / 2000) * 2000 - 2000;
  const pairDir = await preparePair(pair, env);
  const x = (a) => expand(expandAccess(a, env), env, pairDir);
  const vars = await pairVariables(pair, pairDir, x);
  const args = pair.args.map(x);
  const r = await run(args, pairDir, vars);
  const t = (s) => template(s, env, pairDir, pair, { ...extra, ...(env.ca ? { CA: env.ca } : {}) });
  const files = pair.snapshot ? await snapshot(expand(pair.snapshot, env, pairDir), t, pair.snapshotWith ?? [], since) : undefined;
  return { stdout: t(r.stdout), stderr: t(r.stderr), exitCode: r.exitCode, ...(files !== undefined ? { files } : {}) };
}

/**
 * `json: subset`: both stdouts are JSON objects and every top-level key of oc's is in ours with the same value
 * (nested key order included), except the keys `ignore:` names (e.g. `versions`, which oc always prints as null);
 * our extra keys are the documented ones.
 */
export function jsonSubsetEqual(ocOut, ourOut, ignore = []) {
  let a;
  let b;
  try {
    a = JSON.parse(ocOut);
    b = JSON.parse(ourOut);
  } catch {
    return false;
  }
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return false;
  return Object.keys(a).every((k) => ignore.includes(k) || (k in b && JSON.stringify(a[k]) === JSON.stringify(b[k])));
}

/**
 * `detail: true`: osimage may add detail after oc's text, never instead of it: each line of oc's stderr starts the
 * same line of ours, and ours may have more lines after oc's.
 */
export function addsDetailOnly(ocText, ourText) {
  const a = ocText.replace(/\n$/, '').split('\n');
  const b = ourText.replace(/\n$/, '').split('\n');
  return b.length >= a.length && a.every((line, i) => b[i].startsWith(line));
}

/** Which of STREAMS differ between oc's result and ours; with `pair`, as its `json:` and `detail:` allow. */
export function differences(oc, ours, pair = {}) {
  return STREAMS.filter((k) => {
    if (k === 'stdout' && pair.json === 'subset') return !jsonSubsetEqual(oc.stdout, ours.stdout, pair.ignore);
    if (k === 'stderr' && pair.detail) return !addsDetailOnly(oc.stderr, ours.stderr);
    return JSON.stringify(oc[k] ?? null) !== JSON.stringify(ours[k] ?? null);
  });
}

/**
 * The class of osimage's result against oc's: identical (byte for byte); else the pair's documented / oc-quirk
 * when what `same:` lists is equal (as `json:` and `detail:` allow); else wrong.
 */
export function classify(pair, oc, ours) {
  const strict = differences(oc, ours);
  if (strict.length === 0) return { cls: 'identical', diff: strict };
  if (pair.expect === 'identical') return { cls: 'wrong', diff: strict };
  const relaxed = differences(oc, ours, pair);
  const broken = (pair.same ?? []).filter((k) => relaxed.includes(k));
  return { cls: broken.length ? 'wrong' : pair.expect, diff: strict };
}

export const fixtureFile = (name) => join(FIXTURES, `${name}.json`);

export async function readFixture(name) {
  return JSON.parse(await readFile(fixtureFile(name), 'utf8'));
}

/**
 * osimage's environment in compare.mjs: as test/helpers/cli.ts testEnv gives the in-process runs (no RHCOS_*
 * pins or registry credentials from the host, no colour, two HTTP retries, no cache).
 */
export function osimageEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/RHCOS|BUILD_NAME|REGISTRY_AUTH_FILE|DOCKER_CONFIG/i.test(k)) env[k] = v;
  return { ...env, NO_COLOR: '1', OSIMAGE_HTTP_RETRIES: '2', OSIMAGE_NO_CACHE: '1' };
}
