import { closest } from './closest.js';

/**
 * RHCOS build ids of every era (reference os-image-generations §3): the one parser, ordering and
 * closest-match suggestion.
 *
 * | shape      | examples                                                      | RHEL major stream read from |
 * |------------|---------------------------------------------------------------|-----------------------------|
 * | `counter`  | `47.246` (maipo, 2018–2019: no date, a build counter)         | `4<R>.N`: R (47 → RHEL 7) |
 * | `ocp-rhel` | `410.8.20190325.0`, `48.84.202105190318-0`, `418.94.202605101521-0` | the second field: `8` → 8, `84` → 8, `94` → 9; three digits starting with 1 are a two-digit major (`102` → 10) |
 * | `rhel`     | `9.8.20260428-0`, `10.2.20260217-0` (the CoreOS layer, 2025+)  | the first field |
 * | `node`     | `4.21.9.6.202602041851-0`, tag form `4.21-9.6-202602041851-node-image` | the third field |
 *
 * Dated shapes carry an 8-digit (`YYYYMMDD`) or 12-digit (`YYYYMMDDHHMM`) date, then `.` or `-` and a serial
 * (the serial may be missing: it then sorts before serial 0).
 */
export type BuildIdShape = 'counter' | 'ocp-rhel' | 'rhel' | 'node';

export interface BuildId {
  /** The id in its canonical form (a node image tag becomes `4.21.9.6.202602041851-0`, as ART reads it). */
  id: string;
  shape: BuildIdShape;
  /** The RHEL major stream (7, 8, 9, 10, …). */
  rhel: number;
  /** `YYYYMMDD` or `YYYYMMDDHHMM`; null for `counter` ids. */
  date: string | null;
  /** The serial after the date, or the counter of a `counter` id; null when the id has none. */
  serial: number | null;
}

const DATE = '(\\d{8}|\\d{12})';
const SERIAL = '(?:[.-](\\d+))?';
const COUNTER = /^4(\d)\.(\d+)$/;
const OCP_RHEL = new RegExp(`^4\\d{1,2}\\.(\\d{1,3})\\.${DATE}${SERIAL}$`);
const RHEL = new RegExp(`^(\\d{1,2})\\.\\d{1,2}\\.${DATE}${SERIAL}$`);
const NODE = new RegExp(`^\\d+\\.\\d+\\.(\\d{1,2})\\.\\d{1,2}\\.${DATE}${SERIAL}$`);
const NODE_TAG = new RegExp(`^(\\d+\\.\\d+)-(\\d{1,2}\\.\\d{1,2})-${DATE}-node-image(?:-extensions)?$`);

/** The RHEL major of an `ocp-rhel` id's second field (`8`, `84`, `94`, `102`). */
function rhelOfOcpRhel(field: string): number {
  if (field.length === 3 && field.startsWith('1')) return Number(field.slice(0, 2));
  return Number(field[0]);
}

const serialOf = (s: string | undefined): number | null => (s === undefined ? null : Number(s));

/** Parse a build id of any era (or a node image's manifest-list tag); undefined for anything else. */
export function parseBuildId(text: string): BuildId | undefined {
  let m = COUNTER.exec(text);
  if (m) return { id: text, shape: 'counter', rhel: Number(m[1]), date: null, serial: Number(m[2]) };
  m = OCP_RHEL.exec(text);
  if (m) return { id: text, shape: 'ocp-rhel', rhel: rhelOfOcpRhel(m[1]!), date: m[2]!, serial: serialOf(m[3]) };
  // `4x.…` is an OCP+RHEL id (above); a CoreOS-layer id starts with its RHEL major.
  m = RHEL.exec(text);
  if (m) return { id: text, shape: 'rhel', rhel: Number(m[1]), date: m[2]!, serial: serialOf(m[3]) };
  m = NODE.exec(text);
  if (m) return { id: text, shape: 'node', rhel: Number(m[1]), date: m[2]!, serial: serialOf(m[3]) };
  m = NODE_TAG.exec(text);
  if (m) {
    const id = `${m[1]}.${m[2]}.${m[3]}-0`;
    return { id, shape: 'node', rhel: Number(m[2]!.split('.')[0]), date: m[3]!, serial: 0 };
  }
  return undefined;
}

