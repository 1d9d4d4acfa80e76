import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

export async function scriptSandbox(): Promise<ScriptSandbox> {
  const sb = await sandbox();
  const script = join(sb.work, 'release.sh');
  return { sb, script, meta: join(sb.work, 'rhcos.json'), original: await readFile(script, 'utf8') };
}
