/**
 * The entry of a V8 start-up snapshot of dist/bundle/, for hack/bench/startup-forms.mjs only (osimage ships none:
 * measured, it did not win; docs/cache-and-performance.md has the figures). Built by
 *   OSIMAGE_SNAPSHOT_BUNDLE=dist/bundle OSIMAGE_SNAPSHOT_CACHE=DIR [OSIMAGE_SNAPSHOT_PRELOAD=all] \
 *     node --snapshot-blob F --build-snapshot hack/bench/lib/snapshot-entry.cjs
 * and run by `node --snapshot-blob F -- ARGS` (or as a single executable's `useSnapshot` main).
 *
 * cli.cjs is evaluated while the snapshot is built. commands.cjs and the package scripts then load as bin/osimage
 * loads them (vm.Script with a V8 code cache kept in OSIMAGE_SNAPSHOT_CACHE, checked with an HMAC so that the run
 * pays what the launcher's seal costs), unless OSIMAGE_SNAPSHOT_PRELOAD=all, which evaluates them at build time too
 * (then their functions have no compiled code in the snapshot and compile from source when first called).
 * Only Node built-ins can be required while the snapshot is built, so this file is plain CommonJS.
 */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const v8 = require('node:v8');

const DIR = path.resolve(process.env.OSIMAGE_SNAPSHOT_BUNDLE ?? 'dist/bundle');
const CACHE = process.env.OSIMAGE_SNAPSHOT_CACHE;
const PRELOAD_ALL = process.env.OSIMAGE_SNAPSHOT_PRELOAD === 'all';
const manifest = JSON.parse(fs.readFileSync(path.join(DIR, 'bundle.json'), 'utf8'));
// A fixed key: the HMAC stands for the launcher's seal (its cost), not for its protection.
const KEY = Buffer.alloc(32, 7);
const pending = [];
let profile = '';
let nodeRequire = require;
let cli;
let commands;
const packages = new Map();

const hmac = (data) => require('node:crypto').createHmac('sha256', KEY).update(data).digest();
const wrap = (source) => `(function (exports, require, module, __filename, __dirname, __osimageMeta) {${source}\n})`;

function runScript(name, entry, cached) {
  const file = path.join(DIR, entry.file);
  const source = wrap(fs.readFileSync(file, 'latin1'));
  let fn;
  if (!cached || !CACHE) {
    fn = vm.runInThisContext(source, { filename: file });
  } else {
    const cacheFile = path.join(CACHE, `${name}-${profile}.bin`);
    let cachedData;
    try {
      const raw = fs.readFileSync(cacheFile);
      if (hmac(raw.subarray(32)).equals(raw.subarray(0, 32))) cachedData = raw.subarray(32);
    } catch {
      // no entry yet
    }
    const script = new vm.Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
    if (!cachedData || script.cachedDataRejected) pending.push({ script, cacheFile });
    fn = script.runInThisContext();
  }
  const module = { exports: {} };
  fn(module.exports, hostRequire, module, file, DIR, { url: `file://${file}` });
  return module.exports;
}

function saveCodeCache() {
  for (const { script, cacheFile } of pending.splice(0)) {
    try {
      const data = script.createCachedData();
      fs.mkdirSync(CACHE, { recursive: true, mode: 0o700 });
      fs.writeFileSync(cacheFile, Buffer.concat([hmac(data), data]), { mode: 0o600 });
    } catch {
      // a cache is never a failure
    }
  }
}

function fromPackage(spec) {
  const name = Object.keys(manifest.packages ?? {}).find((p) => spec === p || spec.startsWith(`${p}/`));
  if (name === undefined) return nodeRequire(spec);
  let exports = packages.get(name);
  if (!exports) packages.set(name, (exports = runScript(name, manifest.packages[name], true)));
  return exports[spec];
}

function hostRequire(id) {
  if (id.startsWith('osimage-pkg:')) return fromPackage(id.slice('osimage-pkg:'.length));
  if (id.startsWith('osimage-shared:')) return cli.__shared[id.slice('osimage-shared:'.length)];
  if (id.startsWith('osimage-commands:')) {
    const key = id.slice('osimage-commands:'.length);
    if (!commands) {
      v8.setFlagsFromString('--liftoff-only');
      profile = key.replace(/^.*\//, '').replace(/\.js$/, '');
      commands = runScript('commands', manifest.commands, true);
    }
    return commands.__commands[key]();
  }
  return nodeRequire(id);
}

cli = runScript('cli', manifest.cli, false);
if (PRELOAD_ALL) {
  commands = runScript('commands', manifest.commands, false);
  commands.__commands['./commands/release.js']?.();
  for (const name of Object.keys(manifest.packages ?? {})) packages.set(name, runScript(name, manifest.packages[name], false));
}

v8.startupSnapshot.setDeserializeMainFunction(() => {
  nodeRequire = require('node:module').createRequire(path.join(DIR, 'cli.cjs'));
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw err;
    });
    const write = stream.write;
    stream.write = function (...a) {
      stream.write = write;
      saveCodeCache();
      return write.apply(this, a);
    };
  }
  // `node --snapshot-blob F -- ARGS`: argv is [node, ...ARGS]; a single executable: [exe, exe, ...ARGS].
  const argv = process.argv.slice(require('node:sea').isSea() ? 2 : 1);
  Promise.resolve(cli.main(argv)).then((code) => {
    process.exitCode = code;
    saveCodeCache();
  });
});
