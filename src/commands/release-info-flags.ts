/**
 * The flags of `release info` that reach past image-references, kept apart from release.ts so that the
 * command reads as oc's: `--size`, `--verify` and `--include-images` (the component images, at most
 * `--max-per-registry` reads at once), `--contents`, `--icsp-file` / `--idms-file` (digest mirrors), `--dir`
 * (where `file://` images are read from), and `--changelog DIR` / `--bugs DIR` / `--skip-bug-check` (with
 * `--changes-from`: the changelog and bug ids from the components' git history). Validation is oc's, in oc's
 * order and words, before any network. What only one of these flags needs (the component images, the views of
 * --size, --contents and --changelog, the policy file's YAML parser) is imported when that flag is given: a
 * plain `release info` does not load it.
 */
import { Option, type Command } from 'commander';
import { setExitCode } from '../context.js';
import { OsimageError, UsageError, describe } from '../errors.js';
import { OUTPUT_FORMATS } from '../output/output-format.js';
import { error, info, outRaw, warn } from '../output/terminal.js';
import { parseReference } from '../registry/reference.js';
import { DEFAULT_MAX_PER_REGISTRY, type ComponentImage } from '../release/components.js';
import { loadReleaseInfo, type ReleaseInfo } from '../release/info.js';
import type { OpenImage } from './open-image.js';
import { readImages } from './open-image.js';
import type { RegistryOptionValues } from './registry-options.js';

export interface InfoFlagValues extends RegistryOptionValues {
  size?: boolean;
  contents?: boolean;
  verify?: boolean;
  includeImages?: boolean;
  icspFile?: string;
  idmsFile?: string;
  maxPerRegistry: number;
  changelog?: string;
  bugs?: string;
  skipBugCheck?: boolean;
  changesFrom?: string;
  output?: string;
  imageFor?: string;
  /** `--merged-layers`: release-manifests/ as every layer merged shows it, not as the layer holding it. */
  mergedLayers?: boolean;
}

/** Go's strconv.ParseInt(s, 0, 64): sign, base prefix (0x, 0o, 0b, 0), digits with `_` between them. */
export function goParseInt(s: string): bigint | 'invalid syntax' | 'value out of range' {
  let t = s;
  const negative = t.startsWith('-');
  if (negative || t.startsWith('+')) t = t.slice(1);
  let base = 10;
  let prefixed = false;
  const p = /^0([xXoObB]?)/.exec(t);
  if (p && (p[1] !== '' || t.length > 1)) {
    base = { x: 16, o: 8, b: 2, '': 8 }[p[1]!.toLowerCase() as 'x' | 'o' | 'b' | ''];
    t = t.slice(p[0].length);
    prefixed = true;
  }
  // An underscore goes between digits, or between the base prefix and a digit.
  if (t === '' || t.endsWith('_') || t.includes('__') || (t.startsWith('_') && !prefixed)) return 'invalid syntax';
  const digits = t.replaceAll('_', '');
  const valid = { 16: /^[0-9a-fA-F]+$/, 10: /^[0-9]+$/, 8: /^[0-7]+$/, 2: /^[01]+$/ }[base as 16 | 10 | 8 | 2];
  if (!valid.test(digits)) return 'invalid syntax';
  const n = [...digits.toLowerCase()].reduce((acc, c) => acc * BigInt(base) + BigInt(Number.parseInt(c, 16)), 0n) * (negative ? -1n : 1n);
  return n > 9223372036854775807n || n < -9223372036854775808n ? 'value out of range' : n;
}

/** pflag's IntVar: the value as strconv.ParseInt reads it, or pflag's usage error naming the flag. */
export function parseIntFlag(flag: string, helpOf: string): (value: string) => number {
  return (value) => {
    const n = goParseInt(value);
    if (typeof n === 'bigint') return Number(n);
    const quoted = JSON.stringify(value);
    const err = new UsageError(`invalid argument ${quoted} for "${flag}" flag: strconv.ParseInt: parsing ${quoted}: ${n}`);
    err.seeHelpOf = helpOf;
    throw err;
  };
}

