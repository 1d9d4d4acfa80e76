import { OsimageError, UsageError } from '../../errors.js';
import { type GoType, goUnmarshalError } from '../../golang/json-decode.js';
import { format, parse } from '../../golang/semver.js';

/** The `release-metadata` file (`cincinnati-metadata-v0`). */
export interface ReleaseMetadata {
  kind: 'cincinnati-metadata-v0';
  version: string;
  previous: string[];
  next?: string[];
  metadata?: Record<string, unknown>;
}

/** oc's parser (src/golang/semver.ts) and oc's words: `--name must be a semantic version: No Major.Minor.Patch elements found`. */
function normalize(v: string, flag: string): string {
  const parsed = parse(v);
  if (parsed.error === undefined) return format(parsed.version);
  throw new UsageError(
    flag === '--name'
      ? `--name must be a semantic version: ${parsed.error}`
      : `${JSON.stringify(v)} is not a valid semantic version: ${parsed.error}`,
  );
}

/** A repeatable, comma-separated version flag's values: normalised, without duplicates, sorted as strings. */
function versionList(values: string[] | undefined, flag: string): string[] {
  return [
    ...new Set(
      (values ?? [])
        .flatMap((p) => p.split(','))
        .filter(Boolean)
        .map((p) => normalize(p, flag)),
    ),
  ].sort();
}

/** oc's release-metadata Go type, which `--metadata` is first decoded into (so its errors name it). */
export const CINCINNATI_METADATA: GoType = {
  kind: 'struct',
  name: 'CincinnatiMetadata',
  pkg: 'release',
  fields: {
    kind: { kind: 'string' },
    version: { kind: 'string' },
    previous: { kind: 'slice', elem: { kind: 'string' } },
    next: { kind: 'slice', elem: { kind: 'string' } },
    metadata: { kind: 'map', elem: { kind: 'interface' } },
  },
};

/**
 * `--metadata` as oc checks it: decoded into its release-metadata type, refused in Go's words (`invalid --metadata:
 * invalid character 'b' looking for beginning of object key string`, `invalid --metadata: json: cannot unmarshal
 * array into Go value of type release.CincinnatiMetadata`). `null` passes and means no metadata, as in oc.
 */
export function checkMetadataJson(text: string): void {
  const err = goUnmarshalError(text, CINCINNATI_METADATA);
  if (err !== undefined) throw new UsageError(`invalid --metadata: ${err}`);
}

/** Build release-metadata: semver-normalised version, previous/next sorted as strings, metadata a JSON object (or null). */
export function releaseMetadata(opts: { name: string; previous?: string[]; next?: string[]; metadataJson?: string }): ReleaseMetadata {
  const md: ReleaseMetadata = {
    kind: 'cincinnati-metadata-v0',
    version: normalize(opts.name, '--name'),
    previous: versionList(opts.previous, '--previous'),
  };
  const next = versionList(opts.next, '--next');
  if (next.length) md.next = next;
  if (opts.metadataJson !== undefined && opts.metadataJson !== '') {
    checkMetadataJson(opts.metadataJson);
    const parsed = JSON.parse(opts.metadataJson) as Record<string, unknown> | null;
    if (parsed !== null && Object.keys(parsed).length) md.metadata = parsed;
  }
  return md;
}

/** The version written into manifests: the release version without build metadata. */
export function manifestVersion(md: ReleaseMetadata): string {
  const v = md.version.replace(/\+.*$/, '');
  if (!v) throw new OsimageError('empty release version');
  return v;
}
