/**
 * `osimage release new --from-release` against oc 4.13's recordings (test/fixtures/oc/from-release/, made by
 * hack/oc-compare/from-release/record.mjs; the cases are hack/oc-compare/from-release/cases.yaml). No oc here: the
 * component images are pushed from their stored bytes (images.json, so their digests are the recorded ones) to a
 * fresh docker-registry, the release images are built over them for this registry, and every case runs in-process.
 *
 * Compared, each as a soft expectation so one run shows every difference of a case:
 * - the exit code and stdout, exactly (after templating: {{REGISTRY}}, {{DIR}}, {{NOW}} for times of the run,
 *   {{RELEASE_DIGEST:tag}}, the case's `mask:` as {{MASK}});
 * - stderr as a sorted list of lines (oc prints its `info: Loading …` lines in the order its parallel pulls end);
 * - with --to-dir: the files' names and bytes, then their modes, then their mtimes (oc sets each to the time of the
 *   manifest's tar entry in the component image);
 * - with --to-image: the pushed image's manifest, config and release layer entries (not the release layer's gzip
 *   bytes, nor what they decide: that digest, the config's `size` and last diff_id).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Case,
  caseFolders,
  type Environment,
  type FileEntry,
  fixtureFile,
  loadCases,
  loadImageSet,
  pushAll,
  type Recorded,
  type Result,
  runCase,
} from '../../hack/oc-compare/from-release/lib.mjs';
import { osimageRaw } from '../helpers/cli.js';
import { startRegistry, type TestRegistry } from '../helpers/registry.js';

const cases = await loadCases();
const recorded = (name: string): Recorded => JSON.parse(readFileSync(fixtureFile(name), 'utf8')) as Recorded;

const sortedLines = (s: string) =>
  s
    .split('\n')
    .filter((l, i, all) => l !== '' || i < all.length - 1)
    .sort();

/** name -> what one aspect of the written files is (bytes, mode, mtime); null when no folder was written. */
function byName(files: FileEntry[] | null | undefined, aspect: (f: FileEntry) => string | undefined) {
  if (!files) return null;
  return Object.fromEntries(files.map((f) => [f.name, aspect(f) ?? f.type ?? null]));
}

/**
 * Where osimage differs from oc on purpose (docs/release.md, "Differences from oc"); each such case checks what
 * osimage does instead, and everything the difference leaves equal.
 */
const DOCUMENTED: Record<
  string,
  { reason: string; check: (ours: Result) => void; skip: Array<'exit' | 'stdout' | 'stderr' | 'files' | 'layer-mtimes'> }
> = {
  'mapping-duplicate-source-to-dir': {
    reason: 'a tag mapped twice is a usage error (oc checks the source against the destinations seen, so it takes the last)',
    skip: ['exit', 'stdout', 'stderr', 'files'],
    check: (ours) => {
      expect(ours.exitCode).toBe(2);
      expect(ours.stderr).toBe('error: each source tag may only be specified once: cli\n');
    },
  },
  'map-extensions-same-version-to-dir': {
    reason: 'two referenced tags that agree on machine-os are one version (oc refuses a manifest naming it even then)',
    skip: ['exit', 'stderr', 'files'],
    check: (ours) => {
      expect(ours.exitCode).toBe(0);
      expect(ours.files?.some((f) => f.text?.includes('0.0.1-snapshot-machine-os'))).toBe(false);
    },
  },
  'canonical-dry-run': {
    reason:
      "a rebuild with no override is checked on its payload files: oc compares image digests, which differ whenever another tool's gzip wrote the input",
    skip: ['exit', 'stdout', 'stderr'],
    check: (ours) => {
      expect(ours.exitCode).toBe(0);
      expect(ours.stderr).toContain("info: the payload files are the input's, byte for byte; the image digest is not");
    },
  },
  'newflag-f-reference-mode-bogus': {
    reason: 'exit 2 for usage errors found before any network (oc exits 1 for every error)',
    skip: ['exit'],
    check: (ours) => expect(ours.exitCode).toBe(2),
  },
  'newflag-f-dir': {
    reason: '--dir: oc extracts the operator manifests into it; osimage reads them into memory and says it writes nothing there',
    skip: ['stderr'],
    check: (ours) => {
      expect(ours.stderr).toMatch(
        /^warning: --dir \{\{DIR\}\}\/work: osimage reads the operator manifests into memory and writes nothing there$/m,
      );
    },
  },
  'newflag-dir-to-image': {
    reason: 'reproducible timestamps: oc gives the files read from a folder their mtimes on disk, osimage the creation time',
    skip: ['layer-mtimes'],
    // Every entry has the one creation time (the config's, templated there as {{NOW}}).
    check: (ours) => expect(new Set(ours.image?.releaseLayer.map((e) => e.mtime)).size).toBe(1),
  },
  'newflag-dir-to-image-base-tag': {
    reason: 'as newflag-dir-to-image',
    skip: ['layer-mtimes'],
    check: (ours) => expect(new Set(ours.image?.releaseLayer.map((e) => e.mtime)).size).toBe(1),
  },
  'nobase-to-image': {
    reason: 'as canonical-dry-run',
    skip: ['exit', 'stderr'],
    check: (ours) => {
      expect(ours.exitCode).toBe(0);
      expect(ours.stderr).toContain("info: the payload files are the input's, byte for byte; the image digest is not");
    },
  },
};

