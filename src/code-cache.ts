/**
 * Loads dist/bundle/ (hack/bundle.mjs: cli.cjs, commands.cjs, bundle.json) with a V8 code cache, for bin/osimage.
 * Node 20 has no compile cache for ES modules, so the bundle is CommonJS run through `vm.Script`, whose
 * `cachedData` skips parsing and compiling what an earlier run compiled (issue 15: `--help` and a warm
 * `release info` spent a third of their time compiling the bundle).
 *
 * The cache is safe to lose or to share: each script's entry is keyed by the Node version, the architecture and
 * the script's SHA-256 (from bundle.json), so a rebuilt bundle or another Node never reads it; V8 rejects data it
 * did not make (then the script compiles from source and the entry is written again); entries are written
 * atomically (a temp file, then a rename) once, when a script ran without a usable entry; reading or writing
 * failures are ignored. Where: `<bundle>/code-cache/` when writable, else `$XDG_CACHE_HOME/osimage/code-cache`
 * (default `~/.cache/osimage/code-cache`). `OSIMAGE_NO_CODE_CACHE=1` turns it off.
 *
 * Imports only Node built-ins that node itself has loaded before any script runs.
 */
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

interface Entry {
  file: string;
  sha256: string;
}

export interface BundleOptions {
  /** Where bundle.json and the scripts are. */
  dir: string;
  /** Folders to keep the code cache in, first choice first (default: see above). */
  cacheDirs?: string[];
  /** Keep no code cache (default: `OSIMAGE_NO_CODE_CACHE` set to anything but '' or '0'). */
  noCache?: boolean;
}

/** A loaded script whose code cache should be written (it had none, or V8 rejected it). */
interface Pending {
  script: Script;
  path: string;
}

export interface Bundle {
  /** cli.cjs's exports (`main`). */
  cli: { main(argv: string[]): Promise<number> };
  /** Write the cache entries this run could not read. Never throws. */
  saveCodeCache(): void;
  /**
   * Call saveCodeCache just before the first write to any of `streams` (and the caller calls it again at the end,
   * for what loaded later): the answer is the run's last output, and writing the cache after it would keep the
   * process alive for it (issue 15: nothing after the answer). What ran until then is what gets cached.
   */
  saveCodeCacheBeforeOutput(streams: { write: (...a: never[]) => unknown }[]): void;
  /** What became of each script's code cache so far (`cli`, `commands`). */
  codeCache: Record<string, CacheUse>;
}

/** off: not used; missing: no entry; used: V8 took it; rejected: V8 did not (another V8, flags, a damaged file). */
export type CacheUse = 'off' | 'missing' | 'used' | 'rejected';

function defaultCacheDirs(dir: string): string[] {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg?.startsWith('/') ? xdg : join(homedir(), '.cache');
  return [join(dir, 'code-cache'), join(base, 'osimage', 'code-cache')];
}

/** Load dist/bundle/'s cli.cjs; commands.cjs is loaded when cli.cjs first asks for a command. */
export function loadBundle(opts: BundleOptions): Bundle {
  const manifest = JSON.parse(readFileSync(join(opts.dir, 'bundle.json'), 'utf8')) as Record<'cli' | 'commands', Entry>;
  const envOff = process.env.OSIMAGE_NO_CODE_CACHE;
  const noCache = opts.noCache ?? (envOff !== undefined && envOff !== '' && envOff !== '0');
  const cacheDirs = opts.cacheDirs ?? defaultCacheDirs(opts.dir);
  const pending: Pending[] = [];
  const codeCache: Record<string, CacheUse> = {};
  const key = (e: Entry) => `${process.version}-${process.arch}-${e.sha256.slice(0, 32)}.bin`;

  function readCache(e: Entry): Buffer | undefined {
    if (noCache) return undefined;
    for (const d of cacheDirs) {
      try {
        return readFileSync(join(d, key(e)));
      } catch {
        // not there: the next folder, else none
      }
    }
    return undefined;
  }

  function run(name: string, e: Entry, hostRequire: (id: string) => unknown): Record<string, unknown> {
    const path = join(opts.dir, e.file);
    // hack/bundle.mjs writes ASCII: latin1 is read without decoding.
    const source = readFileSync(path, 'latin1');
    const cachedData = readCache(e);
    const wrapped = `(function (exports, require, module, __filename, __dirname, __osimageMeta) {${source}\n})`;
    let script: Script;
    try {
      script = new Script(wrapped, { filename: path, ...(cachedData ? { cachedData } : {}) });
    } catch (err) {
      if (!cachedData) throw err;
      script = new Script(wrapped, { filename: path });
    }
    codeCache[name] = noCache ? 'off' : !cachedData ? 'missing' : script.cachedDataRejected ? 'rejected' : 'used';
    if (codeCache[name] === 'missing' || codeCache[name] === 'rejected') pending.push({ script, path: key(e) });
    const module = { exports: {} as Record<string, unknown> };
    let url: string | undefined;
    const meta = {
      get url() {
        return (url ??= pathToFileURL(path).href);
      },
    };
    (script.runInThisContext() as (...a: unknown[]) => void)(module.exports, hostRequire, module, path, opts.dir, meta);
    return module.exports;
  }

  const nodeRequire = createRequire(join(opts.dir, 'cli.cjs'));
  let cli: Record<string, unknown> | undefined;
  let commands: Record<string, unknown> | undefined;
  const table = (exports: Record<string, unknown> | undefined, name: string) => exports?.[name] as Record<string, unknown>;
  const hostRequire = Object.assign(
    (id: string): unknown => {
      if (id.startsWith('osimage-shared:')) return table(cli, '__shared')[id.slice('osimage-shared:'.length)];
      if (id.startsWith('osimage-commands:')) {
        commands ??= run('commands', manifest.commands, hostRequire);
        // A promise of the module (commands.cjs evaluates it on first use); cli.ts awaits it.
        return (table(commands, '__commands')[id.slice('osimage-commands:'.length)] as () => Promise<unknown>)();
      }
      return nodeRequire(id);
    },
    { resolve: nodeRequire.resolve, cache: nodeRequire.cache },
  );
  cli = run('cli', manifest.cli, hostRequire);
  function saveCodeCache(): void {
    for (const p of pending.splice(0)) {
      try {
        writeCache(cacheDirs, p.path, p.script.createCachedData());
      } catch {
        // a cache is never a failure
      }
    }
  }
  return {
    cli: cli as unknown as Bundle['cli'],
    codeCache,
    saveCodeCache,
    saveCodeCacheBeforeOutput(streams) {
      if (noCache) return;
      const originals = streams.map((s) => s.write);
      const restore = () => {
        for (const [i, s] of streams.entries()) s.write = originals[i]!;
      };
      streams.forEach((s, i) => {
        s.write = function (this: unknown, ...a: never[]) {
          restore();
          saveCodeCache();
          return (originals[i] as (...a: never[]) => unknown).apply(this, a);
        } as typeof s.write;
      });
    },
  };
}

/** Write `data` as `name` in the first folder that takes it: a temp file, then a rename. */
function writeCache(dirs: string[], name: string, data: Buffer): void {
  for (const d of dirs) {
    const tmp = join(d, `.${name}.${process.pid}.tmp`);
    try {
      mkdirSync(d, { recursive: true });
      writeFileSync(tmp, data, { mode: 0o644 });
      renameSync(tmp, join(d, name));
      return;
    } catch {
      try {
        unlinkSync(tmp);
      } catch {
        // never written
      }
    }
  }
}
