import { OsimageError } from '../errors.js';
import type { ContainerKey } from '../oci/os-tags.js';
import { containerPullspec, type BuildContainer, type BuildMeta } from './meta.js';

/** A build as far as its containers go: which build, where its meta.json is, what it says. */
export interface BuildRef {
  build: string;
  metaUrl: string;
  meta: BuildMeta;
}

export interface PullspecOptions {
  /** The manifest list's digest instead of the per-arch one (for multi-arch payloads). */
  manifestList?: boolean;
}

/** A build's primary OS image: which container it is, and its pullspec. */
export interface OsImage {
  key: 'base-oscontainer' | 'oscontainer';
  container: BuildContainer;
  pullspec: string;
}

/**
 * THE choice of a build's primary OS image: `base-oscontainer` (the layered, bootable image, 4.12+) when the
 * build has one, else `oscontainer` (machine-os-content, up to 4.14); null when it has neither (2018 builds).
 */
export function osImageKey(meta: BuildMeta): OsImage['key'] | null {
  if (meta.containers['base-oscontainer']) return 'base-oscontainer';
  return meta.containers.oscontainer ? 'oscontainer' : null;
}

/**
 * The pullspec of one of the build's containers, undefined when the build has no such container. With
 * `manifestList` it is `image@<manifest-list-digest>`: an error naming the build, the container and meta.json
 * when the build has no manifest list digest for it.
 */
export function containerImageOf(r: BuildRef, key: ContainerKey, opts: PullspecOptions = {}): string | undefined {
  const c = r.meta.containers[key];
  if (!c) return undefined;
  const pullspec = containerPullspec(c, opts);
  if (pullspec === undefined) {
    throw new OsimageError(
      `RHCOS build ${r.build} has no "manifest-list-digest" for "${key}" in ${r.metaUrl}: it was not published as a manifest list (drop --manifest-list)`,
      { code: 'no-manifest-list' },
    );
  }
  return pullspec;
}

/** The build's primary OS image (see osImageKey), or null when it has none. */
export function osImageOf(r: BuildRef, opts: PullspecOptions = {}): OsImage | null {
  const key = osImageKey(r.meta);
  if (!key) return null;
  return { key, container: r.meta.containers[key]!, pullspec: containerImageOf(r, key, opts)! };
}

/** The primary OS image, or an error naming the build and its meta.json when it publishes none. */
export function requireOsImage(r: BuildRef, opts: PullspecOptions = {}): OsImage {
  const os = osImageOf(r, opts);
  if (!os) {
    throw new OsimageError(`RHCOS build ${r.build} has no "base-oscontainer" or "oscontainer" in ${r.metaUrl}: it publishes no OS image`, {
      code: 'no-os-image',
    });
  }
  return os;
}
