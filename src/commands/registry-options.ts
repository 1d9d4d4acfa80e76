import { type Command, Option } from 'commander';
import { env, io } from '../context.js';
import { DEBUG_LEVEL, HTTP_LEVEL, debugLog, logs } from '../verbosity.js';
import type { Warning } from '../errors.js';
import type { MirrorSet } from '../registry/mirrors.js';
import type { SourceOptions } from '../registry/types.js';
import { warn } from '../output/terminal.js';
import { progressBar } from '../output/progress.js';
import { openCache } from '../cache/settings.js';

export interface RegistryOptionValues {
  registryConfig?: string;
  insecure?: boolean;
  certificateAuthority?: string;
  skipVerification?: boolean;
  filterByOs?: string;
  /** --cache-dir DIR */
  cacheDir?: string;
  /** false with --no-cache */
  cache?: boolean;
  /** Digest mirrors read from --icsp-file / --idms-file by the commands that take them (release-info-flags.ts). */
  mirrors?: MirrorSet;
  /** --dir: where file:// references are read from. */
  dir?: string;
}

/**
 * `--authfile FILE`, podman's and skopeo's name for the auth file: the same setting as --registry-config (the
 * last of the two on the line wins), hidden from help, which names the flag oc users know (and this alias in its words).
 */
export function authfileAlias(): Option {
  const alias = new Option('--authfile <file>', 'the same as --registry-config').hideHelp();
  alias.attributeName = () => 'registryConfig';
  return alias;
}

/** The registry and image-selection flags oc's release commands take. */
export function addRegistryOptions(cmd: Command): Command {
  return cmd
    .option('-a, --registry-config <file>', 'auth file for the registry (containers auth.json or docker config.json); --authfile too')
    .addOption(authfileAlias())
    .option('--insecure', 'allow plain HTTP and unverified TLS for the registry')
    .option('--certificate-authority <file>', 'CA bundle to trust for the registry')
    .option('--skip-verification', 'warn instead of failing when content does not match its digest')
    .option('--filter-by-os <regex>', 'pick this os/arch[/variant] from a manifest list (default linux/amd64)')
    .option(
      '--cache-dir <dir>',
      'the digest-keyed cache folder (default $OSIMAGE_CACHE_DIR, else $XDG_CACHE_HOME/osimage or ~/.cache/osimage)',
    )
    .option('--no-cache', 'neither read nor write the cache');
}

/** Warnings that mean content did not match its digest or size (let through by --skip-verification). */
const VERIFICATION_FAILURES: ReadonlySet<Warning['code']> = new Set(['digest-mismatch', 'size-mismatch']);

/** SourceOptions from the flags; warnings and progress go to stderr. Commands use it through readImages (open-image.ts). */
export async function sourceOptions(o: RegistryOptionValues, state: { verificationFailed: boolean }) {
  // From -v 6 stderr carries a line per request: a bar redrawn between them would garble both (a dumb terminal's rule).
  const progress = progressBar(io().stderr, logs(HTTP_LEVEL) ? { ...env(), TERM: 'dumb' } : env());
  // A cache that cannot be read or written changes nothing a script sees: a note only from -v 4 (or OSIMAGE_DEBUG).
  const cache = openCache(o, (message) => debugLog(DEBUG_LEVEL, `cache: ${message}`));
  const opts: SourceOptions = {
    ...(o.registryConfig !== undefined ? { registryConfig: o.registryConfig } : {}),
    ...(o.insecure ? { insecure: true } : {}),
    ...(o.certificateAuthority !== undefined ? { caFile: o.certificateAuthority } : {}),
    ...(o.skipVerification ? { skipVerification: true } : {}),
    ...(cache ? { cache } : {}),
    ...(o.mirrors ? { mirrors: o.mirrors } : {}),
    ...(o.dir !== undefined ? { fileDir: o.dir } : {}),
    onWarning: (w: Warning) => {
      progress.done();
      if (VERIFICATION_FAILURES.has(w.code)) state.verificationFailed = true;
      warn(w.message);
    },
    onProgress: (digest: string, done: number, total: number) => progress.update(digest, done, total),
  };
  return { opts, progress };
}
