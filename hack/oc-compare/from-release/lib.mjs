/**
 * What record.mjs (runs oc 4.13) and test/oc/from-release.test.ts (runs osimage in-process) share for
 * `release new --from-release`: the image set stored in test/fixtures/oc/from-release/images.json (exact bytes of
 * every component image), the release images built over it at run time (their release layer holds the
 * release-manifests/ files of test/fixtures/oc/from-release/input/, with {{REGISTRY}} filled in, so their digests
 * depend on the registry's port and are templated as {{RELEASE_DIGEST:tag}}), pushing, the cases of cases.yaml,
 * templating run-specific text out of outputs, and snapshots of written files and pushed images.
 *
 * Nothing here imports src/ or dist/: the bytes pushed do not change when the code under test changes.
 * Types: lib.d.mts.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { extract as tarExtract, pack as tarPack } from 'tar-stream';
import { parse } from 'yaml';

export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
export const CASES_FILE = fileURLToPath(new URL('./cases.yaml', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/oc/from-release/', import.meta.url));
export const IMAGES_FILE = join(FIXTURES, 'images.json');
export const INPUT_DIR = join(FIXTURES, 'input');

/** The repository every component image is pushed to (by digest, and tagged with its name). */
export const ART_REPO = 'ocp/art-dev';
/** Where the release images are pushed: `ocp/release:<tag>`. */
export const RELEASE_REPO = 'ocp/release';

export const MEDIA = {
  manifest: 'application/vnd.docker.distribution.manifest.v2+json',
  config: 'application/vnd.docker.container.image.v1+json',
  layer: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
};

export const sha256 = (bytes) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

// ---------------------------------------------------------------------------------------------------------------
// Building blobs (used by images.mjs once, and here for the release images at every run)

