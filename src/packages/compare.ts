/**
 * `osimage diff FROM TO`: the package diff of two builds, each named by a build id (in the settings' channel,
 * or `CHANNEL/BUILD`) or by a release image (whose machine-os build is found as `verify` finds it).
 */
import { OsimageError, UsageError, type Warning } from '../errors.js';
import { resolveBuild } from '../rhcos/resolve.js';
import { validateBuildName, validateChannel, type Settings } from '../rhcos/settings.js';
import type { ReleaseOsBuild } from '../release/os-build.js';
import type { Advisory } from './advisories.js';
import { diffPackages, mainArch, type PackageDiff } from './diff.js';
import { buildPackages } from './load.js';

export type SideSpec = { kind: 'build'; spec: string; channel: string; build: string } | { kind: 'release'; spec: string };

/** A release image has a tag or digest (`:`, `@`) or a transport (`oci:`, `oci-archive:`); anything else is a build. */
export function isReleaseSpec(spec: string): boolean {
  return spec.includes(':') || spec.includes('@') || spec.startsWith('oci');
}

/**
 * `BUILD` (in `channel`), `CHANNEL/BUILD` (prod channels have a slash themselves: `4.18-9.4/builds/BUILD`,
 * the build is the last segment), or a release image.
 */
export function parseSideSpec(spec: string, channel: string, which: 'FROM' | 'TO'): SideSpec {
  if (spec.trim() === '') throw new UsageError(`${which} is empty`);
  if (isReleaseSpec(spec)) return { kind: 'release', spec };
  const slash = spec.lastIndexOf('/');
  if (slash === -1) return { kind: 'build', spec, channel, build: validateBuildName(spec, which) };
  return {
    kind: 'build',
    spec,
    channel: validateChannel(spec.slice(0, slash), which),
    build: validateBuildName(spec.slice(slash + 1), which),
  };
}

export interface SideReport {
  spec: string;
  channel: string;
  build: string;
  arch: string;
  /** The release image and what was read from it, for a release side. */
  release: { image: string; name: string; tag: string; nodeImage: string | null } | null;
  commitMetaUrl: string;
  packageCount: number;
}

export interface BuildDiffReport {
  from: SideReport;
  to: SideReport;
  diff: PackageDiff;
  /** TO's meta.json `advisories-diff` (against its previous build). */
  advisories: Advisory[];
  notes: string[];
  warnings: Warning[];
}

export interface CompareRequest {
  from: SideSpec;
  to: SideSpec;
  settings: Settings;
  /** Reads a release image's machine-os build (the command opens images with its registry flags). */
  releaseBuild: (image: string) => Promise<ReleaseOsBuild>;
}

async function locate(side: SideSpec, req: CompareRequest, notes: string[]) {
  if (side.kind === 'build') return { channel: side.channel, build: side.build, release: null };
  const r = await req.releaseBuild(side.spec);
  notes.push(...r.notes);
  if (r.build === undefined) {
    throw new OsimageError(
      `the release image ${side.spec} names no machine-os build (no machine-os version annotation on its "${r.tag}" tag, and no build id in the image's labels)`,
      { code: 'build-not-found' },
    );
  }
  if (r.nodeImage !== undefined) {
    notes.push(
      `${side.spec} ships a node image (${r.nodeImage}) built on RHCOS ${r.build}: compared the packages of that base build; the node layer's OpenShift packages (kubelet, cri-o, …) are not covered`,
    );
  }
  return {
    channel: req.settings.channel,
    build: r.build,
    release: { image: side.spec, name: r.name, tag: r.tag, nodeImage: r.nodeImage ?? null },
  };
}

export async function compareBuilds(req: CompareRequest): Promise<BuildDiffReport> {
  const notes: string[] = [];
  const warnings: Warning[] = [];
  const sides = [];
  for (const spec of [req.from, req.to]) {
    const where = await locate(spec, req, notes);
    let resolved;
    try {
      resolved = await resolveBuild({ ...req.settings, channel: where.channel, build: where.build });
    } catch (err) {
      if (where.release && err instanceof OsimageError && err.code === 'build-not-found') {
        throw new OsimageError(`${err.message} (the machine-os build of ${where.release.image}; pick its channel with --channel)`, {
          code: 'build-not-found',
          cause: err,
        });
      }
      throw err;
    }
    warnings.push(...resolved.warnings);
    const pk = await buildPackages(resolved);
    sides.push({ spec, where, pk });
  }
  const [a, b] = sides as [(typeof sides)[0], (typeof sides)[0]];
  const [archA, archB] = [mainArch(a.pk.packages), mainArch(b.pk.packages)];
  if (archA !== null && archB !== null && archA !== archB) {
    throw new OsimageError(`${a.spec} is a ${archA} build and ${b.spec} a ${archB} build: compare builds of one architecture`);
  }
  const report = (s: typeof a): SideReport => ({
    spec: s.spec.spec,
    channel: s.pk.channel,
    build: s.pk.build,
    arch: s.pk.arch,
    release: s.where.release,
    commitMetaUrl: s.pk.commitMetaUrl,
    packageCount: s.pk.packages.length,
  });
  return { from: report(a), to: report(b), diff: diffPackages(a.pk.packages, b.pk.packages), advisories: b.pk.advisories, notes, warnings };
}
