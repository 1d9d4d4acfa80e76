/**
 * `release info -o json` (and the object the -o templates run over): oc's shape and oc's bytes. Apart from
 * release-view.ts so that the default view and `--changes-from` do not load oc's Go types (oc-json.ts,
 * image-stream-oc.ts) and the Go JSON writer.
 */
import { goJson } from '../go-json.js';
import { ocImageStream } from '../oci/image-stream-oc.js';
import type { ReleaseInfo } from '../release/info.js';
import { ocImageConfig, ocReleaseMetadata } from '../release/oc-json.js';

type DisplayVersion = { Version: string; DisplayName: string };

/** The documented `release info -o json` object. */
export interface ReleaseInfoJson {
  image: string;
  name: string;
  digest: string;
  contentDigest: string;
  listDigest: string;
  pullFrom: string;
  platform: string;
  /** As oc's DockerImageConfig holds it, with oc's `size` (the sum of the layer sizes). */
  config: unknown;
  /** As oc's CincinnatiMetadata holds it. */
  metadata: unknown;
  /** As oc's ImageStream type holds it (tags sorted by name). */
  references: unknown;
  versions: Record<string, string> | null;
  /** The default OS stream's versions (all of them with one stream), as oc writes them; null when none. */
  displayVersions: Record<string, DisplayVersion> | null;
  /** The other OS streams' versions, `{"rhel-10": {"machine-os": {Version, DisplayName}}}`; `{}` with one stream. */
  streamDisplayVersions: Record<string, Record<string, DisplayVersion>>;
  manifests: string[];
  metadataFiles: string[];
  images: null;
  warnings: string[] | null;
}

export function toJson(r: ReleaseInfo): ReleaseInfoJson {
  const versions: Record<string, string> = {};
  const displayVersions: ReleaseInfoJson['displayVersions'] = {};
  for (const [k, v] of [...r.componentVersions].sort(([a], [b]) => (a < b ? -1 : 1))) {
    versions[k] = v.version;
    displayVersions[k] = { Version: v.version, DisplayName: v.displayName };
  }
  const streamDisplayVersions: ReleaseInfoJson['streamDisplayVersions'] = {};
  for (const [stream, vs] of r.streamVersions) {
    streamDisplayVersions[stream] = Object.fromEntries([...vs].map(([k, v]) => [k, { Version: v.version, DisplayName: v.displayName }]));
  }
  return {
    image: r.image,
    name: r.metadata ? r.metadata.version : (r.references.metadata.name ?? ''),
    digest: r.digest,
    contentDigest: r.digest,
    listDigest: r.listDigest ?? '',
    pullFrom: r.pullFrom,
    platform: r.platform,
    config: ocImageConfig(r.config, r.size),
    metadata: r.metadata ? ocReleaseMetadata(r.metadata) : null,
    references: ocImageStream(r.references),
    versions: Object.keys(versions).length > 0 ? versions : null,
    displayVersions: Object.keys(displayVersions).length > 0 ? displayVersions : null,
    streamDisplayVersions,
    manifests: r.manifests,
    metadataFiles: r.metadataFiles,
    images: null,
    warnings: r.warnings.length > 0 ? r.warnings : null,
  };
}

/** `-o json`: the object as oc's json.MarshalIndent writes it (Go's escaping; see src/go-json.ts). */
export function renderJson(r: ReleaseInfo): string {
  return `${goJson(toJson(r))}\n`;
}