/** The uncompressed tar of `entries` ({name, type?: 'file'|'directory', data?, mode?, mtime: Date}), in order. */
export async function tarBytes(entries) {
  const p = tarPack();
  const chunks = [];
  const done = new Promise((resolve, reject) => {
    p.on('data', (c) => chunks.push(c));
    p.on('end', resolve);
    p.on('error', reject);
  });
  for (const e of entries) {
    const type = e.type ?? 'file';
    const header = { name: e.name, type, mode: e.mode ?? (type === 'directory' ? 0o755 : 0o644), mtime: e.mtime, uid: 0, gid: 0 };
    await new Promise((resolve, reject) => {
      const cb = (err) => (err ? reject(err) : resolve());
      if (type === 'file') {
        const data = Buffer.from(e.data ?? '');
        p.entry({ ...header, size: data.length }, data, cb);
      } else p.entry(header, cb);
    });
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** A gzip layer blob: `{bytes, digest, diffId, mediaType}`. */
export async function layerBlob(entries) {
  const tar = await tarBytes(entries);
  const bytes = gzipSync(tar, { level: 9 });
  return { bytes, digest: sha256(bytes), diffId: sha256(tar), mediaType: MEDIA.layer };
}

export function jsonBlob(value, mediaType) {
  const bytes = Buffer.from(JSON.stringify(value));
  return { bytes, digest: sha256(bytes), mediaType };
}

/**
 * A Docker schema 2 image over `layers` (bottom first): `{manifest, config, layers}`, each `{bytes, digest,
 * mediaType}`.
 */
export function dockerImage({ layers, labels, created, history }) {
  const config = jsonBlob(
    {
      architecture: 'amd64',
      config: {
        Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
        ...(labels ? { Labels: labels } : {}),
      },
      created,
      history: history ?? layers.map((_, i) => ({ created, created_by: `/bin/sh -c #(nop) layer ${i}` })),
      os: 'linux',
      rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
    },
    MEDIA.config,
  );
  const manifest = jsonBlob(
    {
      schemaVersion: 2,
      mediaType: MEDIA.manifest,
      config: { mediaType: MEDIA.config, size: config.bytes.length, digest: config.digest },
      layers: layers.map((l) => ({ mediaType: MEDIA.layer, size: l.bytes.length, digest: l.digest })),
    },
    MEDIA.manifest,
  );
  return { manifest, config, layers };
}

// ---------------------------------------------------------------------------------------------------------------
// The stored image set

/**
 * images.json: `{images: [{name, repo, tag, digest}], blobs: {digest: {mediaType?, text} | {base64}}}`; every
 * blob's bytes are checked against its digest. Returns `{images, blob(digest) -> Buffer, digestOf(name)}`.
 */
export async function loadImageSet(file = IMAGES_FILE) {
  const stored = JSON.parse(await readFile(file, 'utf8'));
  const blobs = new Map();
  for (const [digest, b] of Object.entries(stored.blobs)) {
    const bytes = b.text !== undefined ? Buffer.from(b.text, 'utf8') : Buffer.from(b.base64, 'base64');
    if (sha256(bytes) !== digest) throw new Error(`${file}: blob ${digest} does not match its bytes (${sha256(bytes)})`);
    blobs.set(digest, bytes);
  }
  const byName = new Map(stored.images.map((i) => [i.name, i]));
  return {
    images: stored.images,
    blob: (d) => {
      const b = blobs.get(d);
      if (!b) throw new Error(`${file}: no blob ${d}`);
      return b;
    },
    digestOf: (name) => {
      const i = byName.get(name);
      if (!i) throw new Error(`${file}: no image ${name}`);
      return i.digest;
    },
    image: (name) => byName.get(name),
  };
}

/** Store built images (`[{name, repo, tag, manifest, config, layers}]`) as images.json. */
export async function saveImageSet(built, file = IMAGES_FILE) {
  const blobs = {};
  const put = (b, text) => {
    blobs[b.digest] = text ? { text: b.bytes.toString('utf8') } : { base64: b.bytes.toString('base64') };
  };
  for (const img of built) {
    put(img.manifest, true);
    put(img.config, true);
    for (const l of img.layers) put(l, false);
  }
  const images = built.map((i) => ({ name: i.name, repo: i.repo, tag: i.tag, digest: i.manifest.digest }));
  await mkdir(FIXTURES, { recursive: true });
  await writeFile(file, `${JSON.stringify({ images, blobs }, null, 1)}\n`);
}

// ---------------------------------------------------------------------------------------------------------------
// Pushing (plain HTTP, monolithic blob uploads; what docker-registry accepts)

async function pushBlob(registry, repo, bytes, digest) {
  const head = await fetch(`http://${registry}/v2/${repo}/blobs/${digest}`, { method: 'HEAD' });
  if (head.ok) return;
  const start = await fetch(`http://${registry}/v2/${repo}/blobs/uploads/`, { method: 'POST' });
  await start.arrayBuffer();
  if (start.status !== 202) throw new Error(`push ${repo}: upload start ${start.status}`);
  const loc = new URL(start.headers.get('location'), `http://${registry}`);
  loc.searchParams.set('digest', digest);
  const put = await fetch(loc, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
  await put.arrayBuffer();
  if (put.status !== 201) throw new Error(`push ${repo} blob ${digest}: ${put.status}`);
}

async function pushManifest(registry, repo, ref, bytes, mediaType) {
  const res = await fetch(`http://${registry}/v2/${repo}/manifests/${ref}`, {
    method: 'PUT',
    body: bytes,
    headers: { 'content-type': mediaType },
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`push ${repo}:${ref}: ${res.status} ${text}`);
}

/** Push an image given as `{manifest, config, layers}` blobs to `registry/repo:tag`. */
export async function pushImage(registry, repo, tag, img) {
  for (const b of [img.config, ...img.layers]) await pushBlob(registry, repo, b.bytes, b.digest);
  await pushManifest(registry, repo, tag, img.manifest.bytes, img.manifest.mediaType);
}

/** The stored image `name` as blobs. */
export function storedImage(set, name) {
  const i = set.image(name);
  const manifestBytes = set.blob(i.digest);
  const m = JSON.parse(manifestBytes.toString('utf8'));
  return {
    manifest: { bytes: manifestBytes, digest: i.digest, mediaType: m.mediaType },
    config: { bytes: set.blob(m.config.digest), digest: m.config.digest },
    layers: m.layers.map((l) => ({ bytes: set.blob(l.digest), digest: l.digest })),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Release images, built over the stored CVO image with a release layer from test/fixtures/oc/from-release/input/

/**
 * The release images (RELEASES in cases.yaml order): each `{tag, input, baseDigest}` where input names a folder of
 * INPUT_DIR (the release-manifests/ files oc wrote, registry templated) and baseDigest is `cvo` (the
 * cluster-version-operator image's digest), `none` (no label) or the name of another stored image.
 */
export const RELEASES = [
  { tag: '4.13.1', input: '4.13.1', base: 'cvo' },
  { tag: '4.13.1-extra', input: '4.13.1-extra', base: 'cvo' },
  { tag: '4.13.1-nobase', input: '4.13.1', base: 'none' },
  { tag: '4.13.1-wrongbase', input: '4.13.1', base: 'base-other' },
];

/** The creation time of the input releases (their image-references creationTimestamp and config `created`). */
export const RELEASE_CREATED = '2023-05-25T08:25:20Z';

/** Entries of a release layer as oc writes them: the folder, image-references, release-metadata, then the rest. */
async function releaseLayerEntries(inputDir, registry) {
  const meta = JSON.parse(await readFile(join(inputDir, '.mtimes.json'), 'utf8'));
  const names = (await readdir(inputDir)).filter((n) => !n.startsWith('.'));
  const rest = names.filter((n) => n !== 'image-references' && n !== 'release-metadata').sort();
  const entries = [{ name: 'release-manifests', type: 'directory', mode: 0o777, mtime: new Date(meta.newest) }];
  for (const n of ['image-references', 'release-metadata', ...rest]) {
    const data = (await readFile(join(inputDir, n), 'utf8')).split('{{REGISTRY}}').join(registry);
    entries.push({ name: `release-manifests/${n}`, data, mode: 0o444, mtime: new Date(meta.files[n] ?? meta.newest) });
  }
  return entries;
}

/** Build the release image `spec` for `registry`. */
export async function buildRelease(set, spec, registry) {
  const cvo = storedImage(set, 'cluster-version-operator');
  const cvoConfig = JSON.parse(cvo.config.bytes.toString('utf8'));
  const top = await layerBlob(await releaseLayerEntries(join(INPUT_DIR, spec.input), registry));
  const labels = { 'io.openshift.release': spec.input };
  if (spec.base === 'cvo') labels['io.openshift.release.base-image-digest'] = cvo.manifest.digest;
  else if (spec.base !== 'none') labels['io.openshift.release.base-image-digest'] = set.digestOf(spec.base);
  const layers = [...cvo.layers.map((l, i) => ({ ...l, diffId: cvoConfig.rootfs.diff_ids[i], mediaType: MEDIA.layer })), top];
  return dockerImage({
    layers,
    labels,
    created: RELEASE_CREATED,
    history: [{ created: RELEASE_CREATED, comment: 'Release image for OpenShift' }],
  });
}

/**
 * Push every stored image (to ART_REPO by tag, and `base-other` to ocp/base:other) and every release image:
 * returns `{digests: {name: digest}, releaseDigests: {tag: digest}}`.
 */
export async function pushAll(registry, set) {
  for (const i of set.images) await pushImage(registry, i.repo, i.tag, storedImage(set, i.name));
  const releaseDigests = {};
  for (const spec of RELEASES) {
    const img = await buildRelease(set, spec, registry);
    await pushImage(registry, RELEASE_REPO, spec.tag, img);
    releaseDigests[spec.tag] = img.manifest.digest;
  }
  return { digests: Object.fromEntries(set.images.map((i) => [i.name, i.digest])), releaseDigests };
}

// ---------------------------------------------------------------------------------------------------------------
// Cases

/** The cases of cases.yaml, checked: unique names, args a list. */
export async function loadCases(file = CASES_FILE) {
  const cases = parse(await readFile(file, 'utf8'));
  const seen = new Set();
  for (const c of cases) {
    if (!c.name || !Array.isArray(c.args)) throw new Error(`${file}: a case needs name and args: ${JSON.stringify(c)}`);
    if (seen.has(c.name)) throw new Error(`${file}: case ${c.name} twice`);
    seen.add(c.name);
  }
  return cases;
}

/**
 * `{{REGISTRY}}`, `{{DIR}}` (the case's folder), `{{ART}}` (REGISTRY/ocp/art-dev), `{{IMG:name}}` (the stored image's
 * pull spec by digest), `{{DIGEST:name}}`, `{{RELEASE_DIGEST:tag}}`.
 */
export function expand(text, env, dir) {
  return text.replace(/\{\{(REGISTRY|DIR|ART|IMG:([^}]+)|DIGEST:([^}]+)|RELEASE_DIGEST:([^}]+))\}\}/g, (_, what, img, dig, rel) => {
    if (what === 'REGISTRY') return env.registry;
    if (what === 'DIR') return dir;
    if (what === 'ART') return `${env.registry}/${ART_REPO}`;
    const d = img ?? dig;
    if (d !== undefined) {
      const digest = env.digests[d];
      if (!digest) throw new Error(`no image ${d} in images.json`);
      return img !== undefined ? `${env.registry}/${ART_REPO}@${digest}` : digest;
    }
    const r = env.releaseDigests[rel];
    if (!r) throw new Error(`no release ${rel}`);
    return r;
  });
}

const RFC3339 = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g;
const DEFAULT_NAME = /0\.0\.1-(\d{4}-\d\d-\d\d-\d{6})/g;

/**
 * Run-specific text back to placeholders: the case folder, the release digests, the registry; every RFC 3339
 * time inside the run's window [start, end] becomes {{NOW}}; the case's `mask:` regexps become {{MASK}}.
 */
export function template(text, env, dir, window, mask = []) {
  const subs = [
    [dir, '{{DIR}}'],
    ...Object.entries(env.releaseDigests).map(([tag, d]) => [d, `{{RELEASE_DIGEST:${tag}}}`]),
    [env.registry, '{{REGISTRY}}'],
  ].sort((a, b) => b[0].length - a[0].length);
  let out = text;
  for (const [from, to] of subs) out = out.split(from).join(to);
  const inWindow = (t) => {
    const ms = Date.parse(t);
    return ms >= Math.floor(window.start / 1000) * 1000 && ms <= window.end;
  };
  out = out.replace(RFC3339, (t) => (inWindow(t) ? '{{NOW}}' : t));
  out = out.replace(DEFAULT_NAME, (all, stamp) => {
    const [y, mo, d, hms] = stamp.split('-');
    const iso = `${y}-${mo}-${d}T${hms.slice(0, 2)}:${hms.slice(2, 4)}:${hms.slice(4, 6)}Z`;
    return inWindow(iso) ? '0.0.1-{{NOW_NAME}}' : all;
  });
  for (const m of mask) out = out.replace(new RegExp(m, 'gm'), '{{MASK}}');
  return out;
}

/** A fresh folder for one case, with the files of its `files:` (placeholders expanded). */
export async function prepareCase(c, env) {
  const dir = await mkdtemp(join(env.dir, `${c.name}-`));
  for (const [name, content] of Object.entries(c.files ?? {})) {
    // A name with folders (an input folder for --from-dir) gets them made.
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), expand(content, env, dir));
  }
  return dir;
}

/**
 * The files under `path`, sorted by name: `{name, mode, text | sha256, mtime}` (text templated by `t` when UTF-8
 * and at most 64 KiB); `null` when the folder is absent.
 */
export async function snapshotDir(path, t = (x) => x) {
  const st = await lstat(path).catch(() => null);
  if (!st) return null;
  const out = [];
  const walk = async (d) => {
    for (const name of (await readdir(d)).sort()) {
      const p = join(d, name);
      const s = await lstat(p);
      const entry = { name: relative(path, p), mode: (s.mode & 0o7777).toString(8).padStart(4, '0') };
      if (s.isDirectory()) {
        out.push({ ...entry, type: 'dir' });
        await walk(p);
      } else if (s.isFile()) {
        const bytes = await readFile(p);
        const text = bytes.toString('utf8');
        const content = bytes.length <= 64 << 10 && Buffer.from(text, 'utf8').equals(bytes) ? { text: t(text) } : { sha256: sha256(bytes) };
        out.push({ ...entry, ...content, mtime: new Date(Math.floor(s.mtimeMs / 1000) * 1000).toISOString().replace('.000Z', 'Z') });
      } else out.push({ ...entry, type: 'other' });
    }
  };
  await walk(path);
  return out;
}

/** The entries of a (gzip or plain) tar: `{name, type, mode, mtime, size, text | sha256}`. */
export async function tarEntries(bytes, t = (x) => x) {
  const tar = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
  const ex = tarExtract();
  const out = [];
  const done = new Promise((resolve, reject) => {
    ex.on('entry', (h, stream, next) => {
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      stream.on('end', () => {
        const data = Buffer.concat(chunks);
        const text = data.toString('utf8');
        out.push({
          name: h.name,
          type: h.type,
          mode: (h.mode ?? 0).toString(8).padStart(4, '0'),
          mtime: h.mtime ? h.mtime.toISOString().replace('.000Z', 'Z') : null,
          size: h.size,
          ...(h.type === 'file' ? (Buffer.from(text).equals(data) ? { text: t(text) } : { sha256: sha256(data) }) : {}),
        });
        next();
      });
      stream.resume();
    });
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  ex.end(tar);
  await done;
  return out;
}

/**
 * What a pushed release image is, for comparison: its manifest's media types and layer digests (the last one, the
 * release layer, as {{MASK}}: its gzip bytes are the writer's, and so is the config's `size` and last diff_id), its
 * config (created / history times templated by `t`) and the release layer's tar entries. `null` when the image is
 * absent.
 */
export async function snapshotImage(registry, ref, t = (x) => x) {
  const [repo, tag] = ref.split(':');
  const res = await fetch(`http://${registry}/v2/${repo}/manifests/${tag}`, {
    headers: { accept: `${MEDIA.manifest}, application/vnd.oci.image.manifest.v1+json` },
  });
  if (res.status === 404) {
    await res.arrayBuffer();
    return null;
  }
  const manifestBytes = Buffer.from(await res.arrayBuffer());
  const manifest = JSON.parse(manifestBytes.toString('utf8'));
  const blob = async (d) => Buffer.from(await (await fetch(`http://${registry}/v2/${repo}/blobs/${d}`)).arrayBuffer());
  const config = JSON.parse((await blob(manifest.config.digest)).toString('utf8'));
  const top = manifest.layers.at(-1);
  const layers = manifest.layers.map((l, i) => ({
    mediaType: l.mediaType,
    digest: i === manifest.layers.length - 1 ? '{{MASK}}' : l.digest,
  }));
  const diffIds = config.rootfs?.diff_ids ?? [];
  return {
    manifest: { mediaType: manifest.mediaType, configMediaType: manifest.config.mediaType, layers },
    config: JSON.parse(
      t(
        JSON.stringify({
          ...config,
          // Go's DockerImageConfig `size`: the layers' sum, so the writer's gzip bytes decide it.
          ...(config.size !== undefined ? { size: '{{MASK}}' } : {}),
          rootfs: { ...config.rootfs, diff_ids: diffIds.map((d, i) => (i === diffIds.length - 1 ? '{{MASK}}' : d)) },
        }),
      ),
    ),
    releaseLayer: await tarEntries(await blob(top.digest), t),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Running one case

/**
 * One run of a case, templated: `{stdout, stderr, exitCode, files?, image?}`. `run(args)` runs the tool (oc adm
 * release / osimage release) and returns `{stdout, stderr, exitCode}`.
 */
export async function runCase(c, env, run) {
  const dir = await prepareCase(c, env);
  const args = c.args.map((a) => expand(a, env, dir));
  const window = { start: Date.now(), end: 0 };
  const r = await run(args);
  window.end = Date.now() + 1000;
  const t = (s) => template(s, env, dir, window, c.mask ?? []);
  const out = { stdout: t(r.stdout), stderr: t(r.stderr), exitCode: r.exitCode };
  if (c.snapshot) out.files = await snapshotDir(expand(c.snapshot, env, dir), t);
  if (c.image) out.image = await snapshotImage(env.registry, expand(c.image, env, dir), t);
  return out;
}

/** A folder for the case folders; `stop()` removes it. */
export async function caseFolders() {
  const dir = await mkdtemp(join(tmpdir(), 'oc-from-release-'));
  return { dir, stop: () => rm(dir, { recursive: true, force: true }) };
}

export const fixtureFile = (name) => join(FIXTURES, `${name}.json`);

export async function exists(p) {
  return stat(p).then(
    () => true,
    () => false,
  );
}
