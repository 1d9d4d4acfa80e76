#!/usr/bin/env node
/**
 * Builds dist/bundle/: the launcher's copy of the CLI (bin/osimage runs it when it exists, else dist/cli.js), bundled
 * by esbuild from src/ with the npm dependencies. tsc's per-module dist/ stays (hack/ scripts and tests import it);
 * run after tsc, as `npm run build` and the test suite's global setup do.
 *
 * Two CommonJS scripts, each loaded by src/launcher/code-cache.ts through `vm.Script` with a V8 code cache (Node 20 has no
 * compile cache for ES modules: parsing the bundle on every run cost more than the files it saved):
 * - cli.cjs: src/cli.ts and what it loads (commander, the command table, errors, the run context, terminal
 *   output). `--help` and `--version` load nothing else.
 * - commands.cjs: every command module and what they load (the registry, undici, tar-stream, execa, chalk …). A
 *   lazy `import('./x.js')` stays lazy inside it (esbuild wraps the module; nothing runs until it is imported, and a
 *   script costs no file lookups), so `release info` by digest never evaluates the HTTP stack.
 * The modules in cli.cjs are not copied into commands.cjs: it reaches them through `require('osimage-shared:…')`,
 * so errors stay one class (instanceof) and the run context one AsyncLocalStorage. cli.ts's
 * `import('./commands/x.js')` becomes `require('osimage-commands:./commands/x.js')`; src/launcher/code-cache.ts resolves both.
 *
 * Rewritten in the bundle only (src/ and dist/ keep their code):
 * - `createRequire(import.meta.url)` used for a literal `require('x')` becomes esbuild's `require`, so that
 *   commander and undici are bundled; lazyRequire(id) (src/lazy.ts) keeps a real require and loads yaml and
 *   semver from node_modules on first use, as dist/ does. `import.meta.url` is the script's file URL.
 * - `new URL('../package.json' | '../../package.json', import.meta.url)` points two folders up from dist/bundle/, and
 *   `new URL('./build-info.json', import.meta.url)` one folder up (dist/build-info.json, build/build-info.mjs).
 * - commander's node:child_process and undici's HTTP/2 client (node:http2) are required on first use (LAZY_REQUIRES):
 *   osimage never runs an executable subcommand nor allows h2.
 * dist/bundle/bundle.json names each script with its SHA-256, the key of its code cache. No code cache is built or
 * shipped (dist/bundle/ is emptied first): an entry is used only with the seal of the running user's key
 * (src/launcher/code-cache.ts), so one made here would never be used elsewhere.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = fileURLToPath(new URL('../', import.meta.url));
const src = `${repo}src/`;
const outdir = `${repo}dist/bundle`;

/**
 * What cli.ts imports lazily from commands.cjs, as it names them: src/commands/*.ts (`./commands/x.js`), and the
 * error hints (only an error loads them, and they reach the registry and HTTP modules).
 */
function laterFiles() {
  const commands = readdirSync(`${src}commands`)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => ({ key: `./commands/${f.replace(/\.ts$/, '.js')}`, path: `${src}commands/${f}` }));
  return [...commands, { key: './output/hints.js', path: `${src}output/hints.ts` }];
}
const later = laterFiles();
const laterKeys = new Set(later.map((m) => m.key));

/**
 * A virtual entry: `export * from` one module, plus `key → namespace` tables of others (`shared`), plus `key → () =>
 * import(module)` tables (`lazy`: esbuild evaluates such a module, and what it alone imports, only when called).
 */
