import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { osPullspec } from '../../src/payload/pullspec.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/payload', import.meta.url));
export const HEX = (c: string) => c.repeat(64);
/** `quay.io/x/os@sha256:` + 64 hex digits, checked as the payload writers take them. */
export const U = osPullspec(`quay.io/x/os@sha256:${HEX('c')}`);
export const V = osPullspec(
  'registry.svc.ci.openshift.org/rhcos/maipo@sha256:61dc83d6d27f4c1a2f3bda8cc4a5f8e1c3d5a9b7e6f4d2c1b0a9e8d7c6bacc1a',
);
export const W = osPullspec(`quay.io/y/os@sha256:${HEX('d')}`);
export const Z = osPullspec(`quay.io/z/os@sha256:${HEX('e')}`);
export const CM_FILE = '0000_30_machine-config-operator_05_osimageurl.yaml';

const made: string[] = [];

/** A temp folder, optionally with a fixture folder's files copied in. Removed by cleanup(). */
export async function tempDir(fixture?: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'osimage-payload-'));
  made.push(dir);
  if (fixture) await cp(join(FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

export async function cleanup(): Promise<void> {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

export const read = (path: string) => readFile(path, 'utf8');

/** Every file of a folder with its bytes, to prove nothing changed (temp files included). */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = await readFile(join(dir, name), 'utf8').catch(() => '<dir>');
  return out;
}

/** Lines that differ between two texts of the same line count. */
export function changedLines(a: string, b: string): Array<[string, string]> {
  const x = a.split('\n');
  const y = b.split('\n');
  if (x.length !== y.length) throw new Error(`line counts differ: ${x.length} vs ${y.length}`);
  return x.flatMap((l, i) => (l === y[i] ? [] : [[l, y[i]!] as [string, string]]));
}
