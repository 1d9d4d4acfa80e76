/**
 * The images and git repositories of the infoflag- pairs (`release info --size / --verify / --include-images /
 * --icsp-file / --dir / --changelog / --bugs`), beside images.mjs's set:
 *
 * Repository `ocp/art` on the registry: component images made the same way every time (so fixed digests),
 * sharing layers as real components do: cli and cluster-version-operator on one big base layer,
 * machine-config-operator (a manifest list: linux/amd64, linux/arm64) and the two OS images on another; the two
 * OS images share all their layers (rhel-coreos-extensions' config has no `created`).
 *
 * Releases in `ocp/release`, built for each run because they name the registry at hand (their digests vary):
 *   sized            4.13.1 whose tags are the ocp/art images on this registry
 *   sized-missing    the same with rhel-coreos-extensions at a digest the registry does not have
 *   sized-closed     the same images named on {{CLOSED}} (nothing listens): only mirrors find them
 *   changelog-from   4.13.0 and 4.13.1 whose images come from the repositories of makeChangelogRepos: the
 *   changelog-to     cluster-version-operator on github.com (the pairs put a clone under --changelog DIR) and oc
 *                    from this run's file:// repository (cloned by the command)
 *
 * `prepareInfoPair` makes a pair's folder: `info-icsp` (an ImageContentSourcePolicy mirroring {{CLOSED}}'s
 * ocp/release and ocp/art to this registry, {{DIR}}/icsp.yaml), `info-idms` (an ImageDigestMirrorSet mirroring
 * {{CLOSED}}/ocp and the repositories below it, {{DIR}}/idms.yaml), `info-file-dir` (4.13.1 in the folder layout of `oc image mirror
 * --dir`, under {{DIR}}/mirror), `info-clones` (the cluster-version-operator clone under {{DIR}}/changelog).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildLayer, jsonBlob } from '../../dist/release/build-layer.js';
import { ocTag } from '../../test/infra/image-stream.mjs';
import { FIXED_GIT_ENV } from './git-repos.mjs';
import { BASE_ENTRIES, CREATED, DOCKER, art, image, imageStream, list, metadata, os, releaseEntries } from './images.mjs';

const run = promisify(execFile);

const CVO_GITHUB = 'https://github.com/openshift/cluster-version-operator';

/** The merges of the cluster-version-operator repository after its first commit: [branch, merge message]. */
const CVO_MERGES = [
  ['fix1', 'Merge pull request #101 from dev/fix1\n\nBug 2000001: Fix the thing'],
  ['fix2', 'Merge pull request #102 from dev/fix2\n\nOCPBUGS-1234: Handle <foo> & bar'],
  ['fix3', 'Merge pull request #103 from dev/fix3\n\n[release-4.13] OCPBUGS-99, OCPBUGS-100: Backport the fix'],
  ['feat', 'Merge pull request #104 from dev/feat\n\nMCO-5: A feature'],
  ['misc', "Merge branch 'misc'"],
  ['empty', 'Merge pull request #105 from dev/empty'],
  ['bugs', 'Merge pull request #106 from dev/bugs\n\nBugs 2000002,2000003 - Two bugs\n\nMore text.'],
];

/** The commits of the oc repository, which squashes: no merges. */
const OC_COMMITS = [
  'Initial commit',
  'OCPBUGS-7: Squashed fix (#55)',
  'A commit without a pull request',
  'Bug 1999999: Another squash (#56)',
];

/**
 * Make the bare repositories `dir/cluster-version-operator.git` and `dir/oc.git`, the same on every run
 * (fixed names, dates and messages); returns their first and last commits.
 */
