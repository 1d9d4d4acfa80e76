/** osimage's own package.json and build info, read once per process (--version, the User-Agent, `generator` fields). */
import { readFileSync } from 'node:fs';

let version: string | undefined;

/** The version in package.json (one folder up from src/ and from dist/), or `unknown` when it cannot be read. */
export function packageVersion(): string {
  if (version === undefined) {
    try {
      version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // a packaging mistake must not stop a run
      version = 'unknown';
    }
  }
  return version;
}

/** What the build recorded about itself (build/build-info.mjs writes it beside the compiled code). */
export interface BuildInfo {
  /** The git commit built, when it was built in a git checkout. */
  commit?: string;
  /** The checkout had changes not committed: the commit alone does not describe what was built. */
  modified?: boolean;
}

let build: BuildInfo | undefined;

/** dist/build-info.json; empty when running src/ or when the build was made outside a git checkout. */
export function buildInfo(): BuildInfo {
  if (build === undefined) {
    try {
      const raw = JSON.parse(readFileSync(new URL('./build-info.json', import.meta.url), 'utf8')) as BuildInfo;
      build = {};
      if (typeof raw.commit === 'string' && /^[0-9a-f]{7,64}$/.test(raw.commit)) build.commit = raw.commit;
      if (build.commit && raw.modified === true) build.modified = true;
    } catch {
      build = {};
    }
  }
  return build;
}
