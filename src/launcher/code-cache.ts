/**
 * Loads dist/bundle/ (build/bundle.mjs: cli.cjs, commands.cjs, bundle.json) with a V8 code cache, for bin/osimage.
 * Node 20 has no compile cache for ES modules, so the bundle is CommonJS run through `vm.Script`, whose
 * `cachedData` skips parsing and compiling what an earlier run compiled (`--help` and a warm
 * `release info` spent a third of their time compiling the bundle).
 *
 * A code cache entry is compiled code that V8 runs as it is, and V8 checks little of it: a magic number, its
 * version, the source's length and the flags. An entry made for another script of the same length runs that
 * script's code, and a damaged one (a few flipped bits) crashes V8 (a fatal error, SIGSEGV) or hangs it. So an
 * entry is used only when it carries the seal of this user's key (src/cache/user-key.ts: an HMAC-SHA256 over the
 * entry's name, which holds the Node version, the architecture, the script's SHA-256 and the profile, and its bytes)
 * and the file is the user's own: an entry another user wrote (a shared or group-writable folder), one restored from
 * a CI cache or copied from another machine, one shipped in the package, or a damaged one is ignored before V8 sees
 * it, the script compiles from source, and the entry is written again. The key is kept apart from the entries (not
 * in any code-cache folder), so that a copied folder cannot bring a key that would seal what came with it. When
 * the user's key cannot be trusted (src/cache/user-key.ts), no code cache is read or written.
 *
 * The cache is safe to lose: entries are keyed by the Node version, the architecture and the script's SHA-256
 * (from bundle.json), so a rebuilt bundle or another Node never reads it; V8 rejects data made under other flags
 * (then the script compiles from source and the entry is written again); entries are written atomically (a temp
 * file, then a rename), 0600 in a 0700 folder, once, when a script ran without a usable entry (a command's entry only
 * when its run succeeds); reading or writing failures are ignored. Where: `<bundle>/code-cache/` when writable, else `$XDG_CACHE_HOME/osimage/code-cache`
 * (default `~/.cache/osimage/code-cache`). `OSIMAGE_NO_CODE_CACHE=1` turns it off.
 *
 * Imports only Node built-ins that node itself has loaded before any script runs; node:module, node:os and
 * node:crypto only when needed (the launcher passes its own `require`; the home folder is asked for only when the
 * bundle's own code-cache folder has no entry; node:crypto once there is an entry to check or write).
 */
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
// The same folder rule as the digest cache's (src/cache/settings.ts); a module that imports node:path only.
import { userCacheDir } from '../cache/user-dir.js';
import { loadUserKey, SEAL_BYTES, seal, sealMatches, type UserKey, userStateDir } from '../cache/user-key.js';
import { envFlag } from '../env-flag.js';
import { CODE_CACHE_PROFILE } from '../code-cache-profile.js';

interface Entry {
  file: string;
  sha256: string;
}

/** bundle.json: the two scripts, and the npm packages bundled as scripts of their own (by package name). */
interface Manifest {
  cli: Entry;
  commands: Entry;
  packages?: Record<string, Entry>;
}

export interface BundleOptions {
  /** Where bundle.json and the scripts are. */
  dir: string;
  /** Folders to keep the code cache in, first choice first (default: see above). */
  cacheDirs?: string[];
  /** Keep no code cache (default: `OSIMAGE_NO_CODE_CACHE` set, by src/env-flag.ts's rule). */
  noCache?: boolean;
  /**
   * The run's arguments: cli.cjs keeps one entry for runs that name a command and one for those that do not
   * (`--help`, `--version`), for the reason given at `profile` below. Default: one entry.
   */
  argv?: readonly string[];
  /**
   * Called once, just before commands.cjs is compiled, after cli.cjs's code cache (if it had none) is written:
   * the launcher sets V8 flags there (`--liftoff-only`). A code cache is valid only under the flags it was made
   * with, and Node's own built-in modules lose theirs once any flag is set (each loaded after it compiles from
   * source), so `--help` and `--version`, which never load commands.cjs, run without setting any.
   */
  beforeCommands?: () => void;
  /** Resolves what the scripts require from node_modules and Node (default: a require from `dir`). */
  require?: NodeJS.Require;
  /** Where the user's key is (default `$XDG_STATE_HOME/osimage`, else `~/.local/state/osimage`; src/cache/user-key.ts). */
  keyDir?: string;
}

