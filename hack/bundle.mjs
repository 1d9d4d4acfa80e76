#!/usr/bin/env node
/**
 * Builds dist/bundle/: the launcher's copy of the CLI (bin/osimage runs dist/bundle/cli.js when it exists, else
 * dist/cli.js), bundled by esbuild from src/cli.ts with the npm dependencies, so that a run reads a dozen files
 * instead of 50–150 (osimage's modules, commander, undici). tsc's per-module dist/ stays (hack/ scripts and
 * tests import it); run after tsc, as `npm run build` and the test suite's global setup do.
 *
 * Chunks: esbuild's code splitting makes a chunk per set of dynamic imports sharing code, and src/ has over a
 * hundred lazy `import()`s: 150 chunks, ~45 of them loaded by one `release info`, each costing the ES module
 * loader a millisecond or more. So, in the bundle only (src/ and dist/ keep their lazy imports):
 * - cli.ts keeps its command table and its own lazy imports; every `import('./commands/x.js')` loads one
 *   chunk holding all the commands (the `osimage:commands` module below). `--help` loads none of it.
 * - inside that chunk, a lazy `import('./relative.js')` becomes a static import: parsing what is not run costs
 *   less than loading it as a file. npm packages imported lazily (`import('execa')`, `import('chalk')`) stay
 *   lazy, as do the CommonJS ones required in src/ (commander, undici: bundled, evaluated on first require).
 * - `createRequire(import.meta.url)` used for a literal `require('x')` becomes esbuild's `require`, so that
 *   commander and undici are bundled; lazyRequire(id) (src/lazy.ts) keeps a real require (the banner's) and
 *   loads yaml and semver from node_modules on first use, as dist/ does.
 * - `new URL('../package.json' | '../../package.json', import.meta.url)` points two folders up from
 *   dist/bundle/, where every chunk lands.
 */
import { readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = fileURLToPath(new URL('../', import.meta.url));
const src = `${repo}src/`;
const outdir = `${repo}dist/bundle`;

/** One module re-exporting every command module, keyed by the specifier cli.ts imports it by. */
function commandsModule() {
  const names = readdirSync(`${src}commands`).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const imports = names.map((f, i) => `import * as c${i} from ${JSON.stringify(`${src}commands/${f}`)};`);
  const table = names.map((f, i) => `${JSON.stringify(`./commands/${f.replace(/\.ts$/, '.js')}`)}: c${i}`);
  return `${imports.join('\n')}\nexport default { ${table.join(', ')} };\n`;
}

/** A relative `import('…')` in code (not `typeof import('…')`, not `import('…').Type`). */
const LAZY_IMPORT = /(?<!typeof )import\((['"])(\.[^'"]+)\1\)(?![.\w])/g;

const rewriteSrc = {
  name: 'osimage-src',
  setup(b) {
    b.onResolve({ filter: /^osimage:commands$/ }, () => ({ path: 'commands', namespace: 'osimage' }));
    b.onLoad({ filter: /.*/, namespace: 'osimage' }, () => ({ contents: commandsModule(), loader: 'js', resolveDir: repo }));
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      let text = await readFile(args.path, 'utf8');
      const file = args.path.slice(src.length).replaceAll('\\', '/');
      if (file !== 'lazy.ts') {
        text = text
          .replace(/^const require = createRequire\(import\.meta\.url\);$/m, '')
          .replace(/createRequire\(import\.meta\.url\)\(/g, 'require(');
      }
      const hoisted = [];
      text = text.replace(LAZY_IMPORT, (m, _q, spec) => {
        if (file === 'cli.ts')
          return spec.startsWith('./commands/') ? `import('osimage:commands').then((m) => m.default[${JSON.stringify(spec)}])` : m;
        const id = `__osimageLazy${hoisted.length}`;
        hoisted.push(`import * as ${id} from ${JSON.stringify(spec)};`);
        return `Promise.resolve(${id})`;
      });
      text = `${hoisted.join('\n')}\n${text}`;
      text = text.replace(/new URL\('(?:\.\.\/)+package\.json', import\.meta\.url\)/g, "new URL('../../package.json', import.meta.url)");
      return { contents: text, loader: 'ts' };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: repo,
  entryPoints: { cli: 'src/cli.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  // A real require() for what stays outside the bundle: Node's built-ins required by bundled CommonJS code, and
  // lazyRequire's ids.
  banner: {
    js: "import { createRequire as __osimageCreateRequire } from 'node:module';\nconst require = __osimageCreateRequire(import.meta.url);",
  },
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  plugins: [rewriteSrc],
});
