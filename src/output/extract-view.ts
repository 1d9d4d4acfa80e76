/**
 * The documented `release extract -o json` object (docs/release.md): which release was read and the files written.
 * Every key is always present; a value that is not known is null.
 */
import { relative, sep } from 'node:path';
import type { ImageConfig } from '../registry/types.js';

/** What was extracted: release-manifests/ (--to), CredentialsRequests, or tools (--command, --tools). */
export type ExtractMode = 'manifests' | 'credentials-requests' | 'tools';

export interface ExtractJson {
  image: string;
  mode: ExtractMode;
  /** The image manifest's digest (the chosen entry's, for a manifest list). */
  digest: string;
  /** The manifest list's digest when the image is one, else null. */
  listDigest: string | null;
  /** The image config's creation time as the image records it, else null. */
  created: string | null;
  /** The folder written to (--to) as given. */
  dir: string;
  /** The files written, relative to dir, with `/` between folders; for manifests, files then symlinks. */
  files: string[];
}

export interface Extracted {
  digest: string;
  listDigest?: string | undefined;
  config: ImageConfig;
}

/**
 * `files` relative to `dir`: the manifest modes give them so already; the tool modes give paths joined to dir,
 * made relative here.
 */
export function extractJson(image: string, mode: ExtractMode, r: Extracted, dir: string, files: string[]): ExtractJson {
  return {
    image,
    mode,
    digest: r.digest,
    listDigest: r.listDigest ?? null,
    created: r.config.created ?? null,
    dir,
    files: mode === 'tools' ? files.map((f) => relative(dir, f).split(sep).join('/')) : [...files],
  };
}
