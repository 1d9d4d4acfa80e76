import { Command } from 'commander';
import { examples } from './options.js';

interface CacheOptions {
  cacheDir?: string;
  maxSize?: string;
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

async function store(o: CacheOptions) {
  const { cacheDir, cacheMaxBytes } = await import('../cache/settings.js');
  const { CacheStore } = await import('../cache/store.js');
  return new CacheStore(cacheDir(o.cacheDir), { maxBytes: cacheMaxBytes(o.maxSize) });
}

export function command(): Command {
  const cmd = new Command('cache')
    .description(
      'The digest-keyed cache of what release queries read (manifests, image configs, the release-manifests index and small files).',
    )
    .addHelpText('after', examples(['osimage cache info', 'osimage cache prune --max-size 100M', 'osimage cache clear']));
  cmd
    .command('info')
    .description('print the cache folder, its entry count and size')
    .option('--cache-dir <dir>', DIR_HELP)
    .addHelpText('after', examples(['osimage cache info', 'osimage cache info --cache-dir /var/tmp/osimage-cache']))
    .action(async (o: CacheOptions) => {
      const { out } = await import('../output/terminal.js');
      const s = await store(o);
      const i = await s.info();
      out(`Folder:   ${i.dir}\nEntries:  ${i.entries}\nSize:     ${size(i.bytes)}\nMax size: ${size(s.maxBytes)}`);
    });
  cmd
    .command('prune')
    .description('drop the least recently used entries until the cache fits its bound')
    .option('--cache-dir <dir>', DIR_HELP)
    .option('--max-size <size>', 'the bound: bytes, or a number with K, M, G (default $OSIMAGE_CACHE_MAX_SIZE, else 512M)')
    .addHelpText('after', examples(['osimage cache prune', 'osimage cache prune --max-size 0']))
    .action(async (o: CacheOptions) => {
      const { out } = await import('../output/terminal.js');
      const s = await store(o);
      const r = await s.prune();
      out(`Removed ${r.removed} entries; ${r.entries} entries, ${size(r.bytes)}, left in ${r.dir}`);
    });
  cmd
    .command('clear')
    .description('remove every entry')
    .option('--cache-dir <dir>', DIR_HELP)
    .addHelpText('after', examples(['osimage cache clear', 'OSIMAGE_CACHE_DIR=/var/tmp/osimage-cache osimage cache clear']))
    .action(async (o: CacheOptions) => {
      const { out } = await import('../output/terminal.js');
      const s = await store(o);
      await s.clear();
      out(`Cleared ${s.dir}`);
    });
  return cmd;
}