/** Add the flags to `release info`. */
export function addInfoFlags(cmd: Command): Command {
  return cmd
    .option(
      '--size',
      'show the size of each component image, the layers it shares with others, and the total (reads every component image)',
    )
    .option('--contents', 'print image-references, release-metadata and every manifest file of the release, each under a `# NAME` line')
    .option(
      '--verify',
      'read and verify the release and every component image against their digests; print `DIGEST CREATED NAME` per release (several images allowed)',
    )
    .option('--include-images', 'with -o json (or a template): read the component images and add them as `images`')
    .option(
      '--icsp-file <file>',
      'an ImageContentSourcePolicy: images named by digest are also read from its mirrors when their registry fails',
    )
    .option('--idms-file <file>', 'an ImageDigestMirrorSet (the successor of --icsp-file; one of the two)')
    .addOption(
      new Option('--max-per-registry <n>', 'how many component images to read at once (--size, --verify, --include-images)')
        .default(DEFAULT_MAX_PER_REGISTRY)
        .argParser(parseIntFlag('--max-per-registry', 'osimage release info')),
    )
    .option(
      '--dir <dir>',
      'the folder file:// images are read from (the layout `oc image mirror --dir` writes; default: the current folder)',
    )
    .option(
      '--changelog <dir>',
      "with --changes-from: a markdown changelog (or -o json) from the components' git history, cloned under DIR",
    )
    .option('--bugs <dir>', "with --changes-from: the bugs the components' merged pull requests name (git history under DIR)")
    .option('--skip-bug-check', 'with --bugs and -o name|json: list the bug ids without looking them up in the bug trackers');
}

/** The release image oc compares from (`--changes-from`, or the first of two images without --verify). */
function comparedFrom(images: readonly string[], o: InfoFlagValues): string {
  if (o.changesFrom) return o.changesFrom;
  return images.length === 2 && !o.verify ? images[0]! : '';
}

/**
 * oc's checks of these flags, in oc's order (after the view flags' `only one of …`, which release.ts checks),
 * then the policy file is read: a file that cannot be read or is not a policy is an error before any network.
 */
export async function prepareInfoFlags(images: readonly string[], o: InfoFlagValues): Promise<void> {
  const output = o.output ?? '';
  if (o.skipBugCheck && !o.bugs) throw new UsageError('--skip-bug-check requires --bugs');
  if (o.skipBugCheck && output !== 'name' && output !== 'json') {
    throw new UsageError("--skip-bug-check requires --output to be set to 'name' or 'json'");
  }
  if ((o.changelog || o.bugs) && comparedFrom(images, o) === '') throw new UsageError('--changelog/--bugs require --changes-from');
  if (o.changelog && o.bugs) throw new UsageError('--changelog and --bugs may not both be specified');
  if (o.bugs && !['', 'name', 'json'].includes(output)) throw new UsageError("--output only supports 'name' or 'json' for --bugs");
  if (o.changelog && !['', 'json'].includes(output)) throw new UsageError("--output only supports 'json' for --changelog");
  if (!o.bugs && !o.changelog && output !== '' && !OUTPUT_FORMATS.includes(output.split('=')[0]!)) {
    throw new UsageError(`--output only supports ${OUTPUT_FORMATS.join(', ')}`);
  }
  if (o.icspFile !== undefined && o.idmsFile !== undefined) throw new UsageError('icsp-file and idms-file are mutually exclusive');
  const file = o.idmsFile ?? o.icspFile;
  if (file !== undefined) {
    const { readMirrorFile } = await import('../registry/mirrors.js');
    o.mirrors = await readMirrorFile(file, o.idmsFile !== undefined ? 'idms' : 'icsp');
  }
}

/** oc's warning, once per release image named by tag, that the mirrors only serve images named by digest. */
function warnTagged(image: string, o: InfoFlagValues): void {
  if (!o.mirrors || image.startsWith('oci:') || image.startsWith('oci-archive:')) return;
  let tagged: boolean;
  try {
    tagged = !parseReference(image.replace(/^file:\/\/\/?/, '')).reference.digest;
  } catch {
    return;
  }
  if (!tagged) return;
  warn(
    o.mirrors.kind === 'icsp'
      ? '--icsp-file only applies to images referenced by digest and will be ignored for tags'
      : '--idms-file(and --icsp-file) only applies to images referenced by digest and will be ignored for tags',
  );
}

/** Whether oc reads the component images for this query. */
export const wantsComponents = (o: InfoFlagValues) => o.size === true || o.verify === true || o.includeImages === true;

export type InfoWithImages = ReleaseInfo & { images?: Record<string, unknown>; componentImages?: Map<string, ComponentImage> };

/**
 * A release's info: when the query wants the component images, they are read too (a failure fails the
 * query), their invalid pull specs join the warnings, and `images` holds oc's JSON of them.
 */
export async function loadInfo(
  image: string,
  open: OpenImage,
  o: InfoFlagValues,
  load: { filterByOs?: string; referencesOnly?: boolean; summaryOnly?: boolean; keepManifests?: boolean },
): Promise<InfoWithImages> {
  warnTagged(image, o);
  const r = await loadReleaseInfo(image, await open(image), { ...load, ...(o.mergedLayers ? { layers: 'merged' as const } : {}) });
  if (!wantsComponents(o)) return r;
  const [{ readComponentImages }, { osImageLocation }, { ocReleaseImages }] = await Promise.all([
    import('../release/components.js'),
    import('../release/os-image-config.js'),
    import('../oc/release-images.js'),
  ]);
  // A release read from an OCI layout or archive is offline: its images are found there by digest.
  const read = await readComponentImages(r.references, (ref) => open(osImageLocation(image, ref)), {
    maxPerRegistry: o.maxPerRegistry,
    ...(o.filterByOs !== undefined ? { filterByOs: o.filterByOs } : {}),
  });
  return {
    ...r,
    warnings: [...r.warnings, ...read.warnings].sort(),
    componentImages: read.images,
    images: ocReleaseImages(read.images),
  };
}

