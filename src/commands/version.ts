/** osimage's version from package.json (`unknown` when it cannot be read), for `generator` fields. */
export function packageVersion(): Promise<string> {
  return import('node:fs/promises')
    .then((fs) => fs.readFile(new URL('../../package.json', import.meta.url), 'utf8'))
    .then((t) => (JSON.parse(t) as { version: string }).version)
    .catch(() => 'unknown');
}
