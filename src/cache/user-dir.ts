/**
 * The user's cache folder for osimage: `$XDG_CACHE_HOME/osimage`, else `~/.cache/osimage` (the XDG spec: a relative
 * XDG_CACHE_HOME is invalid and ignored). Imports node:path only: the launcher's code cache (src/launcher/code-cache.ts)
 * uses it before the CLI loads, and asks for the home folder (node:os) only when `$HOME` does not give it.
 */
import { isAbsolute, join } from 'node:path';

export function userCacheDir(vars: NodeJS.ProcessEnv, homedir: () => string): string {
  const xdg = vars.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'osimage');
  return join(vars.HOME || homedir(), '.cache', 'osimage');
}
