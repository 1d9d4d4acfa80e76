#!/usr/bin/env node
// Records oc 4.13's `oc adm release new --from-release …` for every case of cases.yaml into
// test/fixtures/oc/from-release/<name>.json (stdout, stderr, exit code, the files written with --to-dir, the image
// pushed with --to-image), templated ({{REGISTRY}}, {{DIR}}, {{NOW}}, {{RELEASE_DIGEST:tag}}, {{MASK}}).
// test/oc/from-release.test.ts replays them against osimage; no oc is needed there.
//
//   node hack/oc-compare/from-release/record.mjs [--oc /tmp/ocb/bin/oc] [--images] [--inputs] [NAME...]
//
// Needs docker-registry (/usr/bin/docker-registry) and oc v4.13 (hack/oc-compare/README.md builds it). Steps:
//  1. the component images: test/fixtures/oc/from-release/images.json, built by images.mjs when absent or with
//     --images (their digests appear in every recording: rebuilding them means re-recording everything);
//  2. a fresh registry on 127.0.0.1 with them pushed;
//  3. the input releases' release-manifests/ (test/fixtures/oc/from-release/input/<name>/), made by oc itself when
//     absent or with --inputs: `oc adm release new -f <ImageStream file> --reference-mode=source --to-dir`, then
//     image-references gets a fixed creationTimestamp and a from-image-stream annotation, and the registry is
//     templated;
//  4. the release images (lib.mjs RELEASES) built over them and pushed;
//  5. every case (or the NAMEs given), run by oc with a HOME of its own.
// Prints each case's exit code, and whether canonical-to-dir reproduced the input release's files exactly.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRegistryServer } from '../../../test/infra/registry-server.mjs';
import { buildImages } from './images.mjs';
import {
  caseFolders,
  exists,
  FIXTURES,
  fixtureFile,
  IMAGES_FILE,
  INPUT_DIR,
  loadCases,
  loadImageSet,
  pushAll,
  pushImage,
  RELEASE_CREATED,
  REPO,
  runCase,
  saveImageSet,
  storedImage,
} from './lib.mjs';

const argv = process.argv.slice(2);
const take = (flag) => {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv.splice(i, 2)[1] : undefined;
};
const flag = (f) => {
  const i = argv.indexOf(f);
  if (i >= 0) argv.splice(i, 1);
  return i >= 0;
};
const OC = take('--oc') ?? process.env.OC ?? '/tmp/ocb/bin/oc';
const rebuildImages = flag('--images');
const rebuildInputs = flag('--inputs');
const only = new Set(argv);

const home = await mkdtemp(join(tmpdir(), 'oc-home-'));
const ocEnv = { PATH: process.env.PATH, HOME: home, KUBECONFIG: join(home, 'no-kubeconfig') };

function oc(args) {
  return new Promise((resolve) => {
    execFile(OC, ['adm', 'release', ...args], { cwd: REPO, env: ocEnv, timeout: 180_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ stdout, stderr, exitCode: err ? (typeof err.code === 'number' ? err.code : -1) : 0 }),
    );
  });
}

/** The input releases: which tags, and oc's extra flags. */
const INPUTS = {
  '4.13.1': { include: [] },
  '4.13.1-extra': { include: ['tests'] },
};
const INPUT_TAGS = [
  'cli',
  'cluster-version-operator',
  'console',
  'console-operator',
  'insights-operator',
  'machine-config-operator',
  'rhel-coreos',
  'rhel-coreos-extensions',
];