/** A loaded script whose code cache should be written (it had none, or V8 rejected it). */
interface Pending {
  script: Script;
  path: string;
  /** commands.cjs or a package script: an entry kept per command run, dropped when that run fails. */
  perCommand: boolean;
}

export interface Bundle {
  /** cli.cjs's exports (`main`). */
  cli: { main(argv: string[]): Promise<number> };
  /**
   * Write the cache entries this run could not read. Never throws. At the end of the run, given its exit code: a
   * run that failed writes no per-command entry and removes those it wrote before its output (an error or a usage
   * error compiles a fraction of the command's code, and an entry is never replaced while V8 takes it, so the first
   * run of a command would otherwise set the speed of every later one).
   */
  saveCodeCache(exitCode?: number): void;
  /**
   * Call saveCodeCache just before the first write to any of `streams` (and the caller calls it again at the end,
   * for what loaded later): the answer is the run's last output, and writing the cache after it would keep the
   * process alive for it (nothing after the answer). What ran until then is what gets cached.
   */
  saveCodeCacheBeforeOutput(streams: { write: (...a: never[]) => unknown }[]): void;
  /** What became of each script's code cache so far (`cli`, `commands`, a split package's name). */
  codeCache: Record<string, CacheUse>;
}

/**
 * off: not used (turned off, or no key to trust); missing: no entry; invalid: an entry without this user's seal
 * (crafted, another user's, copied, damaged), never given to V8; used: V8 took it; rejected: V8 did not (flags).
 */
export type CacheUse = 'off' | 'missing' | 'invalid' | 'used' | 'rejected';

const home = () => (process.getBuiltinModule('node:os') as typeof import('node:os')).homedir();

/** The bundle's own folder, then the user's cache (a getter: node:os is loaded only if it is reached). */
function defaultCacheDirs(dir: string): string[] {
  const dirs = [join(dir, 'code-cache')];
  Object.defineProperty(dirs, 1, {
    enumerable: true,
    get() {
      return join(userCacheDir(process.env, home), 'code-cache');
    },
  });
  return dirs;
}

/**
 * Load dist/bundle/'s cli.cjs; commands.cjs is loaded when cli.cjs first asks for a command, and a split package's
 * script (bundle.json's `packages`) when commands.cjs first requires it.
 */