/** How build `a` stands to build `b`. `newer`/`older`/`same` only within one RHEL major stream. */
export type BuildIdOrder = 'newer' | 'older' | 'same' | 'different';

const sign = (d: number): BuildIdOrder => (d > 0 ? 'newer' : d < 0 ? 'older' : 'same');

/**
 * Compare two build ids. Identical text is `same`. Otherwise both must parse and share a RHEL major stream;
 * dated ids order by date, then serial (a 12-digit date against an 8-digit one orders only when the days
 * differ); `counter` ids (maipo) order by their counter among themselves. Across streams, between a counter
 * and a dated id, on the same date with different ids, or when either is no build id: `different` — never a
 * wrong newer/older.
 */
export function compareBuildIds(a: string, b: string): BuildIdOrder {
  if (a === b) return 'same';
  const pa = parseBuildId(a);
  const pb = parseBuildId(b);
  if (!pa || !pb || pa.rhel !== pb.rhel) return 'different';
  if (pa.id === pb.id) return 'same';
  if (pa.date === null || pb.date === null) {
    return pa.shape === 'counter' && pb.shape === 'counter' ? sign(pa.serial! - pb.serial!) : 'different';
  }
  if (pa.date.length !== pb.date.length) {
    const day = sign(Number(pa.date.slice(0, 8)) - Number(pb.date.slice(0, 8)));
    return day === 'same' ? 'different' : day;
  }
  const order = sign(Number(pa.date) - Number(pb.date));
  if (order !== 'same') return order;
  if (pa.shape !== pb.shape) return 'different';
  const bySerial = sign((pa.serial ?? -1) - (pb.serial ?? -1));
  return bySerial === 'same' ? 'different' : bySerial;
}

/**
 * The build to suggest for an unknown pinned build: among ids of the same shape and RHEL stream, else of the
 * same stream, the nearest by edit distance (ties go to the earlier, i.e. newer, entry). A pin that is a build
 * id gets no suggestion from another stream (`412.86.…` against maipo suggests nothing, not `47.235`); a pin
 * that is no build id at all gets the nearest name of the whole list.
 */
export function closestBuildId(wanted: string, candidates: readonly string[]): string | undefined {
  const w = parseBuildId(wanted);
  if (!w) return closest(wanted, candidates);
  const parsed = candidates.map((c) => ({ c, p: parseBuildId(c) }));
  const tiers = [parsed.filter(({ p }) => p?.rhel === w.rhel && p.shape === w.shape), parsed.filter(({ p }) => p?.rhel === w.rhel)];
  const tier = tiers.find((t) => t.length > 0);
  return tier
    ? closest(
        wanted,
        tier.map(({ c }) => c),
      )
    : undefined;
}

/** The build id in an `io.openshift.build.versions` annotation: `machine-os=<id>`. */
export function machineOsFromVersions(annotation: string | undefined): string | undefined {
  for (const part of (annotation ?? '').split(',')) {
    const [k, v] = part.split('=').map((s) => s.trim());
    if (k === 'machine-os' && v) return v;
  }
  return undefined;
}

/**
 * A build id from an OS container's config labels, in the order ART's tools read them: the first label that
 * is a build id as written (a node image's manifest-list tag is the node image's own name, so it is skipped),
 * else the first label given.
 */
export function buildIdFromLabels(labels: Record<string, string> | null | undefined): string | undefined {
  if (!labels) return undefined;
  const values = ['coreos.build.manifest-list-tag', 'org.opencontainers.image.version', 'version']
    .map((k) => labels[k])
    .filter((v): v is string => typeof v === 'string' && v !== '');
  return values.find((v) => parseBuildId(v)?.id === v) ?? values[0];
}
