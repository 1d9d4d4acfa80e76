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
import { buildSet, pushSet } from './images.mjs';

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
  }
  return pairs;
}

/** What is compared: the two streams, the exit code, the files written under `snapshot:`. */
export const STREAMS = ['stdout', 'stderr', 'exitCode', 'files'];

/**
 * Start the registry, push the image set, pick a port nothing listens on. `stop()` ends the registry and removes
 * the folders.
 */
export async function startEnvironment() {
  const dir = await mkdtemp(join(tmpdir(), 'oc-compare-'));
  const set = await buildSet();
  const server = await startRegistryServer({ dir, logLevel: 'error' });
  try {
    await pushSet(server.host, set);
  } catch (err) {
    await server.stop();
    throw err;
  }
  const closed = `127.0.0.1:${await freePort()}`;
  return {
    registry: server.host,
    closed,
    digests: set.digests,
    dir,
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `{{NAME}}` placeholders of an argument, from the environment and the pair's folder. */
export function expand(arg, env, pairDir) {
  return arg.replace(/\{\{(REGISTRY|CLOSED|DIR|DIGEST:([^}]+))\}\}/g, (_, name, image) => {
    if (name === 'REGISTRY') return env.registry;
    if (name === 'CLOSED') return env.closed;
    if (name === 'DIR') return pairDir;
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
  } else if (pair.setup) {
    throw new Error(`pair ${pair.name}: setup ${pair.setup}?`);
  }
  return pairDir;
}

/**
 * The files under `path` (or the file itself), sorted by name: `{name, mode}` and the content, as `text` (templated
 * by `t`, so masks apply) when it is UTF-8 text of at most 16 KiB, else as `sha256`; `null` when absent.
 */
export async function snapshot(path, t = (x) => x) {
  const st = await lstat(path).catch(() => null);
  if (!st) return null;
  const content = async (p) => {
    const bytes = await readFile(p);
    const text = bytes.toString('utf8');
    if (bytes.length <= 16 << 10 && Buffer.from(text, 'utf8').equals(bytes) && !text.includes('\0')) return { text: t(text) };
    return { sha256: createHash('sha256').update(bytes).digest('hex') };
  };
  const entry = async (p, s) => ({
    name: relative(path, p) || '.',
    mode: (s.mode & 0o7777).toString(8).padStart(4, '0'),
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
export async function runPair(pair, env, run, extra = {}) {
  const pairDir = await preparePair(pair, env);
  const args = pair.args.map((a) => expand(a, env, pairDir));
  const r = await run(args, pairDir);
  const t = (s) => template(s, env, pairDir, pair, extra);
  const files = pair.snapshot ? await snapshot(expand(pair.snapshot, env, pairDir), t) : undefined;
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
