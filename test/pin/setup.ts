import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { SAMPLE_RELEASES, REPO } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';

export const RELEASE_SH = join(REPO, 'hack/release.sh');
export const NEWEST_412 = '412.86.202301311551-0';
export const OLDER_412 = '412.86.202301250001-0';

/** A temp folder with a copy of the sample release browser served over real HTTP, and a work folder. */
export interface Sandbox {
  dir: string;
  /** The copy of hack/sample/releases the server serves (tests may edit it). */
  releases: string;
  /** A folder for scripts and snapshots. */
  work: string;
  server: FileServer;
  close(): Promise<void>;
}

export async function sandbox(): Promise<Sandbox> {
  const dir = await mkdtemp(join(tmpdir(), 'osimage-pin-'));
  const releases = join(dir, 'releases');
  const work = join(dir, 'work');
  await cp(SAMPLE_RELEASES, releases, { recursive: true });
  await mkdir(work);
  await cp(RELEASE_SH, join(work, 'release.sh'));
  const server = await serveFolder(releases);
  return {
    dir,
    releases,
    work,
    server,
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A sandbox plus the paths the CLI tests use: the copied release script, its snapshot, and its bytes before the test. */
export interface ScriptSandbox {
  sb: Sandbox;
  script: string;
  meta: string;
  original: string;
}

/** A fresh ScriptSandbox for each test of the file (closed after it), after `prepare` ran on it. */
export function eachScriptSandbox(prepare?: (s: ScriptSandbox) => Promise<void>): ScriptSandbox {
  const current = {} as ScriptSandbox;
  beforeEach(async () => {
    Object.assign(current, await scriptSandbox());
    await prepare?.(current);
  });
  afterEach(async () => current.sb.close());
  return current;
}

export async function scriptSandbox(): Promise<ScriptSandbox> {
  const sb = await sandbox();
  const script = join(sb.work, 'release.sh');
  return { sb, script, meta: join(sb.work, 'rhcos.json'), original: await readFile(script, 'utf8') };
}

/** The RHEL 10 stream the dual-stream tests pin: channel and its two builds (CoreOS-layer ids, 2026). */
export const RHEL10_CHANNEL = 'rhel-10.2/builds';
export const RHEL10_OLDER = '10.2.20260212-0';
export const RHEL10_NEWEST = '10.2.20260217-0';

/** meta.json of a 2026 multi-arch build: layered containers with manifest-list digests, and its cloud images. */
export function rhel10Meta(build: string, hex: string): Record<string, unknown> {
  const d = (c: string) => `sha256:${c.repeat(64)}`;
  return {
    buildid: build,
    name: 'rhcos',
    'ostree-commit': hex.repeat(64),
    'ostree-version': build,
    images: { qemu: { path: `rhcos-${build}-qemu.x86_64.qcow2.gz`, sha256: hex.repeat(64), size: 1_234_567 } },
    amis: [{ name: 'us-east-1', hvm: `ami-0${hex.repeat(16)}`, snapshot: `snap-0${hex.repeat(16)}` }],
    azure: {
      image: `rhcos-${build}-azure.x86_64.vhd`,
      url: `https://rhcos.blob.core.windows.net/imagebucket/rhcos-${build}-azure.x86_64.vhd`,
    },
    gcp: {
      image: `rhcos-${build.replace(/\./g, '-')}-gcp-x86-64`,
      project: 'rhcos-cloud',
      url: `https://storage.googleapis.com/rhcos/rhcos/${build}.tar.gz`,
    },
    'base-oscontainer': {
      image: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev',
      digest: d(hex),
      'manifest-list-digest': d('c'),
      tags: [`${build}-coreos`, '10.2-coreos'],
    },
    'extensions-container': {
      image: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev',
      digest: d('e'),
      'manifest-list-digest': d('f'),
      tags: [`${build}-coreos-extensions`],
    },
  };
}

/** Add the RHEL 10 stream (per-arch layout, x86_64 only) to a sandbox's release browser. */
export async function addRhel10Stream(releases: string): Promise<void> {
  const dir = join(releases, RHEL10_CHANNEL);
  await mkdir(dir, { recursive: true });
  const builds = [RHEL10_NEWEST, RHEL10_OLDER].map((id) => ({ id, arches: ['x86_64'] }));
  await writeFile(join(dir, 'builds.json'), JSON.stringify({ 'schema-version': '1.0.0', builds, timestamp: '2026-02-17T12:00:00Z' }));
  for (const [build, hex] of [
    [RHEL10_NEWEST, 'b'],
    [RHEL10_OLDER, 'a'],
  ] as const) {
    await mkdir(join(dir, build, 'x86_64'), { recursive: true });
    await writeFile(join(dir, build, 'x86_64', 'meta.json'), JSON.stringify(rhel10Meta(build, hex)));
  }
}