export async function makeChangelogRepos(dir) {
  await mkdir(dir, { recursive: true });
  // Each git command runs a minute after the one before: dates differ, and are the same on every run.
  let minute = 0;
  const repo = async (name, build) => {
    const work = await mkdtemp(join(dir, `work-${name}-`));
    const git = (args) => {
      const date = new Date(Date.UTC(2023, 3, 1) + 60_000 * minute++).toISOString().replace('.000', '');
      const env = { PATH: process.env.PATH, HOME: work, ...FIXED_GIT_ENV, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
      return run('git', args, { cwd: work, env }).then((r) => r.stdout.trim());
    };
    try {
      await git(['init', '-q', '-b', 'main']);
      const first = await build(git, work);
      const last = await git(['rev-parse', 'HEAD']);
      await git(['clone', '-q', '--bare', work, join(dir, `${name}.git`)]);
      return { first, last };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  };
  const commit = async (git, work, file, message) => {
    await writeFile(join(work, file), `${message}\n`);
    await git(['add', file]);
    await git(['commit', '-q', '-m', message]);
    return git(['rev-parse', 'HEAD']);
  };
  const cvo = await repo('cluster-version-operator', async (git, work) => {
    const first = await commit(git, work, 'README', 'Initial commit');
    for (const [branch, message] of CVO_MERGES) {
      await git(['checkout', '-q', '-b', branch, 'main']);
      await commit(git, work, `${branch}.txt`, `Work on ${branch}`);
      await git(['checkout', '-q', 'main']);
      await git(['merge', '-q', '--no-ff', '-m', message, branch]);
    }
    return first;
  });
  const oc = await repo('oc', async (git, work) => {
    let first;
    for (const [i, message] of OC_COMMITS.entries()) {
      const c = await commit(git, work, `file${i}.txt`, message);
      first ??= c;
    }
    return first;
  });
  return { dir, cvo, oc };
}

/** A deterministic, incompressible run of bytes (xorshift), so a layer has a size worth showing in MB. */
function noise(bytes, seed) {
  const out = Buffer.alloc(bytes);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

const entry = (name, data) => ({ name, data, mode: 0o644, mtime: new Date(CREATED) });

/** One component image: config (with `created` unless `created` is null) and manifest over `layers`. */
function component(layers, { arch = 'amd64', created = CREATED, name }) {
  const config = jsonBlob(
    {
      architecture: arch,
      config: { Labels: { 'io.openshift.build.name': name } },
      ...(created ? { created } : {}),
      os: 'linux',
      rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
    },
    DOCKER.config,
  );
  const layerBlobs = layers.map((l) => ({ ...l, descriptor: { ...l.descriptor, mediaType: DOCKER.layer } }));
  const manifest = jsonBlob(
    { schemaVersion: 2, mediaType: DOCKER.manifest, config: config.descriptor, layers: layerBlobs.map((l) => l.descriptor) },
    DOCKER.manifest,
  );
  return { manifest, blobs: [config, ...layerBlobs], platform: { architecture: arch, os: 'linux' } };
}

/** The component images, pushed as `ocp/art:<tag>`. */
async function components() {
  const big = await buildLayer([entry('usr/lib/big.bin', noise(1_300_000, 7))]);
  const small = await buildLayer([entry('usr/lib/small.bin', noise(200_000, 11))]);
  const top = async (name, bytes = 4096) => buildLayer([entry(`usr/bin/${name}`, noise(bytes, name.length * 31))]);
  const os1 = await top('rpm-ostree', 300_000);
  const os2 = await top('extensions', 50_000);
  const amd = component([small, await top('machine-config-daemon')], { name: 'machine-config-operator' });
  const arm = component([small, await top('machine-config-daemon-arm64')], { arch: 'arm64', name: 'machine-config-operator' });
  const single = {
    cli: component([big, await top('oc', 150_000)], { name: 'cli' }),
    'cluster-version-operator': component([big, await top('cluster-version-operator', 90_000)], { name: 'cluster-version-operator' }),
    'rhel-coreos': component([small, os1, os2], { name: 'rhel-coreos' }),
    'rhel-coreos-extensions': component([small, os1, os2], { name: 'rhel-coreos-extensions', created: null }),
  };
  const entries = Object.entries(single).map(([tag, img]) => ({ repo: 'ocp/art', tag, manifest: img.manifest, blobs: img.blobs }));
  entries.push({
    repo: 'ocp/art',
    tag: 'machine-config-operator',
    manifest: list([amd, arm], DOCKER.list),
    blobs: [],
    children: [amd, arm].map((i) => ({ manifest: i.manifest, blobs: i.blobs })),
  });
  return entries;
}

const RHCOS = '413.92.202305231734-0';

const source = (location, commit, versions) => ({
  'io.openshift.build.commit.id': commit,
  'io.openshift.build.commit.ref': '',
  'io.openshift.build.source-location': location,
  ...(versions ? { 'io.openshift.build.versions': versions } : {}),
});

/**
 * The run's releases (see the module comment): `host` the registry, `closed` the port nothing listens on,
 * `repos` what makeChangelogRepos returned.
 */
export async function buildInfoSet(host, closed, repos) {
  const comps = await components();
  const digestOf = (tag) => comps.find((e) => e.tag === tag).manifest.descriptor.digest;
  const gh = (repo, commit) => source(`https://github.com/openshift/${repo}`, commit);
  const tagsOn = (h, override = {}) => [
    ocTag('cli', `${h}/ocp/art@${digestOf('cli')}`, gh('oc', 'a'.repeat(40))),
    ocTag(
      'cluster-version-operator',
      `${h}/ocp/art@${digestOf('cluster-version-operator')}`,
      gh('cluster-version-operator', 'b'.repeat(40)),
    ),
    ocTag('machine-config-operator', `${h}/ocp/art@${digestOf('machine-config-operator')}`, gh('machine-config-operator', 'c'.repeat(40))),
    ocTag('rhel-coreos', `${h}/ocp/art@${digestOf('rhel-coreos')}`, os(RHCOS)),
    ocTag('rhel-coreos-extensions', override.extensions ?? `${h}/ocp/art@${digestOf('rhel-coreos-extensions')}`, os(RHCOS)),
  ];
  const meta = (v, previous) => metadata(v, previous, 'https://access.redhat.com/errata/RHSA-2023:3304');
  const base = await buildLayer(BASE_ENTRIES);
  const release = async (is, m) =>
    image({ layers: [base, await buildLayer(releaseEntries(is, m))], labels: { 'io.openshift.release': m.version }, types: DOCKER });
  const missing = `${host}/ocp/art@sha256:${'e'.repeat(64)}`;

  const oc = `file://${repos.dir}/oc.git`;
  const fromStream = imageStream('4.13.0', [
    ocTag('cli', art('1'), source(oc, repos.oc.first, 'kubectl=1.26.1')),
    ocTag('cluster-version-operator', art('2'), source(CVO_GITHUB, repos.cvo.first)),
    ocTag('cluster-version-operator-tests', art('3'), source(CVO_GITHUB, repos.cvo.first)),
    ocTag('machine-config-operator', art('4'), gh('machine-config-operator', 'c'.repeat(40))),
    ocTag('removed-operator', art('7'), gh('removed-operator', 'd'.repeat(40))),
    ocTag('rhel-coreos', art('5'), os('413.92.202305010000-0')),
    ocTag('unchanged', art('8'), gh('unchanged', '9'.repeat(40))),
  ]);
  const toStream = imageStream('4.13.1', [
    ocTag('cli', art('a1'), source(oc, repos.oc.last, 'kubectl=1.26.3')),
    ocTag('cluster-version-operator', art('a2'), source(CVO_GITHUB, repos.cvo.last)),
    ocTag('cluster-version-operator-tests', art('a3'), source(CVO_GITHUB, repos.cvo.last)),
    ocTag('machine-config-operator', art('a4'), gh('machine-config-operator', 'c'.repeat(40))),
    ocTag('new-operator', art('a9'), gh('new-operator', 'e'.repeat(40))),
    ocTag('rhel-coreos', art('a5'), os(RHCOS)),
    ocTag('unchanged', art('8'), gh('unchanged', '9'.repeat(40))),
  ]);
  toStream.metadata.annotations['release.openshift.io/from-release'] =
    'registry.ci.openshift.org/ocp/release:4.13.0-0.nightly-2023-05-24-134135';

  const releases = {
    sized: await release(imageStream('4.13.1', tagsOn(host)), meta('4.13.1', ['4.13.0'])),
    'sized-missing': await release(imageStream('4.13.1', tagsOn(host, { extensions: missing })), meta('4.13.1', ['4.13.0'])),
    'sized-closed': await release(imageStream('4.13.1', tagsOn(closed)), meta('4.13.1', ['4.13.0'])),
    'changelog-from': await release(fromStream, meta('4.13.0', ['4.12.16'])),
    'changelog-to': await release(toStream, meta('4.13.1', ['4.12.16', '4.13.0'])),
  };
  const entries = [
    ...comps,
    ...Object.entries(releases).map(([tag, img]) => ({ repo: 'ocp/release', tag, manifest: img.manifest, blobs: img.blobs })),
  ];
  return { entries, digests: Object.fromEntries(entries.map((e) => [`${e.repo}:${e.tag}`, e.manifest.descriptor.digest])) };
}

/** Write one image of the set (`entry` of a set's entries) in the layout of `oc image mirror --dir DIR`. */
async function writeFileLayout(dir, e) {
  const repo = join(dir, 'v2', ...e.repo.split('/'));
  await mkdir(join(repo, 'manifests'), { recursive: true });
  await mkdir(join(repo, 'blobs'), { recursive: true });
  const put = async (m) => {
    await writeFile(join(repo, 'manifests', m.descriptor.digest), m.bytes, { mode: 0o600 });
    await writeFile(join(repo, 'blobs', m.descriptor.digest), m.bytes, { mode: 0o600 });
  };
  for (const child of e.children ?? []) {
    await put(child.manifest);
    for (const b of child.blobs) await writeFile(join(repo, 'blobs', b.descriptor.digest), b.bytes, { mode: 0o600 });
  }
  await put(e.manifest);
  for (const b of e.blobs) await writeFile(join(repo, 'blobs', b.descriptor.digest), b.bytes, { mode: 0o600 });
  await symlink(e.manifest.descriptor.digest, join(repo, 'manifests', e.tag));
}

/** A pair's setup `info-…` in its folder `pairDir`; `env` is lib.mjs's environment. */
export async function prepareInfoPair(setup, pairDir, env) {
  if (setup === 'info-icsp') {
    const mirrors = ['ocp/release', 'ocp/art'].map((r) => `  - source: ${env.closed}/${r}\n    mirrors:\n    - ${env.registry}/${r}\n`);
    const text = `apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: release\nspec:\n  repositoryDigestMirrors:\n${mirrors.join('')}`;
    await writeFile(join(pairDir, 'icsp.yaml'), text);
  } else if (setup === 'info-idms') {
    // One rule for a parent repository: it covers ocp/release and ocp/art below it.
    const text = `apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: release\nspec:\n  imageDigestMirrors:\n  - source: ${env.closed}/ocp\n    mirrors:\n    - ${env.registry}/ocp\n`;
    await writeFile(join(pairDir, 'idms.yaml'), text);
  } else if (setup === 'info-file-dir') {
    await writeFileLayout(
      join(pairDir, 'mirror'),
      env.info.set.entries.find((e) => e.repo === 'ocp/release' && e.tag === '4.13.1'),
    );
  } else if (setup === 'info-clones') {
    const path = join(pairDir, 'changelog', 'github.com', 'openshift', 'cluster-version-operator');
    await run('git', ['clone', '-q', join(env.info.repos.dir, 'cluster-version-operator.git'), path], {
      env: { PATH: process.env.PATH, HOME: pairDir, ...FIXED_GIT_ENV },
    });
  } else {
    throw new Error(`setup ${setup}?`);
  }
}
