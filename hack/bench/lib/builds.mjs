/**
 * A release browser for the resolve benchmark: a coreos-assembler schema 1.x `builds.json` with many builds
 * (newest first, four arches each) and a meta.json for any build, served by a local HTTP server.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

const ARCHES = ['x86_64', 'aarch64', 's390x', 'ppc64le'];

/** Build ids like 416.94.202601141512-0, newest first, one every ~3 hours going back in time. */
export function buildIds(count) {
  const ids = [];
  let t = Date.UTC(2026, 0, 14, 15, 12);
  for (let i = 0; i < count; i++) {
    const d = new Date(t);
    const stamp = `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}${String(d.getUTCHours()).padStart(2, '0')}${String(d.getUTCMinutes()).padStart(2, '0')}`;
    ids.push(`416.94.${stamp}-${i % 3 === 0 ? 1 : 0}`);
    t -= (3 * 60 + (i % 7) * 11) * 60 * 1000;
  }
  return ids;
}

export function buildsJson(ids) {
  return JSON.stringify(
    {
      'schema-version': '1.0.0',
      builds: ids.map((id, i) => ({ id, arches: i % 10 === 9 ? ['x86_64'] : ARCHES })),
      timestamp: '2026-01-14T15:40:00Z',
    },
    null,
    2,
  );
}

const sha = (s) => createHash('sha256').update(s).digest('hex');

/** A coreos-assembler meta.json for a build and arch. */
export function metaJson(id, arch) {
  return JSON.stringify(
    {
      buildid: id,
      name: 'rhcos',
      'coreos-assembler.basearch': arch,
      'ostree-commit': sha(`commit ${id}`),
      'ostree-timestamp': '2026-01-14T15:12:00Z',
      'ostree-version': id,
      amis: ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2', 'eu-central-1', 'eu-west-1', 'ap-northeast-1', 'ap-south-1'].map(
        (name) => ({
          name,
          hvm: `ami-${sha(`${id} ${name}`).slice(0, 17)}`,
          snapshot: `snap-${sha(`snap ${id} ${name}`).slice(0, 17)}`,
        }),
      ),
      images: {
        qemu: {
          path: `rhcos-${id}-qemu.${arch}.qcow2.gz`,
          sha256: sha(`qemu ${id}`),
          size: 1234567890,
          'uncompressed-sha256': sha(`qemu raw ${id}`),
          'uncompressed-size': 2468013579,
        },
      },
      oscontainer: { image: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev', digest: `sha256:${sha(`oscontainer ${id}`)}` },
    },
    null,
    2,
  );
}

/** Serve `/<channel>/builds.json` and `/<channel>/<id>/<arch>/meta.json` on 127.0.0.1. */
export async function serveBuilds({ channel, count }) {
  const ids = buildIds(count);
  const known = new Set(ids);
  const builds = Buffer.from(buildsJson(ids));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === `/${channel}/builds.json`) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': builds.length }).end(builds);
      return;
    }
    const m = new RegExp(`^/${channel}/([^/]+)/([^/]+)/meta\\.json$`).exec(path);
    if (m && known.has(m[1]) && ARCHES.includes(m[2])) {
      const body = Buffer.from(metaJson(m[1], m[2]));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
      return;
    }
    res.writeHead(404, { 'content-length': 0 }).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    ids,
    buildsBytes: builds.length,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
