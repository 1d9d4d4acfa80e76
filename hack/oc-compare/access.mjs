/**
 * The pairs about getting at images (auth-, tls-, ocbuilt- in pairs.yaml), for lib.mjs:
 *
 * - `registry: open | htpasswd | tls`: which registry the pair's {{REGISTRY}} is. `open` (the default) is lib.mjs's
 *   own. The others are started the first time a pair names them, with the image set of images.mjs pushed:
 *   `htpasswd` asks for user USER with password PASSWORD (plain HTTP, Basic auth); `tls` serves HTTPS with a
 *   certificate of a CA of its own, whose certificate is {{CA}}.
 * - The credentials a run sees are the pair's own: a pair with `registry:` other than open, `env:` or `files:` runs
 *   both tools with HOME={{DIR}}/home and XDG_RUNTIME_DIR={{DIR}}/run (empty unless `files:` fills them) and without
 *   the host's XDG_CONFIG_HOME, DOCKER_CONFIG, REGISTRY_AUTH_FILE, REGISTRY_AUTH_PREFERENCE, SSL_CERT_FILE and
 *   SSL_CERT_DIR; then `env:` sets variables (null unsets one) and `files:` writes files under {{DIR}}.
 *   Placeholders there and in args: {{BASIC}} (base64 of USER:PASSWORD, an auth file's `auth`), {{CA}}.
 * - `release new` outputs of both tools, kept as bytes in test/fixtures/oc/new-releases/images.json and pushed to the
 *   open registry at every run: `ocp/new-by-oc:4.13.2` (written by `oc adm release new --from-dir`) and
 *   `ocp/new-by-osimage:4.13.2` (by `osimage release new --from-dir`), so that each tool reads what the other
 *   wrote. `record.mjs --new-releases` makes them again (with oc and the built osimage).
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { htpasswdAuth, startRegistryServer } from '../../test/infra/registry-server.mjs';
import { testCertificateAuthority } from '../../test/infra/tls.mjs';
import { pushSet } from './images.mjs';

export const USER = 'alice';
export const PASSWORD = 'wonderland';
export const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
export const NEW_RELEASES_FILE = fileURLToPath(new URL('../../test/fixtures/oc/new-releases/images.json', import.meta.url));
export const MODES = ['open', 'htpasswd', 'tls'];

/** What a pair's credential-free run unsets. */
const UNSET = ['XDG_CONFIG_HOME', 'DOCKER_CONFIG', 'REGISTRY_AUTH_FILE', 'REGISTRY_AUTH_PREFERENCE', 'SSL_CERT_FILE', 'SSL_CERT_DIR'];

/**
 * The registries other than the open one, started on first use under `dir` with `set` pushed. `view(pair, env)`:
 * the environment as the pair sees it (its registry as `registry`, and `ca`).
 */
export function accessRegistries(dir, set) {
  const started = new Map();
  let ca;
  const start = async (mode) => {
    const home = await mkdtemp(join(dir, `registry-${mode}-`));
    if (mode === 'htpasswd') {
      const server = await startRegistryServer({ dir: home, logLevel: 'error', auth: await htpasswdAuth(home, { [USER]: PASSWORD }) });
      const auth = join(home, 'auth.json');
      await writeFile(auth, JSON.stringify({ auths: { [server.host]: { auth: BASIC } } }));
      await pushSet(server.host, set, { registryConfig: auth }).catch(async (err) => {
        await server.stop();
        throw err;
      });
      return server;
    }
    ca ??= await testCertificateAuthority(await mkdtemp(join(dir, 'ca-')));
    const server = await startRegistryServer({ dir: home, logLevel: 'error', tls: ca });
    await pushSet(server.host, set).catch(async (err) => {
      await server.stop();
      throw err;
    });
    return server;
  };
  return {
    async view(pair, env) {
      const mode = pair.registry ?? 'open';
      if (!MODES.includes(mode)) throw new Error(`pair ${pair.name}: registry ${mode}? (${MODES.join(', ')})`);
      if (mode === 'open') return env;
      if (!started.has(mode)) started.set(mode, start(mode));
      const server = await started.get(mode);
      return { ...env, registry: server.host, ...(ca ? { ca: ca.caFile } : {}) };
    },
    async stop() {
      for (const s of started.values()) await (await s.catch(() => undefined))?.stop();
    },
  };
}

/** What is wrong with a pair's `registry:`, `env:` and `files:`, or undefined. */
export function accessProblem(pair) {
  if (pair.registry !== undefined && !MODES.includes(pair.registry)) return `registry: ${pair.registry}? (${MODES.join(', ')})`;
  for (const [k, v] of Object.entries(pair.env ?? {})) if (v !== null && typeof v !== 'string') return `env: ${k} is not a string or null`;
  for (const [k, v] of Object.entries(pair.files ?? {})) {
    if (typeof v !== 'string') return `files: ${k} is not a string`;
    if (k.startsWith('/') || k.split('/').includes('..')) return `files: ${k} is not a path under {{DIR}}`;
  }
  return undefined;
}

/** Does the pair run with credentials of its own (see the module comment)? */
export const isolated = (pair) => (pair.registry ?? 'open') !== 'open' || pair.env !== undefined || pair.files !== undefined;

