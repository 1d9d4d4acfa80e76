/** osimage's own package.json, read once per process (the CLI's --version, the User-Agent, `generator` fields). */
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
