import { Command } from 'commander';
import { examples, outputOption } from './options.js';
import { cacheDir, cacheMaxBytes } from '../cache/settings.js';
import { CacheStore } from '../cache/store.js';
import { escapeControls } from '../output/escape.js';
import { out, warn } from '../output/terminal.js';
import { cacheInfoJson, cachePruneJson } from '../output/cache-view.js';
import { json } from '../output/format.js';

interface CacheOptions {
  cacheDir?: string;
  maxSize?: string;
  /** `-o` of info and prune. */
  output?: 'text' | 'json';
}

const DIR_HELP = 'the cache folder (default $OSIMAGE_CACHE_DIR, else $XDG_CACHE_HOME/osimage or ~/.cache/osimage)';

/** `1.5 MiB (1572864 bytes)` */
function size(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${bytes} bytes` : `${n.toFixed(1)} ${units[u]} (${bytes} bytes)`;
}

/**
 * The store for --cache-dir. What it refuses (a symlink or a folder others may write in place of `v1/` or a kind
 * folder) is a warning here: these commands are about the folder, so the user should know why entries are not counted.
 */
async function store(o: CacheOptions): Promise<CacheStore> {
  return new CacheStore(cacheDir(o.cacheDir), { maxBytes: cacheMaxBytes(o.maxSize), onNote: (m) => warn(m) });
}

/** The folder as printed: a name with control characters (ANSI, OSC, bidi) cannot drive the terminal. */
const shown = (dir: string) => escapeControls(dir);

/** A subcommand over the cache folder: its store is opened from --cache-dir (and --max-size), the answer goes to stdout. */
function subcommand(
  name: string,
  description: string,
  lines: string[],
  run: (s: CacheStore, output: CacheOptions['output']) => Promise<string>,
): Command {
  return new Command(name)
    .description(description)
    .option('--cache-dir <dir>', DIR_HELP)
    .addHelpText('after', examples(lines))
    .action(async (o: CacheOptions) => {
      out(await run(await store(o), o.output));
    });
}

export function command(): Command {
  const prune = subcommand(
    'prune',
    'drop the least recently used entries until the cache fits its bound',
    ['osimage cache prune', 'osimage cache prune --max-size 0', 'osimage cache prune --max-size 100M -o json'],
    async (s, output) => {
      const r = await s.prune();
      if (output === 'json') return json(cachePruneJson(r, s.maxBytes));
      return `Removed ${r.removed} entries; ${r.entries} entries, ${size(r.bytes)}, left in ${shown(r.dir)}`;
    },
  )
    .option('--max-size <size>', 'the bound: bytes, or a number with K, M, G (default $OSIMAGE_CACHE_MAX_SIZE, else 512M)')
    .addOption(outputOption(['text', 'json'], 'text'));
  return new Command('cache')
    .description(
      'The cache of what release queries read (manifests, image configs, the release-manifests index and small files) and of build package lists.',
    )
    .addHelpText('after', examples(['osimage cache info', 'osimage cache prune --max-size 100M', 'osimage cache clear']))
    .addCommand(
      subcommand(
        'info',
        'print the cache folder, its entry count and size',
        ['osimage cache info', 'osimage cache info --cache-dir /var/tmp/osimage-cache', 'osimage cache info -o json'],
        async (s, output) => {
          const i = await s.info();
          if (output === 'json') return json(cacheInfoJson(i, s.maxBytes));
          return `Folder:   ${shown(i.dir)}\nEntries:  ${i.entries}\nSize:     ${size(i.bytes)}\nMax size: ${size(s.maxBytes)}`;
        },
      ).addOption(outputOption(['text', 'json'], 'text')),
    )
    .addCommand(prune)
    .addCommand(
      subcommand(
        'clear',
        'remove every entry',
        ['osimage cache clear', 'OSIMAGE_CACHE_DIR=/var/tmp/osimage-cache osimage cache clear'],
        async (s) => {
          await s.clear();
          return `Cleared ${shown(s.dir)}`;
        },
      ),
    );
}