export function loadBundle(opts: BundleOptions): Bundle {
  const manifest = JSON.parse(readFileSync(join(opts.dir, 'bundle.json'), 'utf8')) as Manifest;
  const noCache = opts.noCache ?? envFlag(process.env.OSIMAGE_NO_CODE_CACHE);
  const cacheDirs = opts.cacheDirs ?? defaultCacheDirs(opts.dir);
  const pending: Pending[] = [];
  /** The per-command entries this run wrote: [folder, name]. */
  const written: [string, string][] = [];
  const codeCache: Record<string, CacheUse> = {};
  /**
   * A V8 code cache holds the functions compiled by the run that wrote it, and is written once: commands.cjs and
   * the package scripts are cached per command run (CODE_CACHE_PROFILE: `release-info`, `release-new`, their
   * `-help`; else the command module cli.cjs asks for first), so that the entry a command reads was written by a
   * successful run of that command (a `release info` whose entry was written by `cache info` compiled most of its
   * code again on every run, ~10 ms; one written by `release --help` or a failed `release info`, ~50 ms of CPU).
   * Bounded by the commands and subcommands.
   */
  let profile = '';
  const cliProfile = opts.argv?.some((a) => !a.startsWith('-')) ? 'run' : '';
  const key = (e: Entry, isCli = false) => {
    const suffix = isCli ? cliProfile : profile;
    return `${process.version}-${process.arch}-${e.sha256.slice(0, 32)}${suffix ? `-${suffix}` : ''}.bin`;
  };

  let userKey: UserKey | undefined;
  /** The user's key, loaded when first needed; undefined when it cannot be trusted (no code cache then). */
  const secret = () => (userKey ??= loadUserKey(opts.keyDir ?? userStateDir(process.env, home))).key;

  /** The V8 data of the first entry for `name` that carries this user's seal; 'invalid' when only others were found. */
  function readCache(name: string): Buffer | 'invalid' | undefined {
    let found: 'invalid' | undefined;
    for (const d of cacheDirs) {
      const raw = readEntry(join(d, name));
      if (!raw) continue;
      const k = secret();
      if (!k) return undefined;
      const data = unseal(k, name, raw);
      if (data) return data;
      found = 'invalid';
    }
    return found;
  }

  function run(name: string, e: Entry, hostRequire: (id: string) => unknown): Record<string, unknown> {
    const shared = name === 'cli';
    const path = join(opts.dir, e.file);
    // build/bundle.mjs writes ASCII: latin1 is read without decoding.
    const source = readFileSync(path, 'latin1');
    const entryName = key(e, shared);
    const found = noCache ? undefined : readCache(entryName);
    const cachedData = Buffer.isBuffer(found) ? found : undefined;
    const wrapped = `(function (exports, require, module, __filename, __dirname, __osimageMeta) {${source}\n})`;
    let script: Script;
    try {
      script = new Script(wrapped, { filename: path, ...(cachedData ? { cachedData } : {}) });
    } catch (err) {
      if (!cachedData) throw err;
      script = new Script(wrapped, { filename: path });
    }
    const use = (): CacheUse => {
      // Without a key there is nothing to trust or write (the key is asked for here when no entry was found).
      if (noCache || (!cachedData && !secret())) return 'off';
      if (cachedData) return script.cachedDataRejected ? 'rejected' : 'used';
      return found === 'invalid' ? 'invalid' : 'missing';
    };
    codeCache[name] = use();
    if (codeCache[name] !== 'off' && codeCache[name] !== 'used') pending.push({ script, path: entryName, perCommand: !shared });
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

  const nodeRequire =
    opts.require ?? (process.getBuiltinModule('node:module') as typeof import('node:module')).createRequire(join(opts.dir, 'cli.cjs'));
  let cli: Record<string, unknown> | undefined;
  let commands: Record<string, unknown> | undefined;
  const packages = new Map<string, Record<string, unknown>>();
  /** A split package's script (`osimage-pkg:undici/lib/x.js` → undici.cjs), run on first use. */
  const fromPackage = (spec: string): unknown => {
    const name = Object.keys(manifest.packages ?? {}).find((p) => spec === p || spec.startsWith(`${p}/`));
    if (name === undefined) return nodeRequire(spec);
    let exports = packages.get(name);
    if (!exports) packages.set(name, (exports = run(name, manifest.packages![name]!, hostRequire)));
    return exports[spec];
  };
  const table = (exports: Record<string, unknown> | undefined, name: string) => exports?.[name] as Record<string, unknown>;
  const hostRequire = Object.assign(
    (id: string): unknown => {
      if (id.startsWith('osimage-pkg:')) return fromPackage(id.slice('osimage-pkg:'.length));
      if (id.startsWith('osimage-shared:')) return table(cli, '__shared')[id.slice('osimage-shared:'.length)];
      if (id.startsWith('osimage-commands:')) {
        if (!commands) {
          saveCodeCache();
          opts.beforeCommands?.();
          // The command run, as cli.cjs names it; else './commands/release.js' → 'release' ([a-z0-9-] only: a file name).
          const named = (globalThis as Record<symbol, unknown>)[CODE_CACHE_PROFILE];
          profile =
            typeof named === 'string' && /^[a-z0-9][a-z0-9-]{0,63}$/.test(named)
              ? named
              : id
                  .slice('osimage-commands:'.length)
                  .replace(/^.*\//, '')
                  .replace(/\.js$/, '')
                  .replace(/[^a-z0-9-]/g, '_');
          commands = run('commands', manifest.commands, hostRequire);
        }
        // A promise of the module (commands.cjs evaluates it on first use); cli.ts awaits it.
        return (table(commands, '__commands')[id.slice('osimage-commands:'.length)] as () => Promise<unknown>)();
      }
      return nodeRequire(id);
    },
    { resolve: nodeRequire.resolve, cache: nodeRequire.cache },
  );
  cli = run('cli', manifest.cli, hostRequire);
  function saveCodeCache(exitCode?: number): void {
    const failed = exitCode !== undefined && exitCode !== 0;
    for (const p of pending.splice(0)) {
      if (failed && p.perCommand) continue;
      try {
        const k = secret();
        const where = k ? writeCache(cacheDirs, p.path, k, p.script.createCachedData()) : undefined;
        if (where !== undefined && p.perCommand) written.push([where, p.path]);
      } catch {
        // a cache is never a failure
      }
    }
    if (!failed) return;
    for (const [d, name] of written.splice(0)) {
      try {
        unlinkSync(join(d, name));
      } catch {
        // gone already, or never there
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

/** Larger than any code cache the bundle makes (a few MiB): a bigger file is not read. */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

/**
 * An entry: MAGIC (16 bytes), the seal (32), then V8's data. 48 bytes keep the data 8-byte aligned in the buffer
 * read, as V8 wants it (it copies unaligned data first).
 */
const MAGIC = Buffer.from('osimage-v8cache1');
const HEADER = MAGIC.length + SEAL_BYTES;
const label = (name: string) => `code-cache:${name}`;

/** V8's data in `raw` when it is an entry sealed with `key` for `name`, else undefined. */
function unseal(key: Buffer, name: string, raw: Buffer): Buffer | undefined {
  if (raw.length <= HEADER || !raw.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const data = raw.subarray(HEADER);
  return sealMatches(raw.subarray(MAGIC.length, HEADER), key, label(name), [data]) ? data : undefined;
}

/**
 * A cache entry's bytes, or undefined when there is none to use: only a regular file of this user's, of at most
 * MAX_ENTRY_BYTES, never through a symlink (a link to /dev/zero or a huge file would hang or exhaust the run), and a
 * FIFO does not block the open (O_NONBLOCK). Such a file counts as missing: the entry written later renames over it.
 * Another user's file is not even read (its seal would fail: this saves reading and hashing it).
 */
function readEntry(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined; // not there (or a symlink): the next folder, else none
  }
  try {
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile() || st.size > MAX_ENTRY_BYTES || (uid !== undefined && st.uid !== uid)) return undefined;
    const data = Buffer.allocUnsafe(st.size);
    let n = 0;
    for (let r = 1; n < data.length && r > 0; n += r) r = readSync(fd, data, n, data.length - n, null);
    return data.subarray(0, n);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Write `data` sealed as `name` in the first folder that takes it (returned): a temp file, then a rename. */
function writeCache(dirs: string[], name: string, key: Buffer, data: Buffer): string | undefined {
  const entry = Buffer.concat([MAGIC, seal(key, label(name), [data]), data]);
  for (const d of dirs) {
    const tmp = join(d, `.${name}.${process.pid}.tmp`);
    try {
      mkdirSync(d, { recursive: true, mode: 0o700 });
      writeFileSync(tmp, entry, { mode: 0o600, flag: 'wx' }); // never through a file or link already there
      renameSync(tmp, join(d, name));
      return d;
    } catch {
      try {
        unlinkSync(tmp);
      } catch {
        // never written
      }
    }
  }
  return undefined;
}
