#!/usr/bin/env node
// memory.mjs [CASE...]: peak RSS of bin/osimage on hostile inputs, against the promise of staying under 300 MB.
// Each case builds its input in a temporary folder, runs the built CLI under GNU time (`/usr/bin/time -f %M`) and
// prints one row of a Markdown table: case, peak RSS, exit code, the first line of stderr. Not part of npm test:
// it writes a few GB of (mostly sparse) files and takes minutes. Build first:
//   flock /tmp/osimage-build.lock npm run build && node hack/probes/memory.mjs
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'bin', 'osimage');
const SAMPLE_RELEASE = `oci-archive:${join(ROOT, 'hack', 'sample', 'release.oci-archive')}`;
const LIMIT_KB = 300 * 1024;
const TIMEOUT_S = 60;

if (!existsSync('/usr/bin/time')) {
  console.error('memory.mjs: needs GNU time at /usr/bin/time (Debian package "time")');
  process.exit(2);
}

const tmp = mkdtempSync(join(tmpdir(), 'osimage-memory-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

/** Writes `count` copies of `chunk` (a string) to `file` without holding them all. */
function repeatTo(file, chunk, count, head = '') {
  const fd = openSync(file, 'w');
  writeSync(fd, head);
  const block = chunk.repeat(Math.max(1, Math.floor((1 << 20) / chunk.length)));
  const per = block.length / chunk.length;
  let left = count;
  while (left >= per) {
    writeSync(fd, block);
    left -= per;
  }
  if (left > 0) writeSync(fd, chunk.repeat(left));
  closeSync(fd);
}

/** A sparse file of `size` bytes (nothing written: it reads as zeros). */
function sparse(file, size) {
  writeFileSync(file, '');
  truncateSync(file, size);
}

/** A minimal `release new --from-dir` input: one operator folder, the input images listed. */
function payloadDir(name) {
  const dir = join(tmp, name);
  mkdirSync(join(dir, 'op'), { recursive: true });
  const digest = (c) => `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${c.repeat(64)}`;
  const tags = ['op', 'cluster-version-operator'].map((t, i) => ({ name: t, from: { kind: 'DockerImage', name: digest(String(i + 1)) } }));
  writeFileSync(
    join(dir, 'image-references'),
    JSON.stringify({ kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', spec: { tags } }),
  );
  writeFileSync(join(dir, 'op', '0000_50_op_00_ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: op\n');
  return dir;
}

/** A tar archive of regular files (name -> Buffer), ustar headers, as a release layer holds them. */
function tar(files) {
  const parts = [];
  for (const [name, data] of files) {
    const h = Buffer.alloc(512);
    h.write(name, 0, 100);
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\0' + '00', 257);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    parts.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** An `oci:` layout holding one release image whose release-manifests/image-references names `tags` images. */
function releaseLayout(name, tags) {
  const dir = join(tmp, name);
  mkdirSync(join(dir, 'blobs', 'sha256'), { recursive: true });
  const blob = (data) => {
    const d = createHash('sha256').update(data).digest('hex');
    writeFileSync(join(dir, 'blobs', 'sha256', d), data);
    return { digest: `sha256:${d}`, size: data.length };
  };
  const ref = (i) => `quay.io/x/y@sha256:${i.toString(16).padStart(64, '0')}`;
  const is = { kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', metadata: { name: '4.99.0' }, spec: { tags: [] } };
  const tagList = Array.from({ length: tags }, (_, i) => ({ name: `t${i}`, from: { kind: 'DockerImage', name: ref(i) } }));
  is.spec.tags = tagList;
  const metadata = { kind: 'cincinnati-metadata-v0', version: '4.99.0' };
  const raw = tar([
    ['release-manifests/image-references', Buffer.from(JSON.stringify(is))],
    ['release-manifests/release-metadata', Buffer.from(JSON.stringify(metadata))],
  ]);
  const layer = gzipSync(raw);
  const diffId = `sha256:${createHash('sha256').update(raw).digest('hex')}`;
  const config = blob(
    Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: { Labels: { 'io.openshift.release': '4.99.0' } },
        rootfs: { type: 'layers', diff_ids: [diffId] },
      }),
    ),
  );
  const l = blob(layer);
  const manifest = blob(
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...l }],
      }),
    ),
  );
  writeFileSync(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  writeFileSync(
    join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          ...manifest,
          annotations: { 'org.opencontainers.image.ref.name': 'latest' },
        },
      ],
    }),
  );
  return { ref: `oci:${dir}:latest`, layerBytes: layer.length };
}

/** A release browser folder whose channel `big` lists `count` builds. */
function buildsBrowser(count) {
  const dir = join(tmp, 'browser');
  mkdirSync(join(dir, 'big'), { recursive: true });
  repeatTo(join(dir, 'big', 'builds.json'), '{"id":"1","arches":["x86_64"]},', count - 1, '{"schema-version":"1.0.0","builds":[');
  const fd = openSync(join(dir, 'big', 'builds.json'), 'a');
  writeSync(fd, '{"id":"1","arches":["x86_64"]}],"timestamp":"2024-07-08T21:00:00Z"}');
  closeSync(fd);
  return dir;
}

