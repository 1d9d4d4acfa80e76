import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A module loaded on first use, synchronously, for code paths that rarely need it (a YAML fallback, a
 * version sort): start-up pays for it only when it is used.
 */
export function lazyRequire<T>(id: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= require(id) as T);
}
