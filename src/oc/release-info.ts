/**
 * `release info -o json` (and the object the -o templates run over): oc's shape and oc's bytes. Apart from
 * output/release-view.ts so that the default view and `--changes-from` do not load oc's Go types (json.ts,
 * image-stream.ts) and the Go JSON writer.
 */
import { goJson } from '../golang/json.js';
import { ocImageStream } from './image-stream.js';
import type { ImageStream } from '../oci/image-stream.js';
import { ocImageConfig, type ReleaseMetadata, ocReleaseMetadata } from './json.js';

type DisplayVersion = { Version: string; DisplayName: string };
type ComponentVersion = { version: string; displayName: string };

/**
 * What the object is made of: the fields of release/info.ts's ReleaseInfo that oc shows (oc/ sits below
 * release/, so it names what it reads rather than importing release's model).
 */
export interface ReleaseInfoFields {
  image: string;
  digest: string;
  listDigest?: string | undefined;
  pullFrom: string;
  platform: string;
  config: Readonly<Record<string, unknown>>;
  size: number;
  references: ImageStream;
  metadata?: ReleaseMetadata & { version: string };
  componentVersions: ReadonlyMap<string, ComponentVersion>;
  streamVersions: ReadonlyMap<string, ReadonlyMap<string, ComponentVersion>>;
  manifests: string[];
  metadataFiles: string[];
  warnings: string[];
  /** The component images (src/oc/release-images.ts), when they were read (--include-images, --size, --verify). */
  images?: Readonly<Record<string, unknown>> | undefined;
}

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
  /** null unless the component images were read (--include-images). */
  images: Readonly<Record<string, unknown>> | null;
  warnings: string[] | null;
}

export function toJson(r: ReleaseInfoFields): ReleaseInfoJson {
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
    images: r.images ?? null,
    warnings: r.warnings.length > 0 ? r.warnings : null,
  };
}

/** `-o json`: the object as oc's json.MarshalIndent writes it (Go's escaping; see src/golang/json.ts). */
export function renderJson(r: ReleaseInfoFields): string {
  return `${goJson(toJson(r))}\n`;
}