/** A release browser folder whose channel `hist` has `builds` builds of `packages` packages each (commitmeta.json). */
function historyBrowser(builds, packages) {
  const dir = join(tmp, 'history');
  const ch = join(dir, 'hist');
  mkdirSync(ch, { recursive: true });
  const ids = Array.from({ length: builds }, (_, i) => `418.94.${202605000000 + (builds - i) * 100}-0`);
  writeFileSync(
    join(ch, 'builds.json'),
    JSON.stringify({ 'schema-version': '1.0.0', builds: ids.map((id) => ({ id, arches: ['x86_64'] })) }),
  );
  for (const [i, id] of ids.entries()) {
    const d = join(ch, id, 'x86_64');
    mkdirSync(d, { recursive: true });
    // Every package changes its release in every build: the most a history can be asked to hold.
    const pkglist = Array.from({ length: packages }, (_, k) => [`pkg${k}`, '0', `1.${k}.0`, `${builds - i}.el9`, 'x86_64']);
    writeFileSync(join(d, 'meta.json'), JSON.stringify({ buildid: id }));
    writeFileSync(join(d, 'commitmeta.json'), JSON.stringify({ 'rpmostree.rpmdb.pkglist': pkglist }));
  }
  return dir;
}

const out = (name) => join(tmp, `${name}-out`);

/** The cases: name, and a function that builds the input and returns the argv. */
const CASES = [
  [
    'release info -o go-template-file: {{.}} x 50,000',
    () => {
      const f = join(tmp, 'dots.tmpl');
      repeatTo(f, '{{.}}', 50_000);
      return ['release', 'info', '-o', `go-template-file=${f}`, SAMPLE_RELEASE];
    },
  ],
  [
    'release info -o jsonpath-file: {@} x 50,000',
    () => {
      const f = join(tmp, 'at.jsonpath');
      repeatTo(f, '{@}', 50_000);
      return ['release', 'info', '-o', `jsonpath-file=${f}`, SAMPLE_RELEASE];
    },
  ],
  [
    'release info -o go-template: 15 nested range (60 s)',
    () => {
      const f = join(tmp, 'nested.tmpl');
      writeFileSync(f, `${'{{range .references.spec.tags}}'.repeat(15)}{{.name}}${'{{end}}'.repeat(15)}`);
      return ['release', 'info', '-o', `go-template-file=${f}`, SAMPLE_RELEASE];
    },
  ],
  [
    'release info -o json: 200,000 tags in image-references',
    () => ['release', 'info', '-o', 'json', releaseLayout('tags200k', 200_000).ref],
  ],
  ['release info (text): 200,000 tags in image-references', () => ['release', 'info', releaseLayout('tags200k-text', 200_000).ref]],
  [
    'packages --history: 100 builds of 20,000 packages',
    () => [
      'packages',
      '--base-url',
      historyBrowser(100, 20_000),
      '--channel',
      'hist',
      '--history',
      '--package',
      'pkg19999',
      '--limit',
      '100',
      '--no-cache',
    ],
  ],
  ['builds: 1.4M builds in builds.json', () => ['builds', '--base-url', buildsBrowser(1_400_000), '--channel', 'big']],
  [
    'stream --check --target: a 200 MB target',
    () => {
      const f = join(tmp, 'target.json');
      repeatTo(f, ' ', 200 * 1024 * 1024 - 2, '{');
      const fd = openSync(f, 'a');
      writeSync(fd, '}');
      closeSync(fd);
      return ['stream', '--base-url', join(ROOT, 'hack', 'sample', 'releases'), '--channel', 'rhcos-4.16', '--check', '--target', f];
    },
  ],
  [
    'release new --from-dir: a 1.5 GiB operator file (sparse)',
    () => {
      const dir = payloadDir('big-operator-file');
      sparse(join(dir, 'op', '0000_50_op_01_big.yaml'), 1.5 * 1024 ** 3);
      return ['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', out('big-operator-file')];
    },
  ],
  [
    'release new --mapping-file: a 1.5 GiB mapping file (sparse)',
    () => {
      const dir = payloadDir('big-mapping');
      const f = join(tmp, 'mapping-sparse.txt');
      sparse(f, 1.5 * 1024 ** 3);
      return ['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--mapping-file', f, '--to-dir', out('big-mapping')];
    },
  ],
  [
    'release new --from-dir: a 300 MB YAML manifest',
    () => {
      const dir = payloadDir('yaml300');
      repeatTo(join(dir, 'op', '0000_50_op_02_big.yaml'), '  - x\n', 50 * 1024 * 1024, 'apiVersion: v1\nkind: List\nitems:\n');
      return ['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', out('yaml300')];
    },
  ],
  [
    'release new --from-dir: a 15 MB YAML manifest (under the 16 MiB bound)',
    () => {
      const dir = payloadDir('yaml15');
      repeatTo(join(dir, 'op', '0000_50_op_02_big.yaml'), '  - {a: "x"}\n', 1_150_000, 'apiVersion: v1\nkind: List\nitems:\n');
      return ['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', out('yaml15')];
    },
  ],
  [
    'release new --from-dir: a 15 MB YAML manifest the full parser must read',
    () => {
      const dir = payloadDir('yaml15-full');
      repeatTo(join(dir, 'op', '0000_50_op_02_big.yaml'), '  - &a {a: "x"}\n', 950_000, 'apiVersion: v1\nkind: List\nitems:\n');
      return ['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', out('yaml15-full')];
    },
  ],
  [
    'release new --from-dir: a 15 MB JSON manifest',
    () => {
      const dir = payloadDir('json15');
      const f = join(dir, 'op', '0000_50_op_02_big.json');
      repeatTo(f, '{"a":"x"},', 1_500_000, '{"apiVersion":"v1","kind":"List","items":[');
      const fd = openSync(f, 'a');
      writeSync(fd, '{}]}');
      closeSync(fd);
      return ['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', out('json15')];
    },
  ],
  [
    'release new --from-dir: a 500 KB YAML manifest the full parser must read (its most)',
    () => {
      const dir = payloadDir('yaml500k-full');
      repeatTo(join(dir, 'op', '0000_50_op_02_big.yaml'), '  - &a [1]\n', 46_000, 'apiVersion: v1\nkind: List\nitems:\n');
      return ['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', out('yaml500k-full')];
    },
  ],
  [
    'release new --from-dir: a 16 MB JSON manifest of empty lists',
    () => {
      const dir = payloadDir('json-dense');
      const f = join(dir, 'op', '0000_50_op_02_big.json');
      repeatTo(f, '[],', 5_500_000, '{"apiVersion":"v1","kind":"List","items":[');
      const fd = openSync(f, 'a');
      writeSync(fd, '[]]}');
      closeSync(fd);
      return ['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', out('json-dense')];
    },
  ],
  [
    'release new --mapping-file: 1M lines',
    () => {
      const dir = payloadDir('mapping1m');
      const f = join(tmp, 'mapping-1m.txt');
      const fd = openSync(f, 'w');
      for (let i = 0; i < 1_000_000; i += 10_000) {
        let chunk = '';
        for (let j = i; j < i + 10_000; j++) chunk += `t${j}=q.io/y:${j}\n`;
        writeSync(fd, chunk);
      }
      closeSync(fd);
      return ['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--mapping-file', f, '--to-dir', out('mapping1m')];
    },
  ],
  [
    'release new --from-dir: 20,000 small manifests',
    () => {
      const dir = join(tmp, 'many');
      spawnSync(process.execPath, [join(ROOT, 'hack', 'probes', 'many-manifests.mjs'), dir, '20000'], { stdio: 'inherit' });
      return ['release', 'new', '--from-dir', dir, '--name', '4.99.0', '--to-dir', out('many')];
    },
  ],
];