/** Let oc write the release-manifests/ of an input release, then fix its time and template the registry. */
async function makeInput(name, spec, registry, set, work) {
  const tags = [...INPUT_TAGS, ...spec.include];
  const is = {
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: '4.13-art-latest-2023-05-24-134135', namespace: 'ocp' },
    spec: { tags: tags.map((t) => ({ name: t, from: { kind: 'DockerImage', name: `${registry}/ocp/art-dev@${set.digestOf(t)}` } })) },
  };
  const isFile = join(work, `${name}.is.json`);
  await writeFile(isFile, JSON.stringify(is, null, 2));
  const out = join(work, `${name}-out`);
  const args = [
    'new',
    '--insecure',
    '-f',
    isFile,
    '--reference-mode=source',
    '--name',
    '4.13.1',
    '--previous',
    '4.12.16,4.12.17,4.13.0',
    '--metadata',
    '{"url":"https://access.redhat.com/errata/RHSA-2023:3304"}',
    ...spec.include.flatMap((t) => ['--include', t]),
    '--to-dir',
    out,
  ];
  const r = await oc(args);
  if (r.exitCode !== 0) throw new Error(`oc ${args.join(' ')}: exit ${r.exitCode}\n${r.stderr}`);
  console.log(`input ${name}: oc adm release ${args.join(' ').split(registry).join('{{REGISTRY}}')}\n${r.stderr.trimEnd()}`);
  const dest = join(INPUT_DIR, name);
  await rm(dest, { recursive: true, force: true });
  await mkdir(dest, { recursive: true });
  const mtimes = { newest: '', files: {} };
  for (const f of (await readdir(out)).sort()) {
    let text = await readFile(join(out, f), 'utf8');
    const mtime = new Date((await stat(join(out, f))).mtimeMs).toISOString().replace('.000Z', 'Z');
    if (f === 'image-references') {
      const ref = JSON.parse(text);
      ref.metadata = {
        name: ref.metadata.name,
        creationTimestamp: RELEASE_CREATED,
        annotations: { 'release.openshift.io/from-image-stream': 'ocp/4.13-art-latest-2023-05-24-134135' },
      };
      text = JSON.stringify(ref, null, 2);
      mtimes.newest = mtime;
    }
    mtimes.files[f] = mtime;
    await writeFile(join(dest, f), text.split(registry).join('{{REGISTRY}}'));
  }
  await writeFile(join(dest, '.mtimes.json'), `${JSON.stringify(mtimes, null, 2)}\n`);
}

const version = await new Promise((resolve) =>
  execFile(OC, ['version', '--client'], (err, stdout) => resolve(err ? `unknown (${err.message})` : stdout.trim())),
);

if (rebuildImages || !(await exists(IMAGES_FILE))) {
  await saveImageSet(await buildImages());
  console.log(`wrote ${IMAGES_FILE}`);
}
const set = await loadImageSet();
const folders = await caseFolders();
const server = await startRegistryServer({ dir: folders.dir, logLevel: 'error' });
try {
  const registry = server.host;
  for (const i of set.images) await pushImage(registry, i.repo, i.tag, storedImage(set, i.name));
  for (const [name, spec] of Object.entries(INPUTS)) {
    if (rebuildInputs || !(await exists(join(INPUT_DIR, name)))) await makeInput(name, spec, registry, set, folders.dir);
  }
  const pushed = await pushAll(registry, set);
  const env = { registry, dir: folders.dir, ...pushed };
  await mkdir(FIXTURES, { recursive: true });
  for (const c of await loadCases()) {
    if (only.size && !only.has(c.name)) continue;
    const r = await runCase(c, env, oc);
    // oc's `info: Loading` lines come in the order its parallel pulls end: keep the recorded order when only that
    // changed, so a re-recording does not churn.
    const before = await readFile(fixtureFile(c.name), 'utf8').then(JSON.parse, () => undefined);
    const lines = (s) => s.split('\n').sort().join('\n');
    if (before && before.stderr !== r.stderr && lines(before.stderr) === lines(r.stderr)) r.stderr = before.stderr;
    const record = { name: c.name, about: c.about, command: ['oc', 'adm', 'release', ...c.args], ...r };
    await writeFile(fixtureFile(c.name), `${JSON.stringify(record, null, 2)}\n`);
    console.log(`${String(r.exitCode).padStart(3)}  ${c.name}`);
    if (c.name === 'canonical-to-dir') {
      const input = join(INPUT_DIR, '4.13.1');
      const want = (await readdir(input)).filter((n) => !n.startsWith('.')).sort();
      const got = (r.files ?? []).map((f) => f.name);
      const same =
        JSON.stringify(want) === JSON.stringify(got) &&
        (await Promise.all(want.map(async (n, i) => (await readFile(join(input, n), 'utf8')) === r.files[i].text))).every(Boolean);
      console.log(`     canonical-to-dir ${same ? 'reproduces' : 'DOES NOT reproduce'} the input release's files`);
    }
  }
  await writeFile(join(FIXTURES, 'VERSION'), `${version}\n`);
} finally {
  await server.stop();
  await folders.stop();
  await rm(home, { recursive: true, force: true });
}
