/**
 * Where cli.cjs names the command being run (`release-info`, `release-info-help`, `completion`) before it asks for
 * the command's module, for the launcher's code cache (src/launcher/code-cache.ts): the entries of commands.cjs and
 * the package scripts are kept per command run, not per command module, since the subcommands of one module
 * (`release info`, `release new`) compile different code. A registered symbol: cli.cjs and the loader are separate
 * scripts, and this module is all they share.
 */
export const CODE_CACHE_PROFILE = Symbol.for('osimage.codeCacheProfile');