/** {{BASIC}} and {{CA}}, before lib.mjs's own placeholders. */
export function expandAccess(text, env) {
  return text.replace(/\{\{(BASIC|CA)\}\}/g, (_, name) => {
    if (name === 'BASIC') return BASIC;
    if (!env.ca) throw new Error('{{CA}} needs registry: tls');
    return env.ca;
  });
}

/**
 * The pair's variables for both tools (undefined: unset) after writing its `files:`; `expand` is lib.mjs's for one
 * text. Nothing for a pair that is not isolated.
 */
export async function pairVariables(pair, pairDir, expand) {
  if (!isolated(pair)) return {};
  await mkdir(join(pairDir, 'home'), { recursive: true });
  await mkdir(join(pairDir, 'run'), { recursive: true });
  const vars = { HOME: join(pairDir, 'home'), XDG_RUNTIME_DIR: join(pairDir, 'run') };
  for (const k of UNSET) vars[k] = undefined;
  for (const [k, v] of Object.entries(pair.env ?? {})) vars[k] = v === null ? undefined : expand(String(v));
  for (const [name, text] of Object.entries(pair.files ?? {})) {
    const path = join(pairDir, name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, expand(text));
  }
  return vars;
}

/** `base` with `vars` applied (undefined removes a variable). */
export function withVariables(base, vars) {
  const out = { ...base };
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

const sha256 = (bytes) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/**
 * Push the stored `release new` outputs to `host` (the open registry); their digests by `repo:tag`. None when the
 * file is not there yet (record.mjs --new-releases writes it).
 */
export async function pushNewReleases(host) {
  let stored;
  try {
    stored = JSON.parse(await readFile(NEW_RELEASES_FILE, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return {};
    throw err;
  }
  const entries = Object.entries(stored.images).map(([name, img]) => {
    const [repo, tag] = name.split(':');
    const blob = (b) => {
      const bytes = Buffer.from(b.base64, 'base64');
      if (sha256(bytes) !== b.digest) throw new Error(`${NEW_RELEASES_FILE}: ${name}: blob ${b.digest} does not match its bytes`);
      return { descriptor: { mediaType: b.mediaType, digest: b.digest, size: bytes.length }, bytes };
    };
    const manifest = Buffer.from(img.manifest, 'utf8');
    return {
      repo,
      tag,
      manifest: { descriptor: { mediaType: img.mediaType, digest: sha256(manifest), size: manifest.length }, bytes: manifest },
      blobs: img.blobs.map(blob),
    };
  });
  await pushSet(host, { entries });
  return Object.fromEntries(entries.map((e) => [`${e.repo}:${e.tag}`, e.manifest.descriptor.digest]));
}

/** What `release new` is asked for, by each tool (the words after `release`). */
export const NEW_RELEASES = {
  'ocp/new-by-oc:4.13.2': 'oc',
  'ocp/new-by-osimage:4.13.2': 'osimage',
};
const newArgs = (host, name) => [
  'new',
  '--from-dir',
  'hack/oc-compare/new-input',
  '--name',
  '4.13.2',
  '--insecure',
  '--to-image-base',
  `${host}/ocp/base:cvo`,
  '--to-image',
  `${host}/${name}`,
];

async function fetchImage(host, name) {
  const [repo, tag] = name.split(':');
  const res = await fetch(`http://${host}/v2/${repo}/manifests/${tag}`, {
    headers: { accept: 'application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json' },
  });
  if (!res.ok) throw new Error(`${name}: manifest: ${res.status}`);
  const manifest = await res.text();
  const doc = JSON.parse(manifest);
  const blobs = [];
  for (const d of [doc.config, ...doc.layers]) {
    const b = await fetch(`http://${host}/v2/${repo}/blobs/${d.digest}`);
    if (!b.ok) throw new Error(`${name}: blob ${d.digest}: ${b.status}`);
    blobs.push({ mediaType: d.mediaType, digest: d.digest, base64: Buffer.from(await b.arrayBuffer()).toString('base64') });
  }
  return { mediaType: doc.mediaType ?? res.headers.get('content-type'), manifest, blobs };
}

/**
 * Make the `release new` outputs again: each tool writes its release to `host` (the open registry, where the image
 * set's `ocp/base:cvo` is), and the images are stored byte for byte. `run(tool, args)` runs `oc adm release ARGS` or
 * the built `osimage release ARGS`.
 */
export async function recordNewReleases(host, run) {
  const images = {};
  for (const [name, tool] of Object.entries(NEW_RELEASES)) {
    const r = await run(tool, newArgs(host, name));
    if (r.exitCode !== 0) throw new Error(`${tool} release new: exit ${r.exitCode}\n${r.stderr}`);
    images[name] = await fetchImage(host, name);
  }
  // Replayed on another port: nothing readable in them may name this one.
  for (const [name, img] of Object.entries(images)) {
    if (`${img.manifest}${Buffer.from(img.blobs[0].base64, 'base64')}`.includes(host)) {
      throw new Error(`${name} names the registry ${host}: it would not replay`);
    }
  }
  const text = JSON.stringify({ images }, null, 1);
  await mkdir(dirname(NEW_RELEASES_FILE), { recursive: true });
  await writeFile(NEW_RELEASES_FILE, `${text}\n`);
}