/** The Images section `--size` puts in place of the digest table; undefined without --size. */
export async function sizeSection(r: InfoWithImages, o: InfoFlagValues): Promise<string | undefined> {
  if (!o.size || !r.componentImages) return undefined;
  const { renderSizeSection } = await import('../output/info-size-view.js');
  return renderSizeSection(r.references.spec.tags ?? [], r.componentImages, Date.now());
}

const filterOf = (o: InfoFlagValues) => (o.filterByOs !== undefined ? { filterByOs: o.filterByOs } : {});

/** `--contents IMAGE`. */
export async function showContents(image: string, o: InfoFlagValues): Promise<void> {
  const r = await readImages(o, (open) => loadInfo(image, open, o, { ...filterOf(o), keepManifests: true }));
  const { renderContents } = await import('../output/info-contents-view.js');
  outRaw(renderContents(r));
}

/** image-references' creationTimestamp as oc prints it after --verify (UTC, RFC 3339; Go's zero time when unset). */
function verifiedCreated(r: ReleaseInfo): string {
  const t = r.references.metadata.creationTimestamp;
  const d = typeof t === 'string' ? new Date(t.replace(/(\.\d{3})\d+/, '$1')) : undefined;
  return d && !Number.isNaN(d.getTime()) ? `${d.toISOString().slice(0, 19)}Z` : '0001-01-01T00:00:00Z';
}

/**
 * `--verify IMAGE...`: each release and its component images read and verified; one line per release. A
 * release that fails is `error: …` on stderr, the others go on, and the exit code is 1.
 */
export async function verifyReleases(images: readonly string[], o: InfoFlagValues): Promise<void> {
  let failed = false;
  for (const image of images) {
    try {
      const r = await readImages(o, (open) => loadInfo(image, open, o, filterOf(o)));
      const name = r.metadata ? r.metadata.version : (r.references.metadata.name ?? '');
      outRaw(`${r.digest} ${verifiedCreated(r)} ${name}\n`);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      error(describe(err));
      failed = true;
    }
  }
  if (failed) setExitCode(1);
}

/**
 * `--changes-from OLD NEW --changelog DIR` or `--bugs DIR`. Releases that are the same image: oc's `releases
 * are identical`. Repositories whose history cannot be had are `error: …` lines (exit 1); the rest is shown.
 */
export async function showChangelog(from: string, to: string, o: InfoFlagValues): Promise<void> {
  const dir = (o.changelog ?? o.bugs)!;
  const [a, b] = await readImages(o, async (open) => {
    const [x, y] = await Promise.allSettled([loadInfo(from, open, o, filterOf(o)), loadInfo(to, open, o, filterOf(o))]);
    if (y.status === 'rejected') throw y.reason;
    if (x.status === 'rejected') throw x.reason;
    return [x.value, y.value] as const;
  });
  if (a.digest === b.digest) throw new OsimageError('releases are identical');
  const [{ calculateChanges }, { bugsOf, codeChangeLogs, contentChanges }, { renderBugs, renderChangelogJson, renderChangelogMarkdown }] =
    await Promise.all([import('../release/changes.js'), import('../release/changelog.js'), import('../output/info-changelog-view.js')]);
  const changes = calculateChanges(a, b);
  const content = contentChanges(changes.images);
  const logs = await codeChangeLogs(dir, content.codeChanges, (text) => info(text.replace(/\n$/, '')));
  let failed = false;
  for (const log of logs) {
    if ('error' in log) {
      error(log.error);
      failed = true;
    }
  }
  if (o.bugs !== undefined) {
    const bugs = bugsOf(logs);
    if (o.skipBugCheck) outRaw(renderBugs(bugs, o.output === 'json' ? 'json' : 'name'));
    else if (bugs.length > 0) {
      // The bug trackers are not asked (see docs/release.md): every bug is one that could not be retrieved.
      for (const bug of bugs) error(`Bug ${bug.id} was not retrieved`);
      info('info: osimage does not look bugs up in Bugzilla or Jira; --skip-bug-check with -o name or -o json lists their ids');
      failed = true;
    }
  } else {
    const input = { from: a, to: b, images: changes.images, content, logs };
    outRaw(o.output === 'json' ? renderChangelogJson(input) : renderChangelogMarkdown(input));
  }
  if (failed) setExitCode(1);
}
