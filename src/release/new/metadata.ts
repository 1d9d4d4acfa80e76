import { OsimageError, UsageError, describe } from '../../errors.js';
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

/** Build release-metadata: semver-normalised version, previous/next sorted as strings, metadata a JSON object. */
export function releaseMetadata(opts: { name: string; previous?: string[]; next?: string[]; metadataJson?: string }): ReleaseMetadata {
  const md: ReleaseMetadata = {
    kind: 'cincinnati-metadata-v0',
    version: normalize(opts.name, '--name'),
    previous: versionList(opts.previous, '--previous'),
  };
  const next = versionList(opts.next, '--next');
  if (next.length) md.next = next;
  if (opts.metadataJson !== undefined && opts.metadataJson !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(opts.metadataJson);
    } catch (err) {
      throw new UsageError(`--metadata: invalid JSON: ${describe(err)}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('--metadata must be a JSON object');
    if (Object.keys(parsed).length) md.metadata = parsed as Record<string, unknown>;
  }
  return md;
}

/** The version written into manifests: the release version without build metadata. */
export function manifestVersion(md: ReleaseMetadata): string {
  const v = md.version.replace(/\+.*$/, '');
  if (!v) throw new OsimageError('empty release version');
  return v;
}