function entry(main, { shared = {}, lazy = {} }) {
  const lines = main ? [`export * from ${JSON.stringify(main)};`] : [];
  for (const [table, modules] of Object.entries(shared)) {
    const names = modules.map((m, i) => {
      lines.push(`import * as ${table}${i} from ${JSON.stringify(m.path)};`);
      return `${JSON.stringify(m.key)}: ${table}${i}`;
    });
    lines.push(`export const ${table} = { ${names.join(', ')} };`);
  }
  for (const [table, modules] of Object.entries(lazy)) {
    const names = modules.map((m) => `${JSON.stringify(m.key)}: () => import(${JSON.stringify(m.path)})`);
    lines.push(`export const ${table} = { ${names.join(', ')} };`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The source rewrites above, for src/ and commander. `lazyRequire(file, spec)` names the loader's id for a lazy
 * `import(spec)` in src/`file` that must not stay an import() (an import() esbuild does not bundle stays an ES module
 * import, which a vm.Script cannot make): `Promise.resolve().then(() => require(id))`. `import('node:…')` likewise.
 */
function rewrite(entryText, lazyRequire = () => undefined) {
  return {
    name: 'osimage-rewrite',
    setup(b) {
      b.onResolve({ filter: /^osimage:entry$/ }, () => ({ path: 'entry', namespace: 'osimage' }));
      b.onLoad({ filter: /.*/, namespace: 'osimage' }, () => ({ contents: entryText, loader: 'js', resolveDir: repo }));
      b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
        let text = await readFile(args.path, 'utf8');
        if (args.path !== `${src}lazy.ts`) {
          text = text
            .replace(/^const require = createRequire\(import\.meta\.url\);$/m, '')
            .replace(/createRequire\(import\.meta\.url\)\(/g, 'require(');
        }
        const req = (id) => `Promise.resolve().then(() => require(${JSON.stringify(id)}))`;
        text = text.replace(LAZY_IMPORT, (m, _q, spec) => {
          const id = spec.startsWith('node:') ? spec : lazyRequire(args.path, spec);
          return id === undefined ? m : req(id);
        });
        text = text.replace(/new URL\('(?:\.\.\/)+package\.json', import\.meta\.url\)/g, "new URL('../../package.json', import.meta.url)");
        // dist/build-info.json (build/build-info.mjs), beside dist/package-info.js, is one folder up from dist/bundle/.
        text = text.replace(/new URL\('\.\/build-info\.json', import\.meta\.url\)/g, "new URL('../build-info.json', import.meta.url)");
        return { contents: text, loader: 'ts' };
      });
      for (const { file, edits } of LAZY_REQUIRES) {
        b.onLoad({ filter: file }, async (args) => {
          let text = await readFile(args.path, 'utf8');
          for (const [eager, lazy] of edits) {
            if (!text.includes(eager)) throw new Error(`${args.path}: no "${eager}" to make lazy (the package changed?)`);
            text = text.replace(eager, lazy);
          }
          return { contents: text, loader: 'js' };
        });
      }
    },
  };
}

/** Requires of npm packages made lazy in the bundle: what they load is needed only on paths osimage never takes. */
const LAZY_REQUIRES = [
  // commander: node:child_process (with net and dgram) only runs executable subcommands.
  {
    file: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/,
    edits: [
      [
        "const childProcess = require('node:child_process');",
        "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };",
      ],
    ],
  },
  // undici: the HTTP/2 client (node:http2, 10–30 ms to load here) is used only when a server negotiates h2, which
  // needs the allowH2 option osimage never sets. node:http (its client and server, ~1 ms) only gives the default
  // header size limit (src/http/dispatcher.ts sets one) and a class to compare with when destroying a stream.
  {
    file: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    edits: [
      ["const connectH2 = require('./client-h2.js')", "const connectH2 = (...a) => require('./client-h2.js')(...a)"],
      ["const http = require('node:http')", "const http = { get maxHeaderSize () { return require('node:http').maxHeaderSize } }"],
      [
        'const getDefaultNodeMaxHeaderSize = http &&\n  http.maxHeaderSize &&\n  Number.isInteger(http.maxHeaderSize) &&\n  http.maxHeaderSize > 0\n  ? () => http.maxHeaderSize\n  : () => {',
        'const getDefaultNodeMaxHeaderSize = () => {\n  if (Number.isInteger(http.maxHeaderSize) && http.maxHeaderSize > 0) return http.maxHeaderSize\n ',
      ],
    ],
  },
  {
    file: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]core[\\/]util\.js$/,
    edits: [
      ["const { IncomingMessage } = require('node:http')", ''],
      // (only a stream whose class is named so can be one: node:http is not loaded to compare with otherwise)
      [
        'if (Object.getPrototypeOf(stream).constructor === IncomingMessage) {',
        "if (Object.getPrototypeOf(stream).constructor.name === 'IncomingMessage' && Object.getPrototypeOf(stream).constructor === require('node:http').IncomingMessage) {",
      ],
    ],
  },
];

const common = {
  absWorkingDir: repo,
  entryPoints: ['osimage:entry'],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // src/launcher/code-cache.ts passes it; its `url` is computed on first use.
  define: { 'import.meta.url': '__osimageMeta.url' },
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  logLevel: 'warning',
};

/** A relative `import('…')` in code (not `typeof import('…')`, not `import('…').Type`). */
const LAZY_IMPORT = /(?<!typeof )import\((['"])(\.[^'"]+|node:[^'"]+)\1\)(?![.\w])/g;

/** cli.ts's lazy imports of commands.cjs's modules. */
const cliLazy = (file, spec) => (file === `${src}cli.ts` && laterKeys.has(spec) ? `osimage-commands:${spec}` : undefined);

/** cli.ts's requires of commands.cjs's modules: left to the loader. */
const commandsOutside = {
  name: 'osimage-commands-outside',
  setup(b) {
    b.onResolve({ filter: /^osimage-commands:/ }, (args) => ({ path: args.path, external: true }));
  },
};

// 1. cli.cjs. A first pass finds the modules it holds; the second exports them for commands.cjs.
const cliMain = `${src}cli.ts`;
const probe = await build({ ...common, write: false, metafile: true, plugins: [commandsOutside, rewrite(entry(cliMain, {}), cliLazy)] });
const shared = Object.keys(probe.metafile.inputs)
  .filter((p) => p.startsWith('src/') || /(^|\/)node_modules\/commander\//.test(p))
  .map((p) => ({ path: resolve(repo, p), key: p.replace(/^.*node_modules\//, 'node_modules/') }))
  // Only what is imported as an ES module (commander's index; its lib/ files are reached through it).
  .filter((m) => m.key.startsWith('src/') || m.key === 'node_modules/commander/index.js');

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const cli = await build({
  ...common,
  write: false,
  outfile: `${outdir}/cli.cjs`,
  plugins: [commandsOutside, rewrite(entry(cliMain, { shared: { __shared: shared } }), cliLazy)],
});

// 2. commands.cjs: the modules cli.cjs holds are required from it.
const sharedByPath = new Map(shared.map((m) => [m.path, m.key]));
const sharedKey = (file, spec) => sharedByPath.get(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
const commandsLazy = (file, spec) => {
  const key = sharedKey(file, spec);
  return key === undefined ? undefined : `osimage-shared:${key}`;
};
const useShared = {
  name: 'osimage-use-shared',
  setup(b) {
    b.onResolve({ filter: /^osimage-shared:/ }, (args) => ({ path: args.path, external: true }));
    b.onResolve({ filter: /^(\.|commander$)/ }, (args) => {
      if (args.path === 'commander') return { path: 'osimage-shared:node_modules/commander/index.js', external: true };
      if (!args.importer.startsWith(src)) return undefined;
      const key = sharedKey(args.importer, args.path);
      return key ? { path: `osimage-shared:${key}`, external: true } : undefined;
    });
  },
};
// npm packages kept out of commands.cjs, each in a script of its own (`<name>.cjs`), read only when first required: a
// query answered from the cache never reads undici's code nor its code cache (which a first run that made requests
// filled). src/ reaches them through `require('osimage-pkg:<specifier>')`; src/launcher/code-cache.ts resolves it.
const SPLIT = ['undici', 'yaml'];
const splitOf = (spec) => SPLIT.find((p) => spec === p || spec.startsWith(`${p}/`));
const splitSpecs = new Map(SPLIT.map((p) => [p, new Set()]));
const splitOut = {
  name: 'osimage-split',
  setup(b) {
    b.onResolve({ filter: /^[a-z@]/ }, (args) => {
      const pkg = splitOf(args.path);
      if (!pkg) return undefined;
      if (args.kind === 'dynamic-import')
        throw new Error(`${args.importer}: import('${args.path}') of a split package: use a static import`);
      splitSpecs.get(pkg).add(args.path);
      return { path: `osimage-pkg:${args.path}`, external: true };
    });
  },
};
const commands = await build({
  ...common,
  write: false,
  outfile: `${outdir}/commands.cjs`,
  plugins: [useShared, splitOut, rewrite(entry(undefined, { lazy: { __commands: later } }), commandsLazy)],
});
// Each split package: its specifiers as lazy getters (a module runs when first asked for, as a require would).
const packages = [];
for (const [pkg, specs] of splitSpecs) {
  if (specs.size === 0) continue;
  const getters = [...specs].sort().map((s) => `get ${JSON.stringify(s)}() { return require(${JSON.stringify(s)}); }`);
  const result = await build({
    ...common,
    write: false,
    outfile: `${outdir}/${pkg}.cjs`,
    plugins: [rewrite(`module.exports = {\n${getters.join(',\n')}\n};\n`)],
  });
  packages.push([pkg, result]);
}

// 3. The scripts and bundle.json.
const script = (result) => {
  const [file] = result.outputFiles;
  writeFileSync(file.path, file.contents);
  return { file: relative(outdir, file.path), sha256: createHash('sha256').update(file.contents).digest('hex') };
};
const manifest = { cli: script(cli), commands: script(commands), packages: {} };
for (const [pkg, result] of packages) manifest.packages[pkg] = script(result);
// The loader bin/osimage requires (CommonJS, so that Node's ES module loader is never started).
await build({ ...common, entryPoints: [`${src}launcher/code-cache.ts`], outfile: `${outdir}/loader.cjs`, define: {} });
writeFileSync(`${outdir}/bundle.json`, `${JSON.stringify(manifest, null, 2)}\n`);