/** Cases whose operator images need not all be pulled (the others change an operator image, its name or --exclude). */
const FAST = new Set([
  'canonical-by-digest-to-dir',
  'canonical-to-dir',
  'extra-include-to-dir',
  'extra-to-dir',
  'include-unknown-to-dir',
  'map-extensions-nolabel-to-dir',
  'map-new-tag-include-to-dir',
  'map-new-tag-to-dir',
  'map-os-label-to-dir',
  'mapping-file-to-dir',
  'newflag-release-component-versions-to-dir',
  'wrongbase-with-base-to-dir',
]);

/** oc's Docker-era config keys osimage does not write: `id`, `container_config`, `size`, a history entry per layer. */
function ociShaped(config: unknown): unknown {
  if (!config || typeof config !== 'object') return config;
  const { id: _id, container_config: _cc, size: _size, history, ...rest } = config as Record<string, unknown>;
  return { ...rest, history: Array.isArray(history) ? history.slice(0, 1) : history };
}

function compare(c: Case, oc: Recorded, ours: Result): void {
  const cmd = `osimage release ${c.args.join(' ')}`;
  const documented = DOCUMENTED[c.name];
  if (documented) documented.check(ours);
  const skip = new Set(documented?.skip ?? []);
  if (!skip.has('exit')) expect.soft(ours.exitCode, `${cmd}\nexit code; osimage's stderr:\n${ours.stderr}`).toBe(oc.exitCode);
  if (!skip.has('stdout')) expect.soft(ours.stdout, `${cmd}\nstdout`).toBe(oc.stdout);
  if (!skip.has('stderr')) expect.soft(sortedLines(ours.stderr), `${cmd}\nstderr lines, sorted`).toEqual(sortedLines(oc.stderr));
  if (c.snapshot && !skip.has('files')) {
    expect
      .soft(
        byName(ours.files, (f) => f.text ?? f.sha256),
        `${cmd}\nfiles written (name: content)`,
      )
      .toEqual(byName(oc.files, (f) => f.text ?? f.sha256));
    expect
      .soft(
        byName(ours.files, (f) => f.mode),
        `${cmd}\nfile modes`,
      )
      .toEqual(byName(oc.files, (f) => f.mode));
    expect
      .soft(
        byName(ours.files, (f) => f.mtime),
        `${cmd}\nfile mtimes`,
      )
      .toEqual(byName(oc.files, (f) => f.mtime));
  }
  if (c.image) {
    expect.soft(ours.image?.manifest ?? null, `${cmd}\npushed manifest`).toEqual(oc.image?.manifest ?? null);
    expect.soft(ociShaped(ours.image?.config ?? null), `${cmd}\npushed config`).toEqual(ociShaped(oc.image?.config ?? null));
    const entries = (image: Result['image']) =>
      skip.has('layer-mtimes') ? (image?.releaseLayer.map(({ mtime: _mtime, ...e }) => e) ?? null) : (image?.releaseLayer ?? null);
    expect.soft(entries(ours.image), `${cmd}\npushed release layer entries`).toEqual(entries(oc.image));
  }
}

describe('osimage release new --from-release, as oc 4.13 (test/fixtures/oc/from-release)', () => {
  // startRegistry rather than useRegistry: the registry's log says nothing about these differences.
  let reg: TestRegistry | undefined;
  let env: Environment | undefined;
  let folders: { dir: string; stop(): Promise<void> } | undefined;
  beforeAll(async () => {
    const set = await loadImageSet();
    folders = await caseFolders();
    reg = await startRegistry();
    env = { registry: reg.host, dir: folders.dir, ...(await pushAll(reg.host, set)) };
  });
  afterAll(async () => {
    await reg?.stop();
    await folders?.stop();
  });

  // --full-rebuild reads every operator image, as oc does (and prints oc's lines); the fast path is checked below.
  // oc stamps a changed release with the time of the run; osimage with --created (its default is reproducible).
  const runWith = (extra: string[]) => async (args: string[]) => {
    const now = `${new Date().toISOString().slice(0, 19)}Z`;
    // --full-rebuild is a flag of --from-release only (the other inputs always read every image).
    const own = args.includes('--from-release') ? extra : [];
    const r = await osimageRaw(['release', ...args, ...own, '--created', now]);
    return { stdout: r.stdout.toString('utf8'), stderr: r.stderr, exitCode: r.exitCode };
  };
  const run = runWith(['--full-rebuild']);

  it('has a recording for every case, made with the same arguments', () => {
    for (const c of cases) expect(recorded(c.name).command.slice(3), c.name).toEqual(c.args);
  });

  for (const c of cases) {
    it(`${c.name}: ${c.about ?? ''}`, async () => {
      if (!env) throw new Error('no registry');
      const oc = recorded(c.name);
      compare(c, oc, await runCase(c, env, run));
      if (c.snapshot && oc.exitCode === 0 && !DOCUMENTED[c.name]) {
        // The fast path keeps the release's own files where they cannot change: the same files, times and all.
        const fast = await runCase(c, env, runWith([]));
        // The cases where nothing an operator ships changes keep its files instead of pulling the image.
        expect.soft(/info: Kept the payload files/.test(fast.stderr), 'fast path taken').toBe(FAST.has(c.name));
        expect
          .soft(
            byName(fast.files, (f) => f.text ?? f.sha256),
            'fast path: files',
          )
          .toEqual(byName(oc.files, (f) => f.text ?? f.sha256));
        expect
          .soft(
            byName(fast.files, (f) => f.mtime),
            'fast path: mtimes',
          )
          .toEqual(byName(oc.files, (f) => f.mtime));
      }
    });
  }
});
