/**
 * oc's Go types for `release info -o json` and the `release-metadata` file, as encoding/json re-encodes them
 * (print with `goJson`, src/golang/json.ts).
 *
 * An image config as `oc adm release info -o json` shows it: decoded into library-go's
 * `dockerv1client.DockerImageConfig` and encoded again, with `size` set to the sum of the manifest's layer
 * sizes (oc's ManifestToImageConfig). Fields that type lacks (`ArgsEscaped`, `StopSignal`, `Healthcheck`, …)
 * are dropped; the others come in its order: `id` (always, `""`), `parent`, `comment`, `created` (always;
 * Go's zero time when absent), `container`, `container_config` (always, `{}` when empty), `docker_version`,
 * `author`, `config`, `architecture`, `size`, `rootfs`, `history`, `os`, `os.version`, `os.features`.
 */
import { goField, goKeyCompare, goMapOrder, goStringField } from '../golang/json.js';
import { isJsonObject } from '../json.js';

type Obj = Record<string, unknown>;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Go's time.Time as encoding/json writes it (RFC 3339 with nanoseconds, trailing zeros dropped, offset kept). */
export function goTime(v: unknown): string {
  if (typeof v !== 'string') return '0001-01-01T00:00:00Z';
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(v);
  if (!m) return v;
  const fraction = (m[2] ?? '').slice(0, 9).replace(/0+$/, '');
  const zone = m[3] === '+00:00' || m[3] === '-00:00' ? 'Z' : m[3];
  return `${m[1]}${fraction ? `.${fraction}` : ''}${zone}`;
}

/** `docker10.DockerConfig` field names (JSON), in order; every one is omitempty. */
const DOCKER_CONFIG: Array<[string, 'string' | 'number' | 'bool' | 'list' | 'set' | 'map']> = [
  ['Hostname', 'string'],
  ['Domainname', 'string'],
  ['User', 'string'],
  ['Memory', 'number'],
  ['MemorySwap', 'number'],
  ['CpuShares', 'number'],
  ['Cpuset', 'string'],
  ['AttachStdin', 'bool'],
  ['AttachStdout', 'bool'],
  ['AttachStderr', 'bool'],
  ['PortSpecs', 'list'],
  ['ExposedPorts', 'set'],
  ['Tty', 'bool'],
  ['OpenStdin', 'bool'],
  ['StdinOnce', 'bool'],
  ['Env', 'list'],
  ['Cmd', 'list'],
  ['Dns', 'list'],
  ['Image', 'string'],
  ['Volumes', 'set'],
  ['VolumesFrom', 'string'],
  ['WorkingDir', 'string'],
  ['Entrypoint', 'list'],
  ['NetworkDisabled', 'bool'],
  ['SecurityOpts', 'list'],
  ['OnBuild', 'list'],
  ['Labels', 'map'],
];

function dockerConfig(v: unknown): Obj {
  const c = isJsonObject(v) ? v : {};
  const out: Obj = {};
  for (const [k, kind] of DOCKER_CONFIG) {
    const x = goField(c, k);
    if (kind === 'string' && typeof x === 'string' && x !== '') out[k] = x;
    else if (kind === 'number' && typeof x === 'number' && x !== 0) out[k] = x;
    else if (kind === 'bool' && x === true) out[k] = true;
    else if (kind === 'list' && Array.isArray(x) && x.length > 0) out[k] = strings(x);
    else if ((kind === 'set' || kind === 'map') && isJsonObject(x) && Object.keys(x).length > 0) {
      const m: Obj = {};
      for (const key of Object.keys(x).sort(goKeyCompare)) {
        if (kind === 'set') m[key] = {};
        else if (typeof x[key] === 'string') m[key] = x[key];
      }
      out[k] = m;
    }
  }
  return out;
}

function history(v: unknown): Obj {
  const h = isJsonObject(v) ? v : {};
  const out: Obj = { created: goTime(goField(h, 'created')) };
  for (const k of ['author', 'created_by', 'comment']) if (goStringField(h, k)) out[k] = goStringField(h, k);
  if (goField(h, 'empty_layer') === true) out.empty_layer = true;
  return out;
}

/** The config as oc prints it; `size` is the sum of the image's layer sizes. */
export function ocImageConfig(config: Readonly<Obj>, size: number): Obj {
  const c = config as Obj;
  const out: Obj = { id: goStringField(c, 'id') };
  for (const k of ['parent', 'comment']) if (goStringField(c, k)) out[k] = goStringField(c, k);
  out.created = goTime(goField(c, 'created'));
  if (goStringField(c, 'container')) out.container = goStringField(c, 'container');
  out.container_config = dockerConfig(goField(c, 'container_config'));
  for (const k of ['docker_version', 'author']) if (goStringField(c, k)) out[k] = goStringField(c, k);
  const cfg = goField(c, 'config');
  if (isJsonObject(cfg)) out.config = dockerConfig(cfg);
  if (goStringField(c, 'architecture')) out.architecture = goStringField(c, 'architecture');
  if (size !== 0) out.size = size;
  const rootfs = goField(c, 'rootfs');
  if (isJsonObject(rootfs)) {
    const r: Obj = { type: goStringField(rootfs, 'type') };
    const ids = strings(goField(rootfs, 'diff_ids'));
    if (ids.length > 0) r.diff_ids = ids;
    out.rootfs = r;
  }
  const hist = goField(c, 'history');
  if (Array.isArray(hist) && hist.length > 0) out.history = hist.map(history);
  if (goStringField(c, 'os')) out.os = goStringField(c, 'os');
  if (goStringField(c, 'os.version')) out['os.version'] = goStringField(c, 'os.version');
  const features = strings(goField(c, 'os.features'));
  if (features.length > 0) out['os.features'] = features;
  return out;
}

/** release-metadata as decoded, whatever its fields hold. */
export type ReleaseMetadata = { kind?: unknown; version?: unknown; previous?: unknown; next?: unknown; metadata?: unknown };

/**
 * release-metadata as oc's `CincinnatiMetadata` holds it: `kind`, `version`, `previous` (`null` when absent),
 * `next` and `metadata` (each left out when empty; metadata's maps sorted).
 */
export function ocReleaseMetadata(md: ReleaseMetadata): Obj {
  const m = md as Obj;
  const out: Obj = { kind: goStringField(m, 'kind'), version: goStringField(m, 'version') };
  const previous = goField(m, 'previous');
  out.previous = Array.isArray(previous) ? strings(previous) : null;
  const next = strings(goField(m, 'next'));
  if (next.length > 0) out.next = next;
  const meta = goField(m, 'metadata');
  if (isJsonObject(meta) && Object.keys(meta).length > 0) out.metadata = goMapOrder(meta);
  return out;
}