const only = process.argv.slice(2);
const rows = [];
for (const [name, build] of CASES) {
  if (only.length > 0 && !only.some((o) => name.includes(o))) continue;
  const argv = build();
  // timeout(1) runs between time and osimage, so a run past the limit is stopped, and GNU time still reports the
  // peak of its descendants.
  const r = spawnSync('/usr/bin/time', ['-f', '%M', 'timeout', String(TIMEOUT_S), BIN, ...argv], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const lines = (r.stderr ?? '').trimEnd().split('\n');
  // GNU time's line is the last; a killed run has none.
  const last = lines[lines.length - 1] ?? '';
  const kb = /^\d+$/.test(last) ? Number(last) : undefined;
  if (kb !== undefined) lines.pop();
  // The first error line when there is one (release new says `info:` first), else the first line.
  const said = lines.filter((l) => l.trim() !== '' && !l.startsWith('Command exited'));
  const first = (said.find((l) => l.startsWith('error')) ?? said[0] ?? '').slice(0, 200);
  const code = r.status === 124 ? `stopped after ${TIMEOUT_S} s` : String(r.status);
  const rss = kb === undefined ? '?' : `${(kb / 1024).toFixed(0)} MB${kb > LIMIT_KB ? ' **over**' : ''}`;
  rows.push(`| ${name} | ${rss} | ${code} | ${first.replaceAll('|', '\\|').replaceAll(tmp, 'TMP')} |`);
  console.error(rows[rows.length - 1]);
  for (const f of readdirSync(tmp)) rmSync(join(tmp, f), { recursive: true, force: true });
}
console.log('| case | peak RSS | exit | first stderr line |');
console.log('| --- | --- | --- | --- |');
for (const row of rows) console.log(row);
