/**
 * The OS swap of `release new --from-release`: every OS tag of the release's generation (the rules of
 * `payload write`, src/payload/generation.ts) set from one RHCOS build's containers, or from the images given,
 * with `machine-os=<build id>` as the tags' versions so that `release info` shows the new OS.
 */
import { OsimageError } from '../../errors.js';
import { parseBuildId } from '../../rhcos/build-id.js';
import { shipsNodeImage } from '../../payload/discover.js';
import { planTags, type Generation } from '../../payload/generation.js';
import { requireOsImagePullspec, type OsPullspec } from '../../payload/pullspec.js';
import { buildValue, checkFlags, explicitValue, type BuildSource } from '../../payload/write.js';
import { ANNOTATION_DISPLAY_NAMES, ANNOTATION_VERSIONS, MACHINE_OS, parseComponentVersions } from '../references.js';
import type { OsOverride } from './from-release.js';
import type { InputRelease } from './release-input.js';

/** What ART writes as machine-os's display name. */
export const MACHINE_OS_DISPLAY_NAME = 'Red Hat Enterprise Linux CoreOS';

export interface OsSwapOptions {
  /** The images given, checked at the edge (osPullspec). */
  osImage?: OsPullspec | undefined;
  extensionsImage?: OsPullspec | undefined;
  legacyOsImage?: OsPullspec | undefined;
  stream?: string | undefined;
  nodeImage?: boolean | undefined;
  buildId?: string | undefined;
  allowTag?: boolean | undefined;
  /** Resolves the build whose containers fill the tags no image is given for. */
  build: () => Promise<BuildSource>;
}

export interface OsSwap {
  generation: Generation;
  build: string | undefined;
  overrides: OsOverride[];
  warnings: string[];
}

/** `machine-os=<id>` (the tag's other components kept), or undefined when the id is no semantic version. */
function versionsFor(
  previous: string | undefined,
  previousNames: string | undefined,
  id: string,
): { versions: string; names: string } | undefined {
  try {
    parseComponentVersions(`${MACHINE_OS}=${id}`);
  } catch {
    return undefined;
  }
  const pairs = (s: string | undefined) =>
    (s ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '' && !p.startsWith(`${MACHINE_OS}=`));
  const names = pairs(previousNames);
  const oldName = (previousNames ?? '')
    .split(',')
    .map((p) => p.trim())
    .find((p) => p.startsWith(`${MACHINE_OS}=`));
  return {
    versions: [`${MACHINE_OS}=${id}`, ...pairs(previous)].join(','),
    names: [oldName ?? `${MACHINE_OS}=${MACHINE_OS_DISPLAY_NAME}`, ...names].join(','),
  };
}

export async function planOsSwap(input: InputRelease, release: string, o: OsSwapOptions): Promise<OsSwap> {
  const tagNames = input.stream.spec.tags.map((t) => t.name);
  const where = `${release} (release-manifests/image-references)`;
  const plan = planTags(tagNames, [], where, o.stream);
  const opts = {
    dir: '',
    osImage: o.osImage,
    extensionsImage: o.extensionsImage,
    legacyOsImage: o.legacyOsImage,
    stream: o.stream,
    nodeImage: o.nodeImage,
  };
  checkFlags(opts, plan.tags, plan.generation, where);
  const needsBuild = plan.tags.filter((t) => explicitValue(t, opts) === undefined);
  const version = /^v?(\d+)\.(\d+)/.exec(input.stream.metadata.name ?? '');
  if (
    version &&
    shipsNodeImage({ major: Number(version[1]), minor: Number(version[2]) }) &&
    needsBuild.some((t) => t.container !== 'oscontainer')
  ) {
    throw new OsimageError(
      `${release} is release ${input.stream.metadata.name}: from 4.19 its ${needsBuild[0]!.tag} is a node image built FROM the release browser's build, not the build's base image; pass --node-image --os-image NODE-IMAGE --extensions-image NODE-EXTENSIONS`,
    );
  }
  const build = needsBuild.length > 0 ? await o.build() : undefined;
  const warnings: string[] = [];
  const made = build ? ocpOfBuild(build.build) : undefined;
  if (made && version && made !== `${version[1]}.${version[2]}`) {
    warnings.push(`build ${build!.build} is a build for OpenShift ${made}, and ${release} is release ${input.stream.metadata.name}`);
  }
  const byName = new Map(input.stream.spec.tags.map((t) => [t.name, t]));
  const overrides: OsOverride[] = plan.tags.map((t) => {
    const explicit = explicitValue(t, opts);
    const pullspec = explicit ?? buildValue(build!, t, plan.generation);
    // A value from the build is checked here; one given was checked where it was given.
    if (explicit === undefined) requireOsImagePullspec(pullspec, { allowTag: o.allowTag ?? false });
    // The OS image carries machine-os; an extensions image is no OS and gets what its labels say, as in oc.
    const id = t.slot === 'extensions' ? undefined : explicit === undefined ? build!.build : o.buildId;
    const old = byName.get(t.tag)?.annotations;
    const v = id === undefined ? undefined : versionsFor(old?.[ANNOTATION_VERSIONS], old?.[ANNOTATION_DISPLAY_NAMES], id);
    if (id !== undefined && v === undefined) {
      warnings.push(
        `build ${id} is no semantic version (oc would refuse it as a version), so ${t.tag} takes ${MACHINE_OS} from its image's labels, if any`,
      );
    }
    return { tag: t.tag, pullspec, ...(v ? { versions: v.versions, displayNames: v.names } : {}) };
  });
  return { generation: plan.generation, build: build?.build, overrides, warnings };
}

/** `rhel-coreos: 416.94.A → 416.94.B`, or the pullspecs where a tag carries no machine-os version. */
export function describeOsChange(input: InputRelease, x: OsOverride): string {
  const old = input.stream.spec.tags.find((t) => t.name === x.tag);
  const machineOs = (v: string | undefined) =>
    v
      ?.split(',')
      .map((p) => p.trim())
      .find((p) => p.startsWith(`${MACHINE_OS}=`))
      ?.slice(MACHINE_OS.length + 1);
  const before = machineOs(old?.annotations?.[ANNOTATION_VERSIONS]);
  const after = machineOs(x.versions);
  const was = old?.from?.kind === 'DockerImage' ? old.from.name : undefined;
  if (was === x.pullspec) return `${x.tag}: already ${after ?? before ?? 'this image'} (${x.pullspec})`;
  if (before !== undefined && after !== undefined) return `${x.tag}: ${before} → ${after} (${x.pullspec})`;
  return `${x.tag}: ${was ?? '(new tag)'} → ${x.pullspec}`;
}

/** The OpenShift minor a build id of the `4XY.ZZ.date` shape names (`416.94.…` → `4.16`), else undefined. */
export function ocpOfBuild(id: string): string | undefined {
  const b = parseBuildId(id);
  if (b?.shape !== 'ocp-rhel') return undefined;
  const m = /^4(\d{1,2})\./.exec(b.id);
  return m ? `4.${Number(m[1])}` : undefined;
}
