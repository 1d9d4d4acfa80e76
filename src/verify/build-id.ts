/**
 * RHCOS build ids over the years: `47.246`, `400.7.20190306.0`, `410.8.20190325.0`,
 * `412.86.202301311551-0`, `9.6.20260512-0`. They order by their numeric fields, left to right.
 */
export function parseBuildId(id: string): number[] | undefined {
  if (!/^\d+(?:[.-]\d+)*$/.test(id)) return undefined;
  return id.split(/[.-]/).map(Number);
}

/** <0 when a is older, >0 when newer, 0 when equal; undefined when either is not a build id. */
export function compareBuildIds(a: string, b: string): number | undefined {
  const pa = parseBuildId(a);
  const pb = parseBuildId(b);
  if (!pa || !pb) return undefined;
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** The build id in an `io.openshift.build.versions` annotation: `machine-os=<id>`. */
export function machineOsFromVersions(annotation: string | undefined): string | undefined {
  for (const part of (annotation ?? '').split(',')) {
    const [k, v] = part.split('=').map((s) => s.trim());
    if (k === 'machine-os' && v) return v;
  }
  return undefined;
}

/** A build id from an OS container's config labels, in the order ART's tools read them. */
export function buildIdFromLabels(labels: Record<string, string> | null | undefined): string | undefined {
  if (!labels) return undefined;
  const values = ['coreos.build.manifest-list-tag', 'org.opencontainers.image.version', 'version']
    .map((k) => labels[k])
    .filter((v): v is string => typeof v === 'string' && v !== '');
  return values.find((v) => parseBuildId(v)) ?? values[0];
}
