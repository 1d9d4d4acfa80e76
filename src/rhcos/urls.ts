/** URL arithmetic for a release browser: `<base>/<channel>/builds.json`, build directories, meta.json. */

export function buildsJsonUrl(baseUrl: string, channel: string): string {
  return `${baseUrl}/${channel}/builds.json`;
}

/** The build directory, with a trailing slash: `<base>/<channel>/<build>/` or `.../<build>/<arch>/`. */
export function buildDirUrl(baseUrl: string, channel: string, build: string, layout: 'legacy' | 'v1', arch: string): string {
  const id = encodeURIComponent(build);
  return layout === 'legacy' ? `${baseUrl}/${channel}/${id}/` : `${baseUrl}/${channel}/${id}/${arch}/`;
}

export function metaJsonUrl(buildDir: string): string {
  return `${buildDir}meta.json`;
}

/** commitmeta.json beside meta.json: the OSTree commit's metadata, with the package list (`rpmostree.rpmdb.pkglist`). */
export function commitMetaJsonUrl(buildDir: string): string {
  return `${buildDir}commitmeta.json`;
}
